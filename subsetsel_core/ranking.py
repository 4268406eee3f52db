"""Rank vectors, the reference ranking and subset rankings (PROTOCOL.md, "Ranks").

Ranks are kept as exact integers: within each (dataset, fold) the models get average
ranks (1 = best), which are multiples of 1/2, so ``2 × rank`` is an integer and so is any
sum of them over folds and datasets. Comparisons between models (ties, orderings) are made
on these sums, so a tie is a tie on every CPU; mean ranks are the sums divided by
``2 × folds × datasets``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def rank_sums(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Twice the sum over folds of each model's average rank on each dataset.

    Parameters
    ----------
    scores : ndarray of shape (n, F, M)
        Finite scores.
    higher_is_better : bool
        Orientation.

    Returns
    -------
    ndarray of shape (n, M), int64
        ``2 * sum_f rank[d, f, m]``; ranks are 1 = best with average ties.
    """
    s = -scores if higher_is_better else scores
    r2 = np.rint(2.0 * rankdata(s, method="average", axis=-1)).astype(np.int64)
    return r2.sum(axis=1)


def mean_ranks(sums: np.ndarray, n_folds: int, n_datasets: int | np.ndarray = 1) -> np.ndarray:
    """Mean ranks from exact rank sums: ``sums / (2 · n_folds · n_datasets)``."""
    return np.asarray(sums, dtype=float) / (2.0 * n_folds * np.asarray(n_datasets, dtype=float))


def reference_sums(sums: np.ndarray) -> np.ndarray:
    """Rank sums of the reference ranking: all datasets of the benchmark, shape (M,)."""
    return sums.sum(axis=0)


def subset_sums(sums: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Rank sums of the rankings induced by subsets.

    Parameters
    ----------
    sums : ndarray of shape (n, M)
        Per-dataset rank sums.
    subsets : ndarray of int, shape (..., k)
        Dataset indices (rows of ``sums``).

    Returns
    -------
    ndarray of shape (..., M)
    """
    return sums[subsets].sum(axis=-2)


def nested_subset_sums(sums: np.ndarray, order: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Rank sums for every prefix ``order[:k]``, k in ``ks``; shape (len(ks), M)."""
    csum = np.cumsum(sums[order], axis=0)
    return csum[np.asarray(ks) - 1]
