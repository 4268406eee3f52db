"""The compiled inner loops of the A-/D-optimal exchange: the best swap of every set.

One exchange pass (:func:`~subsetsel_core.strategies.optimal.exchange_many`) scores every
swap (position s, unchosen row j) of every set from matrix products that numpy computes
(``G``, ``H``, ``q``, …) and takes the first largest score in position-major order (flat
index s·n + j). The elementwise part — a dozen operations on each of the a · n · k scores —
runs here in one pass over memory, without temporaries.

* A-criterion (:func:`a_best`): the loop does the same IEEE operations, in the same order,
  as the numpy expression it replaces (numba without ``fastmath`` neither reorders nor fuses
  them), so every score is the same to the last bit.
* D-criterion (:func:`d_best`): the score log1p(q + G²/den) + log1p(−qa) is ranked by
  (1 + q + G²/den) · den, its exponential up to a few rounding errors, without a logarithm;
  the swaps within :data:`D_MARGIN` of a set's largest are then scored with ``numpy.log1p``
  exactly as before, and the first largest of those is the set's. Sets where that ranking
  could mislead (a NaN, an infinite or vanishing product, more than :data:`D_CAP` near-ties)
  are marked for the caller to score in full with numpy.

NaN semantics follow ``numpy.argmax``: the first NaN in flat order wins. Compiled with numba
(``cache=True``: the first call on a machine compiles for a few seconds, later processes load
the compiled code; ``nogil``: other threads keep running).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

#: Relative margin of the D-criterion's candidates: far above the rounding of the product and of the logarithms.
D_MARGIN = 1e-9
#: Candidates kept per set; a set with more near-ties is scored in full by the caller.
D_CAP = 64
_TINY = 1e-290  # a product below this may have lost relative accuracy (subnormal range ahead)


def _a_best_py(G: np.ndarray, H: np.ndarray, q: np.ndarray, bb: np.ndarray, den: np.ndarray, ba2: np.ndarray,
               ok: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per set i, the flat index s·n + j of the first largest A-score and that score.

    The score of swapping position s for row j (``G``, ``H``: (a, n, k); ``q``, ``bb``: (a, n);
    ``den``, ``ba2``, ``ok``: (a, k); ``chosen``: (a, n)) is

        r = G / den;  ((r · 2 · H + bb) + r² · ba2) / ((G² / den + q) + 1) − ba2 / den,

    −∞ where ``ok`` is false or row j is chosen (index 0 and −∞ when every score is).
    """
    a, n, k = G.shape
    best_idx = np.zeros(a, dtype=np.int64)
    best_val = np.full(a, -np.inf)
    t = np.empty(k)
    sub = np.empty(k)
    top = np.empty(k)
    arg = np.empty(k, dtype=np.int64)
    nan_at = np.empty(k, dtype=np.int64)
    for i in range(a):
        for s in range(k):
            sub[s] = ba2[i, s] / den[i, s]
            top[s] = -np.inf
            arg[s] = 0
            nan_at[s] = -1
        di, b2i, okd = den[i], ba2[i], ok[i]
        for j in range(n):
            if chosen[i, j]:
                continue
            qj, bj, gj, hj = q[i, j], bb[i, j], G[i, j], H[i, j]
            for s in range(k):  # memory order; branch-free, so it vectorises
                d = di[s]
                g = gj[s]
                r = g / d
                x = r * 2.0
                x = x * hj[s]
                x = x + bj
                r2 = r * r
                r2 = r2 * b2i[s]
                x = x + r2
                qp = g * g
                qp = qp / d
                qp = qp + qj
                qp = qp + 1.0
                x = x / qp
                t[s] = x - sub[s]
            for s in range(k):
                if okd[s]:
                    if t[s] > top[s]:
                        top[s], arg[s] = t[s], j
                    elif t[s] != t[s] and nan_at[s] < 0:
                        nan_at[s] = j
        best, idx = -np.inf, 0
        for s in range(k):  # position-major: the first position with the largest score (or a NaN) wins
            if nan_at[s] >= 0:
                best, idx = np.nan, s * n + nan_at[s]
                break
            if top[s] > best:
                best, idx = top[s], s * n + arg[s]
        best_idx[i], best_val[i] = idx, best
    return best_idx, best_val


