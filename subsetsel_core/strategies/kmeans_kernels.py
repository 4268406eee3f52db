"""The compiled inner loops of ``kmeans``: k-means++ seeding and Lloyd's iterations.

Both work run by run (a run is one restart of one k), each run on its own data only, so a
run's result never depends on which other runs share the call. Squared distances are summed
over the features in a fixed order (the seeding and the inertia one feature after another,
the labels' distances in blocks of four), the same for every run. Compiled with numba
(``cache=True``: the first call on a machine compiles for a few seconds, later processes load
the compiled code).

Lloyd's iterations skip the distances that Hamerly's bounds (2010) show cannot change a
label: an upper bound on each dataset's distance to its centre and a lower bound on its
distance to every other centre move with the centres. A dataset is skipped only when the
bounds separate by more than a relative margin far above the rounding of the bounds
(:data:`_MARGIN`), so the labels are those of plain Lloyd with these distances: the nearest
centre, ties to the lower centre.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

_MARGIN = 1e-9  # relative safety margin of a skip by the bounds


def _seed_runs_py(X: np.ndarray, first: np.ndarray, u: np.ndarray, ka: np.ndarray) -> np.ndarray:
    """k-means++ seeding of every run; the seeded rows, run after run.

    Run r starts at row ``first[r]``; its centre j ≥ 1 is the first row whose cumulative
    squared distance to the centres so far exceeds ``u[r, j]`` times the total (the last
    row if none does, row 0 if every row sits on a centre).
    """
    n, p = X.shape
    XT = np.ascontiguousarray(X.T)  # (feature, dataset): the loops over datasets vectorise
    out, d2, s = np.empty(ka.sum(), dtype=np.int64), np.empty(n), np.empty(n)
    pos = 0
    for r in range(ka.size):
        c = first[r]
        for step in range(ka[r]):
            if step > 0:
                tot, c = 0.0, 0
                for i in range(n):
                    tot += d2[i]
                if tot > 0.0:
                    threshold, cum, c = u[r, step] * tot, 0.0, n - 1
                    for i in range(n):
                        cum += d2[i]
                        if cum > threshold:
                            c = i
                            break
            out[pos + step] = c
            s[:] = 0.0
            for j in range(p):
                for i in range(n):
                    s[i] += (XT[j, i] - XT[j, c]) ** 2
            for i in range(n):
                d2[i] = s[i] if step == 0 else min(d2[i], s[i])
        pos += ka[r]
    return out


def _lloyd_runs_py(X: np.ndarray, C: np.ndarray, ka: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's iterations of every run, from centres ``C`` (run after run, run r has
    ``ka[r]`` rows); at most ``max_iter`` centre updates, until no label changes; an emptied
    cluster keeps its centre. Returns the centres and each run's inertia."""
    n, p = X.shape
    XT = np.ascontiguousarray(X.T)  # (feature, dataset): the loops over datasets vectorise
    centres, inertia = C.copy(), np.empty(ka.size)
    labels, upper, lower = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n)
    cand, XC, acc = np.empty(n, dtype=np.int64), np.empty((p, n)), np.empty(n)
    pos = 0
    for r in range(ka.size):
        k = ka[r]
        CT = np.ascontiguousarray(C[pos:pos + k].T)  # (feature, centre)
        D, sums, counts = np.empty((k, n)), np.empty((k, p)), np.empty(k, dtype=np.int64)
        drift, half_gap, pair = np.empty(k), np.empty(k), np.empty((k, k))
        for it in range(max_iter + 1):
            m = 0  # the datasets whose label may change: all at first, then those the bounds keep
            for i in range(n):
                if it > 0:  # the bounds first, then the distance to the own centre
                    bound = max(half_gap[labels[i]], lower[i]) * (1.0 - _MARGIN)
                    if upper[i] * (1.0 + _MARGIN) < bound:
                        continue
                    d = 0.0
                    for j in range(p):
                        d += (XT[j, i] - CT[j, labels[i]]) ** 2
                    upper[i] = np.sqrt(d)
                    if upper[i] * (1.0 + _MARGIN) < bound:
                        continue
                cand[m] = i
                m += 1
            for j in range(p):
                for t in range(m):
                    XC[j, t] = XT[j, cand[t]]
            for c in range(k):  # Σ_j (x_j − c_j)², four features at a time
                row = D[c]
                row[:m] = 0.0
                for j in range(0, p - 3, 4):
                    x0, x1, x2, x3 = XC[j], XC[j + 1], XC[j + 2], XC[j + 3]
                    c0, c1, c2, c3 = CT[j, c], CT[j + 1, c], CT[j + 2, c], CT[j + 3, c]
                    for t in range(m):
                        row[t] += ((x0[t] - c0) ** 2 + (x1[t] - c1) ** 2) + ((x2[t] - c2) ** 2 + (x3[t] - c3) ** 2)
                for j in range(p - p % 4, p):
                    for t in range(m):
                        row[t] += (XC[j, t] - CT[j, c]) ** 2
            moved = it == 0
            for t in range(m):
                best, second, lab = D[0, t], np.inf, 0
                for c in range(1, k):
                    if D[c, t] < best:
                        best, second, lab = D[c, t], best, c
                    elif D[c, t] < second:
                        second = D[c, t]
                i = cand[t]
                if it == 0 or lab != labels[i]:
                    moved = True
                labels[i], upper[i], lower[i] = lab, np.sqrt(best), np.sqrt(second)
            if not moved or it == max_iter:
                break
            sums[:] = 0.0
            counts[:] = 0
            for i in range(n):  # the new centres: sums in dataset order
                counts[labels[i]] += 1
                for j in range(p):
                    sums[labels[i], j] += X[i, j]
            drift[:] = 0.0
            for j in range(p):
                for c in range(k):
                    if counts[c] > 0:
                        t = sums[c, j] / counts[c]
                        drift[c] += (t - CT[j, c]) ** 2
                        CT[j, c] = t
            top, top2 = 0.0, 0.0  # the largest and second largest drift
            for c in range(k):
                drift[c] = np.sqrt(drift[c])
                if drift[c] > top:
                    top, top2 = drift[c], top
                elif drift[c] > top2:
                    top2 = drift[c]
            # half the distance to the nearest other centre: each pair's squared distance summed over the
            # features in order, once per pair ((a − b)² and (b − a)² are the same number)
            pair[:k, :k] = 0.0
            for j in range(p):
                for c in range(k):
                    x = CT[j, c]
                    for o in range(c + 1, k):
                        pair[c, o] += (x - CT[j, o]) ** 2
            for c in range(k):
                nearest = np.inf
                for o in range(k):
                    if o != c:
                        nearest = min(nearest, pair[min(c, o), max(c, o)])
                half_gap[c] = 0.5 * np.sqrt(nearest)
            for i in range(n):
                upper[i] += drift[labels[i]]
                lower[i] -= top2 if drift[labels[i]] == top else top
        acc[:] = 0.0
        for j in range(p):
            for i in range(n):
                acc[i] += (XT[j, i] - CT[j, labels[i]]) ** 2
        tot = 0.0
        for i in range(n):
            tot += acc[i]
        inertia[r] = tot
        centres[pos:pos + k] = CT.T
        pos += k
    return centres, inertia


