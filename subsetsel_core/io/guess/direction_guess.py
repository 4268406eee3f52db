"""The direction of a score table, by evidence: :func:`decide_direction`.

Evidence is what the file says: the metric names of the score column or of the dataset
columns' headers (:mod:`~subsetsel_core.io.guess.metric_names`), a Rank or win-rate column
checked against the rows' scores, the file's name. Consistent evidence decides; conflicting
evidence is ``unsure`` with the reasons; no evidence at all is an assumption stated as one.
A direction the user sets applies to every dataset except those the user names.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.header_words import CMC_RANK, RANK_WORDS, tokens
from subsetsel_core.io.guess.metric_names import (
    ARROW_HINT,
    MetricName,
    file_metric,
    metric_of,
    score_metric,
)
from subsetsel_core.io.names import csv_quoted, describe_mismatch

#: Where a direction came from (``TableGuess.direction_from``).
DIRECTION_SOURCES: dict[str, str] = {
    "given": "set by the user",
    "evidence": "from the file: metric names, a rank or win-rate column, the file name",
    "assumed": "nothing in the file says which way is better: assumed",
    "unsure": "the file's evidence conflicts",
}


@dataclass(frozen=True)
class DatasetMetric:
    """What a dataset's header says about its metric.

    Attributes
    ----------
    dataset : str
    metric : str
        The metric named (``"EM"``, ``"acc"``; the score column of a long table).
    higher_is_better : bool or None
        What the metric's words say (None: nothing).
    """

    dataset: str
    metric: str
    higher_is_better: bool | None


@dataclass(frozen=True)
class Direction:
    """The decided direction.

    Attributes
    ----------
    higher_is_better : bool
        The direction of every dataset not listed below (provisional when ``source`` is
        ``"unsure"``).
    source : {"given", "evidence", "assumed", "unsure"}
    because : str
        The evidence (or the assumption, or the conflict) in words.
    lower_is_better_datasets, higher_is_better_datasets : tuple of str
        Datasets with a direction of their own.
    metrics : tuple of DatasetMetric
        Per dataset, the metric its header names (datasets whose header names none are left out).
    unsure : tuple of str
        ``"direction: …"`` entries.
    """

    higher_is_better: bool
    source: str
    because: str
    lower_is_better_datasets: tuple[str, ...] = ()
    higher_is_better_datasets: tuple[str, ...] = ()
    metrics: tuple[DatasetMetric, ...] = ()
    unsure: tuple[str, ...] = ()


def dataset_metrics(datasets: Sequence[str], score_column: str | None, headers: bool = True) -> tuple[DatasetMetric, ...]:
    """The metric of each dataset: the score column's (long tables) or its header's (``headers``:
    the datasets are the columns of a table with models as rows)."""
    if not headers and score_column is None:
        return ()
    if score_column is not None:
        named = score_metric(score_column)
        return tuple(DatasetMetric(d, score_column, named.higher_is_better if named else None) for d in datasets)
    out = []
    for d in datasets:
        m: MetricName | None = metric_of(d)
        if m is not None:
            out.append(DatasetMetric(d, m.metric, m.higher_is_better))
    return tuple(out)


def _second_metric(datasets: Sequence[str], per: Mapping[str, bool]) -> dict[str, list[str]]:
    """Columns ``<task> <word>`` that name no metric of known direction, next to ``<task> <metric>`` columns of the
    same tasks that do (continual learning's ``Split CIFAR-100 Forgetting`` beside ``Split CIFAR-100 Acc``): a
    second metric, whose direction the first one's does not tell. By that last word, at least two columns each."""
    def split(d: str) -> tuple[str, str] | None:
        parts = re.split(r"[\s_]+", str(d).strip())
        return (" ".join(parts[:-1]).lower(), parts[-1]) if len(parts) >= 2 and not parts[-1].isdigit() else None

    tasks = {p[0] for d in per if (p := split(d)) is not None}
    groups: dict[str, list[str]] = {}
    for d in datasets:
        p = split(d)
        if d not in per and p is not None and p[0] in tasks:
            groups.setdefault(p[1], []).append(d)
    return {w: cols for w, cols in groups.items() if len(cols) >= 2}


def _listed(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


_HINT_COLUMN = re.compile(r"the '(.*)' column: ")


def decide_direction(datasets: Sequence[str], score_column: str | None, label: str, higher: bool | None,
                     lower_ds: Sequence[str], higher_ds: Sequence[str],
                     hints: Sequence[tuple[str, bool]] = (), *, headers: bool = True,
                     metric_cells: Mapping[str, str] | None = None, ranks: str | None = None) -> Direction:
    """The direction of a score table.

    Parameters
    ----------
    datasets : sequence of str
        The datasets (for a wide table with datasets as columns, their headers).
    score_column : str or None
        The score column of a long table (None for wide tables).
    label : str
        The file's name (its metric words are evidence too).
    higher : bool or None
        The direction the user set (None: decide from the evidence).
    lower_ds, higher_ds : sequence of str
        Datasets the user gave a direction of their own.
    hints : sequence of (str, bool)
        Evidence from columns of the file (a rank or win-rate column), in words.
    headers : bool
        Whether the datasets are column headers (their metric parts count); the names in the
        rows of a table are never read as metric names.
    metric_cells : mapping of str to str, optional
        Dataset → the metric a long table's metric column names for it (``acc``, ``ppl``): each
        dataset's own evidence, in place of the score column's name.
    ranks : str, optional
        Why the scores look like ranks (lower is better): with no other evidence the direction
        is then ``unsure`` rather than assumed.

    Raises
    ------
    InputError
        A per-dataset direction naming no dataset.
    """
    metrics = dataset_metrics(datasets, score_column, headers)
    if metric_cells:
        metrics = tuple(DatasetMetric(d, metric_cells[d], m.higher_is_better if (m := score_metric(metric_cells[d]))
                                      else None) for d in datasets if d in metric_cells)
        score_column = None
    if lower_ds or higher_ds:
        unknown = [d for d in [*lower_ds, *higher_ds] if d not in set(datasets)]
        if unknown:
            raise InputError(f"{label}: not datasets of the scores, in the per-dataset directions: "
                             f"{describe_mismatch(unknown, list(datasets))}.", field="dataset_directions")
    if higher is not None:
        own = bool(lower_ds or higher_ds)
        return Direction(bool(higher), "given", "as given" + (" (with the datasets named one by one)" if own
                                                              else ", on every dataset"),
                         tuple(lower_ds), tuple(higher_ds), metrics)
    items: list[tuple[str, bool]] = []
    named = [m for m in metrics if m.higher_is_better is not None]
    per = {m.dataset: bool(m.higher_is_better) for m in named}
    minority: list[str] = []  # datasets that name a metric when most do not: their own direction only
    if score_column is not None and named:
        items.append((f"the score column '{score_column}' names a metric where "
                      f"{'higher' if named[0].higher_is_better else 'lower'} is better", bool(named[0].higher_is_better)))
    elif named:
        majority = sum(per.values()) * 2 >= len(per)
        agree = [m.metric for m in named if m.higher_is_better == majority]
        kinds = list(dict.fromkeys(a if CMC_RANK.fullmatch(a) else re.sub(r"[_@\s-]+\d+$", "", a) or a for a in agree))
        where = "datasets" if metric_cells else "dataset columns"
        text = (f"the metric names of {len(agree)} of {len(datasets)} {where} ({_listed(kinds, 3)}) say "
                f"{'higher' if majority else 'lower'} is better")
        # the named ones say higher (the assumption anyway), every column names its metric, or most columns name
        # one and all of those say lower; else the columns that name none have no direction of their own
        if majority or len(per) == len(datasets) or (len(per) * 2 > len(datasets) and not any(per.values())):
            items.append((text, majority))
        else:
            minority = [d for d, v in per.items() if not v]
    if per and len(per) == len(datasets):  # every column says its own direction: an aggregate's arrow adds nothing
        hints = [h for h in hints if not h[0].startswith(ARROW_HINT)]
    items.extend(hints)
    fm = file_metric(label)
    if fm is not None and fm.higher_is_better is not None:
        items.append((f"the file name '{label}' names {fm.metric}", fm.higher_is_better))
    unsure: list[str] = []
    says = {v for _, v in items}
    # no metric name, no column named a rank: only the rows' order (a '#' or 'No.' column numbers the rows)
    only_order = bool(hints) and len(items) == len(hints) and says == {False} and not any(
        t.startswith(ARROW_HINT) for t, _ in hints) and not any(
        (hc := _HINT_COLUMN.match(t)) is not None and set(tokens(hc.group(1))) & RANK_WORDS for t, _ in hints)
    if not items and minority:
        hib, source = True, "unsure"
        because = (f"only {len(per)} of {len(datasets)} dataset columns name a metric ({_listed(minority, 3)}: "
                   f"lower is better); the other {len(datasets) - len(per)} name none and nothing else in the file "
                   "says which way they are better")
        unsure.append(f"direction: {because}")
    elif not items and ranks:
        hib, source = True, "unsure"
        because = f"{ranks}; nothing else in the file says which way is better"
        unsure.append(f"direction: {because}")
    elif not items:
        hib, source = True, "assumed"
        because = ("assumed higher is better: nothing in the file says which way is better (no metric name in the "
                   "columns, no rank or win-rate column)")
    elif only_order:
        hib, source = True, "unsure"
        because = (f"{'; '.join(t for t, _ in items)} — that says lower is better, but no metric name says so: a "
                   "leaderboard of a lower-is-better metric lists the best first, and a paper's table often lists "
                   "its baselines first, the lowest scores at the top")
        unsure.append(f"direction: {because}")
    elif len(says) == 1:
        hib, source = items[0][1], "evidence"
        because = "; ".join(t for t, _ in items)
    else:
        hib, source = items[0][1], "unsure"
        pro = [t for t, v in items if v]
        con = [t for t, v in items if not v]
        because = f"the evidence conflicts: {'; '.join(pro)} (higher), but {'; '.join(con)} (lower)"
        unsure.append(f"direction: {because}")
    other = _second_metric(datasets, per) if headers and score_column is None and not metric_cells else {}
    if other and source in ("evidence", "assumed"):
        word, cols = next(iter(other.items()))
        source = "unsure"
        flags = shlex.quote(",".join(csv_quoted(c) for c in cols))
        unsure.append(f"direction: {_listed(cols, 3)} score the same tasks as columns that name their metric, with "
                      f"another metric ('{word}') whose name does not say which way it is better; read as "
                      f"{'higher' if hib else 'lower'} is better like the others, which may be wrong. If '{word}' is "
                      f"{'lower' if hib else 'higher'} is better, give --{'higher' if hib else 'lower'}-is-better with "
                      f"--{'lower' if hib else 'higher'}-is-better-datasets {flags}; else "
                      f"--{'higher' if hib else 'lower'}-is-better")
    lo = tuple(d for d, v in per.items() if not v and hib) if score_column is None else ()
    hi = tuple(d for d, v in per.items() if v and not hib) if score_column is None else ()
    if lower_ds or higher_ds:
        lo, hi = tuple(lower_ds), tuple(higher_ds)
    return Direction(hib, source, because, lo, hi, metrics, tuple(unsure))
