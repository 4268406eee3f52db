"""Interaction-log representations: the 18 statistics of recommender datasets.

The definitions follow the dataset statistics of Shevchenko et al. (KDD 2024, "From
variability to stability: advancing RecSys benchmarking practices"; their public
notebook ``datasets_statistics.ipynb``), whose table the recsys benchmark ships as
``features_stats.csv``. With ``U`` users, ``I`` items and ``R`` interactions (rows of the
log, repeated user–item pairs included):

=========================  ==============================================================
``n_users``                ``U``, distinct users
``n_items``                ``I``, distinct items
``n_interactions``         ``R``, rows of the log
``space_size``             ``U * I``
``shape_users_per_item``   ``U / I``
``density``                ``R / (U * I)``
``interactions_per_user``  ``R / U``
``interactions_per_item``  ``R / I``
``gini_item``              Gini of the interaction counts per item (below)
``gini_user``              Gini of the interaction counts per user
``pop_bias_*``             mean, std, skew, kurtosis over users of the user's popularity
                           bias: the mean, over the user's interactions, of the
                           popularity of the item, where an item's popularity is the
                           number of distinct users who interacted with it divided by
                           ``U`` (a share in [0, 1])
``long_tail_*``            mean, std, skew, kurtosis over users of the share of the user's
                           distinct items that are long-tail items
=========================  ==============================================================

Gini, for counts sorted ascending ``x_1 <= ... <= x_n`` summing to ``R``:
``1 - 2 * sum_j (n + 1 - j) * x_j / ((n + 1) * R)``. It is 0 for equal counts and
``(n - 1) / (n + 1)`` when one element has every interaction; it equals ``n / (n + 1)``
times the textbook Gini. This is the reference notebook's formula, kept so that the
values match the published table.

Long-tail items: sort the items by interaction count, most popular first; the long tail
starts at the first item at which the cumulative share of interactions exceeds 0.8 (that
item included) and runs to the end, as in the reference notebook. It is thus defined by
share of interactions, not as "outside the top 20 % of items". Items with equal counts
are ordered by label (the notebook used pandas' ``value_counts`` order, an implementation
detail); with that same order the 18 values agree with the notebook's code to rounding.

Std is the sample standard deviation (``ddof=1``, pandas' default, as in the reference);
skewness and kurtosis are scipy's defaults (biased, Fisher's excess kurtosis). Where a
moment is undefined (a single user, or every user with the same value) it is set to 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError

__all__ = ["INTERACTION_COLUMNS", "gini", "interaction_statistics"]

INTERACTION_COLUMNS: tuple[str, ...] = (
    "n_users",
    "n_items",
    "n_interactions",
    "space_size",
    "shape_users_per_item",
    "density",
    "interactions_per_user",
    "interactions_per_item",
    "gini_item",
    "gini_user",
    "pop_bias_avg",
    "pop_bias_std",
    "pop_bias_skew",
    "pop_bias_kurtosis",
    "long_tail_avg",
    "long_tail_std",
    "long_tail_skew",
    "long_tail_kurtosis",
)

LONG_TAIL_HEAD_SHARE = 0.8


def gini(counts: np.ndarray) -> float:
    """Gini index of non-negative counts, with the reference notebook's normalisation.

    Parameters
    ----------
    counts : ndarray, shape (n,)
        Non-negative counts (interactions per item or per user), in any order.

    Returns
    -------
    float
        ``1 - 2 * sum_j (n + 1 - j) * x_(j) / ((n + 1) * sum(x))`` with ``x`` sorted
        ascending: 0 when all counts are equal, ``(n - 1) / (n + 1)`` at most.
    """
    x = np.sort(np.asarray(counts, dtype=np.float64))
    n = x.size
    total = x.sum()
    if n == 0 or total <= 0:
        return 0.0
    weights = n + 1 - np.arange(1, n + 1)
    return float(1.0 - 2.0 * np.dot(weights, x) / ((n + 1) * total))


def _moments(values: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, sample std (ddof=1), biased skewness and excess kurtosis; undefined -> 0."""
    n = values.size
    mean = float(values.mean())
    dev = values - mean
    m2 = float(np.mean(dev**2))
    if n < 2 or m2 <= (1e-12 * abs(mean)) ** 2:
        return mean, 0.0, 0.0, 0.0
    std = float(np.sqrt(m2 * n / (n - 1)))
    skew = float(np.mean(dev**3) / m2**1.5)
    kurt = float(np.mean(dev**4) / m2**2 - 3.0)
    return mean, std, skew, kurt


