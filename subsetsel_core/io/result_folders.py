"""Results folders of evaluation frameworks → a long score table (dataset, model, score).

:func:`read_results` reads a folder (or zip archive, or JSON file) of lm-evaluation-harness
results, an MTEB results folder or Every Eval Ever records (:data:`FORMATS`; ``"auto"``
tells them apart by their content), takes one metric per dataset — the format's main
metric by default, or the one the caller chooses (:func:`parse_metric_choice`) — and
returns a :class:`ResultTable`: the long table plus a note of the metric taken per
dataset and whether higher is better. A dataset some models lack is a gap in the table
(the missing-score policy of :func:`~subsetsel_core.benchmark.load_scores` decides), not
an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io import eee_results, lm_eval_results, mteb_results
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.result_files import JsonFile, ResultSource, collect_json
from subsetsel_core.io.result_records import (
    RESULT_FORMATS,
    Parsed,
    Record,
    guess_higher_is_better,
    names,
)
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.validation import ReportBuilder, ValidationReport


class ResultFormat(NamedTuple):
    """One results format: its name, how to recognise a file, how to read the files."""

    title: str
    looks_like: Callable[[Any], bool]
    read: Callable[[Sequence[JsonFile], str], Parsed]


FORMATS: dict[str, ResultFormat] = {
    "lm-eval": ResultFormat(lm_eval_results.TITLE, lm_eval_results.looks_like, lm_eval_results.read),
    "mteb": ResultFormat(mteb_results.TITLE, mteb_results.looks_like, mteb_results.read),
    "eee": ResultFormat(eee_results.TITLE, eee_results.looks_like, eee_results.read),
}
"""The results formats, by the name the CLI and the dashboard use."""
assert RESULT_FORMATS == ("auto", *FORMATS), "result_records.RESULT_FORMATS lists the formats of FORMATS"
ALL_TASKS = "*"
"""The key of :func:`parse_metric_choice` for a metric chosen for every dataset."""


@dataclass(frozen=True)
class ResultTable:
    """The scores of a results folder as a long table.

    Attributes
    ----------
    frame : DataFrame
        Columns ``dataset, model, score``; one row per (dataset, model) reported.
    format : str
        The format read (a key of :data:`FORMATS`).
    metrics : dict of str to str
        Dataset → the metric taken.
    available : dict of str to tuple of str
        Dataset → every metric its files report, in their order (the choices).
    higher_is_better : bool
        Orientation of ``frame``'s scores.
    negated : tuple of str
        Datasets whose lower-is-better scores were negated so that higher is better on
        every dataset (when the datasets' directions differ).
    notes : tuple of str
        What was read, chosen and set aside, in words.
    """

    frame: pd.DataFrame
    format: str
    metrics: dict[str, str]
    available: dict[str, tuple[str, ...]]
    higher_is_better: bool
    negated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def score_format(self, base: ScoreFormat | None = None) -> ScoreFormat:
        """How :func:`~subsetsel_core.benchmark.load_scores` reads :attr:`frame`: ``base``
        (its missing-score policy) with the long layout and this table's direction."""
        return replace(base or ScoreFormat(), layout="long", dataset_column="dataset", model_column="model",
                       score_column="score", fold_column=None, higher_is_better=self.higher_is_better)

    def report(self) -> ValidationReport:
        """The notes as ``info`` findings, and the format and metrics as facts."""
        rb = ReportBuilder()
        rb.fact("format", FORMATS[self.format].title)
        counts = pd.Series(list(self.metrics.values()), dtype=object).value_counts()
        rb.fact("metrics", ", ".join(f"{m} ({n} dataset{'s' if n > 1 else ''})" for m, n in counts.items()))
        for note in self.notes:
            rb.add("info", "results", note)
        return rb.build()


def parse_metric_choice(spec: str | Mapping[str, str] | None) -> dict[str, str]:
    """The metric chosen per dataset: ``"acc_norm"`` (every dataset that reports it) or
    ``"arc_easy=acc_norm; gsm8k=exact_match,flexible-extract"``.

    Returns
    -------
    dict of str to str
        Dataset (or :data:`ALL_TASKS`) → metric.

    Raises
    ------
    InputError
        An entry with an empty side.
    """
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return {str(k).strip(): str(v).strip() for k, v in spec.items()}
    out: dict[str, str] = {}
    for entry in spec.split(";"):
        if not entry.strip():
            continue
        task, sep, metric = entry.partition("=")
        task, metric = (task.strip(), metric.strip()) if sep else (ALL_TASKS, task.strip())
        if not task or not metric:
            raise InputError(f"metric choice '{entry.strip()}' has an empty side; write METRIC or TASK=METRIC, "
                             "entries separated by ';'.", field="score_column")
        out[task] = metric
    return out


def detect_format(files: Sequence[JsonFile], label: str) -> str:
    """The format of a folder's JSON files.

    Raises
    ------
    InputError
        No file is a result file of a known format, or files of several formats mix.
    """
    found = {name: sum(f.looks_like(x.data) for x in files) for name, f in FORMATS.items()}
    kinds = [name for name, n in found.items() if n]
    if len(kinds) == 1:
        return kinds[0]
    if kinds:
        parts = ", ".join(f"{found[k]} {FORMATS[k].title}" for k in kinds)
        raise InputError(f"{label}: holds result files of several formats ({parts}). Give one format's files, "
                         "or name the format to read.", field="scores_file")
    keys = [str(k) for k in files[0].data][:8] if isinstance(files[0].data, dict) else []
    raise InputError(
        f"{label}: none of its {len(files)} JSON file(s) is a result file of lm-evaluation-harness (a "
        "'results' object), MTEB (a 'scores' object and 'task_name') or Every Eval Ever ('model_info' and "
        f"'evaluation_results'); {files[0].path} has "
        + (f"the keys {', '.join(keys)}." if keys else f"a JSON {type(files[0].data).__name__} at the top."),
        field="scores_file",
    )


def read_results(
    source: ResultSource,
    result_format: str = "auto",
    *,
    metric: str | Mapping[str, str] | None = None,
    label: str = "results",
) -> ResultTable:
    """Read a results folder, archive or JSON file into a long score table.

    Parameters
    ----------
    source : path, bytes or sequence of (str, bytes)
        See :func:`~subsetsel_core.io.result_files.collect_json`.
    result_format : {"auto", "lm-eval", "mteb", "eee"}
        The format (``"auto"``: recognised from the files).
    metric : str or mapping, optional
        The metric to take (see :func:`parse_metric_choice`); default: the format's
        main metric for each dataset.
    label : str
        The source's name in messages.

    Returns
    -------
    ResultTable

    Raises
    ------
    InputError
        An unreadable or oversized file, no results, an unknown format or metric, or
        a dataset the models report under different metrics with no choice made.
    """
    if result_format not in RESULT_FORMATS:
        raise InputError(f"unknown results format '{result_format}'; use one of {', '.join(RESULT_FORMATS)}.",
                         field="scores_file")
    collected = collect_json(source, label)
    files = collected.files
    fmt = detect_format(files, label) if result_format == "auto" else result_format
    parsed = FORMATS[fmt].read(files, label)
    if not parsed.records:
        others = [k for k, f in FORMATS.items() if k != fmt and any(f.looks_like(x.data) for x in files)]
        if others:
            raise InputError(f"{label}: holds no {parsed.title} results; its JSON files are "
                             f"{FORMATS[others[0]].title} results. Name that format ({others[0]}), or auto.",
                             field="scores_file")
        raise InputError(f"{label}: holds no {parsed.title} scores ({parsed.n_files} result file(s) read; "
                         + "; ".join(parsed.notes) + "). Give the folder the evaluation wrote its results to.",
                         field="scores_file")
    return _table(parsed, fmt, parse_metric_choice(metric), label, collected.notes)


class _Task(NamedTuple):
    records: dict[str, list[Record]]  # metric → its records (one per model)
    models: set[str]


def _latest(records: Sequence[Record]) -> tuple[list[Record], int]:
    """One record per (model, dataset, metric): the greatest rank; and how many pairs repeated."""
    best: dict[tuple[str, str, str], Record] = {}
    repeated: set[tuple[str, str]] = set()
    for r in records:
        key = (r.model, r.dataset, r.metric)
        old = best.get(key)
        if old is not None:
            repeated.add((r.model, r.dataset))
            if r.rank <= old.rank:
                continue
        best[key] = r
    return list(best.values()), len(repeated)


def _resolve(want: str, metrics: Sequence[str]) -> str | None:
    """The key among ``metrics`` a chosen name means (``acc_norm`` → ``acc_norm,none``)."""
    if want in metrics:
        return want
    same = [m for m in metrics if lm_eval_results.metric_base(m) == want]
    none = [m for m in same if m.endswith(",none")]
    found = none or same
    return found[0] if found else None


def _default(task: str, t: _Task, parsed: Parsed, label: str) -> str:
    common = [m for m, rs in t.records.items() if len(rs) == len(t.models)]
    if parsed.main_metric in common:
        return str(parsed.main_metric)
    if common:
        return common[0]
    by_metric = ", ".join(f"{m}: {names({r.model for r in rs}, 3)}" for m, rs in list(t.records.items())[:4])
    raise InputError(
        f"{label}: task '{task}' is reported under different metrics by different models ({by_metric}), so no "
        f"one metric covers every model. Choose its metric (e.g. {task}={next(iter(t.records))}); models "
        "without that metric then have a gap on this task.",
        field="score_column",
    )


def _table(parsed: Parsed, fmt: str, choice: dict[str, str], label: str, notes0: Sequence[str]) -> ResultTable:
    records, repeated = _latest(parsed.records)
    tasks: dict[str, _Task] = {}
    for r in records:
        t = tasks.setdefault(r.dataset, _Task({}, set()))
        t.records.setdefault(r.metric, []).append(r)
        t.models.add(r.model)
    unknown = [k for k in choice if k != ALL_TASKS and k not in tasks]
    if unknown:
        raise InputError(f"{label}: no task '{unknown[0]}'{did_you_mean(unknown[0], list(tasks))} to choose a "
                         f"metric for. The tasks are {names(set(tasks), 8)}.",
                         field="score_column")
    metrics: dict[str, str] = {}
    kept: list[str] = []
    for task, t in tasks.items():
        want = choice.get(task, choice.get(ALL_TASKS))
        key = _resolve(want, list(t.records)) if want else None
        if want and key is None and task in choice:
            raise InputError(f"{label}: task '{task}' has no metric '{want}'; its metrics are "
                             f"{', '.join(t.records)}.", field="score_column")
        if key is None and want:
            kept.append(task)
        metrics[task] = key or _default(task, t, parsed, label)
    notes = list(notes0) + [f"read {parsed.n_files} {parsed.title} result file(s): {len(tasks)} task(s), "
                            f"{len({r.model for r in records})} model(s)."] + list(parsed.notes)
    notes.append(f"metric per task: {parsed.rule}, unless chosen." if not choice else
                 f"metric per task: as chosen, else {parsed.rule}.")
    if kept:
        notes.append(f"{len(kept)} task(s) do not report '{choice[ALL_TASKS]}' and keep their default metric: "
                     f"{names(set(kept))}.")
    if repeated:
        notes.append(f"{repeated} (model, task) result(s) appear in several files; kept {parsed.kept}.")
    lower = {task for task in tasks if not _higher(tasks[task].records[metrics[task]], metrics[task])}
    rows: list[tuple[str, str, float]] = []
    for task, t in tasks.items():
        chosen = t.records[metrics[task]]
        rows += [(r.dataset, r.model, r.value) for r in chosen]
        rows += [(task, m, float("nan")) for m in sorted(t.models - {r.model for r in chosen})]  # gaps
    frame = pd.DataFrame(rows, columns=["dataset", "model", "score"])
    negated: tuple[str, ...] = ()
    higher = len(lower) < len(tasks)
    if lower and higher:
        negated = tuple(sorted(lower))
        frame.loc[frame["dataset"].isin(lower), "score"] *= -1.0
        notes.append(f"{len(lower)} task(s) have a lower-is-better metric ({names(set(lower))}); their scores are "
                     "negated so that higher is better on every task.")
    gaps = sum(len(tasks[task].models) - len(tasks[task].records[metrics[task]]) for task in tasks)
    all_models = {r.model for r in records}
    gaps += sum(len(all_models - t.models) for t in tasks.values())
    if gaps:
        notes.append(f"{gaps} (model, task) score(s) are missing: some models were not run on every task "
                     "(gaps, handled by the missing-score policy).")
    available = {task: tuple(t.records) for task, t in tasks.items()}
    return ResultTable(frame, fmt, metrics, available, higher, negated, tuple(notes))


def _higher(records: Sequence[Record], metric: str) -> bool:
    """The direction of a task's metric: as the files declare it (the majority), else by its name."""
    declared = [r.higher_is_better for r in records if r.higher_is_better is not None]
    if not declared:
        return guess_higher_is_better(lm_eval_results.metric_base(metric))
    return sum(declared) * 2 >= len(declared)