def _picks_py(XT: np.ndarray, CT: np.ndarray, ka: np.ndarray) -> np.ndarray:
    """Step 3 without must-include rows, for every block of centres: per centre in order, the
    nearest row not yet taken (ties to the lower row); the rows, block after block.

    ``XT`` (p, n) holds the rows, ``CT`` (p, Σ ka) the centres; the squared distance of a row to
    a centre is summed over the features in order (what numpy's sum over the first axis of the
    differences' squares gives).
    """
    p, n = XT.shape
    out = np.empty(CT.shape[1], dtype=np.int64)
    d = np.empty(n)
    taken = np.zeros(n, dtype=np.bool_)
    o = 0
    for r in range(ka.size):
        taken[:] = False
        for c in range(o, o + ka[r]):
            for i in range(n):
                d[i] = (XT[0, i] - CT[0, c]) ** 2
            for j in range(1, p):
                for i in range(n):
                    d[i] += (XT[j, i] - CT[j, c]) ** 2
            best, bi = np.inf, -1
            for i in range(n):
                if not taken[i] and (bi < 0 or d[i] < best):
                    best, bi = d[i], i
            taken[bi] = True
            out[c] = bi
        o += ka[r]
    return out


#: Compiled once per machine (cached beside this file); ``nogil``: the dashboard's pages and
#: other threads keep running while a kernel works (it touches no Python object).
_COMPILE = numba.njit(cache=True, nogil=True)
seed_runs: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray] = _COMPILE(_seed_runs_py)
lloyd_runs: Callable[[np.ndarray, np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]] = _COMPILE(
    _lloyd_runs_py)
picks: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] = _COMPILE(_picks_py)
