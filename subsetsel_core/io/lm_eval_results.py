"""lm-evaluation-harness result files (``results_<date>.json``, one per model run).

Read as EleutherAI/lm-evaluation-harness writes them (followed at v0.4.12, commit
``4e7e0d47``: ``lm_eval/result_schema.py``, ``lm_eval/evaluator_utils.py``,
``lm_eval/loggers/evaluation_tracker.py``; and v0.3.0, ``lm_eval/evaluator.py``
``simple_evaluate``, ``main.py``): a top-level ``results`` maps each task to its metrics,
keyed ``"metric,filter"`` (``"acc,none"``, ``"acc_norm,none"``,
``"exact_match,strict-match"``), next to ``"metric_stderr,filter"`` errors and the
``alias``, ``name``, ``sample_len`` fields; ``higher_is_better`` maps task → metric →
direction; ``group_subtasks`` maps each group to its subtasks; ``date`` is the run's
start time. The harness writes ``OUTPUT/<model_name_sanitized>/results_<date>.json``.
Files of harness 0.3 and before (the published Pythia evaluations) hold only
``results`` with bare metric keys (``"ppl"``, ``"acc"``, ``"pct_stereotype"``),
``versions`` and ``config`` (``model_args`` ``"pretrained=…,revision=step143000"``): no
directions and no date. Their directions come from the metric names
(:func:`~subsetsel_core.io.result_records.metric_direction`: ``ppl``, ``perplexity``,
``word_perplexity``, ``byte_perplexity``, ``bits_per_byte`` lower-is-better, as the
harness declares them in its task code), and bias scores (crows_pairs
``likelihood_difference``, ``pct_stereotype``) are set aside unless their metric is
chosen.

* The model is the file's ``model_name``, else the model of ``config.model_args``
  (keys ``peft``, ``delta``, ``pretrained``, ``model``, ``path``, ``engine``, in the
  harness's own order), else ``config.model`` when it names a model rather than a
  backend such as ``hf``, else the folder the file is in, else the file name. When files
  of one model name different ``revision=`` checkpoints in ``model_args``, each is its
  own model, ``name@revision`` (``revision=main``, the Hub's default branch, is no revision).
* Files of harness 0.3 and 0.4 of one task: 0.3's bare metric keys are read as 0.4's
  (``acc`` as ``acc,none``, ``ppl`` as ``perplexity,none``); lighteval's old
  ``suite|task|shots`` names as ``task|shots`` next to files that use those.
* The same model and task in several files: the run with the latest ``date`` is kept
  (a warning says so); files without a date, or with the same date, are an error naming
  both.
* The harness marks no metric as primary. The default is each task's first metric as
  the file lists it, which is the task's own ``metric_list`` order with its first filter
  (``acc`` before ``acc_norm``; ``strict-match`` before ``flexible-extract``).
* Groups (``mmlu``, ``mmlu_humanities``) aggregate their subtasks: they are set aside
  when their subtasks are in the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.link_names import link_text
from subsetsel_core.io.lm_eval_runs import (
    DEFAULT_REVISION,
    name_time,
    run_setting,
    same_metrics,
    same_tasks,
    shot_variants,
)
from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import (
    Parsed,
    Record,
    bad_field,
    mapping,
    names,
    not_a_number,
    number,
    object_field,
    reads_as_number,
    score_of,
    text_field,
)

TITLE = "lm-evaluation-harness"
MODEL_ARG_KEYS: tuple[str, ...] = ("peft", "delta", "pretrained", "model", "path", "engine")
"""Keys of ``model_args`` that name the model, in the harness's order of preference."""
TASK_FIELDS = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})
"""Keys of a task's results that are not metrics."""
PROPORTIONS = frozenset({"acc", "acc_norm", "exact_match", "em", "acc_mutual_info", "mc1", "mc2",
                         # lighteval's (its metrics.py): means of 0/1 items too
                         "extractive_match", "qem", "pem", "pqem", "quasi_exact_match", "prefix_exact_match",
                         "prefix_quasi_exact_match", "loglikelihood_acc", "loglikelihood_acc_norm"})
"""Metrics the harness computes as a mean of 0/1 (or 0–1) items: a value outside 0–1 is damage. Not ``f1``: squadv2's
(Hugging Face's ``squad_v2`` metric) is on 0–100, drop's and coqa's on 0–1."""
ALL_TASKS = "all"
"""The task of lighteval's and the Open LLM Leaderboard's results files that averages every other task."""
LIGHTEVAL_AVERAGE = "_average"
"""lighteval's subset averages: ``<task>:_average|<shots>`` (``info_loggers.MetricsLogger.aggregate``)."""
SIGNATURE_KEYS = ("versions", "config", "configs", "n-shot", "higher_is_better", "group_subtasks")


def looks_like(data: Any) -> bool:
    """Whether a JSON value is an lm-evaluation-harness results file."""
    return (isinstance(data, dict) and isinstance(data.get("results"), dict)
            and any(k in data for k in SIGNATURE_KEYS))


