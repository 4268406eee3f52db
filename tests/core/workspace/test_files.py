"""Workspace files: identical results after a round trip; nothing unpickled; bad files rejected."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_descriptors, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.workspace.files import Workspace, load_workspace, save_workspace


@pytest.fixture(scope="module")
def ws() -> Workspace:
    s = make_synthetic(n_datasets=30, n_models=8, n_folds=2, seed=5)
    bench = load_scores(s.scores, higher_is_better=False, name="syn <b>")
    desc = load_descriptors(s.oracle.iloc[:, :5])
    rep = build_representation(desc, bench.datasets, name="oracle")
    res = evaluate(bench, rep, EvaluationConfig(strategies=("random", "kmeans"), trials=5, k_max=6))
    return Workspace(bench, {"oracle": desc}, {"k": 7, "strategy": "kmeans"}, {"run 1": res})


def test_round_trip_identical(ws: Workspace, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "w.subsetsel"
    save_workspace(ws, path)
    back = load_workspace(path)
    np.testing.assert_array_equal(back.benchmark.scores, ws.benchmark.scores)
    assert back.benchmark.datasets == ws.benchmark.datasets and back.benchmark.name == "syn <b>"
    assert back.settings == {"k": 7, "strategy": "kmeans"}
    assert json.dumps(back.evaluations["run 1"].to_json_dict()) == json.dumps(ws.evaluations["run 1"].to_json_dict())
    rep_a = build_representation(ws.descriptors["oracle"], ws.benchmark.datasets, name="oracle")
    rep_b = build_representation(back.descriptors["oracle"], back.benchmark.datasets, name="oracle")
    np.testing.assert_allclose(rep_a.X, rep_b.X)


def test_pickles_are_never_loaded(ws: Workspace) -> None:
    data = save_workspace(ws)
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for item in src.infolist():
            payload = src.read(item)
            if item.filename == "scores.npy":
                payload = io.BytesIO()
                np.save(payload, np.array([object()], dtype=object), allow_pickle=True)
                payload = payload.getvalue()
            dst.writestr(item, payload)
    with pytest.raises(InputError, match="not a plain numeric array"):
        load_workspace(buf.getvalue())


@pytest.mark.parametrize("data", [b"", b"not a zip", pickle.dumps({"a": 1})])
def test_bad_files(data: bytes) -> None:
    with pytest.raises(InputError, match="workspace"):
        load_workspace(data)


def test_recipes_round_trip(ws: Workspace) -> None:
    from subsetsel_core.representations.recipe import RepresentationRecipe

    recipe = RepresentationRecipe(("oracle",), ("x0", "x1"), text=False, log=True, pca=0.9, name="oracle/2 cols")
    back = load_workspace(save_workspace(Workspace(ws.benchmark, ws.descriptors, recipes={"mine": recipe})))
    assert back.recipes == {"mine": recipe}
    assert load_workspace(save_workspace(ws)).recipes == {}
