"""A straightforward implementation of the protocol, as research code writes it.

One Python loop over trials, strategies and k; float mean ranks; one call of scipy's
``spearmanr`` / ``kendalltau`` and scikit-learn's ``ndcg_score`` per metric and cell;
scikit-learn ``KMeans(n_clusters=k, n_init=10, init="k-means++")`` per k; farthest-first
written out plainly and recomputed for every k; the A/D-optimal design through the
single-k kernel of :mod:`subsetsel_core.strategies.optimal` (no batching over k).

It draws the **same pools** as :mod:`subsetsel_core.evaluation.protocol` (``trial_rng(seed, 0, t)``,
as ``_pool`` does) and applies the same preprocessing (drop constant columns, z-score), so
that for the deterministic strategies (FAFI, A/D-optimal) it chooses the same subsets and
must give the same metric values. ``random`` and ``kmeans`` draw from their own generators
here; compare their distributions (mean AUC), not their subsets.

``benchmarks/bench_protocol.py`` runs it side by side with :func:`subsetsel_core.evaluate`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import kendalltau, rankdata, spearmanr
from sklearn.cluster import KMeans
from sklearn.metrics import ndcg_score

from subsetsel_core.evaluation.protocol import trial_rng
from subsetsel_core.strategies.optimal import optimal_design

METRICS = ("mae", "spearman", "kendall", "ndcg5", "mrr")


@dataclass
class NaiveResult:
    """Per-trial metric values, chosen subsets and timings of the naive loop.

    Attributes
    ----------
    ks : list of int
    values : dict strategy → dict metric → ndarray (trials, K)
    subsets : dict strategy → list (per trial) of list (per k) of pool positions
    seconds : dict strategy → seconds spent choosing subsets; ``"metrics"`` → computing metrics
    """

    ks: list[int]
    values: dict[str, dict[str, np.ndarray]]
    subsets: dict[str, list[list[list[int]]]]
    seconds: dict[str, float] = field(default_factory=dict)


def standardize(X: np.ndarray) -> np.ndarray:
    """Drop constant columns, z-score the rest (population std)."""
    X = np.asarray(X, dtype=float)
    X = X[:, X.std(axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def farthest_first(X: np.ndarray, k: int, metric: str) -> list[int]:
    """Greedy farthest-first, written out: start farthest from the mean, ties to the lower row."""
    n = X.shape[0]
    if metric == "cosine":
        norms = np.linalg.norm(X, axis=1)

        def dist(i: int, j: int) -> float:
            if norms[i] == 0 or norms[j] == 0:
                return 1.0
            return 1.0 - float((X[i] / norms[i] * (X[j] / norms[j])).sum())
    else:

        def dist(i: int, j: int) -> float:
            return float(np.sqrt(((X[i] - X[j]) ** 2).sum()))

    centre = np.sqrt(((X - X.mean(axis=0)) ** 2).sum(axis=1))
    chosen = [int(np.argmax(centre))]
    while len(chosen) < k:
        best, best_d = -1, -1.0
        for i in range(n):
            if i in chosen:
                continue
            d = min(dist(i, c) for c in chosen)
            if d > best_d:
                best, best_d = i, d
        chosen.append(best)
    return chosen


def kmeans_subset(X: np.ndarray, k: int, seed: int) -> list[int]:
    """scikit-learn k-means, then for each centroid the nearest dataset not yet taken."""
    km = KMeans(n_clusters=k, n_init=10, init="k-means++", random_state=seed).fit(X)
    chosen: list[int] = []
    for c in km.cluster_centers_:
        d = ((X - c) ** 2).sum(axis=1)
        d[chosen] = np.inf
        chosen.append(int(np.argmin(d)))
    return chosen


def metrics(ref: np.ndarray, sub: np.ndarray, ref_scale: float = 1.0, sub_scale: float = 1.0) -> dict[str, float]:
    """The five agreement metrics of two rank vectors, one library call each.

    Orderings (correlations, MRR, the NDCG ordering) come from ``ref`` and ``sub`` as
    given; MAE and the NDCG relevance from ``ref·ref_scale`` and ``sub·sub_scale`` (mean
    ranks), as in :func:`subsetsel_core.ranks.metrics.agreement`.
    """
    m = len(ref)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = spearmanr(ref, sub).statistic
        tau = kendalltau(ref, sub).statistic
    best = int(np.argmin(ref))
    sub_ranks = rankdata(sub)
    return {
        "mae": float(np.abs(ref * ref_scale - sub * sub_scale).mean()),
        "spearman": 0.0 if np.isnan(rho) else float(rho),
        "kendall": 0.0 if np.isnan(tau) else float(tau),
        "ndcg5": float(ndcg_score([m + 1 - ref * ref_scale], [-sub], k=min(5, m))),
        "mrr": 1.0 / float(sub_ranks[best]),
    }


def naive_evaluate(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray,
    strategies: Sequence[str],
    *,
    trials: int,
    alpha: float = 0.8,
    k_min: int = 2,
    k_max: int = 20,
    seed: int = 0,
    rank_sums: bool = False,
) -> NaiveResult:
    """Run the protocol with plain loops.

    Parameters
    ----------
    scores : ndarray (n, F, M)
    higher_is_better : bool
    X : ndarray (n, p)
        Descriptors (raw; standardised per pool here).
    strategies : sequence of str
    trials, alpha, k_min, k_max, seed
        As :class:`subsetsel_core.evaluation.protocol.EvaluationConfig`.
    rank_sums : bool
        Compare integer rank sums (exact ties) instead of float mean ranks; the metric
        values then equal the library's to the last digits.

    Returns
    -------
    NaiveResult
    """
    n, folds, m = scores.shape
    r = rankdata(-scores if higher_is_better else scores, axis=2)  # average ranks, 1 = best
    per_dataset = np.rint(2 * r).sum(axis=1) if rank_sums else r.mean(axis=1)  # (n, M)
    ref = per_dataset.sum(axis=0) if rank_sums else per_dataset.mean(axis=0)
    n_pool = int(np.floor(alpha * n + 1e-9))
    ks = list(range(k_min, min(k_max, n_pool) + 1))
    values = {s: {mt: np.zeros((trials, len(ks))) for mt in METRICS} for s in strategies}
    subsets: dict[str, list[list[list[int]]]] = {s: [] for s in strategies}
    seconds = dict.fromkeys([*strategies, "metrics"], 0.0)
    for t in range(trials):
        rng = trial_rng(seed, 0, t)  # the library's pool stream
        pool = np.sort(rng.choice(n, n_pool, replace=False)) if n_pool < n else np.arange(n)
        Z = standardize(X[pool])
        for s in strategies:
            subsets[s].append([])
            for ki, k in enumerate(ks):
                t0 = time.perf_counter()
                if s == "random":
                    idx = list(np.random.default_rng([seed, t, k]).choice(n_pool, k, replace=False))
                elif s == "kmeans":
                    idx = kmeans_subset(Z, k, seed=seed * 1_000_003 + t * 101 + k)
                elif s in ("fafi-euclidean", "fafi-cosine"):
                    idx = farthest_first(Z, k, s.split("-")[1])
                else:
                    idx = list(optimal_design(Z, k, criterion=s[0]))
                seconds[s] += time.perf_counter() - t0
                subsets[s][-1].append([int(i) for i in idx])
                t0 = time.perf_counter()
                rows = per_dataset[pool[idx]]
                sub = rows.sum(axis=0) if rank_sums else rows.mean(axis=0)
                if rank_sums:  # exact integer sums; mean ranks for MAE and the NDCG relevance
                    res = metrics(ref, sub, 1.0 / (2 * folds * n), 1.0 / (2 * folds * k))
                else:
                    res = metrics(ref, sub)
                for mt in METRICS:
                    values[s][mt][t, ki] = res[mt]
                seconds["metrics"] += time.perf_counter() - t0
    return NaiveResult(ks, values, subsets, seconds)
