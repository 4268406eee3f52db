"""Every Eval Ever evaluation records (``eval.schema.json``), one JSON file per model run.

Read as the schema of evaleval/every_eval_ever defines them (followed at schema version
0.3.0, commit ``9bce4136``: ``every_eval_ever/schemas/eval.schema.json``; records of
schema 0.2 read the same): a record has ``model_info`` (``id`` in Hugging Face form,
``name``) and ``evaluation_results``, a list of results each with ``evaluation_name``,
``metric_config`` (``lower_is_better``, required; ``metric_id``, ``metric_name``,
``evaluation_description``) and ``score_details.score``. The datastore keeps them as
``data/<benchmark>/<developer>/<model>/<uuid>.json``; a file may also hold a list of
records.

* The dataset is ``evaluation_name``; the model is ``model_info.id``, else its
  ``name``.
* The metric of a result is its ``metric_id``, else ``metric_name``, else
  ``evaluation_description``, else ``"score"``; the default metric of a dataset is the
  first one its records list. The direction is the record's ``lower_is_better``.
* The same model and evaluation in several records: the most recently retrieved one
  (``retrieved_timestamp``) is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import Parsed, Record, mapping, names, number

TITLE = "Every Eval Ever"


def _is_record(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("evaluation_results"), list) and "model_info" in data


def looks_like(data: Any) -> bool:
    """Whether a JSON value is an Every Eval Ever record (or a list of them)."""
    if isinstance(data, list):
        return bool(data) and all(_is_record(x) for x in data)
    return _is_record(data)


def _metric(config: Mapping[str, Any]) -> str:
    for key in ("metric_id", "metric_name", "evaluation_description"):
        value = config.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "score"


def _model(record: Mapping[str, Any], file: JsonFile) -> str:
    info = mapping(record.get("model_info"))
    for key in ("id", "name"):
        value = info.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return file.parts[-2] if len(file.parts) >= 2 else file.parts[-1].removesuffix(".json")


def read(files: Sequence[JsonFile], label: str) -> Parsed:
    """The scores of Every Eval Ever records.

    Parameters
    ----------
    files : sequence of JsonFile
        JSON files, each one record or a list of records; others are set aside.
    label : str
        The source's name in messages.

    Returns
    -------
    Parsed
    """
    records: list[Record] = []
    other: list[str] = []
    unscored = 0
    versions: set[str] = set()
    n_records = 0
    for file in files:
        if not looks_like(file.data):
            other.append(file.path)
            continue
        for i, record in enumerate(file.data if isinstance(file.data, list) else [file.data]):
            n_records += 1
            versions.add(str(record.get("schema_version", "?")))
            model = _model(record, file)
            when = number(_as_float(record.get("retrieved_timestamp")))
            rank = (when if when is not None else float("-inf"), file.path, i)
            seen: dict[tuple[str, str], int] = {}
            for result in record["evaluation_results"]:
                if not isinstance(result, Mapping):
                    unscored += 1
                    continue
                details = mapping(result.get("score_details"))
                config = mapping(result.get("metric_config"))
                score = number(details.get("score"))
                dataset = result.get("evaluation_name")
                if score is None or not isinstance(dataset, str) or not dataset.strip():
                    unscored += 1
                    continue
                metric = _metric(config)
                n = seen[(dataset, metric)] = seen.get((dataset, metric), 0) + 1
                if n > 1:
                    metric = f"{metric} ({n})"
                lower = config.get("lower_is_better")
                records.append(Record(model, dataset.strip(), metric, score,
                                      (not lower) if isinstance(lower, bool) else None, file.path, rank))
    notes = [f"{n_records} record(s) of schema version {', '.join(sorted(versions))}."] if n_records else []
    if unscored:
        notes.append(f"set aside {unscored} evaluation result(s) without a numeric score_details.score or an "
                     "evaluation_name.")
    if other:
        notes.append(f"set aside {len(other)} JSON file(s) that are not Every Eval Ever records: "
                     f"{names(other, 3)}.")
    return Parsed(tuple(records), tuple(notes), None,
                  "each evaluation's first metric as its records list it", len(files) - len(other), TITLE,
                  "the most recently retrieved record (retrieved_timestamp)")


def _as_float(value: Any) -> Any:
    """A timestamp given as text (``"1770682486.62"``) as a number; others unchanged."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return value
