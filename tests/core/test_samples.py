"""Tests of the embedded benchmarks in ``sample_data/``."""

from __future__ import annotations

import hashlib
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.loading.folder import (
    SAMPLE_DATA_DIR,
    LoadedBenchmark,
    list_benchmarks,
    load_benchmark_folder,
    scan_benchmarks,
)
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.synthetic import make_synthetic

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
EXPECTED = {
    # name: (datasets, models, folds, higher_is_better)
    "tsc_bakeoff": (112, 40, 30, True),
    "mmlu": (57, 82, 1, True),
    "synthetic": (112, 35, 5, False),
}
FOLDERS = sorted(p.name for p in SAMPLE_DATA_DIR.iterdir() if p.is_dir())


@cache
def loaded(name: str) -> LoadedBenchmark:
    return load_benchmark_folder(SAMPLE_DATA_DIR / name)


@cache
def built(name: str, rep_name: str) -> Representation:
    return loaded(name).representation(rep_name)


def test_every_folder_is_a_listed_benchmark() -> None:
    catalog = scan_benchmarks()
    assert catalog.problems == ()
    assert FOLDERS == sorted(EXPECTED)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        names = [m.name for m in list_benchmarks()]
    assert names == sorted(EXPECTED)
    assert [m.folder.name for m in catalog.manifests] == names  # folder name = benchmark name


@pytest.mark.parametrize("name", FOLDERS)
def test_folder_loads_with_expected_size(name: str) -> None:
    lb = loaded(name)
    n, m, f, hib = EXPECTED[name]
    b = lb.benchmark
    assert (b.n_datasets, b.n_models, b.n_folds) == (n, m, f)
    assert b.scores.shape == (n, f, m)
    assert b.higher_is_better is hib
    assert lb.report.ok and not lb.report.warnings
    man = lb.manifest
    for field in ("title", "description", "metric", "source", "licence"):
        assert getattr(man, field), f"{name}: manifest field {field} is empty"


@pytest.mark.parametrize("name", FOLDERS)
def test_every_dataset_has_descriptors(name: str) -> None:
    lb = loaded(name)
    datasets = lb.benchmark.datasets
    assert lb.descriptors, f"{name} declares no representation"
    for rep_name, table in lb.descriptors.items():
        missing = sorted(set(datasets) - set(table.index))
        assert not missing, f"{name}/{rep_name}: no descriptors for {missing}"
        if lb.manifest.representation(rep_name).kind == "embedding" and rep_name == "minilm":
            continue  # built once in test_minilm_embeddings (384 columns: the slow one)
        rep = built(name, rep_name)
        assert rep.X.shape[0] == len(datasets) and rep.X.shape[1] >= 1
        assert rep.datasets == datasets
        assert np.isfinite(rep.X).all()


def test_tsc_aliases_reconcile_the_pyts_names() -> None:
    spec = loaded("tsc_bakeoff").manifest.representation("ucr_info")
    assert spec.aliases == {
        "CinCECGtorso": "CinCECGTorso",
        "MixedShapes": "MixedShapesRegularTrain",
        "StarlightCurves": "StarLightCurves",
    }
    raw = pd.read_csv(SAMPLE_DATA_DIR / "tsc_bakeoff" / "features_ucr_info.csv")
    assert {"CinCECGtorso", "MixedShapes", "StarlightCurves"} <= set(raw["dataset"])  # as shipped
    table = loaded("tsc_bakeoff").descriptors["ucr_info"]
    assert {"CinCECGTorso", "MixedShapesRegularTrain", "StarLightCurves"} <= set(table.index)


def test_tsc_text_descriptions() -> None:
    lb = loaded("tsc_bakeoff")
    assert lb.manifest.representation("description").kind == "text"
    text = lb.descriptors["description"]["description"]
    assert text["ACSF1"] == (
        "ACSF1: device time series, 10 classes, length 1460, 100 train / 100 test series."
    )
    assert text["StarLightCurves"].startswith("StarLightCurves: ")


@pytest.mark.parametrize("name", ["tsc_bakeoff", "mmlu"])
def test_minilm_embeddings(name: str) -> None:
    lb = loaded(name)
    spec = lb.manifest.representation("minilm")
    assert spec.kind == "embedding"
    table = lb.descriptors["minilm"]
    assert list(table.columns) == [f"emb_{i:03d}" for i in range(384)]
    values = table.to_numpy(dtype=float)
    assert np.isfinite(values).all()
    if name == "mmlu":  # building is slow-ish (per-column encoding); once is enough
        X = built(name, "minilm").X
        # The builder drops constant columns; a few MiniLM dimensions barely vary.
        assert X.shape[0] == lb.benchmark.n_datasets and X.shape[1] > 370
    # all-MiniLM-L6-v2 embeddings are L2-normalised (up to the 6-decimal rounding).
    np.testing.assert_allclose(np.linalg.norm(values, axis=1), 1.0, atol=1e-4)


def test_mmlu_representations() -> None:
    lb = loaded("mmlu")
    assert lb.manifest.representation_names == ("subjects", "description", "minilm")
    subjects = lb.descriptors["subjects"]
    assert set(subjects["category"]) == {"stem", "humanities", "social_sciences", "other"}
    assert lb.manifest.scores.fold_column is None


def test_synthetic_sample_matches_its_generator() -> None:
    lb = loaded("synthetic")
    params = dict(lb.manifest.parameters)
    decimals = params.pop("decimals")
    syn = make_synthetic(**params)
    cube = syn.scores["score"].to_numpy().reshape(112, 35, 5).transpose(0, 2, 1)  # (n, F, M)
    np.testing.assert_allclose(lb.benchmark.scores, cube, atol=0.5 * 10.0**-decimals + 1e-12)
    oracle = lb.descriptors["oracle"].loc[list(syn.datasets)].to_numpy(dtype=float)
    np.testing.assert_allclose(oracle, syn.oracle.iloc[:, 1:].to_numpy(), atol=1e-4)


def test_readme_names_every_file() -> None:
    readme = (SAMPLE_DATA_DIR / "README.md").read_text(encoding="utf-8")
    for path in SAMPLE_DATA_DIR.rglob("*"):
        if path.is_file() and path.name not in {"README.md", "manifest.json"}:
            assert f"`{path.name}`" in readme, f"README does not describe {path}"


def test_no_test_only_data_in_the_samples() -> None:
    test_only = SHARED / "test-only"
    if not test_only.is_dir():
        pytest.skip("../shared/data/test-only is not present")

    def digest(p: Path) -> str:
        return hashlib.sha256(p.read_bytes()).hexdigest()

    forbidden = {digest(p) for p in test_only.rglob("*") if p.is_file()}
    for path in SAMPLE_DATA_DIR.rglob("*"):
        if path.is_file():
            assert digest(path) not in forbidden, f"{path} is a copy of a test-only file"


def test_copied_files_are_unchanged() -> None:
    ship = SHARED / "ship"
    if not ship.is_dir():
        pytest.skip("../shared/data/ship is not present")
    for rel in (
        "tsc_bakeoff/scores.csv.gz",
        "tsc_bakeoff/features_ucr_info.csv",
        "mmlu/scores.csv",
        "mmlu/features_subjects.csv",
    ):
        assert (SAMPLE_DATA_DIR / rel).read_bytes() == (ship / rel).read_bytes(), rel
