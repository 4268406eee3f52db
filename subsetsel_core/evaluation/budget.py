"""Choosing under a budget: per-dataset costs, cost-aware strategies, curves against cost.

A benchmark maintainer rarely counts datasets: they count GPU hours. Each dataset gets a
cost (a descriptor column such as evaluation hours, or an estimate from size
descriptors); a budget is a share of the benchmark's total cost.

Cost-aware strategies (each sees only descriptors and costs):

* ``random``: datasets in random order, each taken while it still fits.
* ``fafi-euclidean`` / ``fafi-cosine``: greedy farthest-first where each step takes the
  affordable dataset with the largest distance-to-nearest-chosen **per unit cost** (the
  first step: distance from the mean per unit cost).
* ``kmeans``: k-means++ (10 restarts) and, for each centroid, the cheapest of its three
  nearest free datasets; the largest k whose subset fits the budget (doubling, then
  bisection on k).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation, align_descriptors
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import stream_key, trial_rng
from subsetsel_core.evaluation.result import BASELINE, Entry
from subsetsel_core.evaluation.stats import EntryStats, compute_stats
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.strategies import standardize
from subsetsel_core.strategies.kmeans import kmeans_centres

BUDGET_STRATEGIES: tuple[str, ...] = ("random", "kmeans", "fafi-euclidean", "fafi-cosine")
SIZE_WORDS = ("size", "length", "samples", "instances", "rows", "interactions", "documents", "queries",
              "questions", "n_train", "n_test", "n_eval")


def estimate_costs(
    descriptors: pd.DataFrame, datasets: Sequence[str], *, cost_column: str | None = None
) -> tuple[np.ndarray, str]:
    """Per-dataset costs, from a cost column or estimated from size descriptors.

    Parameters
    ----------
    descriptors : DataFrame
        Raw descriptor table (index = dataset).
    datasets : sequence of str
        Benchmark order.
    cost_column : str, optional
        A column of positive costs (e.g. evaluation hours).

    Returns
    -------
    costs : ndarray (n,)
        Positive, in the column's units or relative units (mean 1) when estimated.
    how : str
        How the costs were obtained, for reports.
    """
    table = align_descriptors(descriptors, datasets, label="descriptors")
    if cost_column is not None:
        if cost_column not in table.columns:
            raise InputError(f"no cost column '{cost_column}'; the columns are {list(table.columns)}.")
        c = pd.to_numeric(table[cost_column], errors="coerce").to_numpy(dtype=float)
        bad = [d for d, v in zip(datasets, c, strict=True) if not np.isfinite(v) or v <= 0]
        if bad:
            raise InputError(f"cost column '{cost_column}' needs a positive number for every dataset; "
                             f"missing or ≤ 0 for {', '.join(bad[:5])}{' …' if len(bad) > 5 else ''}.")
        return c, f"column '{cost_column}'"
    cols = []
    for col in table.columns:
        name = str(col).lower()
        if any(w in name for w in SIZE_WORDS):
            v = pd.to_numeric(table[col], errors="coerce")
            if v.notna().all() and (v > 0).all():
                cols.append(col)
    if not cols:
        return np.ones(len(datasets)), "uniform (no size descriptor found: the budget counts datasets)"
    c = np.ones(len(datasets))
    for col in cols:
        c = c * pd.to_numeric(table[col]).to_numpy(dtype=float)
    return c / c.mean(), f"estimated as the product of {', '.join(map(str, cols))} (relative units, mean 1)"


def _affordable(costs: np.ndarray, taken: np.ndarray, left: float) -> np.ndarray:
    return (~taken) & (costs <= left + 1e-12)


def _fafi_budget(Z: np.ndarray, costs: np.ndarray, budget: float, cosine: bool) -> list[int]:
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


def _random_budget(costs: np.ndarray, budget: float, rng: np.random.Generator) -> list[int]:
    chosen, left = [], budget
    for i in rng.permutation(len(costs)):
        if costs[i] <= left + 1e-12:
            chosen.append(int(i))
            left -= costs[i]
    return chosen


def _kmeans_k(Z: np.ndarray, costs: np.ndarray, k: int, rng: np.random.Generator) -> list[int]:
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


def _kmeans_budget(Z: np.ndarray, costs: np.ndarray, budget: float, rng: np.random.Generator) -> list[int]:
    """Largest k (found by doubling, then bisection) whose cost-aware k-means subset fits."""
    n = Z.shape[0]
    if Z.shape[1] == 0:
        return _random_budget(costs, budget, rng)
    streams = iter(rng.spawn(4 * n.bit_length() + 4))
    tried: dict[int, list[int]] = {}

    def fits(k: int) -> bool:
        if k not in tried:
            tried[k] = _kmeans_k(Z, costs, k, next(streams))
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


def select_under_budget(
    X: np.ndarray, costs: np.ndarray, budget: float, strategy: str, *, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Rows chosen by a cost-aware strategy within ``budget`` (same units as ``costs``).

    Returns
    -------
    ndarray of int
        Selection order; possibly empty when no dataset fits.
    """
    if strategy not in BUDGET_STRATEGIES:
        raise InputError(f"budget selection supports {', '.join(BUDGET_STRATEGIES)}; got '{strategy}'.")
    costs = np.asarray(costs, dtype=float)
    if costs.shape != (X.shape[0],) or not (np.isfinite(costs).all() and (costs > 0).all()):
        raise InputError("costs must be one positive number per dataset.")
    if not budget > 0:
        raise InputError(f"the budget must be positive, got {budget}.")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    if strategy == "random":
        out = _random_budget(costs, budget, rng)
    else:
        Z = standardize(X)
        if strategy == "kmeans":
            out = _kmeans_budget(Z, costs, budget, rng)
        else:
            out = _fafi_budget(Z, costs, budget, strategy == "fafi-cosine")
    return np.asarray(out, dtype=np.int64)


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
    alpha: float = 0.8,
    seed: int = 0,
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
    sums = benchmark.rank_sums
    ref = sums.sum(axis=0)
    m = benchmark.n_models
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
    ref_scale = 1.0 / (2.0 * benchmark.n_folds * n)
    values = {}
    for e in entries:
        k = np.maximum(counts[e.key], 1.0)
        values[e.key] = agreement(np.broadcast_to(ref, (trials, m)), subs[e.key], ref_scale=ref_scale,
                                  sub_scale=1.0 / (2.0 * benchmark.n_folds * k), metrics=tuple(metrics))
    return BudgetResult(np.asarray(budgets, dtype=float), entries, values, counts, spent, how, tuple(metrics))