def _model_args(args: Any, where: str) -> dict[str, Any]:
    if args is None:
        return {}
    if isinstance(args, Mapping):
        return {str(k): v for k, v in args.items()}
    if not isinstance(args, str):
        raise bad_field(where, "config.model_args", args, "text or an object")
    pairs: dict[str, Any] = {}
    for item in args.split(","):
        key, sep, value = item.partition("=")
        if sep:
            pairs.setdefault(key.strip(), value.strip())
    return pairs


def model_name(data: Mapping[str, Any], file: JsonFile, where: str = "") -> tuple[str, bool, str]:
    """The model of a results file, whether the file itself names it, and the checkpoint
    ``revision`` its ``model_args`` name (empty when none).

    Raises
    ------
    InputError
        ``model_name``, ``config``, ``config.model_args``, ``config_general`` (lighteval's) or
        the model's name in them is of the wrong JSON type.
    """
    where = where or file.path
    config = object_field(data, "config", where)
    pairs = _model_args(config.get("model_args"), where)
    revision = pairs.get("revision")
    revision = revision.strip() if isinstance(revision, str) else ""
    name = text_field(data, "model_name", where) or text_field(
        object_field(data, "config_general", where), "model_name", where, "config_general.model_name")  # lighteval
    if name:
        return link_text(name), True, revision  # a model_name written as an HTML link: its text, as the tables read it
    for key in MODEL_ARG_KEYS:
        found = pairs.get(key)
        if found is None or found == "":
            continue
        if not isinstance(found, str):
            raise bad_field(where, f"config.model_args.{key}", found, "text")
        return found, True, revision
    model = text_field(config, "model", where, "config.model")
    if model and "/" in model:
        return model, True, revision
    if len(file.parts) >= 2:
        return file.parts[-2].replace("__", "/"), False, revision
    return file.parts[-1].removesuffix(".json").removesuffix(".JSON"), False, revision


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
    if ALL_TASKS in results and len(results) > 1:  # the Open LLM Leaderboard's details: the mean over the tasks
        out.add(ALL_TASKS)
    for key in map(str, results):  # lighteval's "mmlu:_average|5": the mean of the "mmlu:…|5" subsets
        task = key.rpartition("|")[0] if "|" in key else key
        if task.endswith(":" + LIGHTEVAL_AVERAGE):
            stem = task.removesuffix(LIGHTEVAL_AVERAGE)
            if any(k != key and str(k).startswith(stem) for k in results):
                out.add(key)
    return out


def metric_base(key: str) -> str:
    """The metric of a ``"metric,filter"`` key (``"acc_norm,none"`` → ``"acc_norm"``)."""
    return key.split(",", 1)[0]


def _file_records(file: JsonFile, model: str, label: str, groups: set[str],
                  settings: dict[tuple[str, str], str]) -> list[Record]:
    """The records of one results file, read strictly (each task's run setting into ``settings``)."""
    where = f"{label}/{file.path}"
    data = file.data
    results = data["results"]
    skip = _groups(data, results)
    groups |= skip
    directions = object_field(data, "higher_is_better", where)
    date = data.get("date")
    when = number(date) if date is not None else None
    if date is not None and when is None:
        raise bad_field(where, "date", date, "a number (the run's start time)")
    if when is None:  # lighteval and the Open LLM Leaderboard write no date: the time in the file's name
        when = name_time(file.path)
    rank = (when,) if when is not None else ()
    out: list[Record] = []
    for task, metrics in results.items():
        if task in skip:
            continue
        if not str(task).strip():
            raise InputError(f"{where}: a task in 'results' is named by an empty string ({json.dumps(task)}). Name "
                             "the task (its key in 'results') or remove it from the file.", field="scores_file")
        if not isinstance(metrics, Mapping):
            raise bad_field(where, f"results.{task}", metrics, "an object of metrics")
        declared = object_field(directions, task, where, f"higher_is_better.{task}")
        settings[(file.path, str(task))] = run_setting(data, str(task))
        for key, value in metrics.items():
            base = metric_base(str(key))
            if key in TASK_FIELDS or "_stderr" in base:
                continue
            x, why = score_of(value)
            if x is None and not why and ("," in str(key) or base in PROPORTIONS or reads_as_number(value)):
                why = not_a_number(value)  # a metric's key ("metric,filter", acc), or a number written as text
            if x is None and not why:
                continue  # text, null: not a metric
            if x is not None and base in PROPORTIONS and not -1e-9 <= x <= 1 + 1e-9:
                x, why = None, f"{x:g}, outside 0–1 (the harness reports {base} as a fraction)"
            hib = declared.get(base)
            if hib is not None and not isinstance(hib, bool):
                raise bad_field(where, f"higher_is_better.{task}.{base}", hib, "true or false")
            out.append(Record(model, str(task), str(key), x if x is not None else float("nan"), hib,
                              file.path, rank, why, f"results.{task}.{key}"))
    return out


