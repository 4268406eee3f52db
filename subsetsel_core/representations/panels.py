"""Series inputs of the time-series builders, converted to compact float panels.

A dataset's series come as one of

- a 2-D array ``(n_series, length)``; NaN marks padding or missing values;
- a list of 1-D arrays of possibly different lengths;
- a 3-D array ``(n_series, 1, length)`` (the univariate layout of aeon / sktime);
- a 1-D array (a single series);
- a pair ``(X, y)`` as returned by :func:`subsetsel_core.io.ucr.read_ucr_folder` (the
  labels are ignored).

:func:`_as_panel` turns each into a *compact panel*: a float array ``(n_series, max_len)``
whose row ``i`` holds its non-missing values at positions ``0 .. L_i - 1``, in order, and
NaN after them.
"""

from __future__ import annotations

import numbers
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError


def check_mapping(series_by_dataset: Any, what: str = "series_by_dataset") -> None:
    """Check that the input is a non-empty mapping keyed by non-empty strings.

    Raises
    ------
    InputError
        Not a mapping, empty, or a key that is not a non-empty string.
    """
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
    """``value`` as a float64 array; an :class:`InputError` naming the dataset if it is not numeric."""
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


def compact_panels(series_by_dataset: Mapping[str, Any], min_length: int) -> dict[str, np.ndarray]:
    """Every dataset's series as a compact panel, each series checked for its length.

    Parameters
    ----------
    series_by_dataset : Mapping[str, array-like]
        ``{dataset_name: series}`` in one of the layouts of the module docstring.
    min_length : int
        Fewest non-missing values a series may have.

    Returns
    -------
    dict of str to ndarray
        ``{dataset_name: panel}`` in input order.

    Raises
    ------
    InputError
        Bad input (see :func:`check_mapping`), non-numeric, infinite or multivariate
        values, or a series shorter than ``min_length``.
    """
    check_mapping(series_by_dataset)
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


def subsample_rows(panel: np.ndarray, max_series: int | None, seed: int, name: str) -> np.ndarray:
    """Return at most ``max_series`` rows, drawn without replacement, original order kept.

    The draw depends only on ``seed`` and the dataset name, so adding or removing other
    datasets does not change it.
    """
    if max_series is None or panel.shape[0] <= max_series:
        return panel
    rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
    keep = np.sort(rng.choice(panel.shape[0], size=max_series, replace=False))
    return panel[keep]


def check_max_series(max_series: int | None) -> None:
    """Raise an :class:`InputError` unless ``max_series`` is ``None`` or a positive integer."""
    if max_series is not None and (not isinstance(max_series, int | np.integer) or max_series < 1):
        raise InputError(f"max_series must be a positive integer or None, got {max_series!r}.")


def length_groups(lengths: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Group row indices by series length: ``[(length, rows), ...]``."""
    uniq, inverse = np.unique(lengths, return_inverse=True)
    return [(int(L), np.flatnonzero(inverse == g)) for g, L in enumerate(uniq)]
