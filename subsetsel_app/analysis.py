"""Analyses the pages show next to the core results (pure functions, no Streamlit).

- :func:`geometry_agreement`: does the representation's geometry follow the models'
  performance structure? (Spearman correlation of pairwise distances, Mantel test.)
- :func:`k_profile` and :func:`random_profile`: agreement of one strategy's subsets for
  every k, next to random subsets of the same sizes.
- :func:`verdict`: a plain-language summary of an evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.evaluation.protocol import EvaluationResult
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.strategies import get_strategy, select, standardize


@dataclass(frozen=True, eq=False)
class Geometry:
    """Agreement between descriptor geometry and performance structure.

    Attributes
    ----------
    rho : float
        Spearman correlation between pairwise descriptor distances and pairwise
        performance distances (1 − Spearman correlation of the datasets' rank vectors).
    p_value : float
        One-sided Mantel permutation p-value (datasets' labels permuted).
    n_permutations : int
    desc_dist, rank_dist : ndarray of shape (n (n − 1) / 2,)
        The condensed distances.
    """

    rho: float
    p_value: float
    n_permutations: int
    desc_dist: np.ndarray
    rank_dist: np.ndarray

    def strength(self) -> str:
        """``"strong"``, ``"moderate"``, ``"weak"`` or ``"none"`` (by |ρ| and p)."""
        if not np.isfinite(self.rho) or self.p_value > 0.05 or self.rho <= 0:
            return "none"
        if self.rho >= 0.4:
            return "strong"
        if self.rho >= 0.2:
            return "moderate"
        return "weak"


def rank_distance(rank_vectors: np.ndarray) -> np.ndarray:
    """Condensed 1 − Spearman distances between the rows of ``rank_vectors`` (n, M).

    A row without variation (every model tied) has correlation 0 with everything.
    """
    from scipy.stats import rankdata  # lazy: scipy.stats costs ~1 s at start-up

    R = rankdata(np.asarray(rank_vectors, float), axis=1)
    R = R - R.mean(axis=1, keepdims=True)
    norm = np.sqrt((R**2).sum(axis=1))
    ok = norm > 0
    U = np.zeros_like(R)
    U[ok] = R[ok] / norm[ok, None]
    C = np.clip(U @ U.T, -1.0, 1.0)
    n = C.shape[0]
    iu = np.triu_indices(n, k=1)
    return 1.0 - C[iu]


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    den = np.sqrt((a @ a) * (b @ b))
    return float(a @ b / den) if den > 0 else 0.0


def geometry_agreement(X: np.ndarray, rank_vectors: np.ndarray, *, n_permutations: int = 199,
                       seed: int = 0) -> Geometry:
    """Spearman correlation of pairwise descriptor and performance distances.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The representation (standardised here as the strategies see it).
    rank_vectors : ndarray of shape (n, M)
        ``Benchmark.rank_vectors``.
    n_permutations : int
        Label permutations of the Mantel test.
    seed : int

    Returns
    -------
    Geometry
    """
    Z = standardize(np.asarray(X, float))
    n = Z.shape[0]
    from scipy.spatial.distance import pdist
    from scipy.stats import rankdata

    d_desc = pdist(Z) if Z.shape[1] else np.zeros(n * (n - 1) // 2)
    d_rank = rank_distance(rank_vectors)
    if d_desc.size < 3:
        return Geometry(float("nan"), 1.0, 0, d_desc, d_rank)
    r_desc = rankdata(d_desc)
    r_rank = rankdata(d_rank)
    rho = _pearson(r_desc, r_rank)
    # Mantel: permute the datasets of the descriptor distances (ranks permute with them).
    iu = np.triu_indices(n, k=1)
    M = np.zeros((n, n))
    M[iu] = r_desc
    M = M + M.T
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_permutations):
        p = rng.permutation(n)
        v = M[p][:, p][iu]
        if _pearson(v, r_rank) >= rho:
            hits += 1
    return Geometry(rho, (hits + 1) / (n_permutations + 1), n_permutations, d_desc, d_rank)


def _scales(benchmark: Benchmark, ks: np.ndarray) -> tuple[float, np.ndarray]:
    f = benchmark.n_folds
    return 1.0 / (2.0 * f * benchmark.n_datasets), 1.0 / (2.0 * f * ks.astype(float))


def k_profile(
    benchmark: Benchmark, X: np.ndarray | None, strategy: str, ks: Sequence[int], *, seed: int = 0,
    include: Sequence[int] = (), exclude: Sequence[int] = (), metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, np.ndarray]:
    """Agreement of the strategy's k-subset with the full ranking, for every k.

    Returns
    -------
    dict metric → ndarray (len(ks),)
    """
    ks = np.asarray(list(ks), dtype=int)
    Xm = np.zeros((benchmark.n_datasets, 0)) if X is None else np.asarray(X, float)
    sums = benchmark.rank_sums
    info = get_strategy(strategy)
    subs = np.empty((ks.size, benchmark.n_models))
    if info.nested and ks.size:
        order = select(Xm, int(ks.max()), strategy, rng=np.random.default_rng(seed), include=include,
                       exclude=exclude)
        cum = np.cumsum(sums[order], axis=0)
        subs[:] = cum[ks - 1]
    else:
        for i, k in enumerate(ks):
            idx = select(Xm, int(k), strategy, rng=np.random.default_rng(seed), include=include, exclude=exclude)
            subs[i] = sums[idx].sum(axis=0)
    rs, ss = _scales(benchmark, ks)
    return agreement(sums.sum(axis=0), subs, ref_scale=rs, sub_scale=ss, metrics=metrics)


def random_profile(
    benchmark: Benchmark, ks: Sequence[int], *, draws: int = 200, seed: int = 0, metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Median and 2.5 / 97.5 % percentiles of random subsets' agreement, for every k.

    Returns
    -------
    dict metric → (median, lo, hi), each ndarray (len(ks),)
    """
    ks = np.asarray(list(ks), dtype=int)
    sums = benchmark.rank_sums
    n = benchmark.n_datasets
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((draws, n)), axis=1)
    subs = np.empty((draws, ks.size, benchmark.n_models))
    for i, k in enumerate(ks):
        subs[:, i] = sums[order[:, :k]].sum(axis=1)
    rs, ss = _scales(benchmark, ks)
    ref = np.broadcast_to(sums.sum(axis=0), (draws, benchmark.n_models))
    vals = agreement(ref, subs, ref_scale=np.full(draws, rs), sub_scale=ss, metrics=metrics)
    return {m: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for m, v in vals.items()}


def _fmt_p(p: float | None) -> str:
    """``p = 0.015``, ``p < 0.001`` or ``p n/a``."""
    if p is None or not np.isfinite(p):
        return "p n/a"
    return f"p = {p:.2g}" if p >= 0.001 else "p < 0.001"


def verdict(result: EvaluationResult, metric: str, *, k_target: int = 5, alpha: float = 0.05) -> str:
    """A plain-language verdict of an evaluation on one metric.

    Parameters
    ----------
    result : EvaluationResult
    metric : str
    k_target : int
        The subset size quoted ("with k = 5 it reaches …"); the nearest evaluated k is used.
    alpha : float
        Significance level for the Holm-corrected p-values.

    Returns
    -------
    str
        Markdown-free sentences.
    """
    label = METRICS[metric].label
    higher = METRICS[metric].higher_is_better
    df = result.to_frame()
    df = df[df["metric"] == metric]
    ks = np.asarray(result.ks)
    k = int(ks[np.argmin(np.abs(ks - k_target))]) if ks.size else k_target
    ki = int(np.flatnonzero(ks == k)[0]) if ks.size else 0
    prefix = "" if result.complete else f"Preliminary ({result.trials_done} of {result.config.trials} trials): "
    stats = result.stats

    def at_k(key: str) -> str:
        c = stats[key].curves[metric]
        return f"{c.mean[ki]:.2f} [{c.lo[ki]:.2f}, {c.hi[ki]:.2f}]"

    def who(row: pd.Series) -> str:
        rep = row["representation"]
        return f"{row['strategy']} on {rep}" if isinstance(rep, str) and rep else str(row["strategy"])

    others = df[df["strategy"] != "random"].copy()
    base = df[df["strategy"] == "random"]
    base_txt = f" (random: {at_k(str(base['key'].iloc[0]))})" if len(base) else ""
    if result.trials_done < 2 or others.empty:
        return prefix + f"Not enough to compare yet: {result.trials_done} trial(s), {len(others)} strategy(ies) besides random."
    others["p"] = pd.to_numeric(others["p_vs_random"], errors="coerce")
    sig = others[others["p"] < alpha].sort_values("auc_mean", ascending=not higher)
    if len(sig):
        best = sig.iloc[0]
        text = (
            f"{who(best)} beats random on {label}, {_fmt_p(best['p'])} (Holm-corrected one-sided "
            f"Wilcoxon over {result.trials_done} trials); with k = {k} it reaches {at_k(str(best['key']))}"
            f"{base_txt}."
        )
        rest = [f"{who(r)} ({_fmt_p(r['p'])})" for _, r in sig.iloc[1:].iterrows()]
        if rest:
            text += f" Also significantly better than random: {', '.join(rest)}."
        return prefix + text
    best = others.sort_values("auc_mean", ascending=not higher).iloc[0]
    return prefix + (
        f"No strategy beats random significantly on {label} (α = {alpha}, Holm-corrected, "
        f"{result.trials_done} trials). The best, {who(best)}, has {_fmt_p(best['p'])}; with k = {k} "
        f"it reaches {at_k(str(best['key']))}{base_txt}."
    )