def read(files: Sequence[JsonFile], label: str, skip_unreadable: bool = False) -> Parsed:
    """The scores of lm-evaluation-harness result files.

    Parameters
    ----------
    files : sequence of JsonFile
        The folder's JSON files; a file that is not a results file is an error (or, with
        ``skip_unreadable``, skipped with a warning).
    label : str
        The folder's name in messages.
    skip_unreadable : bool
        Skip a file that is not a results file or has a field of the wrong type.

    Returns
    -------
    Parsed
        One record per model, task and metric; ranked by the run's ``date``.
    """
    records: list[Record] = []
    notes: list[str] = []
    aside: list[tuple[str, str]] = []
    empty: list[str] = []
    unnamed: list[str] = []
    groups: set[str] = set()
    settings: dict[tuple[str, str], str] = {}
    runs: list[tuple[JsonFile, str, str]] = []
    relative: set[str] = set()
    for file in files:
        where = f"{label}/{file.path}"
        try:
            if not looks_like(file.data):
                raise InputError(f"{where}: is not an lm-evaluation-harness results file (no 'results' object "
                                 "with 'versions' or 'config'). Remove it from the folder, or pass "
                                 "--skip-unreadable to skip it with a warning.", field="scores_file")
            model, named, revision = model_name(file.data, file, where)
            got = _file_records(file, model, label, groups, settings)
        except InputError as exc:
            if not skip_unreadable:
                raise
            aside.append((file.path, str(exc).removeprefix(f"{where}: ")))
            continue
        if named and model.startswith(("./", "../")) and len(file.parts) >= 3:  # a checkpoint on one machine's disk
            relative.add(model)
            model = f"{file.parts[-3]}/{model.lstrip('./')}"  # named by its experiment's folder as well
            got = [r._replace(model=model) for r in got]
        if not named:
            unnamed.append(file.path)
        if not got:
            empty.append(file.path)
        runs.append((file, model, revision))
        records += got
    revisions: dict[str, set[str]] = {}
    runs = [(f, m, "" if r == DEFAULT_REVISION else r) for f, m, r in runs]  # the Hub's default branch: no revision
    for _, model, revision in runs:
        revisions.setdefault(model, set()).add(revision)
    split = {m for m, r in revisions.items() if len(r) > 1}
    if split:
        rename = {f.path: f"{m}@{r}" if r else m for f, m, r in runs if m in split}
        records = [r._replace(model=rename.get(r.source, r.model)) for r in records]
        notes.append(f"{len(split)} model(s) were run at several checkpoints (model_args revision=); each "
                     f"checkpoint is a model, name@revision: {names(split, 3)}.")
    if relative:
        notes.append(f"{len(relative)} model(s) are named by a relative path ({names(relative, 3)}), which names "
                     "another checkpoint in each experiment: each is named by the folder above the harness's output "
                     "folder as well (<experiment>/<path>).")
    records, renamed = same_metrics(records)
    if renamed:
        notes.append(f"files of harness 0.3 and of 0.4 hold the same tasks: 0.3's metric keys are read as 0.4's "
                     f"({', '.join(f'{a} as {b}' for a, b in sorted(renamed))}), so that their runs compare.")
    records, suites = same_tasks(records)
    warnings = []
    if suites:
        warnings.append(f"{len(suites)} task(s) are named with lighteval's suite in some files and without it in "
                        f"others ({', '.join(f'{a} as {b}' for a, b in sorted(suites)[:4])}"
                        f"{' …' if len(suites) > 4 else ''}): read as one task each.")
    if aside:
        warnings.append(f"skipped {len(aside)} unreadable file(s): " + "; ".join(f"{p} ({why})" for p, why in aside))
    shots = shot_variants({r.dataset for r in records})
    if shots:
        warnings.append(f"{len(shots)} task(s) are in the files at several few-shot counts (lighteval names the shots "
                        "in the task: " + "; ".join(f"{b}|{', |'.join(v)}" for b, v in list(shots.items())[:4])
                        + "): each is read as a task of its own, which the models run at another count lack; give "
                        "runs of one setting per task.")
    if groups:
        notes.append(f"set aside {len(groups)} group score(s) that aggregate their subtasks: {names(groups)}.")
        aside += [(g, "a group score: the mean of its subtasks, which are in the file") for g in sorted(groups)]
    if unnamed:
        notes.append(f"{len(unnamed)} file(s) name no model (no model_name or config.model_args); their model "
                     f"is the folder or file name: {names(unnamed, 3)}.")
    if empty:
        warnings.append(f"{len(empty)} file(s) hold no numeric task result: {names(empty, 3)}.")
    lighteval = bool(runs) and all(isinstance(f.data.get("config_general"), Mapping) for f, _, _ in runs)
    return Parsed(tuple(records), tuple(notes), None,
                  "each task's first metric as the harness lists it (its metric_list order, first filter)",
                  len(runs), "lighteval" if lighteval else TITLE, "the latest run (by the file's date, or the time in its name)", tuple(warnings),
                  tuple(aside), settings=settings)
