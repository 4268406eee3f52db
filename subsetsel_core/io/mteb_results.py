"""MTEB results folders: ``<model>/<revision>/<Task>.json`` plus ``model_meta.json``.

Read as MTEB writes them (followed at mteb 2.20.0, commit ``a905523d``:
``mteb/results/task_result.py`` ``TaskResult.to_disk``/``get_score``/
``validate_and_filter_scores``/``_convert_from_before_v1_11_0``,
``mteb/abstasks/task_metadata.py`` ``eval_splits`` (default ``["test"]``)/``eval_langs``/
``hf_subsets``, ``mteb/results/benchmark_results.py`` ``join_revisions``; and the files of
embeddings-benchmark/results at ``f4cc6c8b``): each task file has ``task_name``,
``mteb_version`` and ``scores`` mapping each split to a list of subsets (``hf_subset``,
``languages``, ``main_score`` and the task's other metrics). Files written before mteb
1.11 (``mteb_dataset_name``, the splits at the top, each with the metrics or one object
per subset, ``cos_sim``-style nested metrics) are read too. The layout is
``results/<model_name with / as __>/<revision>/<Task>.json`` (revision folders include
``external`` and ``no_revision_available``), with ``experiments/<name>/`` below the
revision for experiment runs; ``model_meta.json`` gives the model's ``name``.

* **One revision per model**: the revision with the most task files, then a known
  revision (not ``external``/``no_revision_available``), then the newest
  ``mteb_version`` among its files, then the last revision name; the other revisions'
  files are set aside with a warning. (mteb's ``join_revisions`` picks per task; one
  revision keeps every score of a model from one model version.)
* **Splits and subsets per task, the same for every model**: those mteb declares for
  the task when the ``mteb`` package is installed (:mod:`~subsetsel_core.io.mteb_tasks`;
  a model lacking one of them has a gap on the task, as mteb's NaN); otherwise the
  (split, subset) pairs in the files of more than half of the models (those every file
  has when no pair is), keeping ``test`` when it is among them (``eval_splits`` defaults
  to ``["test"]``) and never ``train`` next to another split; a model lacking one of them
  has a gap on the task, as with the metadata. What is dropped, and every model with a
  gap, is a warning naming it. A task's score is the mean of the metric over
  the pairs used, as ``TaskResult.get_score()`` computes it.
* The same model, revision and task in two files is an error naming both.
* MTEB's main scores are all higher-is-better (its leaderboard ranks them so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io import mteb_tasks
from subsetsel_core.io.mteb_subsets import Pair, TaskFile, records_of
from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import (
    Parsed,
    bad_field,
    names,
    text_field,
)

TITLE = "MTEB"
MAIN = "main_score"
META_FILE = "model_meta.json"
EXPERIMENTS = "experiments"
NO_REVISION = ("no_revision_available", "external", "")
SUBSET_FIELDS = frozenset({"hf_subset", "languages", "evaluation_time", "kg_co2_emissions"})
"""Keys of a subset's scores that are not metrics."""
LEGACY_SPLITS = frozenset({"test", "dev", "validation", "train", "val"})
LEGACY_NESTED = {"cos_sim": "cosine", "manhattan": "manhattan", "euclidean": "euclidean", "dot": "dot",
                 "max": "max", "similarity": "similarity", "v_measures": "v_measures"}
"""Nested metric objects of files before mteb 1.11 and the prefix mteb gives their metrics."""
_VERSION = re.compile(r"\d+")

def looks_like(data: Any) -> bool:
    """Whether a JSON value is an MTEB task result (current or pre-1.11 layout)."""
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("scores"), dict) and ("task_name" in data or "mteb_version" in data):
        return True
    return "mteb_dataset_name" in data or ("mteb_version" in data and bool(LEGACY_SPLITS & set(data)))


def is_model_meta(file: JsonFile) -> bool:
    """Whether a file is an MTEB ``model_meta.json``."""
    return file.parts[-1] == META_FILE and isinstance(file.data, dict)


def _version(text: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in _VERSION.findall(text))[:4] if isinstance(text, str) else ()


def _flatten(value: Mapping[str, Any]) -> dict[str, Any]:
    """A pre-1.11 subset's metrics with nested ``cos_sim: {spearman: …}`` as ``cosine_spearman``."""
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k in LEGACY_NESTED and isinstance(v, Mapping):
            out.update({f"{LEGACY_NESTED[k]}_{kk}": vv for kk, vv in v.items()})
        else:
            out[str(k)] = v
    return out


