"""Results folders of evaluation frameworks → a long score table (dataset, model, score).

:func:`read_results` reads a folder (or zip archive, or JSON file) of lm-evaluation-harness
results, an MTEB results folder or Every Eval Ever records (:data:`FORMATS`; ``"auto"``
tells them apart by their content), takes one metric per dataset — the format's main
metric by default, or the one the caller chooses (:func:`parse_metric_choice`) — and
returns a :class:`ResultTable`: the long table plus, per dataset, the metric taken, the
direction and where it came from, the splits/subsets used (MTEB) and everything set aside
with its reason (:meth:`ResultTable.reading_rows`, what ``subsetsel inspect`` prints).
Whatever changed the benchmark (a file, model, revision, subset or task set aside, a
duplicate resolved, a direction assumed or flipped) is a ``warning`` of
:meth:`ResultTable.report`, which the command line prints. A dataset some models lack is a
gap in the table (the missing-score policy of :func:`~subsetsel_core.benchmark.load_scores`
decides), not an error. Reading a source is cached by the hash of its files' bytes
(:mod:`~subsetsel_core.io.result_cache`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io import eee_results, lm_eval_results, mteb_results, result_cache
from subsetsel_core.io.result_files import (
    JsonFile,
    ResultSource,
    collect_json,
    collect_raw,
    parse_files,
)
from subsetsel_core.io.result_records import Parsed, names
from subsetsel_core.io.result_table import ALL_TASKS, build
from subsetsel_core.io.score_format import RESULT_FORMATS, ScoreFormat
from subsetsel_core.io.validation import ReportBuilder, ValidationReport


class ResultFormat(NamedTuple):
    """One results format: its name, how to recognise a file, how to read the files."""

    title: str
    looks_like: Callable[[Any], bool]
    read: Callable[[Sequence[JsonFile], str, bool], Parsed]


FORMATS: dict[str, ResultFormat] = {
    "lm-eval": ResultFormat(lm_eval_results.TITLE, lm_eval_results.looks_like, lm_eval_results.read),
    "mteb": ResultFormat(mteb_results.TITLE, mteb_results.looks_like, mteb_results.read),
    "eee": ResultFormat(eee_results.TITLE, eee_results.looks_like, eee_results.read),
}
"""The results formats, by the name the CLI and the dashboard use."""
assert RESULT_FORMATS == ("auto", *FORMATS), "score_format.RESULT_FORMATS lists the formats of FORMATS"
DIRECTION_WORDS = {"file": "declared by the files", "format": "defined by the format (MTEB main scores)",
                   "metric name": "from the metric name", "chosen bias metric": "a bias metric chosen: as the "
                   "harness declares it (lower is better)", "assumed": "assumed (the metric name does not say)"}


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
        What was read and chosen, in words (facts).
    warnings : tuple of str
        What changed the benchmark, in words (printed by the command line).
    direction_from : dict of str to str
        Dataset → where its direction came from (a key of :data:`DIRECTION_WORDS`).
    readings : dict of str to dict
        Dataset → ``splits``, ``subsets``, ``subsets_from`` (MTEB).
    set_aside : tuple of (str, str)
        Every file, subset, revision or dataset set aside, with its reason.
    """

    frame: pd.DataFrame
    format: str
    metrics: dict[str, str]
    available: dict[str, tuple[str, ...]]
    higher_is_better: bool
    negated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    direction_from: dict[str, str] = field(default_factory=dict)
    readings: dict[str, dict[str, Any]] = field(default_factory=dict)
    set_aside: tuple[tuple[str, str], ...] = ()

    def score_format(self, base: ScoreFormat | None = None) -> ScoreFormat:
        """How :func:`~subsetsel_core.benchmark.load_scores` reads :attr:`frame`: ``base``
        (its missing-score policy) with the long layout and this table's direction."""
        return replace(base or ScoreFormat(), layout="long", dataset_column="dataset", model_column="model",
                       score_column="score", fold_column=None, higher_is_better=self.higher_is_better)

    def task_higher(self, task: str) -> bool:
        """Whether higher is better on a dataset's own metric (before any negation)."""
        return self.higher_is_better != (task in self.negated)

    def report(self) -> ValidationReport:
        """The warnings as ``warning`` findings, the notes as ``info``, and the format and
        metrics as facts."""
        rb = ReportBuilder()
        rb.fact("format", FORMATS[self.format].title)
        counts = pd.Series(list(self.metrics.values()), dtype=object).value_counts()
        rb.fact("metrics", ", ".join(f"{m} ({n} dataset{'s' if n > 1 else ''})" for m, n in counts.items()))
        for w in self.warnings:
            rb.add("warning", "results", w)
        for note in self.notes:
            rb.add("info", "results", note)
        return rb.build()

    def reading_rows(self) -> list[dict[str, Any]]:
        """Per dataset how it was read, then every part set aside, as plain dicts.

        Each dataset: ``kind="task"``, ``task``, ``metric``, ``direction``
        (``higher``/``lower``), ``direction_from``, ``negated``, ``splits``, ``subsets``,
        ``subsets_from``, ``models``, ``models_with_a_gap`` (models lacking subsets the task is
        scored on: no score there); each part set aside: ``kind="set_aside"``, ``what``,
        ``reason``.
        """
        n = self.frame.groupby("dataset")["score"].count().to_dict() if len(self.frame) else {}
        rows: list[dict[str, Any]] = []
        for task, metric in self.metrics.items():
            r = self.readings.get(task, {})
            src = self.direction_from.get(task, "file")
            rows.append({"kind": "task", "task": task, "metric": metric,
                         "direction": "higher" if self.task_higher(task) else "lower", "direction_from": src,
                         "direction_words": DIRECTION_WORDS.get(src, src), "negated": task in self.negated,
                         "splits": list(r.get("splits", [])), "subsets": list(r.get("subsets", [])),
                         "subsets_from": r.get("subsets_from", ""), "models": int(n.get(task, 0)),
                         "models_with_a_gap": list(r.get("models_with_a_gap", []))})
        rows += [{"kind": "set_aside", "what": what, "reason": why} for what, why in self.set_aside]
        return rows

    def table_rows(self) -> pd.DataFrame:
        """The score table exactly as read: ``model, dataset, fold, score, direction,
        splits, subsets`` (scores in the files' own orientation; gaps as empty cells)."""
        f = self.frame
        sign = f["dataset"].map(lambda t: -1.0 if t in self.negated else 1.0)
        r = {t: self.readings.get(t, {}) for t in self.metrics}
        return pd.DataFrame({
            "model": f["model"], "dataset": f["dataset"], "fold": "0", "score": f["score"] * sign,
            "direction": f["dataset"].map(lambda t: "higher" if self.task_higher(t) else "lower"),
            "metric": f["dataset"].map(self.metrics),
            "splits": f["dataset"].map(lambda t: " ".join(r[t].get("splits", []))),
            "subsets": f["dataset"].map(lambda t: " ".join(r[t].get("subsets", []))),
        })


