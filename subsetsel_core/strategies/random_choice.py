"""``random``: k datasets uniformly without replacement."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from subsetsel_core.strategies.base import StrategyInfo


def random_select(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """``include`` first, then uniformly drawn rows without replacement.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Only its number of rows is used.
    k : int
    rng : Generator
    include : ndarray of int

    Returns
    -------
    ndarray of int, shape (k,)
    """
    inc = np.asarray(include, dtype=np.int64)
    n = X.shape[0]
    if inc.size:
        rest = np.setdiff1d(np.arange(n), inc)
        return np.concatenate([inc, rng.choice(rest, size=k - inc.size, replace=False)])
    return rng.choice(n, size=k, replace=False)


def _many(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator]) -> list[np.ndarray]:
    """One independent draw per k, ``rngs[i]`` for ``ks[i]`` (as :func:`random_select`)."""
    n = X.shape[0]
    return [g.choice(n, size=k, replace=False) for k, g in zip(ks, rngs, strict=True)]


def random_within_budget(Z: np.ndarray, costs: np.ndarray, budget: float, rng: np.random.Generator) -> list[int]:
    """Datasets in random order, each taken while it still fits in ``budget``."""
    chosen, left = [], budget
    for i in rng.permutation(len(costs)):
        if costs[i] <= left + 1e-12:
            chosen.append(int(i))
            left -= costs[i]
    return chosen


INFO = StrategyInfo(
    "random",
    random_select,
    nested=False,
    uses_features=False,
    title="Random",
    description="k datasets drawn uniformly at random (the baseline).",
    many=_many,
    cost_aware=random_within_budget,
    baseline=True,
    seconds_per_trial=0.001,
)
