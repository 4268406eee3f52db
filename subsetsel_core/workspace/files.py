"""Saving and loading a whole workspace to one file — safely.

A workspace is the benchmark, its descriptor tables, the representation recipes, the
user's settings (selection, evaluation choices: plain JSON), finished or partial
evaluation results and its provenance (:func:`subsetsel_core.outputs.provenance.provenance`: the
product's version, the settings that made it, the input files' SHA-256). The
file is a zip archive of JSON, CSV and ``.npy`` arrays: nothing in it is ever unpickled or
evaluated (a ``.npy`` part's header is read and checked, then its bytes are copied into an
array of that dtype and shape). On load the archive's directory is checked before anything
is decompressed (declared sizes under a limit, each part read with a cap at its declared
size and checked against its CRC), and every field of ``workspace.json`` is checked for
presence, type and range (:mod:`subsetsel_core.workspace.checks`) before it is used.

Each evaluation is stored with the identity of the benchmark it was run on
(:attr:`~subsetsel_core.benchmark.Benchmark.digest`, ``benchmark_sha256``; :func:`evaluated_on`). An evaluation of
the file's own benchmark is checked against it, every field; one of another benchmark is
left out with a note in :attr:`Workspace.dropped` (with its permutation test), never making
the file unloadable. A file written before evaluations carried that identity (format 1):
an evaluation that does not fit the file's benchmark is left out the same way.
"""

from __future__ import annotations

import io
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import MIN_DATASETS, MIN_MODELS, Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.result import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.io.archive import MAX_ENTRIES, SafeZip, json_part, npy_array
from subsetsel_core.io.file_guard import read_input_file
from subsetsel_core.io.missing_scores import unranked_models
from subsetsel_core.io.tables import max_bytes
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.strategies import STRATEGIES  # a-priori only (no score-aware runs)
from subsetsel_core.text import strict_json
from subsetsel_core.text.safe_csv import csv_text, restore_frame
from subsetsel_core.version import VERSION as PRODUCT_VERSION
from subsetsel_core.workspace.checks import Fields
from subsetsel_core.workspace.permutation import permutation_meta, read_permutation

FORMAT = "subsetsel-workspace"
VERSION = 2
#: Largest ``workspace.json`` read, in bytes.
MAX_JSON_BYTES = 32 * 2**20
#: Most trials of an evaluation held in a workspace.
MAX_TRIALS = 10**6
#: Largest seed.
MAX_SEED = 2**63 - 1
_NPY_HEADER = 10_000  # the largest .npy header read (numpy's own cap)
_TOP_KEYS = ("format", "version", "benchmark", "descriptors", "recipes", "settings", "evaluations", "provenance")
_BENCHMARK_KEYS = ("name", "higher_is_better", "datasets", "models", "folds")
_BENCHMARK_OPTIONAL = ("partial", "flipped")
_CONFIG_KEYS = ("strategies", "trials", "alpha", "beta", "k_min", "k_max", "seed", "metrics", "batch_size")
_EVALUATION_KEYS = ("file", "config", "ks", "entries", "trials_done", "complete", "info")
#: The key of an evaluation's benchmark identity (required from format 2 on).
BENCHMARK_KEY = "benchmark_sha256"


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
    permutation_tests : dict of str to PermutationTest
        The permutation test that followed an evaluation, under the evaluation's name.
    provenance : dict or None
        What made the file (:func:`subsetsel_core.outputs.provenance.provenance`). Without one,
        :func:`save_workspace` records the product's version alone; a file read back without
        one (written before workspaces held it) gives None.
    dropped : list of str
        What :func:`load_workspace` left out and why (an evaluation of another benchmark), as
        sentences to show; empty when everything was loaded.
    """

    benchmark: Benchmark
    descriptors: dict[str, pd.DataFrame] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    evaluations: dict[str, EvaluationResult] = field(default_factory=dict)
    recipes: dict[str, RepresentationRecipe] = field(default_factory=dict)
    permutation_tests: dict[str, PermutationTest] = field(default_factory=dict)
    provenance: dict[str, Any] | None = None
    dropped: list[str] = field(default_factory=list)


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def evaluated_on(res: EvaluationResult, default: Benchmark) -> str:
    """The :attr:`~subsetsel_core.benchmark.Benchmark.digest` of the benchmark ``res`` was run on:
    the one its ``info`` records (:func:`~subsetsel_core.evaluation.protocol.iter_evaluate`
    records it), else ``default``'s."""
    digest = res.info.get(BENCHMARK_KEY)
    return digest if isinstance(digest, str) and digest else default.digest


