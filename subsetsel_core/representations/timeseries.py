"""Time-series representations: per-dataset descriptors built from the series themselves.

Every builder takes ``series_by_dataset``, a mapping ``{dataset_name: series}`` where
``series`` is one of

- a 2-D array ``(n_series, length)``; NaN marks padding or missing values;
- a list of 1-D arrays of possibly different lengths;
- a 3-D array ``(n_series, 1, length)`` (the univariate layout of aeon / sktime);
- a 1-D array (a single series);
- a pair ``(X, y)`` as returned by :func:`read_ucr_folder` (the labels are ignored).

NaN anywhere in a series is treated as missing: the value is dropped and the remaining
values keep their order (trailing NaN padding of unequal-length UCR datasets is the
common case). Each builder returns a :class:`pandas.DataFrame` indexed by dataset name
(index name ``dataset``), one row per dataset in input order, numeric columns only.

The optional builders (:func:`catch22_features`, :func:`minirocket_features`) import their
package lazily and raise :class:`MissingExtraError` when it is not installed.
"""

from __future__ import annotations

import importlib
import numbers
import re
import warnings
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError

__all__ = [
    "MissingExtraError",
    "SUMMARY_COLUMNS",
    "catch22_features",
    "minirocket_features",
    "read_ucr_folder",
    "summary_statistics",
]

EXTRAS_HINT = "pip install -r requirements-extras.txt"
ACF_LAGS = (1, 2, 3, 4, 5)
MIN_SERIES_LENGTH = max(ACF_LAGS) + 1

SUMMARY_COLUMNS: tuple[str, ...] = (
    "n_series",
    "length",
    "mean",
    "std",
    "min",
    "max",
    "median",
    "q25",
    "q75",
    "iqr",
    "skew",
    "kurtosis",
    "spectral_entropy",
    *(f"acf_lag{k}" for k in ACF_LAGS),
)


class MissingExtraError(InputError, ImportError):
    """An optional package needed by a representation builder is not installed.

    It is both an :class:`~subsetsel_core.errors.InputError` (the user can fix it) and an
    :class:`ImportError`. The message names the package and the install command.
    """


