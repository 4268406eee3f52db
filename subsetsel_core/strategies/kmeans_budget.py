"""k-means within a budget: the cost-aware variant of :mod:`subsetsel_core.strategies.kmeans`."""

from __future__ import annotations

import numpy as np

from subsetsel_core.strategies.kmeans import kmeans_centres
from subsetsel_core.strategies.random_choice import random_within_budget


def _cheap_near_centres(Z: np.ndarray, costs: np.ndarray, k: int, rng: np.random.Generator) -> list[int]:
    """For each centroid of the best k-means run, the cheapest of its three nearest free datasets."""
    centres = kmeans_centres(Z, k, rng=rng)
    d = ((Z[:, None, :] - centres[None]) ** 2).sum(axis=2)
    taken = np.zeros(Z.shape[0], dtype=bool)
    chosen = []
    for j in range(k):
        near = [i for i in np.argsort(d[:, j], kind="stable") if not taken[i]][:3]
        i = min(near, key=lambda x: (costs[x], x))
        taken[i] = True
        chosen.append(int(i))
    return chosen


def within_budget(Z: np.ndarray, costs: np.ndarray, budget: float, rng: np.random.Generator) -> list[int]:
    """The largest k (found by doubling, then bisection) whose cost-aware k-means subset fits.

    For each centroid of k-means++ (10 restarts), the cheapest of its three nearest free
    datasets. With no descriptor columns: the random cost-aware choice.
    """
    n = Z.shape[0]
    if Z.shape[1] == 0:
        return random_within_budget(Z, costs, budget, rng)
    streams = iter(rng.spawn(4 * n.bit_length() + 4))
    tried: dict[int, list[int]] = {}

    def fits(k: int) -> bool:
        if k not in tried:
            tried[k] = _cheap_near_centres(Z, costs, k, next(streams))
        return costs[tried[k]].sum() <= budget + 1e-12

    if not fits(1):
        return []
    lo, hi = 1, 2
    while hi <= n and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, n + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return tried[lo]
