"""One cost-aware strategy's subset at every budget level, next to random subsets that fit.

Pure (no Streamlit); :func:`subsetsel_app.cache.budget_profile` caches it. The subsets
come from :func:`subsetsel_core.selection.select_within_budget`; random subsets take
datasets in random order while they fit, as the core's random budget strategy does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.selection import Costs, select_within_budget

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
    random_band: dict[str, tuple[np.ndarray, ...]]
    unit: str


def shares_for(share: float) -> tuple[float, ...]:
    """The profile's levels for a budget that is ``share`` of the total cost."""
    return PROFILE_SHARES if share <= PROFILE_SHARES[-1] else WIDE_SHARES


def _random_band(sums: np.ndarray, costs: np.ndarray, budgets: np.ndarray, seed: int, n_folds: int,
                 metrics: Sequence[str]) -> dict[str, tuple[np.ndarray, ...]]:
    """Random datasets, each taken while it fits: median and 95 % band of the agreement per budget."""
    n, m = sums.shape
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((RANDOM_DRAWS, n)), axis=1)
    pc = costs[perm]
    ref = np.broadcast_to(sums.sum(axis=0), (RANDOM_DRAWS, m))
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
    vals = agreement(ref, subs, ref_scale=np.full(RANDOM_DRAWS, 1.0 / (2.0 * n_folds * n)),
                     sub_scale=1.0 / (2.0 * n_folds * np.maximum(ks, 1.0)), metrics=tuple(metrics))
    return {k: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for k, v in vals.items()}


def budget_profile(benchmark: Benchmark, representation: Representation | None, strategy: str, costs: Costs,
                   shares: Sequence[float], *, seed: int = 0, exclude: Sequence[str] = ()) -> BudgetProfile:
    """The strategy's subset at each budget level (``shares`` of the total cost), and random ones.

    Raises
    ------
    InputError
        From :func:`~subsetsel_core.selection.select_within_budget`.
    """
    budgets = np.asarray(shares, dtype=float) * costs.total
    sums = benchmark.rank_sums
    ks = np.zeros(budgets.size)
    spent = np.zeros(budgets.size)
    subs = np.zeros((budgets.size, benchmark.n_models))
    for bi, b in enumerate(budgets):
        bs = select_within_budget(benchmark, representation, strategy, costs, float(b), seed=seed, exclude=exclude)
        idx = list(bs.selection.indices)
        ks[bi], spent[bi] = len(idx), bs.spent
        if idx:
            subs[bi] = sums[idx].sum(axis=0)
    f = benchmark.n_folds
    vals = agreement(sums.sum(axis=0), subs, ref_scale=1.0 / (2.0 * f * benchmark.n_datasets),
                     sub_scale=1.0 / (2.0 * f * np.maximum(ks, 1.0)), metrics=tuple(METRICS))
    band = _random_band(sums, costs.values, budgets, seed, f, tuple(METRICS))
    return BudgetProfile(budgets, vals, ks, spent, band, costs.unit)