def entries(data: Mapping[str, Any], where: str) -> dict[Pair, tuple[Mapping[str, Any], str]]:
    """Every (split, subset) of a task file with its scores and its key in the file.

    Raises
    ------
    InputError
        A split that is not a list of subsets, a subset that is not an object, an
        ``hf_subset`` that is not text, or a subset listed twice in a split.
    """
    out: dict[Pair, tuple[Mapping[str, Any], str]] = {}
    scores = data.get("scores")
    if scores is not None:
        if not isinstance(scores, Mapping):
            raise bad_field(where, "scores", scores, "an object of splits")
        for split, items in scores.items():
            if not isinstance(items, list):
                raise bad_field(where, f"scores.{split}", items, "a list of subsets")
            for i, e in enumerate(items):
                key = f"scores.{split}[{i}]"
                if not isinstance(e, Mapping):
                    raise bad_field(where, key, e, "an object")
                sub = text_field(e, "hf_subset", where, f"{key}.hf_subset") or "default"
                if (split, sub) in out:
                    raise InputError(f"{where}: split '{split}' lists subset '{sub}' twice ({out[(split, sub)][1]} "
                                     f"and {key}). Keep one of them.", field="scores_file")
                out[(str(split), sub)] = (e, key)
        return out
    for split in sorted(LEGACY_SPLITS & set(data)):
        value = data[split]
        if not isinstance(value, Mapping):
            raise bad_field(where, split, value, "an object of metrics")
        nested = {k: v for k, v in value.items() if isinstance(v, Mapping) and k not in LEGACY_NESTED}
        if nested:
            out.update({(split, str(k)): (_flatten(v), f"{split}.{k}") for k, v in nested.items()})
        else:
            out[(split, "default")] = (_flatten(value), split)
    return out


def _folder(parts: tuple[str, ...]) -> str:
    return str(PurePosixPath(*parts)) if parts else "."


def _where(file: JsonFile, metas: Mapping[str, Mapping[str, Any]], label: str) -> tuple[str, str]:
    """The model and revision of a task file (from its ``model_meta.json`` or its folders)."""
    parts = file.parts[:-1]
    meta = metas.get(_folder(parts))
    experiment = None
    if len(parts) >= 4 and parts[-2] == EXPERIMENTS:
        experiment, parts = parts[-1], parts[:-2]
    meta = meta or metas.get(_folder(parts))
    name = text_field(meta, "name", f"{label}/{_folder(parts)}/{META_FILE}") if meta is not None else None
    legacy = not isinstance(file.data.get("scores"), Mapping) if isinstance(file.data, Mapping) else False
    if (not name and legacy and parts and not is_revision(parts[-1])
            and not (len(parts) >= 2 and "__" in parts[-2])):  # <model>/<Task>.json, as mteb before 1.11 wrote it
        return parts[-1].replace("__", "/") + (f" [{experiment}]" if experiment else ""), ""
    if name:
        model = name
    elif len(parts) >= 1:
        model = parts[-2 if len(parts) >= 2 else 0].replace("__", "/")
    else:
        model = label
    revision = parts[-1] if len(parts) >= 2 else ""
    return (f"{model} [{experiment}]" if experiment else model), revision


_REVISION = re.compile(r"[0-9a-f]{7,40}")


def is_revision(folder: str) -> bool:
    """Whether a folder name is a model revision as mteb names them: a commit hash, or ``no_revision_available`` /
    ``external`` (files of mteb before 1.11 sit in ``<model>/``, unless in ``<org>__<model>/<revision>/``)."""
    return folder in NO_REVISION or _REVISION.fullmatch(folder) is not None


def _check_placed(unplaced: Sequence[str], label: str) -> None:
    """Task files with no folder and no ``model_meta.json`` cannot be told apart by model."""
    repeated = sorted({t for t in unplaced if unplaced.count(t) > 1})
    if repeated:
        raise InputError(
            f"{label}: {len(unplaced)} MTEB task files sit outside any model folder and {names(repeated, 3)} "
            "appears more than once, so their models cannot be told apart. Upload the results folder as a zip "
            "(it keeps the <model>/<revision>/<Task>.json folders), or give its path.",
            field="scores_file",
        )


