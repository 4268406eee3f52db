"""Time-series representations: per-dataset descriptors built from the series themselves.

Every builder takes ``series_by_dataset``, a mapping ``{dataset_name: series}``; the
accepted layouts of ``series`` are listed in :mod:`subsetsel_core.representations.panels`
(2-D arrays, lists of 1-D arrays, the 3-D univariate layout of aeon / sktime, an ``(X, y)``
pair as read by :func:`subsetsel_core.io.ucr.read_ucr_folder`).

NaN anywhere in a series is treated as missing: the value is dropped and the remaining
values keep their order (trailing NaN padding of unequal-length UCR datasets is the
common case). Each builder returns a :class:`pandas.DataFrame` indexed by dataset name
(index name ``dataset``), one row per dataset in input order, numeric columns only.

:func:`catch22_features` here and
:func:`~subsetsel_core.representations.minirocket.minirocket_features` import their
package lazily and raise :class:`~subsetsel_core.errors.MissingExtraError` when it is not
installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core._extras import import_extra
from subsetsel_core.representations.panels import (
    check_max_series,
    compact_panels,
    length_groups,
    subsample_rows,
)

__all__ = [
    "SUMMARY_COLUMNS",
    "catch22_features",
    "summary_statistics",
]

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
    for length, rows in length_groups(lengths):
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
        ``{dataset_name: series}``; layouts as in
        :mod:`~subsetsel_core.representations.panels`. Every series needs at least 6
        non-missing values (autocorrelation up to lag 5).

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
    panels = compact_panels(series_by_dataset, MIN_SERIES_LENGTH)
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
        ``{dataset_name: series}``; layouts as in
        :mod:`~subsetsel_core.representations.panels`. Each series needs at least 6
        non-missing values.
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
    check_max_series(max_series)
    catch22 = import_extra("pycatch22", "catch22_features")
    panels = compact_panels(series_by_dataset, MIN_SERIES_LENGTH)
    names: list[str] | None = None
    means, stds = [], []
    for name, panel in panels.items():
        panel = subsample_rows(panel, max_series, seed, name)
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
