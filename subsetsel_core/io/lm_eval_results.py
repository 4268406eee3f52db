"""lm-evaluation-harness result files (``results_<date>.json``, one per model run).

Read as EleutherAI/lm-evaluation-harness writes them (followed at v0.4.12, commit
``4e7e0d47``: ``lm_eval/result_schema.py``, ``lm_eval/evaluator_utils.py``,
``lm_eval/loggers/evaluation_tracker.py``): a top-level ``results`` maps each task to
its metrics, keyed ``"metric,filter"`` (``"acc,none"``, ``"acc_norm,none"``,
``"exact_match,strict-match"``; files of harness 0.3 write bare ``"acc"``), next to
``"metric_stderr,filter"`` errors and the ``alias``, ``name``, ``sample_len`` fields;
``higher_is_better`` maps task → metric → direction; ``group_subtasks`` maps each group
to its subtasks. The harness writes ``OUTPUT/<model_name_sanitized>/results_<date>.json``.

* The model is the file's ``model_name``, else the model of ``config.model_args``
  (keys ``peft``, ``delta``, ``pretrained``, ``model``, ``path``, ``engine``, in the
  harness's own order), else ``config.model`` when it names a model rather than a
  backend such as ``hf``, else the folder the file is in, else the file name.
* The harness marks no metric as primary. The default is each task's first metric as
  the file lists it, which is the task's own ``metric_list`` order with its first filter
  (``acc`` before ``acc_norm``; ``strict-match`` before ``flexible-extract``).
* Groups (``mmlu``, ``mmlu_humanities``) aggregate their subtasks: they are set aside
  when their subtasks are in the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import Parsed, Record, mapping, names, number

TITLE = "lm-evaluation-harness"
MODEL_ARG_KEYS: tuple[str, ...] = ("peft", "delta", "pretrained", "model", "path", "engine")
"""Keys of ``model_args`` that name the model, in the harness's order of preference."""
TASK_FIELDS = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})
"""Keys of a task's results that are not metrics."""
SIGNATURE_KEYS = ("versions", "config", "configs", "n-shot", "higher_is_better", "group_subtasks")


def looks_like(data: Any) -> bool:
    """Whether a JSON value is an lm-evaluation-harness results file."""
    return (isinstance(data, dict) and isinstance(data.get("results"), dict)
            and any(k in data for k in SIGNATURE_KEYS))


def _from_model_args(args: Any) -> str | None:
    pairs: dict[str, Any] = {}
    if isinstance(args, Mapping):
        pairs = {str(k): v for k, v in args.items()}
    elif isinstance(args, str):
        for item in args.split(","):
            key, sep, value = item.partition("=")
            if sep:
                pairs.setdefault(key.strip(), value.strip())
    else:
        return None
    for key in MODEL_ARG_KEYS:
        found = pairs.get(key)
        if found not in (None, ""):
            return str(found)
    return None


def model_name(data: Mapping[str, Any], file: JsonFile) -> tuple[str, bool]:
    """The model of a results file, and whether the file itself names it."""
    name = data.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip(), True
    config = mapping(data.get("config"))
    from_args = _from_model_args(config.get("model_args"))
    if from_args:
        return from_args, True
    model = config.get("model")
    if isinstance(model, str) and "/" in model:
        return model, True
    if len(file.parts) >= 2:
        return file.parts[-2].replace("__", "/"), False
    return file.parts[-1].removesuffix(".json").removesuffix(".JSON"), False


def _groups(data: Mapping[str, Any], results: Mapping[str, Any]) -> set[str]:
    """Tasks of ``results`` that aggregate subtasks also in ``results``."""
    subtasks = mapping(data.get("group_subtasks"))
    aggregated = mapping(data.get("groups"))
    out: set[str] = set()
    for group in set(subtasks) | set(aggregated):
        if group not in results:
            continue
        kids = subtasks.get(group)
        if isinstance(kids, list) and kids:
            if any(isinstance(k, str) and k in results for k in kids):
                out.add(str(group))
        elif group in aggregated and len(results) > 1:
            out.add(str(group))
    return out


def metric_base(key: str) -> str:
    """The metric of a ``"metric,filter"`` key (``"acc_norm,none"`` → ``"acc_norm"``)."""
    return key.split(",", 1)[0]


def read(files: Sequence[JsonFile], label: str) -> Parsed:
    """The scores of lm-evaluation-harness result files.

    Parameters
    ----------
    files : sequence of JsonFile
        The folder's JSON files; those that are not results files are set aside.
    label : str
        The folder's name in messages.

    Returns
    -------
    Parsed
        One record per model, task and metric; ranked by the run's ``date``.
    """
    records: list[Record] = []
    notes: list[str] = []
    other: list[str] = []
    empty: list[str] = []
    unnamed: list[str] = []
    groups: set[str] = set()
    n_files = 0
    for file in files:
        data = file.data
        if not looks_like(data):
            other.append(file.path)
            continue
        n_files += 1
        model, named = model_name(data, file)
        if not named:
            unnamed.append(file.path)
        results: Mapping[str, Any] = data["results"]
        skip = _groups(data, results)
        groups |= skip
        directions = mapping(data.get("higher_is_better"))
        date = number(data.get("date"))
        rank = (date if date is not None else float("-inf"), file.path)
        before = len(records)
        for task, metrics in results.items():
            if task in skip or not isinstance(metrics, Mapping):
                continue
            declared = mapping(directions.get(task))
            for key, value in metrics.items():
                x = number(value)
                if key in TASK_FIELDS or x is None or "_stderr" in metric_base(str(key)):
                    continue
                hib = declared.get(metric_base(str(key)))
                records.append(Record(model, str(task), str(key), x,
                                      hib if isinstance(hib, bool) else None, file.path, rank))
        if len(records) == before:
            empty.append(file.path)
    if groups:
        notes.append(f"set aside {len(groups)} group score(s) that aggregate their subtasks: {names(groups)}.")
    if unnamed:
        notes.append(f"{len(unnamed)} file(s) name no model (no model_name or config.model_args); their model "
                     f"is the folder or file name: {names(unnamed, 3)}.")
    if empty:
        notes.append(f"{len(empty)} file(s) hold no numeric task result: {names(empty, 3)}.")
    if other:
        notes.append(f"set aside {len(other)} JSON file(s) that are not lm-evaluation-harness results: "
                     f"{names(other, 3)}.")
    return Parsed(tuple(records), tuple(notes), None,
                  "each task's first metric as the harness lists it (its metric_list order, first filter)",
                  n_files, TITLE, "the latest run (by the file's date)")