def task_file(file: JsonFile, metas: Mapping[str, Mapping[str, Any]], label: str) -> TaskFile:
    """One task file read strictly (the model, revision, task name and subsets)."""
    where = f"{label}/{file.path}"
    data = file.data
    model, revision = _where(file, metas, label)
    task = (text_field(data, "task_name", where) or text_field(data, "mteb_dataset_name", where)
            or file.parts[-1].removesuffix(".json"))
    version = data.get("mteb_version")
    return TaskFile(model, revision, task, file.path, entries(data, where), _version(version))


def _revisions(tfs: list[TaskFile], warnings: list[str], aside: list[tuple[str, str]]) -> list[TaskFile]:
    """One revision per model (see the module's rule); the others' files set aside."""
    by_model: dict[str, dict[str, list[TaskFile]]] = {}
    for tf in tfs:
        by_model.setdefault(tf.model, {}).setdefault(tf.revision, []).append(tf)
    kept: list[TaskFile] = []
    for model, revs in by_model.items():
        def order(rev: str) -> tuple[Any, ...]:
            files = revs[rev]  # noqa: B023 - used at once
            return (len({f.task for f in files}), rev not in NO_REVISION, max(f.version for f in files), rev)
        best = max(revs, key=order)
        kept += revs[best]
        others = sorted(r for r in revs if r != best)
        if others:
            n = sum(len(revs[r]) for r in others)
            warnings.append(f"{model}: results for {len(revs)} revisions; used '{best}' ({len(revs[best])} task "
                            f"file(s): the most tasks, then a known revision, then the newest mteb_version), set "
                            f"aside {n} file(s) of {', '.join(repr(r) for r in others)}.")
            aside += [(f, f"another revision of {model} ('{best}' is used)") for r in others
                      for f in sorted(x.path for x in revs[r])]
    return kept


def read(files: Sequence[JsonFile], label: str, skip_unreadable: bool = False) -> Parsed:
    """The scores of an MTEB results folder.

    Parameters
    ----------
    files : sequence of JsonFile
        The folder's JSON files (task results and ``model_meta.json`` files).
    label : str
        The folder's name in messages (and the model's name when the files sit at the
        top of the folder without a ``model_meta.json``).
    skip_unreadable : bool
        Skip (with a warning) a file that is not an MTEB task result or has a field
        of the wrong type, instead of stopping with an error.

    Returns
    -------
    Parsed
    """
    metas = {_folder(f.parts[:-1]): f.data for f in files if is_model_meta(f)}
    warnings: list[str] = []
    aside: list[tuple[str, str]] = []
    tfs: list[TaskFile] = []
    legacy = 0
    unplaced: list[str] = []
    for file in files:
        if is_model_meta(file):
            continue
        try:
            if not looks_like(file.data):
                raise InputError(f"{label}/{file.path}: is not an MTEB task result (no 'scores' with "
                                 "'task_name'). Remove it from the folder, or pass --skip-unreadable to skip it "
                                 "with a warning.", field="scores_file")
            tf = task_file(file, metas, label)
        except InputError as exc:
            if not skip_unreadable:
                raise
            aside.append((file.path, str(exc).removeprefix(f"{label}/{file.path}: ")))
            continue
        legacy += not isinstance(file.data.get("scores"), Mapping)
        if len(file.parts) == 1 and "." not in metas:
            unplaced.append(tf.task)
        tfs.append(tf)
    _check_placed(unplaced, label)
    if aside:
        warnings.append(f"skipped {len(aside)} unreadable file(s): " + "; ".join(f"{p} ({why})" for p, why in aside))
    kept = _revisions(tfs, warnings, aside)
    seen: dict[tuple[str, str], str] = {}
    for tf in kept:
        other = seen.setdefault((tf.model, tf.task), tf.path)
        if other != tf.path:
            raise InputError(f"{label}: {tf.model} has two results for task {tf.task} in one revision: {other} and "
                             f"{tf.path}. Remove one of them.", field="scores_file")
    records, readings = records_of(kept, label, warnings, aside)
    notes = [f"{legacy} file(s) are in the layout of mteb before 1.11 (no 'scores')."] if legacy else []
    if mteb_tasks.mteb_version() is None:
        notes.append("the mteb package is not installed: each task is scored on the splits and subsets every "
                     "model's file has (install mteb to use each task's declared eval splits and languages).")
    return Parsed(tuple(records), tuple(notes), MAIN,
                  "main_score, the mean over the task's splits and subsets (the same for every model)",
                  len(tfs), TITLE, "one revision per model", tuple(warnings), tuple(aside), readings,
                  main_is_higher=True)
