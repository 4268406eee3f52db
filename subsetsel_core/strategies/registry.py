"""The strategy registry and the validated public entry point :func:`select`.

Adding a strategy: write its module (kernel + :class:`StrategyInfo`) and add that record
to :data:`REGISTRY` below, in display order.

The registry also holds the score-aware strategies (``StrategyInfo.score_aware``), the
upper bound of ``subsetsel headroom``: every face that lists, offers or runs strategies
uses :data:`STRATEGIES` (a-priori only), and :func:`select` and the protocol refuse them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from subsetsel_core.errors import InputError, SubsetselError
from subsetsel_core.strategies import (
    fafi,
    kmeans,
    kmeans_budget,
    optimal,
    random_choice,
    score_aware,
)
from subsetsel_core.strategies.base import StrategyInfo, standardize

REGISTRY: dict[str, StrategyInfo] = {info.name: info for info in (
    random_choice.INFO,
    replace(kmeans.INFO, cost_aware=kmeans_budget.within_budget),
    fafi.EUCLIDEAN,
    fafi.COSINE,
    optimal.A_OPTIMAL,
    optimal.D_OPTIMAL,
    score_aware.GREEDY,
    score_aware.ELIMINATION,
    score_aware.REGRESSION,
)}
"""Every strategy, in display order (the score-aware ones last)."""

STRATEGIES: tuple[str, ...] = tuple(name for name, info in REGISTRY.items() if not info.score_aware)
"""The a-priori strategies (they see descriptors only), in display order: everything a face
lists, offers or runs."""

SCORE_AWARE: tuple[str, ...] = tuple(name for name, info in REGISTRY.items() if info.score_aware)
"""The score-aware strategies, judged on held-out models only (``subsetsel headroom``)."""

BASELINE: str = next(name for name, info in REGISTRY.items() if info.baseline)
"""The strategy every other is compared with."""

COVERING: tuple[str, ...] = tuple(name for name, info in REGISTRY.items() if info.covering)
"""The farthest-first coverings, whose coverage bound the theory computes, in display order."""

BUDGET_STRATEGIES: tuple[str, ...] = tuple(name for name, info in REGISTRY.items() if info.cost_aware)
"""Strategies with a cost-aware variant (budget mode), in display order."""


def get_strategy(name: str) -> StrategyInfo:
    """Look a strategy up by name.

    Raises
    ------
    InputError
        For an unknown name, listing the valid ones.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(
            f"unknown strategy '{name}'; valid strategies: {', '.join(STRATEGIES)}.", field="strategy"
        ) from None


def a_priori(name: str) -> StrategyInfo:
    """Look up a strategy that may choose (an a-priori one).

    Raises
    ------
    InputError
        For an unknown name, or a score-aware strategy (pointing to ``subsetsel headroom``).
    """
    info = get_strategy(name)
    if info.score_aware:
        raise score_aware.refusal(name)
    return info


def _as_indices(values: Sequence[int] | np.ndarray, n: int, what: str) -> np.ndarray:
    idx = np.asarray(list(values), dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise InputError(f"{what} has an index outside 0…{n - 1}.")
    if len(set(idx.tolist())) != idx.size:
        raise InputError(f"{what} lists a dataset twice.")
    return idx


def select(
    X: np.ndarray,
    k: int,
    strategy: str,
    *,
    rng: np.random.Generator | int | None = None,
    include: Sequence[int] = (),
    exclude: Sequence[int] = (),
) -> np.ndarray:
    """Select ``k`` rows of ``X`` with a registered strategy.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Descriptors of the pool (finite). Not modified.
    k : int
        Subset size, ``1 ≤ k ≤ n − len(exclude)``.
    strategy : str
        A key of :data:`REGISTRY`.
    rng : Generator or int, optional
        Randomness (``np.random.default_rng(rng)`` for an int).
    include : sequence of int
        Rows chosen first, in this order.
    exclude : sequence of int
        Rows never chosen (removed before preprocessing).

    Returns
    -------
    ndarray of int, shape (k,)
        Distinct row indices of ``X`` in selection order.

    Raises
    ------
    InputError
        Bad shapes, NaN, k out of range, unknown or score-aware strategy, overlapping
        include/exclude.
    SubsetselError
        The strategy did not return k distinct rows (a bug; never silently passed on).
    """
    info = a_priori(strategy)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"the representation must be a 2-D matrix, got shape {X.shape}.")
    if not np.isfinite(X).all():
        raise InputError("the representation has NaN or infinite values; impute or drop them first.")
    n = X.shape[0]
    inc = _as_indices(include, n, "the must-include list")
    exc = _as_indices(exclude, n, "the exclude list")
    both = set(inc.tolist()) & set(exc.tolist())
    if both:
        raise InputError(f"{len(both)} dataset(s) are both must-include and excluded; remove them from one list.", field="include")
    avail = n - exc.size
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise InputError(f"k must be a whole number, got {k!r}.", field="k")
    if not 1 <= k <= avail:
        raise InputError(f"k = {k} is out of range: choose 1 ≤ k ≤ {avail} (the pool has {n} datasets"
                         f"{f', {exc.size} excluded' if exc.size else ''}).", field="k")
    if inc.size > k:
        raise InputError(f"{inc.size} must-include datasets do not fit in k = {k}; raise k or shorten the list.", field="include")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    cand = np.setdiff1d(np.arange(n), exc) if exc.size else np.arange(n)
    pos = np.full(n, -1)
    pos[cand] = np.arange(cand.size)
    Xc = X[cand]
    if info.uses_features:
        Xc = standardize(Xc)
    out = cand[np.asarray(info.kernel(Xc, int(k), rng=rng, include=pos[inc]), dtype=np.int64)]
    if out.shape != (k,) or np.unique(out).size != k:  # never hand back a dataset twice, whatever the input
        raise SubsetselError(f"strategy '{strategy}' did not choose {k} distinct datasets; please report it.")
    return out


