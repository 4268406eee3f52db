"""MiniRocket representation: the mean MiniRocket transform of each dataset's series.

Takes ``series_by_dataset`` like the builders of
:mod:`subsetsel_core.representations.timeseries`. Needs ``aeon`` or ``sktime``, imported
lazily; without either it raises :class:`~subsetsel_core.errors.MissingExtraError`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError, MissingExtraError
from subsetsel_core.representations.panels import (
    check_mapping,
    check_max_series,
    compact_panels,
    length_groups,
    subsample_rows,
)

__all__ = ["minirocket_features"]

MIN_LENGTH = 9
"""MiniRocket's kernel length: the shortest series it can transform."""


def _resample_znorm(panel: np.ndarray, length: int) -> np.ndarray:
    """Linearly resample every series of a compact panel to ``length`` points and z-normalise.

    Returns
    -------
    ndarray, shape (n_series, length)
    """
    lengths = np.sum(~np.isnan(panel), axis=1)
    out = np.empty((panel.shape[0], length))
    grid = np.linspace(0.0, 1.0, length)
    for L, rows in length_groups(lengths):
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
        ``{dataset_name: series}``; layouts as in
        :mod:`~subsetsel_core.representations.panels`. Series need at least 9 non-missing
        values (MiniRocket's kernel length).
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
    if not isinstance(length, int | np.integer) or length < MIN_LENGTH:
        raise InputError(f"length must be an integer >= 9 (MiniRocket's kernel), got {length!r}.")
    if not isinstance(n_kernels, int | np.integer) or n_kernels < 84:
        raise InputError(f"n_kernels must be an integer >= 84, got {n_kernels!r}.")
    check_max_series(max_series)
    check_mapping(series_by_dataset)
    n_datasets = len(series_by_dataset)
    if n_components is not None and not (1 <= n_components <= n_datasets):
        raise InputError(
            f"n_components must be between 1 and the number of datasets ({n_datasets}), "
            f"got {n_components!r}."
        )
    cls, kernels_arg = _minirocket_class(backend)
    panels = compact_panels(series_by_dataset, MIN_LENGTH)
    resampled = {
        name: _resample_znorm(subsample_rows(p, max_series, seed, name), length)
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
