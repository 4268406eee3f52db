"""The protocol with budgets instead of k: agreement curves against the share of cost spent.

Same pools as :func:`~subsetsel_core.evaluation.protocol.evaluate`; each strategy chooses
with its cost-aware variant (:func:`subsetsel_core.selection.costs.select_under_budget`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import stream_key, trial_rng
from subsetsel_core.evaluation.result import BASELINE, Entry
from subsetsel_core.evaluation.stats import EntryStats, compute_stats
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.selection.costs import select_under_budget
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.strategies import BUDGET_STRATEGIES


@dataclass(frozen=True, eq=False)
class BudgetResult:
    """Agreement curves against budget (share of the pool's total cost).

    Attributes
    ----------
    budgets : ndarray (B,)
        Budget levels as shares of the pool's total cost.
    entries : tuple of Entry
    values : dict key → metric → ndarray (T, B)
    k_used : dict key → ndarray (T, B)
        Number of datasets chosen.
    cost_used : dict key → ndarray (T, B)
        Share of the pool's cost spent.
    how : str
        How the costs were obtained.
    """

    budgets: np.ndarray
    entries: tuple[Entry, ...]
    values: dict[str, dict[str, np.ndarray]]
    k_used: dict[str, np.ndarray]
    cost_used: dict[str, np.ndarray]
    how: str
    metrics: tuple[str, ...]

    @property
    def stats(self) -> dict[str, EntryStats]:
        """Curves, AUC over the budget grid and p-values against random."""
        cache = self.__dict__.get("_stats")
        if cache is None:
            cache = compute_stats(self.values, self.entries, BASELINE, self.metrics)
            object.__setattr__(self, "_stats", cache)
        return cache

    def to_frame(self) -> pd.DataFrame:
        """Long table: key, budget, metric, mean, lo, hi, mean k, mean cost share."""
        rows = []
        for e in self.entries:
            st = self.stats[e.key]
            for m in self.metrics:
                c = st.curves[m]
                for i, b in enumerate(self.budgets):
                    rows.append((e.key, float(b), m, c.mean[i], c.lo[i], c.hi[i],
                                 float(self.k_used[e.key][:, i].mean()), float(self.cost_used[e.key][:, i].mean())))
        return pd.DataFrame(rows, columns=["key", "budget", "metric", "mean", "lo", "hi", "mean_k", "mean_cost_share"])


def evaluate_budget(
    benchmark: Benchmark,
    representation: Representation,
    costs: np.ndarray,
    *,
    budgets: Sequence[float] = tuple(np.round(np.linspace(0.02, 0.30, 15), 4)),
    strategies: Sequence[str] = BUDGET_STRATEGIES,
    trials: int = 100,
    alpha: float = SETTINGS["alpha"].default,
    seed: int = SETTINGS["seed"].default,
    metrics: Sequence[str] = tuple(METRICS),
    how: str = "",
) -> BudgetResult:
    """The protocol with budgets instead of k: same pools as :func:`~subsetsel_core.evaluation.protocol.evaluate`.

    A subset that is empty (nothing fits) counts with the metrics of an all-tied ranking
    (correlations 0).
    """
    n = benchmark.n_datasets
    costs = np.asarray(costs, dtype=float)
    if costs.shape != (n,):
        raise InputError(f"costs must have one value per dataset ({n}); got {costs.shape}.")
    n_pool = int(np.floor(alpha * n + 1e-9))
    if n_pool < 3:
        raise InputError("the pool is too small; raise alpha.")
    strategies = [BASELINE] + [s for s in strategies if s != BASELINE]
    for s in strategies:
        if s not in BUDGET_STRATEGIES:
            raise InputError(f"budget evaluation supports {', '.join(BUDGET_STRATEGIES)}; got '{s}'.")
    entries = tuple(Entry(s, s, None if s == BASELINE else representation.name) for s in strategies)
    B = len(budgets)
    table = benchmark.rank_table
    sums = table.rows
    ref = table.reference()
    m = sums.shape[1]
    subs = {e.key: np.zeros((trials, B, m)) for e in entries}
    counts = {e.key: np.zeros((trials, B)) for e in entries}
    spent = {e.key: np.zeros((trials, B)) for e in entries}
    for t in range(trials):
        rng = trial_rng(seed, 0, t)
        pool = np.sort(rng.choice(n, n_pool, replace=False)) if n_pool < n else np.arange(n)
        pc = costs[pool]
        total = pc.sum()
        for e in entries:
            g = trial_rng(seed, 2, stream_key(e.strategy), stream_key(e.representation or ""), t)
            for bi, (b, gb) in enumerate(zip(budgets, g.spawn(B), strict=True)):
                idx = select_under_budget(representation.X[pool], pc, b * total, e.strategy, rng=gb)
                counts[e.key][t, bi] = len(idx)
                spent[e.key][t, bi] = pc[idx].sum() / total
                subs[e.key][t, bi] = sums[pool[idx]].sum(axis=0) if len(idx) else 0.0
    values = {}
    for e in entries:
        k = np.maximum(counts[e.key], 1.0)
        values[e.key] = table.agreement(np.broadcast_to(ref, (trials, m)), subs[e.key], ref_count=n, sub_count=k,
                                        metrics=tuple(metrics))[0]
    return BudgetResult(np.asarray(budgets, dtype=float), entries, values, counts, spent, how, tuple(metrics))
