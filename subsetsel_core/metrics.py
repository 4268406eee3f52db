"""Agreement between a reference ranking and subset rankings (PROTOCOL.md, "Metrics").

All functions are vectorised over leading axes: ``ref`` has shape (..., M) and ``sub``
any shape that broadcasts against it, e.g. ``ref`` (T, 1, M) and ``sub`` (T, K, M). There
is no Python loop over models.

Orderings (ties, ranks, pair signs) are taken from the arrays as given; values (MAE, the
NDCG relevance) from the arrays times their scale. The protocol passes exact integer rank
sums with scales ``1 / (2·F·n_datasets)`` so that ties are exact; plain callers pass mean
ranks and keep the default scales of 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata

METRICS: tuple[str, ...] = ("mae", "spearman", "kendall", "ndcg5", "mrr")
HIGHER_IS_BETTER: dict[str, bool] = {
    "mae": False,
    "spearman": True,
    "kendall": True,
    "ndcg5": True,
    "mrr": True,
}
LABELS: dict[str, str] = {
    "mae": "rank MAE",
    "spearman": "Spearman ρ",
    "kendall": "Kendall τ-b",
    "ndcg5": "NDCG@5",
    "mrr": "MRR",
}
_PAIR_BLOCK = 2**24  # elements of a pair-sign block (memory bound for Kendall)


def _as_float(x: np.ndarray | float) -> np.ndarray:
    return np.asarray(x, dtype=float)


def mae(ref: np.ndarray, sub: np.ndarray, ref_scale: float | np.ndarray = 1.0,
        sub_scale: float | np.ndarray = 1.0) -> np.ndarray:
    """Mean absolute difference of rank positions, averaged over models.

    Parameters
    ----------
    ref, sub : ndarray of shape (..., M)
        Reference and subset rank vectors (or rank sums with their scales).
    ref_scale, sub_scale : float or ndarray broadcasting to (...,)
        Factors turning the arrays into mean ranks.

    Returns
    -------
    ndarray of shape (...)
    """
    r = _as_float(ref) * np.expand_dims(_as_float(ref_scale), -1)
    s = _as_float(sub) * np.expand_dims(_as_float(sub_scale), -1)
    return np.abs(r - s).mean(axis=-1)


def _min_max_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based 'min' and 'max' tie ranks along the last axis (ascending)."""
    return rankdata(x, method="min", axis=-1), rankdata(x, method="max", axis=-1)


def _pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    num = (a * b).sum(axis=-1)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(r, -1.0, 1.0)