def _codes(values: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes ``0 .. k-1`` in sorted label order (first-seen order if unsortable)."""
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), len(uniques)


def _statistics(users: np.ndarray, n_users: int, items: np.ndarray, n_items: int) -> np.ndarray:
    """The 18 statistics of one log given integer codes.

    Parameters
    ----------
    users, items : ndarray of int, shape (n_interactions,)
        Codes in ``0 .. n_users - 1`` and ``0 .. n_items - 1``.

    Returns
    -------
    ndarray, shape (18,)
        In the order of :data:`INTERACTION_COLUMNS`.
    """
    n_u, n_i, n_r = n_users, n_items, users.size
    item_counts = np.bincount(items, minlength=n_i)
    user_counts = np.bincount(users, minlength=n_u)

    # Distinct (user, item) pairs.
    pairs = np.unique(users * n_i + items)
    pair_users, pair_items = pairs // n_i, pairs % n_i

    # Popularity bias: item popularity = distinct users / n_u, averaged over each user's rows.
    item_pop = np.bincount(pair_items, minlength=n_i) / n_u
    pop_bias = np.bincount(users, weights=item_pop[items], minlength=n_u) / user_counts

    # Long tail: most popular first, ties by item code (sorted label); the tail starts at
    # the first item where the cumulative share of interactions exceeds 0.8. Integer
    # arithmetic (5 * cumsum > 4 * n_r) keeps the threshold exact.
    order = np.lexsort((np.arange(n_i), -item_counts))
    cum = np.cumsum(item_counts[order])
    start = int(np.argmax(5 * cum > 4 * n_r))
    is_tail = np.zeros(n_i, dtype=np.float64)
    is_tail[order[start:]] = 1.0
    distinct_per_user = np.bincount(pair_users, minlength=n_u)
    tail_share = np.bincount(pair_users, weights=is_tail[pair_items], minlength=n_u) / distinct_per_user

    return np.array(
        [
            n_u,
            n_i,
            n_r,
            n_u * n_i,
            n_u / n_i,
            n_r / (n_u * n_i),
            n_r / n_u,
            n_r / n_i,
            gini(item_counts),
            gini(user_counts),
            *_moments(pop_bias),
            *_moments(tail_share),
        ],
        dtype=np.float64,
    )


def _check_log(frame: Any, name: str, user_col: str, item_col: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"dataset '{name}': expected a DataFrame with columns '{user_col}' and "
            f"'{item_col}', got {type(frame).__name__}."
        )
    missing = [c for c in (user_col, item_col) if c not in frame.columns]
    if missing:
        raise InputError(
            f"dataset '{name}': column(s) {missing} not found; the log has columns "
            f"{list(map(str, frame.columns))[:20]}. Pass user_col= and item_col= to name "
            "the user and item columns."
        )
    if len(frame) == 0:
        raise InputError(f"dataset '{name}': the interaction log is empty.")
    bad = frame[[user_col, item_col]].isna().any(axis=1)
    if bad.any():
        first = frame.index[np.flatnonzero(bad.to_numpy())[0]]
        raise InputError(
            f"dataset '{name}': {int(bad.sum())} rows have a missing user or item (first at "
            f"index {first!r}); drop them before computing statistics."
        )
    return frame


def interaction_statistics(
    logs: Mapping[str, pd.DataFrame] | pd.DataFrame,
    *,
    user_col: str = "user",
    item_col: str = "item",
    dataset_col: str = "dataset",
) -> pd.DataFrame:
    """The 18 interaction-matrix statistics of each recommender dataset.

    See the module docstring for the exact definitions. Other columns of the logs (a
    rating, a timestamp) are ignored; every row counts as one interaction.

    Parameters
    ----------
    logs : Mapping[str, DataFrame] or DataFrame
        ``{dataset_name: log}`` with one row per interaction, or one long DataFrame with a
        ``dataset_col`` column.
    user_col, item_col : str, default "user", "item"
        Columns holding the user and item identifiers (any hashable values).
    dataset_col : str, default "dataset"
        Column naming the dataset when ``logs`` is one long DataFrame.

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, 18)
        Index ``dataset`` (mapping order, or sorted names for a long DataFrame); columns
        :data:`INTERACTION_COLUMNS`, the names used by the recsys benchmark's
        ``features_stats.csv``.

    Raises
    ------
    InputError
        Missing columns, an empty log, or missing user/item values.
    """
    if isinstance(logs, pd.DataFrame):
        if dataset_col not in logs.columns:
            raise InputError(
                f"the long interaction table has no '{dataset_col}' column (columns: "
                f"{list(map(str, logs.columns))[:20]}); pass dataset_col= or a mapping "
                "{dataset_name: log}."
            )
        if logs[dataset_col].isna().any():
            raise InputError(
                f"{int(logs[dataset_col].isna().sum())} rows have no '{dataset_col}' value; "
                "drop or fill them."
            )
        logs = {str(k): g for k, g in logs.groupby(dataset_col, sort=True)}
    elif not isinstance(logs, Mapping):
        raise InputError(
            "logs must be a mapping {dataset_name: DataFrame} or one DataFrame with a "
            f"'{dataset_col}' column, got {type(logs).__name__}."
        )
    if len(logs) == 0:
        raise InputError("logs is empty; pass at least one interaction log.")
    checked = {name: _check_log(f, name, user_col, item_col) for name, f in logs.items()}
    rows = []
    for frame in checked.values():
        users, n_users = _codes(frame[user_col])
        items, n_items = _codes(frame[item_col])
        rows.append(_statistics(users, n_users, items, n_items))
    return pd.DataFrame(
        np.vstack(rows), index=pd.Index(list(checked), name="dataset"), columns=INTERACTION_COLUMNS
    )
