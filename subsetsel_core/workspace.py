"""Saving and loading a whole workspace to one file — safely.

A workspace is the benchmark, its descriptor tables, the representation recipes, the
user's settings (selection, evaluation choices: plain JSON) and finished or partial
evaluation results. The
file is a zip archive of JSON, CSV and ``.npy`` arrays: nothing in it is ever unpickled or
evaluated (``numpy.load(..., allow_pickle=False)``), its uncompressed size is checked
before reading, and every part is validated again on load.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.io.tables import max_bytes
from subsetsel_core.metrics import METRICS
from subsetsel_core.representations.recipe import RepresentationRecipe

FORMAT = "subsetsel-workspace"
VERSION = 1


@dataclass
class Workspace:
    """Everything a user would not want to lose.

    Attributes
    ----------
    benchmark : Benchmark
    descriptors : dict of str to DataFrame
        Representation name → descriptor table (index = dataset).
    settings : dict
        JSON-serialisable settings of the app or script.
    evaluations : dict of str to EvaluationResult
    recipes : dict of str to RepresentationRecipe
        Named representation recipes over the descriptor tables.
    """

    benchmark: Benchmark
    descriptors: dict[str, pd.DataFrame] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    evaluations: dict[str, EvaluationResult] = field(default_factory=dict)
    recipes: dict[str, RepresentationRecipe] = field(default_factory=dict)


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def _load_npy(data: bytes, what: str) -> np.ndarray:
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise InputError(f"workspace: {what} is not a plain numeric array ({exc}).", field="workspace") from None
    if arr.dtype.kind not in "fiub":
        raise InputError(f"workspace: {what} has dtype {arr.dtype}; a numeric array was expected.", field="workspace")
    return arr


def save_workspace(ws: Workspace, target: str | Path | None = None) -> bytes:
    """Write ``ws`` as a zip archive; returns its bytes (and writes ``target`` if given)."""
    b = ws.benchmark
    meta: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "benchmark": {"name": b.name, "higher_is_better": b.higher_is_better, "datasets": list(b.datasets),
                      "models": list(b.models), "folds": list(b.folds)},
        "descriptors": list(ws.descriptors),
        "recipes": {name: r.to_dict() for name, r in ws.recipes.items()},
        "settings": ws.settings,
        "evaluations": {},
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("scores.npy", _npy(b.scores))
        for i, df in enumerate(ws.descriptors.values()):
            z.writestr(f"descriptors/{i}.csv", df.to_csv(index=True, index_label="dataset"))
        for i, (name, res) in enumerate(ws.evaluations.items()):
            entries = [{"key": e.key, "strategy": e.strategy, "representation": e.representation} for e in res.entries]
            meta["evaluations"][name] = {
                "file": i, "config": res.config.to_dict(), "ks": [int(k) for k in res.ks], "entries": entries,
                "trials_done": res.trials_done, "complete": res.complete, "info": res.info,
            }
            for j, e in enumerate(res.entries):
                for m in res.config.metrics:
                    z.writestr(f"evaluations/{i}/{j}_{m}.npy", _npy(res.values[e.key][m]))
        z.writestr("workspace.json", json.dumps(meta, indent=1, default=str))
    data = buf.getvalue()
    if target is not None:
        Path(target).write_bytes(data)
    return data


def load_workspace(source: str | Path | bytes, *, label: str = "workspace") -> Workspace:
    """Read a workspace written by :func:`save_workspace`.

    Raises
    ------
    InputError
        Not a workspace file, a newer format, an oversized or inconsistent archive.
    """
    data = Path(source).read_bytes() if isinstance(source, str | Path) else bytes(source)
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InputError(f"{label}: not a subsetsel workspace file (not a zip archive).", field="workspace") from None
    with z:
        total = sum(i.file_size for i in z.infolist())
        if total > 4 * max_bytes():
            raise InputError(f"{label}: unpacks to {total / 2**20:.0f} MB, more than allowed; not loaded.", field="workspace")
        names = set(z.namelist())
        if "workspace.json" not in names:
            raise InputError(f"{label}: not a subsetsel workspace file (no workspace.json).", field="workspace")
        try:
            meta = json.loads(z.read("workspace.json"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{label}: workspace.json is damaged ({exc}).", field="workspace") from None
        if meta.get("format") != FORMAT:
            raise InputError(f"{label}: not a subsetsel workspace file.", field="workspace")
        if int(meta.get("version", 0)) > VERSION:
            raise InputError(f"{label}: written by a newer subsetsel (format {meta.get('version')}); update subsetsel.", field="workspace")
        bm = meta["benchmark"]
        scores = _load_npy(z.read("scores.npy"), "scores.npy")
        bench = Benchmark(scores, tuple(bm["datasets"]), tuple(bm["models"]), tuple(bm["folds"]),
                          bool(bm["higher_is_better"]), str(bm["name"]))
        descriptors = {}
        for i, name in enumerate(meta.get("descriptors", [])):
            df = pd.read_csv(io.BytesIO(z.read(f"descriptors/{i}.csv")), dtype=str, keep_default_na=False)
            descriptors[str(name)] = df.set_index("dataset")
        evaluations = {}
        for name, ev in meta.get("evaluations", {}).items():
            cfg_d = dict(ev["config"])
            cfg_d["strategies"] = tuple(cfg_d["strategies"])
            cfg_d["metrics"] = tuple(m for m in cfg_d["metrics"] if m in METRICS)
            cfg = EvaluationConfig(**cfg_d)
            entries = tuple(Entry(e["key"], e["strategy"], e["representation"]) for e in ev["entries"])
            values = {
                e.key: {m: _load_npy(z.read(f"evaluations/{ev['file']}/{j}_{m}.npy"), f"evaluation '{name}'").astype(float)
                        for m in cfg.metrics}
                for j, e in enumerate(entries)
            }
            evaluations[str(name)] = EvaluationResult(cfg, np.asarray(ev["ks"], dtype=np.int64), entries, values,
                                                      int(ev["trials_done"]), bool(ev["complete"]), dict(ev["info"]))
        recipes = meta.get("recipes") or {}
        if not isinstance(recipes, dict):
            raise InputError(f"{label}: 'recipes' in workspace.json is not an object.", field="workspace")
        loaded = {str(n): RepresentationRecipe.from_dict(r) for n, r in recipes.items()}
    return Workspace(bench, descriptors, dict(meta.get("settings", {})), evaluations, loaded)