def save_workspace(ws: Workspace, target: str | Path | None = None) -> bytes:
    """Write ``ws`` as a zip archive; returns its bytes (and writes ``target`` if given)."""
    b = ws.benchmark
    meta: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "benchmark": {"name": b.name, "higher_is_better": b.higher_is_better, "datasets": list(b.datasets),
                      "models": list(b.models), "folds": list(b.folds), "partial": b.partial,
                      "flipped": list(b.flipped)},
        "descriptors": list(ws.descriptors),
        "recipes": {name: r.to_dict() for name, r in ws.recipes.items()},
        "settings": ws.settings,
        "evaluations": {},
        "provenance": dict(ws.provenance) if ws.provenance is not None else {"subsetsel_version": PRODUCT_VERSION},
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("scores.npy", _npy(b.scores))
        for i, df in enumerate(ws.descriptors.values()):
            z.writestr(f"descriptors/{i}.csv", csv_text(df, index_label="dataset"))
        for i, (name, res) in enumerate(ws.evaluations.items()):
            entries = [{"key": e.key, "strategy": e.strategy, "representation": e.representation} for e in res.entries]
            meta["evaluations"][name] = {
                "file": i, "config": res.config.to_dict(), "ks": [int(k) for k in res.ks], "entries": entries,
                "trials_done": res.trials_done, "complete": res.complete, "info": res.info,
                BENCHMARK_KEY: evaluated_on(res, b),
            }
            if name in ws.permutation_tests:
                meta["evaluations"][name]["permutation"] = permutation_meta(ws.permutation_tests[name])
            for j, e in enumerate(res.entries):
                for m in res.config.metrics:
                    z.writestr(f"evaluations/{i}/{j}_{m}.npy", _npy(res.values[e.key][m]))
                if e.key in res.covered:
                    z.writestr(f"evaluations/{i}/{j}_covered.npy", _npy(res.covered[e.key]))
        z.writestr("workspace.json", strict_json.dumps(meta, indent=1, default=str, ensure_ascii=True))
    data = buf.getvalue()
    if target is not None:
        from subsetsel_core.io.safe_write import write_file

        write_file(target, data)
    return data


def load_workspace(source: str | Path | bytes, *, label: str = "workspace") -> Workspace:
    """Read a workspace written by :func:`save_workspace`, checking everything before use.

    Parameters
    ----------
    source : str, Path or bytes
        The file (a regular file or a pipe), or its bytes.
    label : str
        The file's name in messages.

    Returns
    -------
    Workspace

    Raises
    ------
    InputError
        (field ``workspace``) Not a workspace file, a newer format, a damaged archive (a bad
        checksum, a part missing or cut short), parts declaring more than four times the
        table limit (``SUBSETSEL_MAX_TABLE_MB``) in all, or any entry of ``workspace.json``
        missing, unknown, of the wrong type or out of range, an array of the wrong shape or
        dtype, or a name listed twice.
    """
    limit = 4 * max_bytes()
    if isinstance(source, str | Path):
        data = read_input_file(Path(source), label, limit)
    else:
        data = bytes(source)
    if not data:
        raise InputError(f"{label}: the file is empty; it is not a subsetsel workspace file.", field="workspace")
    z = SafeZip(data, label, limit, field="workspace", kind="a subsetsel workspace file")
    try:
        return _read(z, label)
    finally:
        z.close()


