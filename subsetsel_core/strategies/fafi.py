"""Greedy farthest-first traversal (FAFI), Euclidean and cosine."""

from __future__ import annotations

import numpy as np

from subsetsel_core.strategies.base import StrategyInfo, argmax_first


def _euclidean_to(X: np.ndarray, i: int) -> np.ndarray:
    return np.sqrt(((X - X[i]) ** 2).sum(axis=1))


def _cosine_to(U: np.ndarray, zero: np.ndarray, i: int, any_zero: bool = True) -> np.ndarray:
    if zero[i]:
        return np.ones(U.shape[0])
    d = 1.0 - (U * U[i]).sum(axis=1)
    if any_zero:
        d[zero] = 1.0
    return d


def farthest_first(
    X: np.ndarray, k: int, *, rng: np.random.Generator | None = None, include: np.ndarray = (),  # type: ignore[assignment]
    metric: str = "euclidean",
) -> np.ndarray:
    """Greedy farthest-first order of ``k`` rows of standardized ``X``.

    The first point (when ``include`` is empty) is the one farthest (Euclidean) from the
    mean; then repeatedly the point whose distance to its nearest chosen point is largest.
    Ties go to the lower row index. Deterministic; ``rng`` is unused.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    k : int
    rng : unused
    include : ndarray of int
        Rows chosen first, in order.
    metric : {"euclidean", "cosine"}
        Cosine distance is 1 − cosine similarity; a zero row has distance 1 to everything.

    Returns
    -------
    ndarray of int, shape (k,)
    """
    n = X.shape[0]
    chosen = [int(i) for i in np.asarray(include, dtype=np.int64)]
    if metric == "cosine":
        norms = np.sqrt((X * X).sum(axis=1))
        zero = norms == 0
        U = X / np.where(zero, 1.0, norms)[:, None]
        any_zero = bool(zero.any())

        def dist(i: int) -> np.ndarray:
            return _cosine_to(U, zero, i, any_zero)
    else:

        def dist(i: int) -> np.ndarray:
            return _euclidean_to(X, i)

    # distance of every point to its nearest chosen point; chosen points hold −inf so that
    # the arg-maximum skips them (the same values as masking them at every step)
    mind = np.full(n, np.inf)
    if not chosen and k > 0:
        centre = np.sqrt(((X - X.mean(axis=0)) ** 2).sum(axis=1))
        chosen.append(argmax_first(centre))
    # fmin, not minimum: a NaN distance never turns a chosen point's −inf back into a candidate
    for c in chosen:
        np.fmin(mind, dist(c), out=mind)
    mind[chosen] = -np.inf
    while len(chosen) < k:
        i = argmax_first(mind)
        chosen.append(i)
        np.fmin(mind, dist(i), out=mind)
        mind[i] = -np.inf
    return np.asarray(chosen[:k], dtype=np.int64)


def fafi_euclidean(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """FAFI with Euclidean distance (see :func:`farthest_first`)."""
    return farthest_first(X, k, rng=rng, include=include, metric="euclidean")


def fafi_cosine(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """FAFI with cosine distance (see :func:`farthest_first`)."""
    return farthest_first(X, k, rng=rng, include=include, metric="cosine")


def _affordable(costs: np.ndarray, taken: np.ndarray, left: float) -> np.ndarray:
    return (~taken) & (costs <= left + 1e-12)


def _within_budget(Z: np.ndarray, costs: np.ndarray, budget: float, cosine: bool) -> list[int]:
    """Farthest-first where each step takes the affordable dataset with the largest
    distance-to-nearest-chosen per unit cost (first step: distance from the mean per unit cost)."""
    n = Z.shape[0]
    if cosine:
        norms = np.sqrt((Z * Z).sum(axis=1))
        zero = norms == 0
        U = Z / np.where(zero, 1.0, norms)[:, None]

        def dist(i: int) -> np.ndarray:
            if zero[i]:
                return np.ones(n)
            d = 1.0 - U @ U[i]
            d[zero] = 1.0
            return d
    else:

        def dist(i: int) -> np.ndarray:
            return np.sqrt(((Z - Z[i]) ** 2).sum(axis=1))

    taken = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    left = budget
    mind = np.sqrt(((Z - Z.mean(axis=0)) ** 2).sum(axis=1))  # first step: distance from the mean
    while True:
        ok = _affordable(costs, taken, left)
        if not ok.any():
            return chosen
        score = np.where(ok, mind / costs, -np.inf)
        i = int(np.argmax(score))
        chosen.append(i)
        taken[i] = True
        left -= costs[i]
        mind = dist(i) if len(chosen) == 1 else np.minimum(mind, dist(i))


def euclidean_within_budget(Z: np.ndarray, costs: np.ndarray, budget: float,
                            rng: np.random.Generator) -> list[int]:
    """Cost-aware FAFI (Euclidean) within ``budget``; ``rng`` is not used."""
    return _within_budget(Z, costs, budget, cosine=False)


def cosine_within_budget(Z: np.ndarray, costs: np.ndarray, budget: float,
                         rng: np.random.Generator) -> list[int]:
    """Cost-aware FAFI (cosine) within ``budget``; ``rng`` is not used."""
    return _within_budget(Z, costs, budget, cosine=True)


EUCLIDEAN = StrategyInfo(
    "fafi-euclidean", fafi_euclidean, nested=True, uses_features=True, title="FAFI (Euclidean)",
    description="Greedy farthest-first: each new dataset is the one farthest from those already chosen.",
    uses_rng=False, colour="#ff7f0e", cost_aware=euclidean_within_budget, covering=True, seconds_per_trial=0.001,
)
COSINE = StrategyInfo(
    "fafi-cosine", fafi_cosine, nested=True, uses_features=True, title="FAFI (cosine)",
    description="Greedy farthest-first with cosine distance between standardized descriptors.",
    uses_rng=False, colour="#d62728", cost_aware=cosine_within_budget, covering=True, seconds_per_trial=0.001,
)
