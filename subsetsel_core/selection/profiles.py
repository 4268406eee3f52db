"""Agreement of one strategy's subsets across sizes: every k (:func:`k_profile`) or every
budget level (:func:`budget_profile`), next to random subsets of the same sizes or costs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.ranks.table import RankTable
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.selection.costs import Costs, select_within_budget
from subsetsel_core.strategies import get_strategy, select

if TYPE_CHECKING:
    pass


def k_profile(
    benchmark: Benchmark, X: np.ndarray | None, strategy: str, ks: Sequence[int] | np.ndarray, *, seed: int = 0,
    include: Sequence[int] = (), exclude: Sequence[int] = (), metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, np.ndarray]:
    """Agreement of the strategy's k-subset with the full ranking, for every k.

    Parameters
    ----------
    benchmark : Benchmark
    X : ndarray of shape (n, p) or None
        The representation (None for ``random``).
    strategy : str
    ks : sequence of int
    seed : int
        Every k-subset is chosen with ``numpy.random.default_rng(seed)`` (as
        :func:`select_datasets` does), so each value is that of the subset chosen alone.
    include, exclude : sequence of int
        Positions chosen first / never chosen.
    metrics : sequence of str

    Returns
    -------
    dict metric → ndarray (len(ks),)
    """
    ks_arr = np.asarray(list(ks), dtype=int)
    Xm = np.zeros((benchmark.n_datasets, 0)) if X is None else np.asarray(X, float)
    table = benchmark.rank_table
    sums = table.rows
    subs = np.empty((ks_arr.size, sums.shape[1]))
    if get_strategy(strategy).nested and ks_arr.size:
        order = select(Xm, int(ks_arr.max()), strategy, rng=np.random.default_rng(seed), include=include,
                       exclude=exclude)
        subs[:] = np.cumsum(sums[order], axis=0)[ks_arr - 1]
    else:
        for i, k in enumerate(ks_arr):
            idx = select(Xm, int(k), strategy, rng=np.random.default_rng(seed), include=include, exclude=exclude)
            subs[i] = sums[idx].sum(axis=0)
    return table.agreement(table.reference(), subs, ref_count=benchmark.n_datasets, sub_count=ks_arr,
                           metrics=metrics)[0]


def random_profile(
    benchmark: Benchmark, ks: Sequence[int] | np.ndarray, *, draws: int = 200, seed: int = 0,
    metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Median and 2.5 / 97.5 % percentiles of random subsets' agreement, for every k.

    Returns
    -------
    dict metric → (median, lo, hi), each ndarray (len(ks),)
    """
    ks_arr = np.asarray(list(ks), dtype=int)
    table = benchmark.rank_table
    sums = table.rows
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((draws, benchmark.n_datasets)), axis=1)
    subs = np.empty((draws, ks_arr.size, sums.shape[1]))
    for i, k in enumerate(ks_arr):
        subs[:, i] = sums[order[:, :k]].sum(axis=1)
    ref = np.broadcast_to(table.reference(), (draws, sums.shape[1]))
    vals, _ = table.agreement(ref, subs, ref_count=benchmark.n_datasets, sub_count=ks_arr, metrics=metrics)
    return {m: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for m, v in vals.items()}


# --------------------------------------------------------------------------- budgets


#: Budget levels of the profile, as shares of the total cost (extended to 1 for larger budgets).
PROFILE_SHARES: tuple[float, ...] = tuple(np.round(np.linspace(0.02, 0.4, 20), 4))
WIDE_SHARES: tuple[float, ...] = tuple(np.round(np.linspace(0.04, 1.0, 25), 4))
RANDOM_DRAWS = 200


@dataclass(frozen=True, eq=False)
class BudgetProfile:
    """One cost-aware subset per budget level, and random subsets that fit the same budgets.

    Attributes
    ----------
    budgets : ndarray (B,)
        Budget levels in the costs' unit.
    values : dict metric → ndarray (B,)
        Agreement of the strategy's subset at each level.
    k_used, spent : ndarray (B,)
        Its number of datasets and its cost.
    random_band : dict metric → (median, lo, hi)
        Random subsets that fit each level: median and 95 % band.
    unit : str
    """

    budgets: np.ndarray
    values: dict[str, np.ndarray]
    k_used: np.ndarray
    spent: np.ndarray
    random_band: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    unit: str


def shares_for(share: float) -> tuple[float, ...]:
    """The profile's levels for a budget that is ``share`` of the total cost."""
    return PROFILE_SHARES if share <= PROFILE_SHARES[-1] else WIDE_SHARES


def _random_band(table: RankTable, costs: np.ndarray, budgets: np.ndarray, seed: int,
                 metrics: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Random datasets, each taken while it fits: median and 95 % band of the agreement per budget."""
    sums = table.rows
    n, m = sums.shape
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((RANDOM_DRAWS, n)), axis=1)
    pc = costs[perm]
    ref = np.broadcast_to(table.reference(), (RANDOM_DRAWS, m))
    subs = np.empty((RANDOM_DRAWS, budgets.size, m))
    ks = np.empty((RANDOM_DRAWS, budgets.size))
    rows = np.broadcast_to(np.arange(RANDOM_DRAWS)[:, None], perm.shape)
    for bi, b in enumerate(budgets):
        left = np.full(RANDOM_DRAWS, float(b))
        take = np.zeros((RANDOM_DRAWS, n), dtype=bool)
        for j in range(n):
            fit = pc[:, j] <= left + 1e-12
            take[:, j] = fit
            left = left - np.where(fit, pc[:, j], 0.0)
        mask = np.zeros((RANDOM_DRAWS, n))
        mask[rows[take], perm[take]] = 1.0
        subs[:, bi] = mask @ sums
        ks[:, bi] = mask.sum(axis=1)
    vals, _ = table.agreement(ref, subs, ref_count=n, sub_count=np.maximum(ks, 1.0), metrics=tuple(metrics))
    return {k: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for k, v in vals.items()}


def budget_profile(benchmark: Benchmark, representation: Representation | None, strategy: str, costs: Costs,
                   shares: Sequence[float], *, seed: int = 0, exclude: Sequence[str] = ()) -> BudgetProfile:
    """The strategy's subset at each budget level (``shares`` of the total cost), and random ones.

    Raises
    ------
    InputError
        From :func:`~subsetsel_core.selection.costs.select_within_budget`.
    """
    budgets = np.asarray(shares, dtype=float) * costs.total
    table = benchmark.rank_table
    sums = table.rows
    ks = np.zeros(budgets.size)
    spent = np.zeros(budgets.size)
    subs = np.zeros((budgets.size, sums.shape[1]))
    for bi, b in enumerate(budgets):
        bs = select_within_budget(benchmark, representation, strategy, costs, float(b), seed=seed, exclude=exclude)
        idx = list(bs.selection.indices)
        ks[bi], spent[bi] = len(idx), bs.spent
        if idx:
            subs[bi] = sums[idx].sum(axis=0)
    vals, _ = table.agreement(table.reference(), subs, ref_count=benchmark.n_datasets,
                              sub_count=np.maximum(ks, 1.0), metrics=tuple(METRICS))
    band = _random_band(table, costs.values, budgets, seed, tuple(METRICS))
    return BudgetProfile(budgets, vals, ks, spent, band, costs.unit)