def describe_results(table: ResultTable) -> list[dict[str, Any]]:
    """:meth:`ResultTable.reading_rows` (what ``subsetsel inspect`` prints for a results folder)."""
    return table.reading_rows()


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
        raise InputError(f"{label}: holds result files of several formats ({parts}). Give a folder of one format's "
                         "files, or name the format to read (the others are then skipped with --skip-unreadable).",
                         field="scores_format")
    keys = [str(k) for k in files[0].data][:8] if isinstance(files[0].data, dict) else []
    table = (" If it holds a table, save it as JSON records — a list of objects, one per row, such as pandas' "
             "to_json(orient='records') writes — or as CSV, and give that file." if len(files) == 1 else "")
    raise InputError(
        f"{label}: none of its {len(files)} JSON file(s) is a result file of lm-evaluation-harness (a "
        "'results' object), MTEB (a 'scores' object and 'task_name') or Every Eval Ever ('model_info' and "
        f"'evaluation_results'); {files[0].path} has "
        + (f"the keys {', '.join(keys)}." if keys else f"a JSON {type(files[0].data).__name__} at the top.") + table,
        field="scores_file",
    )


def results_title(folder: Path) -> str | None:
    """The title of the result format a folder's JSON files are in (``"MTEB"``), or None when they are in none (or
    mix several, or cannot be read): for telling a results folder given where a benchmark folder is meant."""
    try:
        files = collect_json(folder, folder.name, skip_unreadable=True).files
        return FORMATS[detect_format(files, folder.name)].title if files else None
    except InputError:
        return None


