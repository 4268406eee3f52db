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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from subsetsel_core.errors import InputError

_PAIR_BLOCK = 2**24  # memory bound for Kendall: its temporaries hold _PAIR_BLOCK / 16 elements


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


class _Ranks:
    """Tie structure of an array along its last axis, from one sort.

    Attributes
    ----------
    lo, hi : ndarray of int64
        1-based 'min' and 'max' tie ranks (as ``scipy.stats.rankdata``).
    dense : ndarray of int64
        0-based dense ranks (equal values share one, no gaps).
    tie_pairs : ndarray of int64, shape (...)
        Number of pairs of equal values in each row.
    """

    def __init__(self, x: np.ndarray) -> None:
        m = x.shape[-1]
        # any sort will do: every quantity below is the same for all members of a tie group
        order = np.argsort(x, axis=-1)
        s = np.take_along_axis(x, order, axis=-1)
        new = np.empty(s.shape, dtype=bool)  # first of its group (in sorted order)
        last = np.empty(s.shape, dtype=bool)  # last of its group
        if m:
            new[..., 0] = True
            last[..., -1] = True
            np.not_equal(s[..., 1:], s[..., :-1], out=new[..., 1:])
            last[..., :-1] = new[..., 1:]
        pos = np.arange(m)
        start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
        stop = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, m), axis=-1), axis=-1), axis=-1)
        self.tie_pairs = (pos - start).sum(axis=-1, dtype=np.int64)
        # back from sorted order: one flat scatter index for the three arrays
        rows = int(np.prod(x.shape[:-1], dtype=np.int64))
        flat = (order.reshape(rows, m) + (np.arange(rows) * m)[:, None]).reshape(-1)
        self.lo = np.empty(x.shape, dtype=np.int64)
        self.hi = np.empty(x.shape, dtype=np.int64)
        self.dense = np.empty(x.shape, dtype=np.int64)
        self.lo.reshape(-1)[flat] = (start + 1).reshape(-1)
        self.hi.reshape(-1)[flat] = (stop + 1).reshape(-1)
        self.dense.reshape(-1)[flat] = (np.cumsum(new, axis=-1, dtype=np.int64) - 1).reshape(-1)

    @property
    def average(self) -> np.ndarray:
        """1-based average tie ranks (float), as ``rankdata(x, method="average")``."""
        return (self.lo + self.hi) / 2.0


