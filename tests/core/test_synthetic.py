"""Tests of the synthetic oracle / broken benchmark generator."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import rankdata, spearmanr

from subsetsel_core.errors import InputError
from subsetsel_core.synthetic import SyntheticBenchmark, SyntheticParams, make_synthetic


@pytest.fixture(scope="module")
def default() -> SyntheticBenchmark:
    return make_synthetic(seed=7)


def _cube(syn: SyntheticBenchmark) -> np.ndarray:
    p = syn.params
    return syn.scores["score"].to_numpy().reshape(p.n_datasets, p.n_models, p.n_folds)


def test_default_shapes_and_names(default: SyntheticBenchmark) -> None:
    assert default.params == SyntheticParams(seed=7)
    assert default.scores.shape == (112 * 35 * 30, 4)
    assert list(default.scores.columns) == ["dataset", "model", "fold", "score"]
    assert default.scores["dataset"].nunique() == 112
    assert default.scores["model"].nunique() == 35
    assert sorted(default.scores["fold"].unique()) == list(range(30))
    assert default.datasets[0] == "syn_000" and default.datasets[-1] == "syn_111"
    assert default.models[0] == "model_00" and default.models[-1] == "model_34"
    assert list(default.datasets) == sorted(default.datasets)
    assert list(default.models) == sorted(set(default.scores["model"]))
    for rep in (default.oracle, default.broken):
        assert rep.shape == (112, 65)
        assert list(rep["dataset"]) == list(default.datasets)
        assert rep.columns[1] == "x_00" and rep.columns[-1] == "x_63"
        assert np.isfinite(rep.iloc[:, 1:].to_numpy()).all()
    assert default.dataset_latent.shape == (112, 5)
    assert default.model_latent.shape == (35, 5)
    assert default.higher_is_better is False
    assert np.isfinite(default.scores["score"]).all()
    # Every (dataset, model, fold) cell exactly once.
    assert not default.scores.duplicated(["dataset", "model", "fold"]).any()


def test_scores_follow_the_model(default: SyntheticBenchmark) -> None:
    cube = _cube(default)
    misfit = ((default.dataset_latent[:, None, :] - default.model_latent[None]) ** 2).sum(-1)
    resid = cube - misfit[:, :, None]
    # Dataset noise sd 1 and fold noise sd 0.5: total sd about 1.118.
    assert resid.std() == pytest.approx(np.hypot(1.0, 0.5), rel=0.05)
    # Fold noise alone: spread within a (dataset, model) over folds.
    assert resid.std(axis=2, ddof=1).mean() == pytest.approx(0.5, rel=0.05)


def test_same_seed_same_output_other_seed_differs() -> None:
    a = make_synthetic(n_datasets=20, n_models=6, n_folds=3, seed=3)
    b = make_synthetic(n_datasets=20, n_models=6, n_folds=3, seed=3)
    c = make_synthetic(n_datasets=20, n_models=6, n_folds=3, seed=4)
    pd.testing.assert_frame_equal(a.scores, b.scores)
    pd.testing.assert_frame_equal(a.oracle, b.oracle)
    pd.testing.assert_frame_equal(a.broken, b.broken)
    assert not np.allclose(a.scores["score"], c.scores["score"])
    assert not np.allclose(a.oracle.iloc[:, 1:], c.oracle.iloc[:, 1:])


def test_fewer_folds_keep_latents_and_representations() -> None:
    a = make_synthetic(n_datasets=15, n_models=5, n_folds=2, seed=11)
    b = make_synthetic(n_datasets=15, n_models=5, n_folds=6, seed=11)
    np.testing.assert_array_equal(a.dataset_latent, b.dataset_latent)
    pd.testing.assert_frame_equal(a.oracle, b.oracle)
    pd.testing.assert_frame_equal(a.broken, b.broken)


def test_oracle_geometry_matches_rankings_broken_does_not(default: SyntheticBenchmark) -> None:
    ranks = rankdata(_cube(default), axis=1).mean(axis=2)  # (n, M), 1 = lowest error
    rank_dist = pdist(ranks)
    rho = {}
    for name in ("oracle", "broken"):
        x = getattr(default, name).iloc[:, 1:].to_numpy()
        rho[name] = spearmanr(pdist(x), rank_dist).statistic
    assert rho["oracle"] > 0.6
    assert rho["broken"] < 0.4
    assert rho["oracle"] > rho["broken"] + 0.3


def test_metadata_is_json_ready(default: SyntheticBenchmark) -> None:
    import json

    meta = json.loads(json.dumps(default.metadata))
    assert meta["parameters"]["n_datasets"] == 112
    assert meta["parameters"]["seed"] == 7
    assert meta["higher_is_better"] is False


def test_result_is_frozen(default: SyntheticBenchmark) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        default.params = SyntheticParams()  # type: ignore[misc]
    with pytest.raises(ValueError):
        default.dataset_latent[0, 0] = 1.0


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"n_datasets": 0}, "n_datasets"),
        ({"n_datasets": 2}, "at least 3 datasets"),
        ({"n_models": 1}, "at least 3 datasets and 2 models"),
        ({"n_folds": 1.5}, "n_folds"),
        ({"fold_noise": -1.0}, "fold_noise"),
        ({"broken_noise": float("nan")}, "broken_noise"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_parameters_raise_input_error(kwargs: dict, word: str) -> None:
    with pytest.raises(InputError, match=word):
        make_synthetic(**kwargs)
