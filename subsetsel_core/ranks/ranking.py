"""Rank vectors, the reference ranking and subset rankings (PROTOCOL.md, "Ranks").

Ranks are kept as exact integers: within each (dataset, fold) the models get average
ranks (1 = best), which are multiples of 1/2, so ``2 × rank`` is an integer and so is any
sum of them over folds and datasets. Comparisons between models (ties, orderings) are made
on these sums, so a tie is a tie on every CPU; mean ranks are the sums divided by
``2 × folds × datasets``.
"""

from __future__ import annotations

import numpy as np


def twice_average_ranks(x: np.ndarray) -> np.ndarray:
    """Twice the 1-based average-tie ranks along the last axis, as exact integers.

    Equals ``2 * scipy.stats.rankdata(x, method="average", axis=-1)`` (without importing
    scipy.stats, which costs over a second at start-up). A tie group occupying sorted
    positions ``a … b`` (0-based) has average rank ``(a + b) / 2 + 1``, so twice the rank is
    the integer ``a + b + 2``.

    Parameters
    ----------
    x : ndarray of shape (..., M)
        Values without NaN; smaller is better (rank 1).

    Returns
    -------
    ndarray of shape (..., M), int64
    """
    x = np.asarray(x)
    m = x.shape[-1]
    if m == 0:
        return np.zeros(x.shape, dtype=np.int64)
    order = np.argsort(x, axis=-1)  # any order of tied values gives the same tie groups
    s = np.take_along_axis(x, order, axis=-1)
    new = s[..., 1:] != s[..., :-1]  # a new tie group starts at position j + 1
    pos = np.broadcast_to(np.arange(m), s.shape)
    start = np.concatenate([np.ones(s.shape[:-1] + (1,), bool), new], axis=-1)
    first = np.maximum.accumulate(np.where(start, pos, 0), axis=-1)
    end = np.concatenate([new, np.ones(s.shape[:-1] + (1,), bool)], axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(end, pos, m), axis=-1), axis=-1), axis=-1)
    out = np.empty(s.shape, dtype=np.int64)
    np.put_along_axis(out, order, (first + last + 2).astype(np.int64), axis=-1)
    return out


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
    return twice_average_ranks(s).sum(axis=1)


def mean_ranks(sums: np.ndarray, n_folds: int, n_datasets: int | np.ndarray = 1) -> np.ndarray:
    """Mean ranks from exact rank sums: ``sums / (2 · n_folds · n_datasets)``."""
    return np.asarray(sums, dtype=float) / (2.0 * n_folds * np.asarray(n_datasets, dtype=float))