def _min_max_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based 'min' and 'max' tie ranks along the last axis (ascending)."""
    r = _Ranks(_as_float(x))
    return r.lo, r.hi


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
    return _pearson(_Ranks(ref).average, _Ranks(sub).average)


def inversions(v: np.ndarray, budget: int | None = None) -> np.ndarray:
    """Number of pairs i < j with ``v[i] > v[j]`` in each row, exactly, in O(M·√M).

    Square-root decomposition, vectorised over rows: the row is cut into blocks of about
    √(2M) positions; pairs inside a block are compared directly, and for pairs across
    blocks each element looks up how many elements of the earlier blocks are not larger
    (cumulative value histograms per block).

    Parameters
    ----------
    v : ndarray of int, shape (R, M)
        Values in ``[0, M)`` (dense ranks).
    budget : int, optional
        Elements of the largest temporary array (default ``_PAIR_BLOCK // 16``).

    Returns
    -------
    ndarray of int64, shape (R,)
    """
    v = np.asarray(v)
    n_rows, m = v.shape
    if m < 2 or n_rows == 0:
        return np.zeros(n_rows, dtype=np.int64)
    budget = budget if budget is not None else max(1, _PAIR_BLOCK // 16)
    width = max(1, int(np.ceil(np.sqrt(2 * m))))
    nb = -(-m // width)
    nv = m + 1  # values 0..m−1 and the padding value m
    upper = np.triu(np.ones((width, width), dtype=bool), 1)
    before = np.repeat(np.arange(nb) * width, width)[None, :]  # elements in earlier blocks
    offset = np.repeat(np.arange(nb) * nv, width)[None, :]
    rows = max(1, budget // (nb * nv + m * width))
    out = np.empty(n_rows, dtype=np.int64)
    for lo in range(0, n_rows, rows):
        hi = min(n_rows, lo + rows)
        r = hi - lo
        vb = np.full((r, nb * width), m, dtype=np.int32)  # padding: larger than every value, at the end
        vb[:, :m] = v[lo:hi]
        v3 = vb.reshape(r, nb, width)
        within = np.count_nonzero((v3[..., :, None] > v3[..., None, :]) & upper, axis=(1, 2, 3))
        key = offset + vb
        flat = (np.arange(r)[:, None] * (nb * nv) + key).ravel()
        h = np.bincount(flat, minlength=r * nb * nv).astype(np.int32).reshape(r, nb, nv)
        np.cumsum(h, axis=2, out=h)  # per block: elements ≤ value
        e = np.cumsum(h, axis=1, dtype=np.int32)
        e -= h  # earlier blocks: elements ≤ value
        le = np.take_along_axis(e.reshape(r, nb * nv), key, axis=1)
        out[lo:hi] = within + (before - le).sum(axis=1, dtype=np.int64)
    return out


def _tau_b(ref: np.ndarray, sub: np.ndarray, sub_ranks: _Ranks | None = None) -> np.ndarray:
    """Kendall tau-b for ``ref`` (T, M) and ``sub`` (T, K, M) from exact integer pair counts.

    concordant − discordant = P − n1 − n2 + n12 − 2·D (P pairs; n1, n2 pairs tied in ref,
    in sub; n12 in both; D discordant pairs = inversions of sub's ranks ordered by
    (ref, sub)). The final division is the one of the pair-sign formulation, so the
    values are identical to it.
    """
    t, k, m = sub.shape
    p = m * (m - 1) // 2
    sr = sub_ranks if sub_ranks is not None else _Ranks(sub)
    ro = np.argsort(ref, axis=-1, kind="stable")
    rs = np.take_along_axis(ref, ro, axis=-1)
    new = np.empty(rs.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(rs[:, 1:], rs[:, :-1], out=new[:, 1:])
    pos = np.arange(m)
    n1 = (pos - np.maximum.accumulate(np.where(new, pos, 0), axis=-1)).sum(axis=-1, dtype=np.int64)  # (T,)
    seq = np.take_along_axis(sr.dense, ro[:, None, :], axis=-1)  # sub's dense ranks in ref order
    n12 = np.zeros((t, k), dtype=np.int64)
    tied = np.flatnonzero(n1 > 0)
    if tied.size:  # within a group of tied ref values, order by sub
        group = np.cumsum(new[tied], axis=-1) - 1
        key = np.sort(group[:, None, :] * m + seq[tied], axis=-1)
        same = np.empty(key.shape, dtype=bool)
        same[..., 0] = True
        np.not_equal(key[..., 1:], key[..., :-1], out=same[..., 1:])
        n12[tied] = (pos - np.maximum.accumulate(np.where(same, pos, 0), axis=-1)).sum(axis=-1, dtype=np.int64)
        seq[tied] = key % m
    disc = inversions(seq.reshape(-1, m)).reshape(t, k)
    num = (p - n1[:, None] - sr.tie_pairs + n12 - 2 * disc).astype(np.float64)
    den = np.sqrt((p - n1[:, None]).astype(float) * (p - sr.tie_pairs).astype(float))
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def kendall(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b, as ``scipy.stats.kendalltau`` (default variant); undefined → 0.

    Exact integer pair counts in O(M·√M) per row (see :func:`kendall_paired`).
    """
    ref, sub = np.broadcast_arrays(_as_float(ref), _as_float(sub))
    shape = ref.shape[:-1]
    m = ref.shape[-1]
    if m < 2:
        return np.zeros(shape)
    out = kendall_paired(ref.reshape(-1, m), sub.reshape(-1, 1, m))
    return out.reshape(shape)


def kendall_paired(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b where ``ref`` has shape (T, M) and ``sub`` (T, K, M); result (T, K).

    Counts concordant minus discordant pairs exactly (integers) without listing the
    M(M−1)/2 pairs: the reference is sorted once per trial, the discordant pairs are the
    inversions of each subset ranking read in reference order (:func:`inversions`), and
    ties come from run lengths. Equal to the pair-sign computation to the last bit, and
    O(M·√M) instead of O(M²) per row (M = 1,000: 20× faster).
    """
    ref = _as_float(ref)
    sub = _as_float(sub)
    t, k, m = sub.shape
    if m < 2:
        return np.zeros((t, k))
    return np.clip(_tau_b(ref, sub), -1.0, 1.0)


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
    r = _Ranks(sub)
    return _ndcg(_relevance(ref, ref_scale), r.lo, r.hi)


def _relevance(ref: np.ndarray, ref_scale: float | np.ndarray) -> np.ndarray:
    return (ref.shape[-1] + 1.0) - ref * np.expand_dims(_as_float(ref_scale), -1)


def _ndcg(rel: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """NDCG@5 from relevances (broadcasting against ``lo``) and the subset's min/max tie ranks."""
    m = lo.shape[-1]
    d = _discount_cumsum(m, min(5, m))
    lo = lo - 1  # group of each model: positions lo .. hi-1
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


class _Pair:
    """The inputs of one :func:`agreement` call, with the shared subset ranks computed once."""

    def __init__(self, ref: np.ndarray, sub: np.ndarray, ref_scale: np.ndarray,
                 sub_scale: float | np.ndarray) -> None:
        self.ref, self.sub, self.ref_scale, self.sub_scale = ref, sub, ref_scale, sub_scale
        self.ref3 = ref[:, None, :]

    @cached_property
    def sub_ranks(self) -> _Ranks:
        """One sort of the subset rankings (Spearman, Kendall and NDCG share it)."""
        return _Ranks(self.sub)


def _mae_of(p: _Pair) -> np.ndarray:
    return mae(p.ref3, p.sub, p.ref_scale[:, None], p.sub_scale)


def _spearman_of(p: _Pair) -> np.ndarray:
    return _pearson(_Ranks(p.ref3).average, p.sub_ranks.average)


def _kendall_of(p: _Pair) -> np.ndarray:
    if p.ref.shape[-1] < 2:
        return np.zeros(p.sub.shape[:2])
    return np.clip(_tau_b(p.ref, p.sub, p.sub_ranks), -1.0, 1.0)


def _ndcg5_of(p: _Pair) -> np.ndarray:
    r = p.sub_ranks
    return _ndcg(_relevance(p.ref3, p.ref_scale[:, None]), r.lo, r.hi)


def _mrr_of(p: _Pair) -> np.ndarray:
    return mrr(p.ref3, p.sub)


@dataclass(frozen=True)
class Metric:
    """A registered agreement metric.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"spearman"``.
    label : str
        Display name.
    higher_is_better : bool
        Direction: False for rank MAE.
    compute : callable
        ``compute(pair) -> ndarray (T, K)`` on the inputs of :func:`agreement`.
    unit : str
        Unit of its values ("rank positions" for MAE, "" for the unit-free ones).
    target : float or None
        Default target of the "how many datasets" advice; None: 5 % of the models
        (in rank positions, at least 1).
    lower, upper : float or None
        Bounds of the values (None: the number of models).
    """

    name: str
    label: str
    higher_is_better: bool
    compute: Callable[[_Pair], np.ndarray]
    unit: str = ""
    target: float | None = 0.9
    lower: float = -1.0
    upper: float | None = 1.0

    @property
    def sign(self) -> int:
        """+1 if higher is better, −1 if lower is better."""
        return 1 if self.higher_is_better else -1

    def default_target(self, n_models: int | None = None) -> float:
        """The advice's default target for a benchmark of ``n_models`` models."""
        if self.target is not None:
            return self.target
        return float(max(1.0, round(0.05 * (n_models or 20), 1)))

    def bounds(self, n_models: int | None = None) -> tuple[float, float]:
        """``(lowest, highest)`` value the metric can take."""
        upper = self.upper if self.upper is not None else float(max(2, n_models or 100))
        return self.lower, upper

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b``."""
        return a < b if not self.higher_is_better else a > b


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("mae", "rank MAE", False, _mae_of, unit="rank positions", target=None, lower=0.0, upper=None),
    Metric("spearman", "Spearman ρ", True, _spearman_of),
    Metric("kendall", "Kendall τ-b", True, _kendall_of, target=0.75),
    Metric("ndcg5", "NDCG@5", True, _ndcg5_of, lower=0.0),
    Metric("mrr", "MRR", True, _mrr_of, lower=0.0),
)}
"""The metric registry, in display order (PROTOCOL.md, "Metrics")."""


def get_metric(name: str) -> Metric:
    """Look a metric up by name.

    Raises
    ------
    InputError
        For an unknown name, listing the valid ones.
    """
    try:
        return METRICS[name]
    except KeyError:
        raise InputError(f"unknown metric '{name}'; valid metrics: {', '.join(METRICS)}.") from None


def agreement(
    ref: np.ndarray,
    sub: np.ndarray,
    *,
    ref_scale: float | np.ndarray = 1.0,
    sub_scale: float | np.ndarray = 1.0,
    metrics: Sequence[str] = tuple(METRICS),
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
        Keys of :data:`METRICS`.

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
    pair = _Pair(ref, sub, np.broadcast_to(_as_float(ref_scale), ref.shape[:1]), sub_scale)
    out: dict[str, np.ndarray] = {}
    for name in metrics:
        v = METRICS[name].compute(pair)
        out[name] = v[0] if squeeze else v
    return out
