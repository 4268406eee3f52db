"""Which columns of a wide table are not tasks, by evidence: :func:`set_aside_columns`.

A column is set aside, with its reason, when it is empty, text, dates or sizes; when it is
named as an average, a rank or a win rate; when it equals the row mean of the task columns
(or that mean in percent); when it ranks the rows; when it is on another scale or of another
type than the task columns (percent next to 0–1 scores, counts such as GFLOPS or parameter
sizes, whole-number codes). A column whose evidence is weak is read as a task and listed in
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
from subsetsel_core.io.guess.aggregates import aggregate_hints
from subsetsel_core.io.guess.column_kinds import (
    Column,
    derived,
    has_word,
    named_derived,
    parse_dates,
)
from subsetsel_core.io.guess.metric_names import MetricName, arrow_of, metric_of
from subsetsel_core.io.guess.partial_means import MAX_COLUMNS, partial_means, raw_twins
from subsetsel_core.io.guess.result import SetAside
from subsetsel_core.io.score_format import check_roles
from subsetsel_core.text.rounding import text

_RELEASE = ("release", "released", "date", "published")
_SCALES = ((0.0, 1.0, "0–1"), (0.0, 100.0, "0–100"))
_ARROWS = re.compile("[↑⬆▲↓⬇▼\ufe0f]")
_COUNT_PART = re.compile(r"(?:^|\s[-–—|:/]\s*)#\s*\w")  # "MMLU - # eval", "# prompt tokens": counts
_ATTRIBUTE_MARKS = ("❤", "♥", "⭐", "👍", "★")  # likes and stars
_BLOCK = 256  # columns checked against the row mean at a time
#: Words that name a model's attribute, not a task (``Memory Usage (GB, fp32)``, ``Embedding Dimensions``).
ATTRIBUTE_WORDS = frozenset({"memory", "dimension", "dimensions", "dim", "dims", "tokens", "gflops", "flops", "macs",
                             "throughput", "likes", "downloads", "hearts", "votes", "gb", "mb", "cutoff", "vocab",
                             "seqlen", "cost", "price", "co2", "emissions", "rtf", "rtfx", "speed", "speedup",
                             "fps", "qps", "truncated"})


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
    if release is None and by_model and dates:
        release = next((c for c in dates if has_word(c, _RELEASE)), dates[0])
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
    numbers = [c for c in numbers if c not in reasons]
    searched = len(numbers) <= MAX_COLUMNS  # partial means are looked for (pairs of column runs: not on wide tables)
    order = [c for c in numbers if not named_derived(c)] if searched else []
    if searched:
        reasons.update(partial_means(kinds, order, [c for c in order if c not in keep and metric_of(c) is None]))
    numbers = [c for c in numbers if c not in reasons]
    candidates = [c for c in numbers if named_derived(c)]
    plain = [c for c in numbers if c not in candidates]
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
    flagged: list[tuple[str, str]] = []
    ref_m = np.column_stack([kinds[c].numbers for c in ref]) if ref else np.empty((len(df), 0))
    decimals = int(np.median([kinds[c].decimals for c in ref])) if ref else 0
    # named averages, ranks, win rates: checked against the task columns
    unnamed = set(order)
    for c in candidates:
        found = derived(kinds[c], ref_m, decimals)
        if found is None:  # nothing to check it against: its name says what it is
            reasons[c] = "named as an average, a rank or a win rate"
        else:
            reasons[c] = found.reason
            if found.higher_is_better is not None:
                hints.append((f"the '{c}' column: {found.because}", found.higher_is_better))
            elif found.reason.startswith("named an average; not the row mean") and searched:
                # perhaps the mean of a group of the tasks (LiveBench's "Reasoning Average"): say which
                group = partial_means(kinds, [x for x in numbers if x in unnamed or x == c], [c])
                reasons[c] = group.get(c, reasons[c])
        if (up := arrow_of(c)) is not None:
            hints.append((f"the arrow in the '{c}' header says {'higher' if up else 'lower'} is better", up))
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
                             flagged)
    _scale_and_type(kinds, plain, ref, metric, reasons, flagged)
    _outside_series(plain, series, reasons, flagged)
    flagged += [(c, f"set_aside: '{c}' holds the same number "
                    f"({_fmt(float(kinds[c].numbers[np.isfinite(kinds[c].numbers)][0]))}) in every row: it ranks no "
                    f"{'model' if by_model else 'dataset'}; read as a {'task' if by_model else 'model'}")
                for c in constant if c not in reasons]
    chosen = set(exact) if exact is not None else (set(reasons) | set(drop)) - set(keep)
    chosen |= {release} if release else set()
    aside = tuple(SetAside(c, reasons.get(c, "set aside as asked")) for c in rest if c in chosen)
    decided = set(keep) | set(drop) | set(exact or ())
    unsure += [text for c, text in flagged if c not in decided and c not in chosen]
    return Aside(aside, [c for c in rest if c not in chosen], hints, unsure, release)


def _row_means_found(block: Sequence[str], kinds: Mapping[str, Column], ref_m: np.ndarray, in_ref: list[bool],
                     decimals: int, spread: float, metric: Mapping[str, MetricName | None], reasons: dict[str, str],
                     flagged: list[tuple[str, str]]) -> None:
    """The columns of ``block`` equal to the row mean of the task columns (leave-one-out; also in
    percent or as a fraction), and those that follow it closely (in doubt)."""
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
    corr = _correlations(values, means, ok)
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


def _correlations(a: np.ndarray, b: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Pearson correlation of each column of ``a`` with the same column of ``b`` over the rows ``ok``."""
    w = ok.astype(float)
    n = np.maximum(w.sum(axis=0), 1.0)
    a0, b0 = np.where(ok, a, 0.0), np.where(ok, b, 0.0)
    ma, mb = a0.sum(axis=0) / n, b0.sum(axis=0) / n
    da, db = (a0 - ma) * w, (b0 - mb) * w
    den = np.sqrt((da**2).sum(axis=0) * (db**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (da * db).sum(axis=0) / np.where(den > 0, den, 1.0), 0.0)


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


FEW_TASKS = 20
"""Below this many task columns, an unnamed column on another scale may be a task scored on its own
scale (OCRBench's 0–1000 and MME's 0–2800 next to 0–100 benchmarks): in doubt, not set aside, unless
it holds percentages next to tasks scored 0–1. Among more task columns, one column on another scale
is not one of them (Acc@5 next to 1,000 per-class accuracies)."""
FOLLOWS = 0.7
"""The rank correlation with the rows' mean scores from which a column is said to follow them."""


def _row_mean(columns: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of each row over the finite values of ``columns`` (NaN for a row with none)."""
    m = np.column_stack(columns)
    fin = np.isfinite(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(fin, m, 0.0).sum(axis=1) / fin.sum(axis=1)


def _follows_the_rows(values: np.ndarray, mean: np.ndarray | None) -> float | None:
    """The rank correlation of ``values`` with the rows' mean scores over the rows where both are
    known (at least five), when it is at least :data:`FOLLOWS`; else None."""
    if mean is None:
        return None
    ok = np.isfinite(values) & np.isfinite(mean)
    if ok.sum() < 5:
        return None
    a, b = pd.Series(values[ok]).rank().to_numpy(), pd.Series(mean[ok]).rank().to_numpy()
    r = float(_correlations(a[:, None], b[:, None], np.ones((len(a), 1), dtype=bool))[0])
    return r if r >= FOLLOWS else None


def _scale_and_type(kinds: Mapping[str, Column], plain: Sequence[str], ref: Sequence[str],
                    metric: Mapping[str, MetricName | None], reasons: dict[str, str], flagged: list[tuple[str, str]]) -> None:
    """Columns on another scale or of another type than the task columns ``ref`` (set aside when
    the task columns are three or more and most of the columns; in doubt otherwise)."""
    if len(ref) < 2:
        return
    step = max(1, len(ref) // 200)  # the task columns' range, from up to 200 of them
    ref_vals = np.concatenate([kinds[c].numbers for c in ref[::step]])
    ref_vals = ref_vals[np.isfinite(ref_vals)]
    if ref_vals.size == 0:
        return
    lo, hi = float(np.quantile(ref_vals, 0.01)), float(np.quantile(ref_vals, 0.99))
    ref_whole = all(bool(np.all(v[np.isfinite(v)] % 1 == 0)) for v in (kinds[c].numbers for c in ref))
    strong = len(ref) >= 3 and len(ref) * 4 >= 3 * len(plain)
    in_ref = set(ref)
    mean = _row_mean([kinds[c].numbers for c in ref])
    for c in plain:
        m = metric[c]
        if c in reasons or (m is not None and not m.whole):
            continue  # "<task> - <metric>": a task's own metric, whatever its scale
        v = kinds[c].numbers[np.isfinite(kinds[c].numbers)]
        if v.size == 0:
            continue
        whole = bool(np.all(v % 1 == 0)) and not ref_whole
        codes = whole and kinds[c].distinct >= max(5, 0.9 * kinds[c].present)
        what = ("whole numbers, one per row (codes or ids)" if codes else "whole numbers (counts)" if whole
                else "numbers")
        inside = float(np.mean((v >= lo) & (v <= hi)))
        attribute = m is None and (has_word(c, ATTRIBUTE_WORDS) or any(e in c for e in _ATTRIBUTE_MARKS)
                                   or _COUNT_PART.search(c) is not None)
        if attribute and (inside < 0.5 or whole):
            reasons[c] = (f"a model attribute by its name; {what} {_fmt(float(v.min()))}–{_fmt(float(v.max()))} "
                          f"(the {len(ref)} task columns: {_fmt(lo)}–{_fmt(hi)})")
            continue
        if attribute:
            flagged.append((c, f"set_aside: '{c}' is named as a model attribute, not a task, but holds numbers on the "
                               "task columns' scale; read as a task"))
            continue
        if c not in in_ref and inside < 0.5:
            why = (f"{what} {_fmt(float(v.min()))}–{_fmt(float(v.max()))}, on another scale than the {len(ref)} task "
                   f"columns ({_fmt(lo)}–{_fmt(hi)})")
            percent = 0.0 <= lo and hi <= 1.0 and float(v.min()) >= 0.0 and float(v.max()) <= 100.0  # of 0–1 tasks
            if strong and (len(ref) >= FEW_TASKS or percent):
                reasons[c] = why
                continue
            follows = _follows_the_rows(kinds[c].numbers, mean)
            also = ("" if follows is None else f", and it follows the rows' mean scores (rank correlation "
                    f"{text(follows, 'correlation')})")
            flagged.append((c, f"set_aside: '{c}' holds {why}{also}: a task scored on its own scale, or not a task; "
                               "read as a task"))
        elif whole and kinds[c].present >= 5:
            flagged.append((c, f"set_aside: '{c}' holds {what} among task columns that are not whole numbers; read "
                               "as a task"))
