"""An uploaded results folder (a zip, or JSON files) → a validated :class:`ActiveData`.

Pure functions (no Streamlit), like :mod:`subsetsel_app.upload`: :func:`check_results`
reads lm-evaluation-harness, MTEB or Every Eval Ever results through
:func:`~subsetsel_core.io.result_folders.read_results` and
:func:`~subsetsel_core.benchmark.load_scores`, and returns the check the Benchmark page
shows, with the metric taken per task. Problems come back as messages, never as
exceptions; their fix is worded for this part of the page (:data:`RESULT_HINTS`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.result_folders import FORMATS, ResultTable, read_results
from subsetsel_core.io.score_format import MissingPolicy, ScoreFormat

from .active_data import ActiveData
from .upload import UploadCheck, UploadedTable, error_text

#: How this part of the Benchmark page words the fix of an error, by its ``field``
#: (other fields: :data:`subsetsel_app.upload.FIELD_HINTS`).
RESULT_HINTS: dict[str, str] = {
    "score_column": "Type the metric under 'Metric' above (METRIC, or TASK=METRIC; TASK2=METRIC).",
    "missing": "Choose it under 'Missing scores' of the results above.",
    "scores_file": "Upload the results folder as one .zip, or its JSON files.",
    "scores_format": "Choose the format to read under 'Format' above, and tick 'Skip files that cannot be read' for "
                     "the others.",
}


def result_error_text(exc: InputError) -> str:
    """An error as this part of the page shows it: the core's message, then the fix."""
    return error_text(exc, RESULT_HINTS)


@dataclass(frozen=True, eq=False)
class ResultCheck:
    """What :func:`check_results` found.

    Attributes
    ----------
    check : UploadCheck
        The benchmark (when usable), the blocking error and the report.
    metrics : DataFrame
        One row per task: ``task``, ``metric`` (the one taken), ``direction``,
        ``direction from``, ``splits / subsets`` and ``available`` (every metric its files
        report); empty when the files could not be read.
    set_aside : DataFrame
        ``what, reason``: every file, revision, subset or task set aside.
    format : str
        The format read (a key of :data:`~subsetsel_core.io.result_folders.FORMATS`),
        empty when unknown.
    """

    check: UploadCheck
    metrics: pd.DataFrame = field(default_factory=pd.DataFrame)
    format: str = ""
    set_aside: pd.DataFrame = field(default_factory=pd.DataFrame)


def _metric_frame(table: ResultTable) -> pd.DataFrame:
    """One row per task as :meth:`~subsetsel_core.io.result_folders.ResultTable.reading_rows`
    describes it (the metric, the direction and where it came from, the splits and subsets)."""
    rows = [r for r in table.reading_rows() if r["kind"] == "task"]
    return pd.DataFrame(
        [{"task": r["task"], "metric": r["metric"],
          "direction": ("lower is better" if r["direction"] == "lower" else "higher is better")
          + (" (negated)" if r["negated"] else ""), "direction from": r["direction_words"],
          "splits / subsets": " ".join(r["splits"]) + (f": {', '.join(r['subsets'])}" if r["subsets"] else ""),
          "available": ", ".join(table.available[r["task"]])} for r in sorted(rows, key=lambda r: r["task"])]
    )


def check_results(
    files: Sequence[UploadedTable],
    result_format: str = "auto",
    *,
    metric: str = "",
    missing: MissingPolicy = "error",
    name: str = "",
    skip_unreadable: bool = False,
) -> ResultCheck:
    """Read uploaded result files and build the benchmark.

    Parameters
    ----------
    files : sequence of UploadedTable
        One zip archive of a results folder, or JSON files (each may also be a zip).
    result_format : {"auto", "lm-eval", "mteb", "eee"}
        The format (auto: recognised from the files).
    metric : str
        The metric choice (``""``: each format's main metric), as
        :func:`~subsetsel_core.io.result_folders.parse_metric_choice` reads it.
    missing : str
        The missing-score policy.
    name : str
        Benchmark name (default: the first file's name).
    skip_unreadable : bool
        Skip files that cannot be read, with a warning listing each (default: an error).

    Returns
    -------
    ResultCheck
        Never raises for bad input: ``check.error`` holds the message instead.
    """
    if not files:
        return ResultCheck(UploadCheck(None, "Upload a results folder as a .zip, or its JSON files."))
    label = files[0].name if len(files) == 1 else "upload"
    title = name.strip() or files[0].stem
    try:
        table = read_results([(f.name, f.content) for f in files], result_format, metric=metric.strip() or None,
                             label=label, skip_unreadable=skip_unreadable)
    except InputError as exc:
        return ResultCheck(UploadCheck(None, result_error_text(exc)))
    metrics = _metric_frame(table)
    aside = pd.DataFrame(list(table.set_aside), columns=["what", "reason"])
    try:
        bench = load_scores(table.frame, table.score_format(ScoreFormat(missing=missing)),
                            name=title, label=label)
    except InputError as exc:
        return ResultCheck(UploadCheck(None, result_error_text(exc), table.report()), metrics, table.format, aside)
    report = table.report() + bench.report
    key = json.dumps({"files": [f.digest for f in files], "format": result_format, "metric": metric,
                      "missing": missing, "name": title, "skip_unreadable": skip_unreadable}, sort_keys=True)
    data = ActiveData(
        token="upload:" + hashlib.sha256(key.encode()).hexdigest()[:20],
        title=bench.name,
        source="upload",
        benchmark=replace(bench, report=report),
        tables={},
        specs={},
        report=report,
        description=f"Uploaded {FORMATS[table.format].title} results: {', '.join(f.name for f in files[:5])}"
                    + (" …" if len(files) > 5 else ""),
        metric=", ".join(sorted(set(table.metrics.values())))[:80],
        inputs={f.name: hashlib.sha256(f.content).hexdigest() for f in files},
        missing=missing,
    )
    return ResultCheck(UploadCheck(data, None, report), metrics, table.format, aside)