def import_extra(module: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import an optional module or raise :class:`MissingExtraError`.

    Parameters
    ----------
    module : str
        Importable module name, e.g. ``"pycatch22"``.
    purpose : str
        What needs it, e.g. ``"catch22_features"``; starts the error message.
    package : str, optional
        The PyPI name if it differs from ``module``.

    Returns
    -------
    types.ModuleType
        The imported module.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        name = package or module
        raise MissingExtraError(
            f"{purpose} needs the optional package '{name}', which is not installed "
            f"({exc}). Install the extras with: {EXTRAS_HINT}"
        ) from exc


# --------------------------------------------------------------------------- input


def _check_mapping(series_by_dataset: Any, what: str = "series_by_dataset") -> None:
    if not isinstance(series_by_dataset, Mapping):
        raise InputError(
            f"{what} must be a mapping {{dataset_name: series}}, got "
            f"{type(series_by_dataset).__name__}; wrap your data in a dict keyed by dataset name."
        )
    if len(series_by_dataset) == 0:
        raise InputError(f"{what} is empty; pass at least one dataset.")
    for name in series_by_dataset:
        if not isinstance(name, str) or not name:
            raise InputError(
                f"dataset names must be non-empty strings, got {name!r}; "
                "use the dataset names of your benchmark as keys."
            )


def _to_float(value: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"dataset '{name}': the series are not numeric ({exc}); "
            "pass numbers only, with NaN for missing values."
        ) from exc


def _as_panel(value: Any, name: str) -> np.ndarray:
    """Convert one dataset's series to a compact float panel ``(n_series, max_len)``.

    In the result, row ``i`` holds its valid values at positions ``0 .. L_i - 1`` and NaN
    after them.
    """
    if isinstance(value, pd.DataFrame):
        value = value.to_numpy()
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], np.ndarray | pd.DataFrame)
        and np.ndim(value[0]) in (2, 3)
        and np.ndim(value[1]) == 1
    ):
        value = value[0]  # an (X, y) pair as read by read_ucr_folder: keep the series
    if isinstance(value, np.ndarray) and value.dtype != object:
        arr = _to_float(value, name)
    else:
        seq = list(value) if isinstance(value, Sequence | np.ndarray) else None
        if seq is None:
            raise InputError(
                f"dataset '{name}': expected a 2-D array or a list of 1-D arrays, got "
                f"{type(value).__name__}."
            )
        if len(seq) == 0:
            raise InputError(f"dataset '{name}' has no series; remove it or add its series.")
        if all(isinstance(s, numbers.Number | np.generic) for s in seq):
            arr = _to_float(seq, name)  # a single series given as a flat list
        else:
            rows = [_to_float(s, name) for s in seq]
            for i, r in enumerate(rows):
                if r.ndim != 1:
                    raise InputError(
                        f"dataset '{name}': series {i} has shape {r.shape}; each series in a "
                        "list must be 1-D (multivariate series are not supported)."
                    )
            width = max(r.size for r in rows)
            arr = np.full((len(rows), width), np.nan)
            for i, r in enumerate(rows):
                arr[i, : r.size] = r
    if arr.ndim == 1:
        arr = arr[None, :]
    elif arr.ndim == 3:
        if arr.shape[1] != 1:
            raise InputError(
                f"dataset '{name}' has {arr.shape[1]} channels (shape {arr.shape}); only "
                "univariate series are supported: pass one channel, e.g. X[:, 0, :]."
            )
        arr = arr[:, 0, :]
    elif arr.ndim != 2:
        raise InputError(
            f"dataset '{name}': expected a 2-D array (n_series, length), got shape {arr.shape}."
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InputError(f"dataset '{name}' has no values (shape {arr.shape}).")
    if np.isinf(arr).any():
        raise InputError(
            f"dataset '{name}' contains infinite values; replace them with NaN (missing) "
            "or finite numbers."
        )
    valid = ~np.isnan(arr)
    lengths = valid.sum(axis=1)
    # Compact: move valid values to the front of each row, keeping their order.
    order = np.argsort(~valid, axis=1, kind="stable")
    arr = np.take_along_axis(arr, order, axis=1)
    return arr[:, : int(lengths.max())]


def _panels(series_by_dataset: Mapping[str, Any], min_length: int) -> dict[str, np.ndarray]:
    _check_mapping(series_by_dataset)
    out: dict[str, np.ndarray] = {}
    for name, value in series_by_dataset.items():
        panel = _as_panel(value, name)
        lengths = np.sum(~np.isnan(panel), axis=1)
        short = np.flatnonzero(lengths < min_length)
        if short.size:
            i = int(short[0])
            raise InputError(
                f"dataset '{name}': series {i} has {int(lengths[i])} non-missing values "
                f"({short.size} series are that short); at least {min_length} are needed. "
                "Drop or pad those series."
            )
        out[name] = panel
    return out


def _subsample_rows(panel: np.ndarray, max_series: int | None, seed: int, name: str) -> np.ndarray:
    """Return at most ``max_series`` rows, drawn without replacement, original order kept.

    The draw depends only on ``seed`` and the dataset name, so adding or removing other
    datasets does not change it.
    """
    if max_series is None or panel.shape[0] <= max_series:
        return panel
    rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
    keep = np.sort(rng.choice(panel.shape[0], size=max_series, replace=False))
    return panel[keep]


def _check_max_series(max_series: int | None) -> None:
    if max_series is not None and (not isinstance(max_series, int | np.integer) or max_series < 1):
        raise InputError(f"max_series must be a positive integer or None, got {max_series!r}.")


def _length_groups(lengths: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Group row indices by series length: ``[(length, rows), ...]``."""
    uniq, inverse = np.unique(lengths, return_inverse=True)
    return [(int(L), np.flatnonzero(inverse == g)) for g, L in enumerate(uniq)]


# ------------------------------------------------------------------ summary statistics


def _per_series_statistics(panel: np.ndarray) -> np.ndarray:
    """Statistics of every series of one compact panel.

    Parameters
    ----------
    panel : ndarray, shape (n_series, max_len)
        Compact panel (valid values first, NaN after).

    Returns
    -------
    ndarray, shape (n_series, len(SUMMARY_COLUMNS) - 1)
        Columns in the order of ``SUMMARY_COLUMNS[1:]``.
    """
    n = panel.shape[0]
    lengths = np.sum(~np.isnan(panel), axis=1)
    mean = np.nanmean(panel, axis=1)
    dev = panel - mean[:, None]
    m2 = np.nanmean(dev**2, axis=1)
    m3 = np.nanmean(dev**3, axis=1)
    m4 = np.nanmean(dev**4, axis=1)
    # Relative tolerance: a constant series has m2 ~ eps^2 * mean^2 from rounding.
    flat = m2 <= (1e-12 * np.maximum(np.abs(mean), 1.0)) ** 2
    safe_m2 = np.where(flat, 1.0, m2)
    skew = np.where(flat, 0.0, m3 / safe_m2**1.5)
    kurt = np.where(flat, 0.0, m4 / safe_m2**2 - 3.0)
    if np.isnan(panel).any():
        q25, median, q75 = np.nanquantile(panel, [0.25, 0.5, 0.75], axis=1)
    else:
        q25, median, q75 = np.quantile(panel, [0.25, 0.5, 0.75], axis=1)

    entropy = np.zeros(n)
    acf = np.zeros((n, len(ACF_LAGS)))
    for length, rows in _length_groups(lengths):
        d = dev[rows, :length]
        d = np.where(flat[rows, None], 0.0, d)
        denom = np.sum(d * d, axis=1)
        ok = denom > 0
        safe = np.where(ok, denom, 1.0)
        for j, k in enumerate(ACF_LAGS):
            num = np.sum(d[:, :-k] * d[:, k:], axis=1)
            acf[rows, j] = np.where(ok, num / safe, 0.0)
        power = np.abs(np.fft.rfft(d, axis=1)[:, 1:]) ** 2  # drop the DC bin
        n_bins = power.shape[1]
        total = power.sum(axis=1)
        if n_bins >= 2:
            p = power / np.where(total > 0, total, 1.0)[:, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                plogp = np.where(p > 0, p * np.log(p), 0.0)
            h = -plogp.sum(axis=1) / np.log(n_bins)
            entropy[rows] = np.where(total > 0, h, 0.0)

    std = np.sqrt(m2)
    return np.column_stack(
        [
            lengths.astype(np.float64),
            mean,
            np.where(flat, 0.0, std),
            np.nanmin(panel, axis=1),
            np.nanmax(panel, axis=1),
            median,
            q25,
            q75,
            q75 - q25,
            skew,
            kurt,
            entropy,
            acf,
        ]
    )


def summary_statistics(series_by_dataset: Mapping[str, Any]) -> pd.DataFrame:
    """Per-series summary statistics averaged over the series of each dataset.

    For every series: its length (number of non-missing values), mean, standard
    deviation (population, ``ddof=0``), min, max, median, 25 % and 75 % quantiles
    (numpy's linear interpolation), inter-quartile range, skewness and excess kurtosis
    (biased moment estimators, as ``scipy.stats.skew`` / ``kurtosis`` by default),
    spectral entropy and the autocorrelation at lags 1–5. Each dataset's row is the
    unweighted mean over its series, plus ``n_series``.

    Spectral entropy is the Shannon entropy of the periodogram of the mean-removed series
    (squared magnitudes of the real FFT, DC bin dropped), normalised to a probability
    distribution, divided by ``log(n_bins)``: 0 for a pure tone on a Fourier bin, close to
    1 for white noise. Autocorrelation at lag ``k`` is
    ``sum_t (x_t - m)(x_{t+k} - m) / sum_t (x_t - m)^2`` (the standard biased estimator).
    For a constant series, where skewness, kurtosis, spectral entropy and autocorrelation
    are undefined, they are set to 0 so that the table stays finite.

    Parameters
    ----------
    series_by_dataset : Mapping[str, array-like]
        ``{dataset_name: series}``; see the module docstring for accepted layouts. Every
        series needs at least 6 non-missing values (autocorrelation up to lag 5).

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, 18)
        Index ``dataset``; columns :data:`SUMMARY_COLUMNS`.

    Raises
    ------
    InputError
        Not a mapping, empty, non-numeric or infinite values, multivariate data, or a
        series shorter than 6 values.
    """
    panels = _panels(series_by_dataset, MIN_SERIES_LENGTH)
    rows = []
    for panel in panels.values():
        stats = _per_series_statistics(panel)
        rows.append(np.concatenate([[panel.shape[0]], stats.mean(axis=0)]))
    frame = pd.DataFrame(
        np.vstack(rows), index=pd.Index(list(panels), name="dataset"), columns=SUMMARY_COLUMNS
    )
    return frame


# ------------------------------------------------------------------------- catch22


def catch22_features(
    series_by_dataset: Mapping[str, Any],
    max_series: int | None = None,
    seed: int = 0,
    *,
    catch24: bool = False,
) -> pd.DataFrame:
    """Mean and standard deviation over series of the 22 catch22 features.

    Requires the optional package ``pycatch22`` (imported lazily). Columns are named
    ``c22_mean_<feature>`` and ``c22_std_<feature>`` with catch22's canonical feature
    names (e.g. ``c22_mean_DN_HistogramMode_5``), the naming of the catch22 tables used
    in the paper's experiments. Standard deviations are population (``ddof=0``). A
    feature that catch22 returns as NaN for some series (e.g. a constant series) is
    averaged over the other series; it is NaN only if it is NaN for every series.

    Parameters
    ----------
    series_by_dataset : Mapping[str, array-like]
        ``{dataset_name: series}``; see the module docstring. Each series needs at least
        6 non-missing values.
    max_series : int, optional
        Use at most this many series per dataset, drawn without replacement with a
        generator seeded by ``(seed, dataset name)``. ``None`` uses every series.
        catch22 costs about 1 ms per series of length 500.
    seed : int, default 0
        Seed of the subsample.
    catch24 : bool, default False
        Also compute the mean and standard deviation of each series (catch24).

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, 44) (48 with ``catch24``)
        Index ``dataset``; all means first, then all standard deviations.

    Raises
    ------
    MissingExtraError
        ``pycatch22`` is not installed.
    InputError
        Bad input (see :func:`summary_statistics`) or a bad ``max_series``.
    """
    _check_max_series(max_series)
    catch22 = import_extra("pycatch22", "catch22_features")
    panels = _panels(series_by_dataset, MIN_SERIES_LENGTH)
    names: list[str] | None = None
    means, stds = [], []
    for name, panel in panels.items():
        panel = _subsample_rows(panel, max_series, seed, name)
        lengths = np.sum(~np.isnan(panel), axis=1)
        values = []
        for row, length in zip(panel, lengths, strict=True):
            res = catch22.catch22_all(row[:length].tolist(), catch24=catch24)
            if names is None:
                names = list(res["names"])
            values.append(res["values"])
        feats = np.asarray(values, dtype=np.float64)
        feats[~np.isfinite(feats)] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN feature -> NaN
            means.append(np.nanmean(feats, axis=0))
            stds.append(np.nanstd(feats, axis=0))
    assert names is not None
    columns = [f"c22_mean_{n}" for n in names] + [f"c22_std_{n}" for n in names]
    data = np.hstack([np.vstack(means), np.vstack(stds)])
    return pd.DataFrame(data, index=pd.Index(list(panels), name="dataset"), columns=columns)


# ---------------------------------------------------------------------- MiniRocket


def _resample_znorm(panel: np.ndarray, length: int) -> np.ndarray:
    """Linearly resample every series of a compact panel to ``length`` points and z-normalise.

    Returns
    -------
    ndarray, shape (n_series, length)
    """
    lengths = np.sum(~np.isnan(panel), axis=1)
    out = np.empty((panel.shape[0], length))
    grid = np.linspace(0.0, 1.0, length)
    for L, rows in _length_groups(lengths):
        x = panel[rows, :L]
        pos = grid * (L - 1)
        lo = np.floor(pos).astype(np.intp)
        hi = np.minimum(lo + 1, L - 1)
        frac = pos - lo
        out[rows] = x[:, lo] * (1.0 - frac) + x[:, hi] * frac
    mu = out.mean(axis=1, keepdims=True)
    sd = out.std(axis=1, keepdims=True)
    return np.where(sd > 1e-12, (out - mu) / np.where(sd > 1e-12, sd, 1.0), 0.0)


def _minirocket_class(backend: str) -> tuple[type, str]:
    tried = []
    if backend in ("auto", "aeon"):
        try:
            mod = importlib.import_module("aeon.transformations.collection.convolution_based")
            return mod.MiniRocket, "n_kernels"
        except ImportError as exc:
            tried.append(f"aeon ({exc})")
    if backend in ("auto", "sktime"):
        try:
            mod = importlib.import_module("sktime.transformations.panel.rocket")
            return mod.MiniRocket, "num_kernels"
        except ImportError as exc:
            tried.append(f"sktime ({exc})")
    raise MissingExtraError(
        "minirocket_features needs the optional package 'aeon' (or 'sktime'), which is not "
        f"installed: tried {'; '.join(tried)}. Neither can be listed in "
        "requirements-extras.txt because both declare pandas<3.1 while requirements.txt "
        "pins pandas 3.1.1; they work with it at run time. Install one without its "
        "dependency pins: pip install --no-deps aeon==1.6.0 deprecated==1.3.1 wrapt==2.5.2"
    )


def minirocket_features(
    series_by_dataset: Mapping[str, Any],
    *,
    length: int = 128,
    n_kernels: int = 10_000,
    max_series: int | None = 100,
    n_components: int | None = None,
    seed: int = 0,
    backend: Literal["auto", "aeon", "sktime"] = "auto",
) -> pd.DataFrame:
    """Mean MiniRocket transform of each dataset's series, optionally reduced by PCA.

    So that feature ``j`` means the same thing in every dataset, a single MiniRocket
    transform is fitted on the pooled series of all datasets, after every series has been
    linearly resampled to ``length`` points and z-normalised. (MiniRocket fitted per
    dataset draws each bias from that dataset's own convolution outputs, so its mean
    proportion-of-positive-values features are nearly the same constant for every
    dataset.) Each dataset's row is the mean over its (subsampled) series of the
    transform; with ``n_components`` the ``(n_datasets, n_features)`` matrix is reduced
    by a PCA fitted on it.

    Requires ``aeon`` (preferred) or ``sktime``, imported lazily; the first call in a
    process also compiles MiniRocket with numba (tens of seconds, then cached on disk).

    Parameters
    ----------
    series_by_dataset : Mapping[str, array-like]
        ``{dataset_name: series}``; see the module docstring. Series need at least 9
        non-missing values (MiniRocket's kernel length).
    length : int, default 128
        Common length every series is resampled to (at least 9).
    n_kernels : int, default 10000
        Number of MiniRocket features requested (rounded down to a multiple of 84 by
        MiniRocket; at least 84).
    max_series : int or None, default 100
        Series used per dataset (seeded by ``(seed, dataset name)``); ``None`` uses all.
    n_components : int, optional
        Reduce to this many principal components (at most the number of datasets).
    seed : int, default 0
        Seed of the subsample, of MiniRocket and of the PCA.
    backend : {"auto", "aeon", "sktime"}, default "auto"
        Which package's MiniRocket to use; ``"auto"`` tries aeon then sktime.

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, n_features) or (n_datasets, n_components)
        Index ``dataset``; columns ``minirocket_00000`` … or ``minirocket_pc1`` ….

    Raises
    ------
    MissingExtraError
        Neither aeon nor sktime is installed.
    InputError
        Bad input or parameters.
    """
    if backend not in ("auto", "aeon", "sktime"):
        raise InputError(f"backend must be 'auto', 'aeon' or 'sktime', got {backend!r}.")
    if not isinstance(length, int | np.integer) or length < 9:
        raise InputError(f"length must be an integer >= 9 (MiniRocket's kernel), got {length!r}.")
    if not isinstance(n_kernels, int | np.integer) or n_kernels < 84:
        raise InputError(f"n_kernels must be an integer >= 84, got {n_kernels!r}.")
    _check_max_series(max_series)
    _check_mapping(series_by_dataset)
    n_datasets = len(series_by_dataset)
    if n_components is not None and not (1 <= n_components <= n_datasets):
        raise InputError(
            f"n_components must be between 1 and the number of datasets ({n_datasets}), "
            f"got {n_components!r}."
        )
    cls, kernels_arg = _minirocket_class(backend)
    panels = _panels(series_by_dataset, 9)
    resampled = {
        name: _resample_znorm(_subsample_rows(p, max_series, seed, name), length)
        for name, p in panels.items()
    }
    pooled = np.vstack(list(resampled.values()))[:, None, :]
    transform = cls(**{kernels_arg: int(n_kernels), "random_state": int(seed)})
    transform.fit(pooled)
    rows = []
    for x in resampled.values():
        z = transform.transform(x[:, None, :])
        z = z.to_numpy() if isinstance(z, pd.DataFrame) else np.asarray(z)
        rows.append(np.asarray(z, dtype=np.float64).mean(axis=0))
    data = np.vstack(rows)
    index = pd.Index(list(panels), name="dataset")
    if n_components is not None:
        from sklearn.decomposition import PCA

        data = PCA(n_components=n_components, random_state=seed).fit_transform(data)
        columns = [f"minirocket_pc{i + 1}" for i in range(data.shape[1])]
    else:
        width = len(str(data.shape[1] - 1))
        columns = [f"minirocket_{i:0{width}d}" for i in range(data.shape[1])]
    return pd.DataFrame(data, index=index, columns=columns)


# ---------------------------------------------------------------------- UCR reader

_UCR_SUFFIXES = (".tsv", ".txt", "")
_SPLIT_RE = re.compile(r"[\s,]+")


def _parse_labels(tokens: list[str]) -> np.ndarray:
    try:
        numbers = np.array([float(t) for t in tokens])
    except ValueError:
        return np.array(tokens, dtype=object)
    if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
        return numbers.astype(np.int64)
    return numbers


def _read_ucr_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read one UCR file: label first, then the values; tab, comma or space separated."""
    labels: list[str] = []
    rows: list[np.ndarray] = []
    text = path.read_text(encoding="utf-8")
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        tokens = _SPLIT_RE.split(line)
        try:
            values = np.array([float(t) for t in tokens[1:]])
        except ValueError as exc:
            raise InputError(
                f"{path}, line {lineno}: {exc}; a UCR file has the class label first and "
                "then numbers (NaN for padding), separated by tabs, commas or spaces."
            ) from exc
        labels.append(tokens[0])
        rows.append(values)
    if not rows:
        raise InputError(f"{path} holds no series; check the file or remove it.")
    width = max(r.size for r in rows)
    X = np.full((len(rows), width), np.nan)
    for i, r in enumerate(rows):
        X[i, : r.size] = r
    return X, _parse_labels(labels)


def _find_split_file(root: Path, name: str, split: str) -> Path | None:
    for folder in (root / name, root):
        for suffix in _UCR_SUFFIXES:
            p = folder / f"{name}_{split}{suffix}"
            if p.is_file():
                return p
    return None


def read_ucr_folder(
    root: str | Path,
    *,
    split: Literal["train", "test", "all"] = "train",
    names: Sequence[str] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Read datasets in the UCR archive layout.

    Looks for ``<root>/<Name>/<Name>_TRAIN.tsv`` and ``..._TEST.tsv`` (the 2018 archive),
    also accepting ``.txt`` or no suffix (older archives) and the files directly in
    ``root``. Each line holds the class label and then the series values, separated by tabs,
    commas or spaces; rows may differ in length and may contain ``NaN``.

    Parameters
    ----------
    root : str or Path
        Folder holding the datasets.
    split : {"train", "test", "all"}, default "train"
        Which file to read; ``"all"`` concatenates train then test.
    names : sequence of str, optional
        Datasets to read; default every dataset found, sorted by name.

    Returns
    -------
    dict[str, tuple[ndarray, ndarray]]
        ``{name: (X, y)}`` with ``X`` of shape ``(n_series, max_length)`` (NaN-padded,
        float64) and ``y`` of shape ``(n_series,)``: int64 when every label is an integer
        (``"1"``, ``"-1"``, ``"1.0000000e+00"``), float64 when numeric, otherwise object.

    Raises
    ------
    InputError
        ``root`` missing, no dataset found, a requested name missing, or a malformed file.
    """
    root = Path(root)
    if split not in ("train", "test", "all"):
        raise InputError(f"split must be 'train', 'test' or 'all', got {split!r}.")
    if not root.is_dir():
        raise InputError(
            f"UCR folder {root} does not exist; pass the folder that holds the datasets."
        )
    splits = ["TRAIN", "TEST"] if split == "all" else [split.upper()]
    if names is None:
        found = set()
        for p in list(root.glob("*_TRAIN*")) + list(root.glob("*/*_TRAIN*")):
            stem = p.name.split("_TRAIN")[0]
            if p.name[len(stem) + len("_TRAIN") :] in _UCR_SUFFIXES and p.is_file():
                found.add(stem)
        if not found:
            raise InputError(
                f"no UCR dataset found in {root}: expected files like "
                f"{root}/<Name>/<Name>_TRAIN.tsv (label first, tab-separated values)."
            )
        names = sorted(found)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in names:
        parts = []
        for s in splits:
            path = _find_split_file(root, name, s)
            if path is None:
                raise InputError(
                    f"dataset '{name}': no {name}_{s}.tsv (or .txt) in {root / name} or {root}."
                )
            parts.append(_read_ucr_file(path))
        if len(parts) == 1:
            out[name] = parts[0]
        else:
            width = max(p[0].shape[1] for p in parts)
            X = np.vstack(
                [
                    np.pad(p[0], ((0, 0), (0, width - p[0].shape[1])), constant_values=np.nan)
                    for p in parts
                ]
            )
            y = np.concatenate([p[1].astype(object) for p in parts])
            out[name] = (X, _parse_labels([str(v) for v in y]))
    return out