def _read(z: SafeZip, label: str) -> Workspace:
    for part in z.infos:  # a name that leads out of the archive: a tampered file (save_workspace writes none)
        if part.startswith(("/", "\\")) or ".." in part.replace("\\", "/").split("/") or "\0" in part:
            shown = part if len(part) <= 60 else part[:59] + "…"
            raise InputError(f"{label}: holds a part named {shown!r} that leads out of the archive; subsetsel "
                             "never writes one, so the file was altered. Save the workspace again.", field="workspace")
    if "workspace.json" not in z:
        raise InputError(f"{label}: not a subsetsel workspace file (no workspace.json).", field="workspace")
    meta = json_part(z.read("workspace.json", MAX_JSON_BYTES), "workspace.json", label, field="workspace")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"{label}: not a subsetsel workspace file.", field="workspace")
    f = Fields(label)
    version = f.integer(meta.get("version"), "version", 1, 10**6)
    if version > VERSION:
        raise InputError(f"{label}: written by a newer subsetsel (format {version}); update subsetsel.",
                         field="workspace")
    f.obj(meta, "", _TOP_KEYS, ("format", "version", "benchmark"))
    bench = _benchmark(z, f, meta["benchmark"])
    names = f.names(meta.get("descriptors", []), "descriptors", nonempty=False, limit=1000)
    descriptors = {name: _descriptor_table(z, f, i, name) for i, name in enumerate(names)}
    recipes = f.mapping(meta.get("recipes") or {}, "recipes")
    loaded = {}
    for name, r in recipes.items():
        try:
            loaded[name] = RepresentationRecipe.from_dict(r)
        except InputError as exc:
            raise f.fail(f"recipes.{name}", f"is not a representation recipe ({exc})") from None
        unknown = [t for t in loaded[name].tables if t not in descriptors]
        if unknown:
            raise f.fail(f"recipes.{name}.tables", f"names '{unknown[0]}', which is not a descriptor table of the file")
    settings = f.mapping(meta.get("settings", {}), "settings")
    evaluations, tests, dropped = {}, {}, []
    for n, ev in f.mapping(meta.get("evaluations", {}), "evaluations").items():
        name, where = str(n), f"evaluations.{n}"
        if not isinstance(ev, dict):
            raise f.fail(where, "must be an object")
        if version >= 2 or BENCHMARK_KEY in ev:
            digest = f.string(ev.get(BENCHMARK_KEY), f"{where}.{BENCHMARK_KEY}", nonempty=True, limit=128)
            if digest != bench.digest:
                dropped.append(f"{_shown_name(name)} was run on another benchmark than the one this file holds; it is "
                               "not loaded.")
                continue
            evaluations[name], test = _evaluation_and_test(z, f, where, ev, bench)
        else:  # format 1: no identity; an evaluation that does not fit the file's benchmark is not its own
            try:
                evaluations[name], test = _evaluation_and_test(z, f, where, ev, bench)
            except InputError as exc:
                dropped.append(f"{_shown_name(name)} does not fit the benchmark this file holds ({exc}); it was "
                               "most likely run on another benchmark, and is not loaded.")
                continue
        if test is not None:
            tests[name] = test
    prov = meta.get("provenance")
    return Workspace(bench, descriptors, dict(settings), evaluations, loaded, tests,
                     None if prov is None else f.provenance(prov, "provenance", MAX_SEED), dropped=dropped)


def _shown_name(name: str) -> str:
    short = name if len(name) <= 60 else name[:59] + "…"
    return f"The evaluation '{short}' (with its permutation test)"


