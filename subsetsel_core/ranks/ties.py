"""Rank kernels shared by the agreement metrics: tie structure from one sort, exact pair counts.

Vectorised over leading axes, no Python loop over models; every function states the scipy
or scikit-learn definition it equals.
"""

from __future__ import annotations

import numpy as np

PAIR_BLOCK = 2**24  # memory bound for Kendall: its temporaries hold PAIR_BLOCK / 16 elements


def as_float(x: np.ndarray | float) -> np.ndarray:
    return np.asarray(x, dtype=float)


class TieRanks:
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


def pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    num = (a * b).sum(axis=-1)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(r, -1.0, 1.0)


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
        Elements of the largest temporary array (default ``PAIR_BLOCK // 16``).

    Returns
    -------
    ndarray of int64, shape (R,)
    """
    v = np.asarray(v)
    n_rows, m = v.shape
    if m < 2 or n_rows == 0:
        return np.zeros(n_rows, dtype=np.int64)
    budget = budget if budget is not None else max(1, PAIR_BLOCK // 16)
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


def tau_b(ref: np.ndarray, sub: np.ndarray, sub_ranks: TieRanks | None = None) -> np.ndarray:
    """Kendall tau-b for ``ref`` (T, M) and ``sub`` (T, K, M) from exact integer pair counts.

    concordant − discordant = P − n1 − n2 + n12 − 2·D (P pairs; n1, n2 pairs tied in ref,
    in sub; n12 in both; D discordant pairs = inversions of sub's ranks ordered by
    (ref, sub)). The final division is the one of the pair-sign formulation, so the
    values are identical to it.
    """
    t, k, m = sub.shape
    p = m * (m - 1) // 2
    sr = sub_ranks if sub_ranks is not None else TieRanks(sub)
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


def discount_cumsum(m: int, k: int) -> np.ndarray:
    """D[q] = sum of log2 discounts of positions 0..q-1, truncated at k; D[0] = 0."""
    disc = 1.0 / np.log2(np.arange(m) + 2.0)
    disc[k:] = 0.0
    return np.concatenate([[0.0], np.cumsum(disc)])


def relevance(ref: np.ndarray, ref_scale: float | np.ndarray) -> np.ndarray:
    return (ref.shape[-1] + 1.0) - ref * np.expand_dims(as_float(ref_scale), -1)


def ndcg_from_ranks(rel: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """NDCG@5 from relevances (broadcasting against ``lo``) and the subset's min/max tie ranks."""
    m = lo.shape[-1]
    d = discount_cumsum(m, min(5, m))
    lo = lo - 1  # group of each model: positions lo .. hi-1
    dcg = (rel / (hi - lo) * (d[hi] - d[lo])).sum(axis=-1)
    ideal = np.sort(rel, axis=-1)[..., ::-1]
    idcg = (ideal * np.diff(d)).sum(axis=-1)
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
