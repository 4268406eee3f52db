"""MTEB results folders: ``<model>/<revision>/<Task>.json`` plus ``model_meta.json``.

Read as MTEB writes them (followed at mteb 2.20.0, commit ``a905523d``:
``mteb/results/task_result.py`` ``TaskResult.to_disk``/``get_score``,
``mteb/cache/result_cache.py``, ``mteb/results/benchmark_results.py``
``join_revisions``): each task file has ``task_name``, ``mteb_version`` and ``scores``
mapping each split to a list of subsets (``hf_subset``, ``languages``, ``main_score`` and
the task's other metrics). Files written before mteb 1.11 (no ``scores``: the splits at
the top, each with ``main_score`` or one entry per language) are read too. The folder
layout is ``results/<model_name with / as __>/<revision>/<Task>.json``, with
``experiments/<name>/`` below the revision for experiment runs; ``model_meta.json`` in
the revision folder gives the model's ``name`` and ``revision``.

* A task's score is the mean of the metric over every split and subset in its file,
  as ``TaskResult.get_score()`` computes it; the default metric is ``main_score``.
* Several revisions of one model are joined as ``join_revisions`` does: per task, a
  run with a known revision is preferred, then the newest ``mteb_version``.
* MTEB's main scores are all "higher is better" (its leaderboard ranks them so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.result_files import JsonFile
from subsetsel_core.io.result_records import Parsed, Record, guess_higher_is_better, names, number

TITLE = "MTEB"
MAIN = "main_score"
META_FILE = "model_meta.json"
EXPERIMENTS = "experiments"
NO_REVISION = ("no_revision_available", "external", "")
SUBSET_FIELDS = frozenset({"hf_subset", "languages", "evaluation_time", "kg_co2_emissions"})
"""Keys of a subset's scores that are not metrics."""
LEGACY_SPLITS = frozenset({"test", "dev", "validation", "train", "val"})
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
    return tuple(int(x) for x in _VERSION.findall(str(text or "")))[:4]


def _subsets(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every subset's scores of a task file, over all splits."""
    out: list[Mapping[str, Any]] = []
    scores = data.get("scores")
    if isinstance(scores, Mapping):
        for entries in scores.values():
            if isinstance(entries, list):
                out += [e for e in entries if isinstance(e, Mapping)]
        return out
    for split, value in data.items():
        if split not in LEGACY_SPLITS or not isinstance(value, Mapping):
            continue
        if MAIN in value or not any(isinstance(v, Mapping) for v in value.values()):
            out.append(value)
        else:
            out += [v for v in value.values() if isinstance(v, Mapping)]
    return out


def task_scores(data: Mapping[str, Any]) -> dict[str, float]:
    """A task file's metrics, each the mean over the splits and subsets that report it.

    A metric counts only when every subset reports it as a number.
    """
    subsets = _subsets(data)
    if not subsets:
        return {}
    keys = [k for k in subsets[0] if k not in SUBSET_FIELDS]
    out: dict[str, float] = {}
    for key in keys:
        values = [number(s.get(key)) for s in subsets]
        if all(v is not None for v in values):
            out[str(key)] = sum(v for v in values if v is not None) / len(values)
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
    if meta is not None and isinstance(meta.get("name"), str) and meta["name"]:
        model, revision = meta["name"], str(meta.get("revision") or "")
    elif len(parts) >= 2:
        model, revision = parts[-2].replace("__", "/"), parts[-1]
    elif len(parts) == 1:
        model, revision = parts[0].replace("__", "/"), ""
    else:
        model, revision = label, ""
    return (f"{model} [{experiment}]" if experiment else model), revision


def _check_placed(unplaced: Sequence[tuple[str, str]], label: str) -> None:
    """Task files with no folder and no ``model_meta.json`` cannot be told apart by model."""
    tasks = [t for t, _ in unplaced]
    repeated = sorted({t for t in tasks if tasks.count(t) > 1})
    if repeated:
        raise InputError(
            f"{label}: {len(unplaced)} MTEB task files sit outside any model folder and {names(repeated, 3)} "
            "appears more than once, so their models cannot be told apart. Upload the results folder as a zip "
            "(it keeps the <model>/<revision>/<Task>.json folders), or give its path.",
            field="scores_file",
        )


def read(files: Sequence[JsonFile], label: str) -> Parsed:
    """The scores of an MTEB results folder.

    Parameters
    ----------
    files : sequence of JsonFile
        The folder's JSON files (task results and ``model_meta.json`` files).
    label : str
        The folder's name in messages (and the model's name when the files sit at the
        top of the folder without a ``model_meta.json``).

    Returns
    -------
    Parsed
    """
    metas = {_folder(f.parts[:-1]): f.data for f in files if is_model_meta(f)}
    records: list[Record] = []
    other: list[str] = []
    empty: list[str] = []
    revisions: dict[str, set[str]] = {}
    legacy = 0
    n_files = 0
    unplaced: list[tuple[str, str]] = []
    for file in files:
        if is_model_meta(file):
            continue
        data = file.data
        if not looks_like(data):
            other.append(file.path)
            continue
        n_files += 1
        legacy += not isinstance(data.get("scores"), Mapping)
        model, revision = _where(file, metas, label)
        task = data.get("task_name") or data.get("mteb_dataset_name") or file.parts[-1].removesuffix(".json")
        if len(file.parts) == 1 and "." not in metas:
            unplaced.append((str(task), file.path))
        revisions.setdefault(model, set()).add(revision)
        scores = task_scores(data)
        if not scores:
            empty.append(file.path)
        rank = (revision not in NO_REVISION, _version(data.get("mteb_version")), revision)
        for key, value in scores.items():
            hib = True if key == MAIN else guess_higher_is_better(key)
            records.append(Record(model, str(task), key, value, hib, file.path, rank))
    _check_placed(unplaced, label)
    notes: list[str] = []
    joined = sorted(m for m, r in revisions.items() if len(r) > 1)
    if joined:
        notes.append(f"{len(joined)} model(s) have results for several revisions, joined per task (a known "
                     f"revision first, then the newest mteb_version): {names(joined, 3)}.")
    if legacy:
        notes.append(f"{legacy} file(s) are in the layout of mteb before 1.11 (no 'scores').")
    if empty:
        notes.append(f"{len(empty)} task file(s) have no score that every subset reports: {names(empty, 3)}.")
    if other:
        notes.append(f"set aside {len(other)} JSON file(s) that are not MTEB task results: {names(other, 3)}.")
    return Parsed(tuple(records), tuple(notes), MAIN,
                  "main_score, the mean over the splits and subsets in each task file", n_files, TITLE,
                  "one revision per task (a known revision first, then the newest mteb_version)")