def _evaluation_and_test(z: SafeZip, f: Fields, where: str, ev: dict[str, Any],
                         bench: Benchmark) -> tuple[EvaluationResult, PermutationTest | None]:
    res = _evaluation(z, f, where, ev, bench)
    test = ev.get("permutation")
    return res, None if test is None else read_permutation(f, f"{where}.permutation", test, res)


def _benchmark(z: SafeZip, f: Fields, value: Any) -> Benchmark:
    bm = f.obj(value, "benchmark", _BENCHMARK_KEYS + _BENCHMARK_OPTIONAL, _BENCHMARK_KEYS)
    datasets = f.names(bm["datasets"], "benchmark.datasets")
    models = f.names(bm["models"], "benchmark.models")
    folds = f.names(bm["folds"], "benchmark.folds")
    if len(datasets) < MIN_DATASETS or len(models) < MIN_MODELS:
        raise f.fail("benchmark", f"has {len(datasets)} datasets and {len(models)} models; at least "
                                  f"{MIN_DATASETS} and {MIN_MODELS} are needed")
    shape = (len(datasets), len(folds), len(models))
    cube = npy_array(z.read("scores.npy", math.prod(shape) * 8 + _NPY_HEADER), "scores.npy", f.label, ndim=3,
                     field="workspace")
    if cube.shape != shape:
        raise f.fail("benchmark", f"lists {shape[0]} datasets, {shape[1]} folds and {shape[2]} models, but "
                                  f"scores.npy has the shape {cube.shape}")
    partial = f.boolean(bm.get("partial", False), "benchmark.partial")
    cube = cube.astype(float)
    if np.isinf(cube).any() or (not partial and np.isnan(cube).any()):
        raise f.fail("benchmark", "has scores that are NaN or infinite in scores.npy")
    flipped = f.names(bm.get("flipped", []), "benchmark.flipped", choices=datasets, nonempty=False)
    unranked = unranked_models(np.isnan(cube)) if partial else np.empty(0, np.int64)
    if len(unranked):
        raise f.fail("benchmark", f"has model '{models[int(unranked[0])]}' without a score any dataset ranks")
    return Benchmark(cube, datasets, models, folds, f.boolean(bm["higher_is_better"], "benchmark.higher_is_better"),
                     f.string(bm["name"], "benchmark.name", limit=10_000), flipped=tuple(flipped), partial=partial)


def _descriptor_table(z: SafeZip, f: Fields, i: int, name: str) -> pd.DataFrame:
    part = f"descriptors/{i}.csv"
    raw = z.read(part)
    try:
        df = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        raise f.fail(f"descriptors[{i}]", f"('{name}') is stored in {part}, which is not a readable CSV table") \
            from None
    df = restore_frame(df)
    if "dataset" not in df.columns:
        raise f.fail(f"descriptors[{i}]", f"('{name}') has no 'dataset' column in {part}")
    twice = df["dataset"][df["dataset"].duplicated()]
    if len(twice):
        raise f.fail(f"descriptors[{i}]", f"('{name}') lists the dataset '{str(twice.iloc[0])[:60]}' twice")
    return df.set_index("dataset")


def _config(f: Fields, value: Any, where: str) -> EvaluationConfig:
    c = f.obj(value, where, _CONFIG_KEYS, _CONFIG_KEYS)
    trials = f.integer(c["trials"], f"{where}.trials", 1, MAX_TRIALS)
    k_min = f.integer(c["k_min"], f"{where}.k_min", 1, 10**6)
    return EvaluationConfig(
        strategies=f.names(c["strategies"], f"{where}.strategies", choices=STRATEGIES), trials=trials,
        alpha=f.fraction(c["alpha"], f"{where}.alpha"), beta=f.fraction(c["beta"], f"{where}.beta"),
        k_min=k_min, k_max=f.integer(c["k_max"], f"{where}.k_max", k_min, 10**6),
        seed=f.integer(c["seed"], f"{where}.seed", 0, MAX_SEED),
        metrics=f.names(c["metrics"], f"{where}.metrics", choices=METRICS),
        batch_size=f.integer(c["batch_size"], f"{where}.batch_size", 1, MAX_TRIALS),
    )


