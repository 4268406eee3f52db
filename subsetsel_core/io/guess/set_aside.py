"""Which columns of a wide table are not tasks, by evidence: :func:`set_aside_columns`.

A column is set aside, with its reason, when it is empty, text, dates or sizes; when it is
named as an average, a rank, a win rate or the spread of a score (``acc_stderr``); when it
equals the row mean of the task columns (or that mean in percent); when it ranks the rows; when
it is on another scale or of another type than the task columns (:mod:`.scales`: percent next to
0–1 scores, counts such as GFLOPS or parameter sizes). A column whose evidence is weak (a task
scored twice, a column on its own scale among few tasks) is read as a task and listed in
``unsure`` with what would set it aside. What a rank or win-rate column says about the
direction is returned as a hint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.aggregates import aggregate_hints, is_aggregate, is_rank
from subsetsel_core.io.guess.column_kinds import (
    Column,
    derived,
    maybe_rank,
    named_derived,
    parse_dates,
)
from subsetsel_core.io.guess.header_words import has_word, tokens
from subsetsel_core.io.guess.metric_names import ARROW_HINT, MetricName, arrow_of, metric_of
from subsetsel_core.io.guess.partial_means import (
    MAX_COLUMNS,
    complements,
    differences,
    metric_twins,
    partial_means,
    raw_twins,
    spreads,
)
from subsetsel_core.io.guess.result import SetAside
from subsetsel_core.io.guess.scales import ATTRIBUTE_WORDS, correlations, named_count, other_scales
from subsetsel_core.io.score_format import check_roles
from subsetsel_core.io.table_shape import file_line
from subsetsel_core.text.rounding import text

_RELEASE = ("release", "released", "date", "published")
_NOT_RELEASE = ("cutoff", "knowledge", "training", "trained")
_SCALES = ((0.0, 1.0, "0–1"), (0.0, 100.0, "0–100"))
_ARROWS = re.compile("[↑⬆▲↓⬇▼\ufe0f]")
_BLOCK = 256  # columns checked against the row mean at a time
_WIN = ("win", "winrate", "wins")
@dataclass(frozen=True)
class Aside:
    """What :func:`set_aside_columns` found.

    Attributes
    ----------
    set_aside : tuple of SetAside
    values : list of str
        The score (task) columns.
    hints : list of (str, bool)
        Direction evidence from rank and win-rate columns.
    unsure : list of str
        ``"set_aside: …"`` / ``"release_column: …"`` entries.
    release : str or None
        The release-date column.
    """

    set_aside: tuple[SetAside, ...]
    values: list[str]
    hints: list[tuple[str, bool]]
    unsure: list[str]
    release: str | None


def _reason(col: Column, release: bool) -> str | None:
    """Why a column that is not a number column is set aside (None: it is a number column)."""
    if col.kind == "empty":
        return "empty"
    if col.kind == "date":
        return "dates → release dates" if release else "dates"
    if col.kind == "size":
        return "sizes"
    if col.kind == "text":
        return "text"
    return None


def _metric_words(header: str) -> MetricName | None:
    """The metric a header names by its words (an arrow alone, ``RTFx ⬆️``, names none: it says
    which way the column is better, not that it is a task)."""
    m = metric_of(header)
    if m is not None and arrow_of(header) is not None and metric_of(_ARROWS.sub("", header).strip()) is None:
        return None
    return m


def _constant(col: Column) -> bool:
    v = col.numbers[np.isfinite(col.numbers)]
    return v.size >= 3 and bool(np.all(v == v[0]))


def _fmt(x: float) -> str:
    return text(x, "score")


def _scale(v: np.ndarray) -> str:
    fin = v[np.isfinite(v)]
    if fin.size == 0:
        return "none"
    lo, hi = float(fin.min()), float(fin.max())
    for a, b, name in _SCALES:
        if lo >= a and hi <= b:
            return name
    return "other"


def _release(df: pd.DataFrame, kinds: Mapping[str, Column], rest: Sequence[str], release: str | None,
             by_model: bool, given: bool, label: str, reasons: dict[str, str], unsure: list[str]) -> str | None:
    dates = [c for c in rest if kinds[c].kind == "date"]
    if release is None and by_model:
        other = [c for c in dates if has_word(c, _NOT_RELEASE)]  # a knowledge cutoff is no release date
        for c in other:
            reasons[c] = "dates (named as a training-data cutoff, not release dates)"
        dates = [c for c in dates if c not in other]
        release = next((c for c in dates if has_word(c, _RELEASE)), dates[0]) if dates else None
    if release is None:
        return None
    parsed = parse_dates(df[release])
    if parsed.notna().mean() < 0.5:
        raise InputError(f"{label}: '{release}' does not hold dates (fewer than half its cells are dates); name the "
                         "column of model release dates, written as YYYY-MM-DD.", field="release_column")
    distinct = parsed.dropna().unique()
    if len(distinct) == 1 and len(parsed.dropna()) > 1:
        day = pd.Timestamp(distinct[0]).date().isoformat()
        if given:
            raise InputError(f"{label}: every model in '{release}' has the same release date ({day}), so no model is "
                             "newer than another; name a column whose dates differ, or hold out models by name.",
                             field="release_column")
        reasons[release] = f"dates, all the same ({day}): no newest models to hold out"
        unsure.append(f"release_column: every date in '{release}' is {day}; it is not used as release dates")
        return None
    reasons[release] = "dates → release dates"
    return release


def set_aside_columns(df: pd.DataFrame, kinds: Mapping[str, Column], name: str, fold: str | None,
                      drop: Sequence[str], exact: Sequence[str] | None, keep: Sequence[str], release: str | None,
                      release_given: bool, by_model: bool, label: str) -> Aside:
    """The columns of a wide table that are not tasks, with the reasons.

    Parameters
    ----------
    df : DataFrame
        The raw table.
    kinds : mapping of str to Column
        Every column, classified.
    name, fold : str, str or None
        The column of row names and the fold column.
    drop : sequence of str
        Columns the user sets aside besides the guess's.
    exact : sequence of str, optional
        Exactly the columns to set aside (the guess's reasons are kept).
    keep : sequence of str
        Columns the user reads as tasks whatever the guess says.
    release : str, optional
        The release-date column (guessed among the date columns when None and ``by_model``).
    release_given : bool
        Whether the user named ``release``.
    by_model : bool
        Whether the rows are models.
    label : str
        File name for messages.
    """
    roles = {"model" if by_model else "dataset": name, **({"fold": fold} if fold else {}),
             **({"release": release} if release else {})}
    check_roles(roles, tuple(c for c in [*drop, *(exact or ())] if c != release), label=label)
    rest = [c for c in df.columns if c not in (name, fold)]
    unsure: list[str] = []
    reasons = {c: r for c in rest if (r := _reason(kinds[c], by_model and c == release)) is not None}
    release = _release(df, kinds, rest, release, by_model, release_given, label, reasons, unsure)
    numbers = [c for c in rest if c not in reasons]
    constant = [c for c in numbers if _constant(kinds[c])]  # no mean of the rows; a task that ranks nothing
    reasons.update(raw_twins([c for c in numbers if c not in keep]))
    reasons.update(differences([c for c in numbers if c not in keep and c not in reasons]))
    turned, twins = complements(kinds, [c for c in numbers if c not in keep and c not in reasons])
    reasons.update(turned)
    reasons.update(spreads([c for c in numbers if c not in keep and c not in reasons]))
    reasons.update({c: "a model attribute by its name: a count (whole numbers), not a score" for c in numbers
                    if c not in keep and c not in reasons and named_count(kinds[c])})
    numbers = [c for c in numbers if c not in reasons]
    searched = len(numbers) <= MAX_COLUMNS  # partial means are looked for (pairs of column runs: not on wide tables)
    derived_name = {c for c in numbers if named_derived(c) and not maybe_rank(kinds[c])}  # "NO" of decimals: a task
    order = [c for c in numbers if c not in derived_name] if searched else []
    if searched:
        reasons.update(partial_means(kinds, order, [c for c in order if c not in keep and not _own_metric(c)]))
    numbers = [c for c in numbers if c not in reasons]
    candidates = [c for c in numbers if c in derived_name]
    plain = [c for c in numbers if c not in candidates]
    groups = _group_averages(candidates) if not plain else []
    if groups:  # only named aggregates (LiveBench's categories): the group averages are the tasks, in doubt
        plain, candidates = groups, [c for c in candidates if c not in groups]
    metric = {c: _metric_words(c) for c in plain}
    scale = {c: _scale(kinds[c].numbers) for c in plain}  # the task columns: the scale most columns share
    counts = pd.Series(list(scale.values()), dtype=object).value_counts()
    ref_scale = str(counts.index[0]) if len(counts) else "none"
    ref = [c for c in plain if scale[c] == ref_scale] if len(plain) >= 3 and counts.iloc[0] * 5 >= 3 * len(plain) \
        else plain
    series = _series(plain)
    if series and len({scale[c] for c in series}) == 1:  # a numbered series of columns: the tasks
        ref = series
    named_attr = [c for c in ref if metric[c] is None and has_word(c, ATTRIBUTE_WORDS)]
    if len(ref) - len(named_attr) >= 2:  # a column named as a model attribute is no reference for the tasks
        ref = [c for c in ref if c not in named_attr]
    dropped = set(drop)
    ref = [c for c in ref if c not in dropped]  # nor is a column the user set aside
    hints: list[tuple[str, bool]] = []
    flagged: list[tuple[str, str]] = list(twins)
    ref_m = np.column_stack([kinds[c].numbers for c in ref]) if ref else np.empty((len(df), 0))
    decimals = int(np.median([kinds[c].decimals for c in ref])) if ref else 0
    # named averages, ranks, win rates: checked against the task columns
    unnamed = set(order)
    for c in candidates:
        found = derived(kinds[c], ref_m, decimals)
        if found is None:  # nothing to check it against: its name says what it is
            reasons[c] = "named as an average, a rank or a win rate"
        elif found.reason.startswith("named a rank; it does not order") and not {"rank", "ranking"} & set(tokens(c)):
            # GenEval's "Position" task, ScienceQA's "NO" (no context): a word that may name a rank, numbers that do not
            flagged.append((c, f"set_aside: '{c}' may name a rank, but it does not order the rows by their mean score: "
                               "a task of its own, or not a task; read as a task"))
        else:
            reasons[c] = found.reason
            if found.higher_is_better is not None:
                hints.append((f"the '{c}' column: {found.because}", found.higher_is_better))
            elif found.reason.startswith("named an average; not the row mean") and searched:
                # perhaps the mean of a group of the tasks (LiveBench's "Reasoning Average"): say which
                group = partial_means(kinds, [x for x in numbers if x in unnamed or x == c], [c])
                reasons[c] = group.get(c, reasons[c])
        if (up := arrow_of(c)) is not None:
            hints.append((f"{ARROW_HINT}{c}' header says {'higher' if up else 'lower'} is better", up))
    hints += aggregate_hints(kinds, candidates, reasons, ref_m)
    # unnamed columns equal to the row mean of the task columns (leave-one-out), also in percent
    testable = [c for c in plain if ((m := metric[c]) is None or m.whole) and c not in constant]
    if ref_m.shape[1] >= 3 and len(df) >= 5 and testable:
        fin = np.isfinite(ref_m)
        rows = fin.any(axis=1)
        spread = float(np.max(np.where(rows, np.where(fin, ref_m, -np.inf).max(axis=1)
                                       - np.where(fin, ref_m, np.inf).min(axis=1), 0.0))) if rows.any() else 0.0
        in_ref = set(ref)
        for start in range(0, len(testable), _BLOCK):  # blocks of columns: memory stays small on wide tables
            block = testable[start:start + _BLOCK]
            _row_means_found(block, kinds, ref_m, [c in in_ref for c in block], decimals, spread, metric, reasons,
                             flagged, by_model)
    other_scales(kinds, plain, ref, metric, reasons, flagged)
    flagged += [(c, why) for c, why in metric_twins(kinds, plain) if c not in reasons]
    _outside_series(plain, series, reasons, flagged)
    flagged += [(c, f"set_aside: '{c}' holds the same number "
                    f"({_fmt(float(kinds[c].numbers[np.isfinite(kinds[c].numbers)][0]))}) in every row: it ranks no "
                    f"{'model' if by_model else 'dataset'}; read as a {'task' if by_model else 'model'}")
                for c in constant if c not in reasons]
    flagged += _metrics_only([c for c in plain if c not in reasons], metric, by_model)
    kept = [c for c in groups if c not in reasons]
    if kept:
        shown = ", ".join(f"'{c}'" for c in kept[:3]) + (f" and {len(kept) - 3} more" if len(kept) > 3 else "")
        flagged.append((kept[0], f"set_aside: every score column is named as an average; {shown} are read as the "
                                 "tasks (each the average of a group of tasks the file does not hold)"))
    flagged += [(c, f"cells: '{c}' holds cells that are not numbers ({_bad_cells(df, kinds[c])}) among its "
                    "scores; reading the table refuses them: make them numbers, leave them empty for a missing score, "
                    "or set the column aside") for c in plain if kinds[c].bad and c not in reasons]
    chosen = set(exact) if exact is not None else (set(reasons) | set(drop)) - set(keep)
    chosen |= {release} if release else set()
    aside = tuple(SetAside(c, reasons.get(c, "set aside as asked")) for c in rest if c in chosen)
    decided = set(keep) | set(drop) | set(exact or ())
    unsure += [f"set_aside: '{c}' was set aside as text, but its cells are numbers that cannot be read for sure "
               f"({kinds[c].refused}); write one plain number per cell (without a thousands separator; a share for a "
               "count out of a total), and keep the column if it is a task"
               for c in rest if kinds[c].refused and c in chosen and c not in decided]
    unsure += [text for c, text in flagged if c not in decided and c not in chosen]
    return Aside(aside, [c for c in rest if c not in chosen], hints, unsure, release)


def _bad_cells(df: pd.DataFrame, col: Column) -> str:
    """A number column's cells that are not numbers, with their lines in the file (``line 4: '16×8'``)."""
    word = df.attrs.get("row_word", "line")
    return ", ".join(f"{word} {file_line(df, i)}: '{cell[:30]}'" for i, cell in col.bad)


def _metrics_only(tasks: Sequence[str], metric: Mapping[str, MetricName | None],
                  by_model: bool) -> list[tuple[str, str]]:
    """In doubt when every task column is a metric's name as a whole and they are not a numbered series (``BLEU``,
    ``chrF``, ``TER``, ``top1``, ``top5``; not ``acc_0 … acc_999``): one task scored with several metrics, not
    datasets."""
    if not by_model or len(tasks) < 2 or _numbered(tasks):
        return []
    named = [metric[c] for c in tasks]
    if not all(m is not None and m.whole for m in named):
        return []
    shown = ", ".join(f"'{c}'" for c in tasks[:4]) + (" …" if len(tasks) > 4 else "")
    return [(tasks[0], f"set_aside: every task column names a metric ({shown}), none a dataset: if they score one "
                       "task, there are no datasets to choose among; read as tasks")]


def _own_metric(column: str) -> bool:
    """Whether a header names a task's own metric in a part of its own (``MMLU - EM``, ``mmlu_acc``, ``acc``): no mean
    of a group of tasks. A metric word after a space (``Non-Live AST Acc``, BFCL's group means) is not such a part."""
    m = metric_of(column)
    return m is not None and (m.whole or not column.rstrip().lower().endswith(" " + m.metric.lower()))


def _numbered(columns: Sequence[str]) -> bool:
    """Whether three or more columns are one stem numbered densely from 0 or 1 (``acc_0``, ``acc_1``, ``acc_2``, …:
    classes or parts, not metrics; ``pass@1``, ``pass@10``, ``pass@100`` and ``top1``, ``top5`` are metrics)."""
    by_stem: dict[str, list[int]] = {}
    for c in columns:
        m = _SERIES.match(c)
        if m is not None:
            by_stem.setdefault(m.group(1), []).append(int(c[len(m.group(1)):]))
    return any(len(n) >= 3 and min(n) <= 1 and 2 * len(set(n)) >= max(n) - min(n) + 1 for n in by_stem.values())


def _group_averages(candidates: Sequence[str]) -> list[str]:
    """The columns named as averages (not ranks or win rates) when two or more are all a table has."""
    groups = [c for c in candidates if is_aggregate(c) and not is_rank(c) and not has_word(c, _WIN)]
    return groups if len(groups) >= 2 else []


def _row_means_found(block: Sequence[str], kinds: Mapping[str, Column], ref_m: np.ndarray, in_ref: list[bool],
                     decimals: int, spread: float, metric: Mapping[str, MetricName | None], reasons: dict[str, str],
                     flagged: list[tuple[str, str]], by_model: bool) -> None:
    """The columns of ``block`` equal to the row mean of the task columns (leave-one-out; also in
    percent or as a fraction), and those that follow it closely (in doubt; with datasets as rows,
    each row's values are first placed between the row's lowest and highest, so that rows on scales
    of their own — an RMSE of 22 next to AUCs — do not make every column follow the mean)."""
    values = np.column_stack([kinds[c].numbers for c in block])
    means = _loo_means(ref_m, in_ref, values)
    tol = 0.51 * (10.0 ** -np.array([kinds[c].decimals for c in block], dtype=float) + 10.0 ** -decimals) + 1e-9
    ok = np.isfinite(values) & np.isfinite(means)
    enough = ok.sum(axis=0) >= 5
    for factor, how in ((1.0, ""), (100.0, ", in percent"), (0.01, ", as a fraction")):
        off = np.where(ok, np.abs(values - factor * means), 0.0).max(axis=0)
        for j in np.flatnonzero(enough & (spread > 4 * tol) & (off <= tol * max(factor, 1.0))).tolist():
            c = block[j]
            reasons.setdefault(c, f"the row mean of the {ref_m.shape[1] - int(in_ref[j])} task columns{how}")
    if not by_model:  # rows of datasets on scales of their own: each row's place between its lowest and highest
        fin = np.isfinite(ref_m)
        lo, hi = np.where(fin, ref_m, np.inf).min(axis=1), np.where(fin, ref_m, -np.inf).max(axis=1)
        span = np.where(hi > lo, hi - lo, np.nan)[:, None]  # NaN for a row of gaps or of one value
        with np.errstate(invalid="ignore"):
            values, means = (values - lo[:, None]) / span, (means - lo[:, None]) / span
        ok = ok & np.isfinite(span)
    corr = correlations(values, means, ok)
    for j in np.flatnonzero((corr >= 0.998) & (ok.sum(axis=0) >= 8)).tolist():
        c = block[j]
        if c not in reasons and metric[c] is None:  # a named metric is not an average unless it equals one
            flagged.append((c, f"set_aside: '{c}' follows the row mean of the task columns closely (correlation "
                               f"{text(corr[j], 'correlation')}): it may be an average of some of them; read as a task"))


_SERIES = re.compile(r"^(.*?[\s_.\-#]*)\d+$")


def _series(plain: Sequence[str]) -> list[str]:
    """The columns of the numbered series most columns form (``acc_0 … acc_999``; empty when none does)."""
    if len(plain) < 10:
        return []
    stems = pd.Series([m.group(1) if (m := _SERIES.match(c)) else None for c in plain], dtype=object)
    counts = stems.value_counts()
    if counts.empty or counts.iloc[0] * 10 < 9 * len(plain):
        return []
    return [c for c, st in zip(plain, stems, strict=True) if st == counts.index[0]]


def _outside_series(plain: Sequence[str], series: Sequence[str], reasons: Mapping[str, str],
                    flagged: list[tuple[str, str]]) -> None:
    """Columns outside the numbered series the other columns form (``Acc@5`` next to ``acc_0 … acc_999``):
    in doubt."""
    if not series:
        return
    inside = set(series)
    for c in plain:
        if c not in inside and c not in reasons:
            flagged.append((c, f"set_aside: '{c}' is outside the numbered series of the other {len(series)} "
                               f"columns ({series[0]} …); read as a task"))


def _loo_means(ref_m: np.ndarray, in_ref: list[bool], cols: np.ndarray) -> np.ndarray:
    """Per column of ``cols``, the row mean of the reference columns without that column."""
    fin = np.isfinite(ref_m)
    total = np.where(fin, ref_m, 0.0).sum(axis=1)
    n = fin.sum(axis=1).astype(float)
    own = np.where(np.isfinite(cols), cols, 0.0) * np.asarray(in_ref, dtype=float)[None, :]
    own_n = np.isfinite(cols) * np.asarray(in_ref, dtype=float)[None, :]
    rest_n = n[:, None] - own_n
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rest_n > 0, (total[:, None] - own) / rest_n, np.nan)