def spearman(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Spearman correlation (Pearson of average-tie ranks), as ``scipy.stats.spearmanr``.

    A constant vector gives 0.
    """
    ref, sub = np.broadcast_arrays(_as_float(ref), _as_float(sub))
    return _pearson(rankdata(ref, axis=-1), rankdata(sub, axis=-1))


def _pair_signs(x: np.ndarray, i: np.ndarray, j: np.ndarray, dtype: type) -> np.ndarray:
    return np.sign(x[..., i] - x[..., j]).astype(dtype)


def kendall(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b, as ``scipy.stats.kendalltau`` (default variant); undefined → 0.

    Computed from pairwise sign arrays, in blocks bounded in memory.
    """
    ref, sub = np.broadcast_arrays(_as_float(ref), _as_float(sub))
    shape = ref.shape[:-1]
    m = ref.shape[-1]
    if m < 2:
        return np.zeros(shape)
    r2 = ref.reshape(-1, m)
    s2 = sub.reshape(-1, m)
    i, j = np.triu_indices(m, k=1)
    p = len(i)
    dtype = np.float32 if p < 2**23 else np.float64
    rows = max(1, _PAIR_BLOCK // p)
    out = np.empty(r2.shape[0])
    for lo in range(0, r2.shape[0], rows):
        hi = min(lo + rows, r2.shape[0])
        sr = _pair_signs(r2[lo:hi], i, j, dtype)
        ss = _pair_signs(s2[lo:hi], i, j, dtype)
        num = np.einsum("rp,rp->r", sr, ss, dtype=np.float64)
        n1 = (sr == 0).sum(axis=-1)
        n2 = (ss == 0).sum(axis=-1)
        den = np.sqrt((p - n1).astype(float) * (p - n2).astype(float))
        out[lo:hi] = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(out, -1.0, 1.0).reshape(shape)


def kendall_paired(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b where ``ref`` has shape (T, M) and ``sub`` (T, K, M); result (T, K).

    The reference's pair signs are computed once per trial and reused for every k.
    """
    ref = _as_float(ref)
    sub = _as_float(sub)
    t, k, m = sub.shape
    if m < 2:
        return np.zeros((t, k))
    i, j = np.triu_indices(m, k=1)
    p = len(i)
    dtype = np.float32 if p < 2**23 else np.float64
    out = np.empty((t, k))
    rows = max(1, _PAIR_BLOCK // (p * k))
    for lo in range(0, t, rows):
        hi = min(lo + rows, t)
        sr = _pair_signs(ref[lo:hi], i, j, dtype)  # (b, P)
        n1 = (sr == 0).sum(axis=-1)  # (b,)
        for klo in range(0, k, max(1, _PAIR_BLOCK // p)):
            khi = min(k, klo + max(1, _PAIR_BLOCK // p))
            ss = _pair_signs(sub[lo:hi, klo:khi], i, j, dtype)  # (b, kk, P)
            num = np.matmul(ss, sr[:, :, None])[..., 0].astype(np.float64)
            n2 = (ss == 0).sum(axis=-1)
            den = np.sqrt((p - n1[:, None]).astype(float) * (p - n2).astype(float))
            out[lo:hi, klo:khi] = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(out, -1.0, 1.0)


def _discount_cumsum(m: int, k: int) -> np.ndarray:
    """D[q] = sum of log2 discounts of positions 0..q-1, truncated at k; D[0] = 0."""
    disc = 1.0 / np.log2(np.arange(m) + 2.0)
    disc[k:] = 0.0
    return np.concatenate([[0.0], np.cumsum(disc)])


def ndcg5(ref: np.ndarray, sub: np.ndarray, ref_scale: float | np.ndarray = 1.0) -> np.ndarray:
    """NDCG@5 of the subset ordering, with relevance ``M + 1 − ref`` (mean-rank scale).

    Equals ``sklearn.metrics.ndcg_score(rel, −sub, k=min(5, M))`` including its tie
    handling (tied subset positions share their discounts, McSherry & Najork).
    """
    ref, sub = np.broadcast_arrays(_as_float(ref), _as_float(sub))
    m = ref.shape[-1]
    k = min(5, m)
    rel = (m + 1.0) - ref * np.expand_dims(_as_float(ref_scale), -1)
    d = _discount_cumsum(m, k)
    lo, hi = _min_max_ranks(sub)  # group of each model: positions lo-1 .. hi-1
    lo = lo.astype(np.int64) - 1
    hi = hi.astype(np.int64)
    dcg = (rel / (hi - lo) * (d[hi] - d[lo])).sum(axis=-1)
    ideal = np.sort(rel, axis=-1)[..., ::-1]
    idcg = (ideal * np.diff(d)).sum(axis=-1)
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)


def mrr(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Reciprocal of the subset's average-tie rank of the reference's best model.

    The reference's best model is the one with the lowest reference rank (the first in
    model order if several tie).
    """
    ref, sub = np.broadcast_arrays(_as_float(ref), _as_float(sub))
    best = np.argmin(ref, axis=-1)[..., None]
    b = np.take_along_axis(sub, best, axis=-1)
    less = (sub < b).sum(axis=-1)
    equal = (sub == b).sum(axis=-1)
    return 1.0 / (less + (equal + 1) / 2.0)


def agreement(
    ref: np.ndarray,
    sub: np.ndarray,
    *,
    ref_scale: float | np.ndarray = 1.0,
    sub_scale: float | np.ndarray = 1.0,
    metrics: Sequence[str] = METRICS,
) -> dict[str, np.ndarray]:
    """Every requested metric for paired reference and subset rankings.

    Parameters
    ----------
    ref : ndarray of shape (T, M) or (M,)
        Reference rank vectors (or exact rank sums).
    sub : ndarray of shape (T, K, M) or (K, M)
        Subset rank vectors (or exact rank sums).
    ref_scale : float or ndarray of shape (T,)
        Factor turning ``ref`` into mean ranks.
    sub_scale : float or ndarray of shape (K,) or (T, K)
        Factor turning ``sub`` into mean ranks.
    metrics : sequence of str
        Subset of :data:`METRICS`.

    Returns
    -------
    dict of str to ndarray of shape (T, K) (or (K,))
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; valid: {', '.join(METRICS)}")
    squeeze = np.ndim(ref) == 1
    ref = np.atleast_2d(_as_float(ref))
    sub = _as_float(sub)
    if sub.ndim == 2:
        sub = sub[None]
    rs = np.broadcast_to(_as_float(ref_scale), ref.shape[:1])
    ref3 = ref[:, None, :]
    out: dict[str, np.ndarray] = {}
    for name in metrics:
        if name == "mae":
            v = mae(ref3, sub, rs[:, None], sub_scale)
        elif name == "spearman":
            v = spearman(ref3, sub)
        elif name == "kendall":
            v = kendall_paired(ref, sub)
        elif name == "ndcg5":
            v = ndcg5(ref3, sub, rs[:, None])
        else:
            v = mrr(ref3, sub)
        out[name] = v[0] if squeeze else v
    return out
