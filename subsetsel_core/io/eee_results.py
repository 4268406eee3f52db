"""Every Eval Ever evaluation records (``eval.schema.json``), one JSON file per model run.

Read as the schema of evaleval/every_eval_ever defines them (followed at schema version
0.3.0, commit ``9bce4136``: ``every_eval_ever/schemas/eval.schema.json``; records of
schema 0.2 read the same, e.g. ``tests/data/98ea850e-….json``): a record has
``model_info`` (``id`` in Hugging Face form, ``name``) and ``evaluation_results``, a list
of results each with ``evaluation_name``, ``metric_config`` (``lower_is_better``,
required; ``metric_id``, ``metric_name``, ``evaluation_description``, ``min_score``,
``max_score``) and ``score_details.score``. The datastore keeps them as
``data/<benchmark>/<developer>/<model>/<uuid>.json``; a file may also hold a list of
records.

* The dataset is ``evaluation_name``; the model is ``model_info.id``, else its
  ``name``.
* The metric of a result is its ``metric_id``, else ``metric_name``, else
  ``evaluation_description``, else ``"score"``; the default metric of a dataset is the
  first one its records list. The direction is the record's ``lower_is_better``.
* Derived aggregates are set aside, as the table readers do: an evaluation named as a
  mean, average, win rate, overall or total (the HELM adapter names its leaderboard
  means ``Mean win rate``, ``Mean score``; BFCL's ``bfcl.overall.overall_accuracy``), or
  "All Subjects"/"All categories", or described as one ("mean of all metrics").
* Results that are no task's score by their ``metric_config.metric_kind`` (``rank``,
  ``cost``, ``latency``, ``throughput``, ``length``, ``difference``; ``index``, a
  composite of the others) or ``metric_unit`` (``usd``, ``seconds``, ``position`` …)
  are set aside with a warning: the schema names the metric's family for this.
* A score outside the record's own ``min_score``–``max_score`` is an error naming the
  file and result.
* One evaluation and metric listed more than once in one record: the same score is one
  result; different scores are an error naming the file and both keys.
* The same model and evaluation in several records: the most recently retrieved one
  (``retrieved_timestamp``) is kept, with a warning; equal or missing timestamps are an
  error naming both files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import (
    Parsed,
    Record,
    bad_field,
    names,
    not_a_number,
    number,
    object_field,
    score_of,
    text_field,
)
from subsetsel_core.text import rounding

TITLE = "Every Eval Ever"
_AGGREGATE = re.compile(r"^(mean|average|avg|overall|total|aggregate)\b|\bwin[ -]?rate\b|\ball (subjects|categories|"
                        r"tasks|scenarios)\b|\b(average|mean|overall|total)$|(?:^|\.)overall(?:\.|_)", re.IGNORECASE)
#: A result's description that says it aggregates the others (RewardBench 2's ``Score``: "… (mean of all metrics)").
_AGGREGATE_DESCRIPTION = re.compile(r"\b(?:mean|average|avg|aggregate) (?:of|over|across) (?:all|the other|every)\b"
                                    r"|\boverall\b.*\bscore\b", re.IGNORECASE)
#: ``metric_config.metric_kind`` and ``metric_unit`` values of results that are no task's score (the adapters' ranks,
#: costs, latencies, speeds, lengths, format sensitivities), and the composite indices that aggregate tasks.
NOT_SCORES = {"rank": "a rank of the models", "cost": "a cost", "latency": "a latency", "throughput": "a throughput",
              "length": "an output length", "difference": "a difference between runs (a sensitivity)",
              "index": "a composite index of the other evaluations (set aside as an aggregate)"}
_NOT_SCORE_UNITS = {"position": "rank", "usd": "cost", "usd_per_1m_tokens": "cost", "seconds": "latency",
                    "ms": "latency", "tokens_per_second": "throughput"}


def _is_record(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("evaluation_results"), list) and "model_info" in data


def looks_like(data: Any) -> bool:
    """Whether a JSON value is an Every Eval Ever record (or a list of them)."""
    if isinstance(data, list):
        return bool(data) and all(_is_record(x) for x in data)
    return _is_record(data)


def is_aggregate(name: str) -> bool:
    """Whether an evaluation is named as a derived aggregate (a mean, a win rate, all subjects)."""
    return bool(_AGGREGATE.search(name.strip()))


def _metric(config: Mapping[str, Any], where: str, at: str) -> str:
    for key in ("metric_id", "metric_name", "evaluation_description"):
        value = text_field(config, key, where, f"{at}.metric_config.{key}")
        if value:
            return value
    return "score"


def _model(record: Mapping[str, Any], file: JsonFile, where: str, at: str) -> str:
    info = object_field(record, "model_info", where, f"{at}model_info")
    for key in ("id", "name"):
        value = text_field(info, key, where, f"{at}model_info.{key}")
        if value:
            return value
    return file.parts[-2] if len(file.parts) >= 2 else file.parts[-1].removesuffix(".json")


def _bounds(config: Mapping[str, Any]) -> tuple[float | None, float | None]:
    return number(config.get("min_score")), number(config.get("max_score"))


def not_a_score(config: Mapping[str, Any], where: str = "", at: str = "metric_config") -> str | None:
    """What a result is when its ``metric_kind`` (or ``metric_unit``) says it is no task's score (a rank, a cost, a
    latency …: a key of :data:`NOT_SCORES`), else None.

    Raises
    ------
    InputError
        ``metric_kind`` or ``metric_unit`` is not text (the schema's type).
    """
    kind, unit = text_field(config, "metric_kind", where, f"{at}.metric_kind"), text_field(
        config, "metric_unit", where, f"{at}.metric_unit")
    if isinstance(kind, str) and kind.strip().lower() in NOT_SCORES:
        return kind.strip().lower()
    if isinstance(unit, str) and unit.strip().lower() in _NOT_SCORE_UNITS:
        return _NOT_SCORE_UNITS[unit.strip().lower()]
    return None


def _description(config: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    text = config.get("evaluation_description", result.get("evaluation_description"))
    return text if isinstance(text, str) else ""


def _results(record: Mapping[str, Any], file: JsonFile, label: str, i: int | None, derived: set[str],
             others: dict[str, str]) -> tuple[list[Record], int]:
    where = f"{label}/{file.path}"
    at = f"[{i}]." if i is not None else ""
    model = _model(record, file, where, at)
    stamp = record.get("retrieved_timestamp")
    when = number(_as_float(stamp))
    rank = (when,) if when is not None else ()
    seen: dict[tuple[str, str], int] = {}  # (evaluation, metric) → its record in out
    out: list[Record] = []
    unscored = 0
    for j, result in enumerate(record["evaluation_results"]):
        key = f"{at}evaluation_results[{j}]"
        if not isinstance(result, Mapping):
            raise bad_field(where, key, result, "an object")
        dataset = text_field(result, "evaluation_name", where, f"{key}.evaluation_name")
        details = object_field(result, "score_details", where, f"{key}.score_details")
        config = object_field(result, "metric_config", where, f"{key}.metric_config")
        raw = details.get("score")
        x, why = score_of(raw)
        why = why or (not_a_number(raw) if x is None else "")  # the schema's score is a number
        if dataset is None or (x is None and not why):
            unscored += 1
            continue
        kind = not_a_score(config, where, f"{key}.metric_config")
        if kind is not None and kind != "index":  # a rank, a cost, a latency of the whole board is no aggregate
            others[dataset] = kind
            continue
        if kind == "index" or is_aggregate(dataset) or _AGGREGATE_DESCRIPTION.search(_description(config, result)):
            derived.add(dataset)
            continue
        lo, hi = _bounds(config)
        if x is not None and ((lo is not None and x < lo) or (hi is not None and x > hi)):
            why = f"{x:g}, outside the record's own range {lo:g}–{hi:g}" if lo is not None and hi is not None \
                else f"{x:g}, outside the record's own range"
        metric = _metric(config, where, key)
        first = seen.setdefault((dataset, metric), len(out))
        if first != len(out):
            _repeated(out[first], x, why, key, where, record["evaluation_results"], dataset, metric)
            continue  # the same result again, the same score
        lower = config.get("lower_is_better")
        if lower is not None and not isinstance(lower, bool):
            raise bad_field(where, f"{key}.metric_config.lower_is_better", lower, "true or false")
        out.append(Record(model, dataset, metric, x if x is not None else float("nan"),
                          (not lower) if isinstance(lower, bool) else None, file.path, rank, why,
                          f"{key}.score_details.score"))
    return out, unscored


def _repeated(kept: Record, x: float | None, why: str, key: str, where: str, results: Sequence[Any],
              dataset: str, metric: str) -> None:
    """A result listed again in one record: the same score is the same result; another is an error.

    Raises
    ------
    InputError
        The record lists the evaluation and metric again with another score.
    """
    same = (x is not None and x == kept.value) or (x is None and why == kept.bad)
    if same:
        return
    n = sum(1 for r in results if isinstance(r, Mapping) and r.get("evaluation_name") == dataset)
    shown = rounding.text(x, "score") if x is not None else why
    raise InputError(f"{where}: evaluation '{dataset}' (metric '{metric}') is listed {n} times in one record with "
                     f"different scores ({kept.key} is {rounding.text(kept.value, 'score')}, {key}.score_details."
                     f"score is {shown}), and nothing tells which is the one. Keep one of them in the file.",
                     field="scores_file")


def read(files: Sequence[JsonFile], label: str, skip_unreadable: bool = False) -> Parsed:
    """The scores of Every Eval Ever records.

    Parameters
    ----------
    files : sequence of JsonFile
        JSON files, each one record or a list of records.
    label : str
        The source's name in messages.
    skip_unreadable : bool
        Skip (with a warning) a file that is not a record or has a field of the wrong
        type, instead of stopping with an error.

    Returns
    -------
    Parsed
    """
    records: list[Record] = []
    aside: list[tuple[str, str]] = []
    unscored = 0
    versions: set[str] = set()
    derived: set[str] = set()
    others: dict[str, str] = {}  # evaluation → its metric_kind, for results that are no task's score
    n_records = n_files = 0
    for file in files:
        where = f"{label}/{file.path}"
        try:
            if not looks_like(file.data):
                raise InputError(f"{where}: is not an Every Eval Ever record (no 'model_info' with "
                                 "'evaluation_results'). Remove it from the folder, or pass --skip-unreadable to "
                                 "skip it with a warning.", field="scores_file")
            many = isinstance(file.data, list)
            got: list[Record] = []
            for i, record in enumerate(file.data if many else [file.data]):
                rs, n = _results(record, file, label, i if many else None, derived, others)
                got += rs
                unscored += n
                version = record.get("schema_version")
                versions.add(version if isinstance(version, str) else "?")
                n_records += 1
        except InputError as exc:
            if not skip_unreadable:
                raise
            aside.append((file.path, str(exc).removeprefix(f"{where}: ")))
            continue
        n_files += 1
        records += got
    notes = [f"{n_records} record(s) of schema version {', '.join(sorted(versions))}."] if n_records else []
    warnings: list[str] = []
    if aside:
        warnings.append(f"skipped {len(aside)} unreadable file(s): " + "; ".join(f"{p} ({why})" for p, why in aside))
    if derived:
        warnings.append(f"set aside {len(derived)} derived evaluation(s) — aggregates of the others, not tasks: "
                        f"{names(derived)}.")
        aside += [(d, "a derived aggregate (named or described as a mean, average, win rate, overall score or "
                      "composite index, or all subjects)") for d in sorted(derived)]
    scored = {r.dataset for r in records}
    others = {(f"{d} (its {k} result)" if d in scored else d): k for d, k in others.items()}  # a task's rank beside it
    if others:
        warnings.append(f"set aside {len(others)} evaluation(s) whose records say they are no task's score "
                        f"(metric_kind): {names(set(others))} — " + "; ".join(
                            f"{NOT_SCORES[k]}: {sum(1 for v in others.values() if v == k)}"
                            for k in NOT_SCORES if k in others.values()) + ".")
        aside += [(d, f"not a task's score: {NOT_SCORES[k]} (metric_kind '{k}')") for d, k in sorted(others.items())]
    if unscored:
        notes.append(f"set aside {unscored} evaluation result(s) without a numeric score_details.score or an "
                     "evaluation_name.")
    return Parsed(tuple(records), tuple(notes), None,
                  "each evaluation's first metric as its records list it", n_files, TITLE,
                  "the most recently retrieved record (retrieved_timestamp)", tuple(warnings), tuple(aside))


def _as_float(value: Any) -> Any:
    """A timestamp given as text (``"1770682486.62"``) as a number; others unchanged."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return value
