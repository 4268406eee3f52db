"""Descriptor values near the float limits never overflow, and no strategy ever returns a dataset twice.

Values like ±1e308 (and tiny ones like 1e-310) used to overflow in the z-scores: the column
became NaN or zero and FAFI chose the same dataset again and again. The standardisation now
divides each column by a power of two first (exact: ordinary data give the same bits as
before), so every strategy sees finite z-scores; the registry refuses to hand back a
subset with a dataset twice.
"""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsetsel_core.strategies import STRATEGIES, select, standardize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from hostile_corpus import DATASETS, clean_frame  # noqa: E402

MAX = float(np.finfo(float).max)
EXTREME = {
    "±1e308": np.array([[1e308, 1], [-1e308, 2], [1e308, 3], [0, 4], [5e307, 5], [-1e308, 6], [1e308, 7], [-3e307, 8]]),
    "float max": np.array([[MAX], [MAX], [-MAX], [-MAX], [MAX], [-MAX], [MAX], [MAX / 2]]) * np.ones((1, 2)),
    "tiny": np.random.default_rng(0).normal(size=(8, 3)) * 1e-310,
    "mixed scales": np.column_stack([np.random.default_rng(1).normal(size=8) * 1e308,
                                     np.random.default_rng(2).normal(size=8),
                                     np.random.default_rng(3).normal(size=8) * 1e-300]),
}


def old_standardize(X: np.ndarray) -> np.ndarray:
    """The z-scores as computed before the scaling (the reference on ordinary data)."""
    X = np.asarray(X, dtype=float)
    keep = np.ptp(X, axis=0) > 0
    Z = X[:, keep]
    sd = Z.std(axis=0)
    return (Z - Z.mean(axis=0)) / sd[sd > 0]


def test_ordinary_data_give_the_same_bits() -> None:
    rng = np.random.default_rng(7)
    for scale in (1e-3, 1.0, 37.5, 1e6):
        X = rng.normal(size=(50, 6)) * scale + rng.normal(size=6) * scale
        np.testing.assert_array_equal(standardize(X), old_standardize(X))


@pytest.mark.parametrize("name", list(EXTREME))
def test_extreme_values_stay_finite_and_distinct(name: str) -> None:
    X = EXTREME[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, invalid-value or divide warning
        Z = standardize(X)
        assert np.isfinite(Z).all() and Z.shape[1] >= 1
        np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(Z.std(axis=0), 1, rtol=1e-12)
        for strategy in STRATEGIES:
            for k in (1, 3, len(X)):
                out = select(X, k, strategy, rng=0)
                assert len(out) == k and len(set(out.tolist())) == k, (strategy, k, out)


def test_extreme_values_order_like_scaled_ones() -> None:
    X = EXTREME["±1e308"]
    for strategy in ("fafi-euclidean", "kmeans", "d-optimal"):
        a = select(X, 5, strategy, rng=0)
        b = select(X / 1e300, 5, strategy, rng=0)
        assert a.tolist() == b.tolist(), strategy


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from([MAX, -MAX, 1e308, -1e308, 1e-310, -1e-310, 0.0, 1.0, -2.5, 1e200]),
                         min_size=3, max_size=3), min_size=4, max_size=10),
       st.sampled_from(list(STRATEGIES)), st.integers(1, 10))
def test_no_strategy_returns_a_duplicate(rows: list[list[float]], strategy: str, k: int) -> None:
    X = np.array(rows)
    k = min(k, len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = select(X, k, strategy, rng=1)
    assert len(set(out.tolist())) == k


def test_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from subsetsel_core.cli.main import main

    clean_frame().to_csv(tmp_path / "scores.csv", index=False)
    pd.DataFrame({"dataset": DATASETS, "big": ["1e308", "-1e308", "1.7976931348623157e308", "-1.7e308", "0", "5e307"],
                  "small": ["1e-310", "2e-310", "0", "-1e-310", "3e-310", "1e-309"]}).to_csv(tmp_path / "f.csv",
                                                                                         index=False)
    for extra in ([], ["--pca", "0.9"], ["--log"]):
        for strategy in STRATEGIES:
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                code = main(["select", "--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "f.csv"),
                             "--strategy", strategy, "--k", "6", *extra])
            out, err = capsys.readouterr()
            assert code == 0, (strategy, extra, err)
            chosen = pd.read_csv(io.StringIO(out), comment="#")["dataset"]
            assert sorted(chosen) == sorted(DATASETS), (strategy, extra)
    r = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "subsetsel_core", "select", "--scores",
                        str(tmp_path / "scores.csv"), "--features", str(tmp_path / "f.csv"), "--strategy",
                        "fafi-euclidean", "--k", "6"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Warning" not in r.stderr, r.stderr