def _evaluation(z: SafeZip, f: Fields, where: str, value: Any, bench: Benchmark) -> EvaluationResult:
    ev = f.obj(value, where, (*_EVALUATION_KEYS, "permutation", BENCHMARK_KEY), _EVALUATION_KEYS)
    file = f.integer(ev["file"], f"{where}.file", 0, MAX_ENTRIES)
    cfg = _config(f, ev["config"], f"{where}.config")
    ks_raw = ev["ks"]
    if not isinstance(ks_raw, list) or not ks_raw:
        raise f.fail(f"{where}.ks", "must be a non-empty list of subset sizes")
    ks = [f.integer(k, f"{where}.ks[{i}]", 1, bench.n_datasets) for i, k in enumerate(ks_raw)]
    if any(b <= a for a, b in zip(ks, ks[1:], strict=False)):
        raise f.fail(f"{where}.ks", "must increase")
    if not isinstance(ev["entries"], list) or not ev["entries"]:
        raise f.fail(f"{where}.entries", "must be a non-empty list")
    entries = []
    for j, e in enumerate(ev["entries"]):
        e = f.obj(e, f"{where}.entries[{j}]", ("key", "strategy", "representation"), ("key", "strategy"))
        entries.append(Entry(f.string(e["key"], f"{where}.entries[{j}].key", nonempty=True, limit=1000),
                             f.choice(e["strategy"], f"{where}.entries[{j}].strategy", STRATEGIES),
                             f.optional_string(e.get("representation"), f"{where}.entries[{j}].representation")))
    f.names([e.key for e in entries], f"{where}.entries (keys)")
    done = f.integer(ev["trials_done"], f"{where}.trials_done", 1, cfg.trials)
    complete = f.boolean(ev["complete"], f"{where}.complete")
    if complete and done != cfg.trials:
        raise f.fail(f"{where}.complete", f"is true, but {done} of {cfg.trials} trials are done")
    info = f.mapping(ev["info"], f"{where}.info")
    values: dict[str, dict[str, np.ndarray]] = {}
    for j, e in enumerate(entries):
        values[e.key] = {}
        for m in cfg.metrics:
            part = f"evaluations/{file}/{j}_{m}.npy"
            arr = npy_array(z.read(part, done * len(ks) * 8 + _NPY_HEADER), part, f.label, ndim=2,
                            field="workspace").astype(float)
            if arr.shape != (done, len(ks)):
                raise f.fail(where, f"has {done} trials of {len(ks)} subset sizes, but {part} has the shape "
                                    f"{arr.shape}")
            lo, hi = METRICS[m].bounds(bench.n_models)
            finite = arr[~np.isnan(arr)]
            if np.isinf(finite).any() or ((finite < lo - 1e-9) | (finite > hi + 1e-9)).any():
                raise f.fail(where, f"has values of {METRICS[m].label} outside {lo:g}…{hi:g} in {part}")
            values[e.key][m] = arr
    covered: dict[str, np.ndarray] = {}
    for j, e in enumerate(entries):
        part = f"evaluations/{file}/{j}_covered.npy"
        if bench.has_gaps and part in z:
            arr = npy_array(z.read(part, done * len(ks) * 8 + _NPY_HEADER), part, f.label, ndim=2,
                            field="workspace").astype(float)
            if arr.shape != (done, len(ks)) or not ((arr >= 0) & (arr <= 1)).all():
                raise f.fail(where, f"has model-coverage shares that are not {done} × {len(ks)} values in 0…1 in "
                                    f"{part}")
            covered[e.key] = arr
    return EvaluationResult(cfg, np.asarray(ks, dtype=np.int64), tuple(entries), values, done, complete, dict(info),
                            covered)