def _d_candidates_py(G: np.ndarray, q: np.ndarray, den: np.ndarray, ok: np.ndarray, chosen: np.ndarray,
                     cand_idx: np.ndarray, cand_qp: np.ndarray) -> np.ndarray:
    """The D-criterion's near-best swaps of every set (module docstring).

    Writes set i's candidates' flat indices s·n + j and exact ``qp = G²/den + q`` into row i
    of ``cand_idx`` / ``cand_qp`` (shape (a, D_CAP)) and returns their counts, −1 for a set
    the caller must score in full.
    """
    a, n, k = G.shape
    count = np.zeros(a, dtype=np.int64)
    w = np.empty((n, k))
    for i in range(a):
        wmax, bad = 0.0, False
        for j in range(n):
            qj = q[i, j]
            for s in range(k):
                d = den[i, s]
                g = G[i, j, s]
                qp = g * g
                qp = qp / d
                qp = qp + qj
                w[j, s] = (1.0 + qp) * d
        for j in range(n):
            if chosen[i, j]:
                continue
            for s in range(k):
                if ok[i, s]:
                    x = w[j, s]
                    if not x < np.inf or not x >= 0.0:  # NaN, ∞ or a negative product (qp < −1)
                        bad = True
                    elif x > wmax:
                        wmax = x
        if bad or not wmax > _TINY:
            count[i] = -1
            continue
        thr = wmax * (1.0 - D_MARGIN)
        c = 0
        for s in range(k):
            if not ok[i, s]:
                continue
            for j in range(n):
                if not chosen[i, j] and w[j, s] >= thr:
                    if c == cand_idx.shape[1]:
                        c = -1
                        break
                    g = G[i, j, s]
                    qp = g * g
                    qp = qp / den[i, s]
                    cand_idx[i, c], cand_qp[i, c] = s * n + j, qp + q[i, j]
                    c += 1
            if c < 0:
                break
        count[i] = c
    return count


#: ``error_model="numpy"``: a division by zero gives ±∞ or NaN, as in numpy, without a check that would
#: keep the loops from vectorising
_COMPILE = numba.njit(cache=True, nogil=True, error_model="numpy")
a_best: Callable[..., tuple[np.ndarray, np.ndarray]] = _COMPILE(_a_best_py)
d_candidates: Callable[..., np.ndarray] = _COMPILE(_d_candidates_py)


def d_best(G: np.ndarray, q: np.ndarray, den: np.ndarray, L2: np.ndarray, ok: np.ndarray,
           chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per set, the flat index s·n + j of the first largest D-score ``log1p(G²/den + q) + L2`` and that score.

    Returns
    -------
    idx, value : ndarray (a,)
    full : ndarray of int
        The sets that :func:`d_candidates` could not rank (their ``idx`` / ``value`` are
        unset): the caller scores them in full.
    """
    a, n, _ = G.shape
    cand_idx = np.zeros((a, D_CAP), dtype=np.int64)
    cand_qp = np.zeros((a, D_CAP))
    count = d_candidates(G, q, den, ok, chosen, cand_idx, cand_qp)
    idx = np.zeros(a, dtype=np.int64)
    val = np.full(a, -np.inf)
    live = np.flatnonzero(count > 0)
    if live.size:
        keep = np.arange(D_CAP)[None, :] < count[live][:, None]
        si = np.nonzero(keep)[0]
        fi = cand_idx[live][keep]
        exact = np.log1p(cand_qp[live][keep])
        exact += L2[live[si], fi // n]
        # the first largest exact score of every set: by set, then score descending, then flat index
        order = np.lexsort((fi, -exact, si))
        first = order[np.r_[True, si[order][1:] != si[order][:-1]]]
        idx[live[si[first]]] = fi[first]
        val[live[si[first]]] = exact[first]
    return idx, val, np.flatnonzero(count < 0)