def read_results(
    source: ResultSource,
    result_format: str = "auto",
    *,
    metric: str | Mapping[str, str] | None = None,
    label: str = "results",
    skip_unreadable: bool = False,
) -> ResultTable:
    """Read a results folder, archive or JSON file into a long score table.

    Parameters
    ----------
    source : path, bytes or sequence of (str, bytes)
        See :func:`~subsetsel_core.io.result_files.collect_raw`.
    result_format : {"auto", "lm-eval", "mteb", "eee"}
        The format (``"auto"``: recognised from the files).
    metric : str or mapping, optional
        The metric to take (see :func:`parse_metric_choice`); default: the format's
        main metric for each dataset.
    label : str
        The source's name in messages.
    skip_unreadable : bool
        Skip every file that cannot be read (not JSON, unreadable, not a result file of
        the format, a field of the wrong type) with a warning listing each, instead of
        stopping at the first with an error.

    Returns
    -------
    ResultTable

    Raises
    ------
    InputError
        An unreadable, malformed or oversized file, no results, an unknown format or
        metric, two results of one model and task that no rule tells apart, a score
        that is not a finite number in range, or a dataset the models report under
        different metrics with no choice made.
    """
    if result_format not in RESULT_FORMATS:
        raise InputError(f"unknown results format '{result_format}'; use one of {', '.join(RESULT_FORMATS)}.",
                         field="scores_file")
    choice = parse_metric_choice(metric)
    raw = collect_raw(source, label, skip_unreadable=skip_unreadable)
    key = result_cache.key(raw, [result_format, sorted(choice.items()), label, skip_unreadable])
    cached = result_cache.load(key, ResultTable)
    if cached is not None:
        return cached
    collected = parse_files(raw, label, skip_unreadable=skip_unreadable)
    files = collected.files
    fmt = detect_format(files, label) if result_format == "auto" else result_format
    if result_format == "auto" and skip_unreadable:
        files = tuple(f for f in files if FORMATS[fmt].looks_like(f.data) or mteb_results.is_model_meta(f))
        aside = [(f"{label}/{f.path}", f"not a result file of {FORMATS[fmt].title}") for f in collected.files
                 if f not in files]
        collected = replace(collected, skipped=collected.skipped + tuple(aside))
    if not any(FORMATS[fmt].looks_like(x.data) for x in files):
        others = [k for k, f in FORMATS.items() if k != fmt and any(f.looks_like(x.data) for x in files)]
        if others:
            raise InputError(f"{label}: holds no {FORMATS[fmt].title} results; its JSON files are "
                             f"{FORMATS[others[0]].title} results. Name that format ({others[0]}), or auto.",
                             field="scores_file")
    parsed = FORMATS[fmt].read(files, label, skip_unreadable)
    if not parsed.records:
        raise InputError(f"{label}: holds no {parsed.title} scores ({parsed.n_files} result file(s) read; "
                         + "; ".join(parsed.warnings + parsed.notes) + "). Give the folder the evaluation wrote "
                         "its results to.", field="scores_file")
    table = _table(parsed, fmt, choice, label, collected.notes, collected.skipped)
    result_cache.store(key, table)
    return table


def _table(parsed: Parsed, fmt: str, choice: dict[str, str], label: str, notes0: Sequence[str],
           skipped: Sequence[tuple[str, str]]) -> ResultTable:
    b = build(parsed, choice, label)
    warnings = list(b.warnings)
    if skipped:
        warnings.insert(0, f"skipped {len(skipped)} file(s) that cannot be read: "
                        + "; ".join(f"{w} ({why})" for w, why in skipped))
    warnings = list(parsed.warnings) + list(notes0) + warnings  # files left out: printed, never a quiet note
    notes = list(b.notes)
    frame = b.frame
    lower = {t for t, h in b.higher.items() if not h}
    higher = len(lower) < len(b.higher)
    negated: tuple[str, ...] = ()
    if lower and higher:
        negated = tuple(sorted(lower))
        frame = frame.copy()
        frame.loc[frame["dataset"].isin(lower), "score"] *= -1.0
        warnings.append(f"{len(lower)} task(s) have a lower-is-better metric ({names(set(lower))}); their scores "
                        "are negated so that higher is better on every task.")
    tasks = set(b.metrics)
    models = set(frame["model"])
    have = frame.dropna(subset=["score"]).groupby("dataset")["model"].nunique().to_dict()
    gaps = sum(len(models) - int(have.get(t, 0)) for t in tasks)
    if gaps:
        warnings.append(f"{gaps} (model, task) score(s) are missing: some models were not run on every task "
                        "or lack its metric or subsets (gaps, handled by the missing-score policy).")
    return ResultTable(frame, fmt, b.metrics, b.available, higher, negated, tuple(notes), tuple(warnings),
                       b.direction_from, {t: v for t, v in parsed.readings.items() if t in tasks},
                       tuple((str(a), str(r)) for a, r in list(b.set_aside) + list(skipped)))
