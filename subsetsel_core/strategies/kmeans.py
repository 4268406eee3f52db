"""``kmeans``: k-means++ with restarts, then the nearest distinct dataset to each centroid.

On a pool ``X`` (n, p), standardised by the caller, and a subset size k:

1. k-means++ seeding of ``n_init`` restarts, every draw from the generator passed in;
2. Lloyd iterations (at most :data:`MAX_ITER` centre updates, until no label changes; an
   emptied cluster keeps its centre); the restart of least inertia (the first) is kept;
3. must-include rows come first, each covering its nearest uncovered centroid; then each
   remaining centroid, in seeding order, takes the nearest dataset not yet taken (ties to
   the lower index): k distinct rows. With p = 0 (one point): include, then rows in order.

The same generator state, machine and library versions give the same selection. A run's
arithmetic depends on its own data only: runs with n·k ≤ :data:`_BATCH_MAX` share a batch of
Lloyd iterations whose products each cover one k's restarts (so :func:`kmeans_many` equals
:func:`kmeans_select` for each k); larger runs go one by one with Hamerly's bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from subsetsel_core.strategies.base import StrategyInfo

N_INIT = 10
MAX_ITER = 100
_BATCH_MAX = 40_000  # largest n·k of a run in the shared batch (measured crossover with Hamerly)
_TABLE_MAX = 2048  # largest n whose n × n distance table serves the seeding
_BLOCK = 2**22  # elements of the largest temporary array of the final picks


def _sq_dist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared distances ``|a|² − 2 a·b + |b|²``, clipped at 0; shape (len(A), len(B))."""
    return np.maximum((A * A).sum(axis=1)[:, None] - 2.0 * (A @ B.T) + (B * B).sum(axis=1), 0.0)


def _segments(gid: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` of each block of consecutive equal group ids (all ≥ 0)."""
    return list(pairwise(np.flatnonzero(np.diff(gid, prepend=-1, append=-1)).tolist()))


def _seed(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], n_init: int) -> np.ndarray:
    """k-means++ seeding: the seeded rows, run after run (run ``i·n_init + r``, restart r of
    ``ks[i]``, has ``ks[i]`` rows). ``rngs[i]`` draws ``n_init`` first rows, then (n_init,
    k − 1) uniforms u; each next centre is the first row whose cumulative squared distance
    to the centres so far exceeds u·total.
    """
    n, ka = X.shape[0], np.repeat(np.asarray(ks), n_init)
    rows, u = np.full((len(ka), max(ks)), -1, dtype=np.int64), np.zeros((len(ka), max(ks)))
    for i, (k, g) in enumerate(zip(ks, rngs, strict=True)):
        rows[i * n_init:(i + 1) * n_init, 0] = g.integers(0, n, size=n_init)
        u[i * n_init:(i + 1) * n_init, 1:k] = g.random((n_init, k - 1))
    x2, table = (X * X).sum(axis=1), _sq_dist(X, X) if n <= _TABLE_MAX else None

    def dist(idx: np.ndarray) -> np.ndarray:  # squared distances of X[idx] to every row
        if table is not None:
            return table[idx]
        return np.maximum(x2[idx, None] - 2.0 * np.matmul(X[idx][:, None, :], X.T)[:, 0] + x2, 0.0)  # per run

    d2 = dist(rows[:, 0])  # (run, dataset): squared distance to the nearest centre so far
    for j in range(1, rows.shape[1]):
        act = np.flatnonzero(ka > j)
        cum = np.cumsum(d2[act], axis=1)
        idx = np.minimum((cum <= (u[act, j] * cum[:, -1])[:, None]).sum(axis=1), n - 1)
        rows[act, j] = idx = np.where(cum[:, -1] > 0, idx, 0)  # 0: every dataset sits on a centre
        d2[act] = np.minimum(d2[act], dist(idx))
    return rows[rows >= 0]


def _lloyd_batch(X: np.ndarray, C: np.ndarray, ka: np.ndarray, gid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd iterations of many runs; returns centres (sum(ka), p) and inertia (R,).

    ``C``: initial centres run after run (run r has ``ka[r]`` rows); ``gid``: consecutive
    runs of one k share a group, and each product covers one group's runs still iterating.
    """
    n, x2 = X.shape[0], (X * X).sum(axis=1)
    centres, inertia, labels = C.copy(), np.zeros(len(ka)), np.full((n, len(ka)), -1)
    act, Ca, crow = np.arange(len(ka)), C.copy(), np.arange(len(C))  # runs still iterating, their rows
    for it in range(MAX_ITER + 1):
        c2, minus2, segs = (Ca * Ca).sum(axis=1), -2.0 * Ca, _segments(gid[act])
        new, row, ds = np.empty((n, act.size), dtype=np.int64), 0, []
        for s, e in segs:  # |c|² − 2 x·c, (dataset, run, centre): the nearest centre
            d = X @ minus2[row:row + (e - s) * int(ka[act[s]])].T
            d += c2[row:row + d.shape[1]]
            row += d.shape[1]
            ds.append(d := d.reshape(n, e - s, -1))
            new[:, s:e] = d.argmin(axis=2)
        done = (new == labels[:, act]).all(axis=0) | (it == MAX_ITER)
        labels[:, act] = new
        for (s, e), d in zip(segs, ds, strict=True):  # the inertia of the runs that stop
            if (f := np.flatnonzero(done[s:e])).size:
                dmin = d[np.arange(n)[:, None], f, new[:, s + f]] + x2[:, None]
                inertia[act[s + f]] = np.maximum(np.ascontiguousarray(dmin.T), 0.0).sum(axis=1)
        stop = np.repeat(done, ka[act])
        centres[crow[stop]] = Ca[stop]
        act, Ca, crow, new = act[~done], Ca[~stop], crow[~stop], new[:, ~done]
        if act.size == 0:
            break
        onehot = np.zeros((len(Ca), n))  # 0/1 (run·centre, dataset)
        onehot.reshape(-1)[((np.cumsum(ka[act]) - ka[act] + new) * n + np.arange(n)[:, None]).ravel()] = 1.0
        counts, sums, row = onehot.sum(axis=1)[:, None], np.empty_like(Ca), 0
        for s, e in _segments(gid[act]):
            m = (e - s) * int(ka[act[s]])
            np.matmul(onehot[row:row + m], X, out=sums[row:row + m])
            row += m
        np.divide(sums, counts, out=Ca, where=counts > 0)  # an empty cluster keeps its centre
    return centres, inertia


def _lloyd_bounded(X: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, float]:
    """Lloyd iterations of one run with Hamerly's bounds; returns centres (k, p) and inertia.

    ``upper`` / ``lower`` bound each dataset's distance to its centre / to every other one and
    move with the centres; only datasets with ``upper`` above ``lower`` and above half the
    distance from their centre to the next get new distances. Sums follow the moved datasets.
    """
    k, x2 = C.shape[0], (X * X).sum(axis=1)

    def nearest_two(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = np.maximum(x2[idx, None] - 2.0 * (X[idx] @ C.T) + (C * C).sum(axis=1), 0.0)
        lab, r = d.argmin(axis=1), np.arange(idx.size)
        near = np.sqrt(d[r, lab])
        d[r, lab] = np.inf
        return lab, near, np.sqrt(d.min(axis=1))  # label, distance to it, to the second nearest

    labels, upper, lower = nearest_two(np.arange(X.shape[0]))
    counts, sums = np.bincount(labels, minlength=k), np.zeros_like(C)
    np.add.at(sums, labels, X)
    for _ in range(MAX_ITER):
        new_c = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], C)
        drift = np.sqrt(((new_c - C) ** 2).sum(axis=1))
        C, top = new_c, int(drift.argmax())
        upper += drift[labels]
        lower -= np.where(labels == top, np.delete(drift, top).max(initial=0.0), drift[top])
        cc = _sq_dist(C, C) + np.diag(np.full(k, np.inf))  # between centres, inf to itself
        cand = np.flatnonzero(upper > np.maximum(0.5 * np.sqrt(cc.min(axis=1))[labels], lower))
        lab, upper[cand], lower[cand] = nearest_two(cand)
        moved = lab != labels[cand]
        if not moved.any():
            break
        idx, old, lab = cand[moved], labels[cand[moved]], lab[moved]
        np.add.at(sums, np.r_[lab, old], np.r_[X[idx], -X[idx]])  # moved datasets: to their new sums
        counts += np.bincount(lab, minlength=k) - np.bincount(old, minlength=k)
        labels[idx] = lab
    return C, float(((X - C[labels]) ** 2).sum())


def _best_centres(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator],
                  n_init: int) -> list[np.ndarray]:
    """The best-inertia centres (k, p) of every k, in seeding order."""
    ka = np.repeat(np.asarray(ks, dtype=np.int64), n_init)
    start = np.cumsum(ka) - ka
    C, inertia = X[_seed(X, ks, rngs, n_init)], np.empty(len(ka))  # centres run after run
    small = X.shape[0] * ka <= _BATCH_MAX
    if small.any():
        rs = np.repeat(small, ka)
        C[rs], inertia[small] = _lloyd_batch(X, C[rs], ka[small], np.repeat(np.arange(len(ks)), n_init)[small])
    for r in np.flatnonzero(~small).tolist():
        C[start[r]:start[r] + ka[r]], inertia[r] = _lloyd_bounded(X, C[start[r]:start[r] + ka[r]])
    best = [i * n_init + int(np.argmin(inertia[i * n_init:(i + 1) * n_init])) for i in range(len(ks))]
    return [C[start[b]:start[b] + ka[b]] for b in best]


def _pick(d: np.ndarray, include: Sequence[int]) -> np.ndarray:
    """From squared distances d (dataset, centroid): include first, each covering its nearest
    uncovered centroid; then per centroid in order the nearest row not yet taken."""
    covered, taken, chosen = np.zeros(d.shape[1], dtype=bool), np.zeros(len(d), dtype=bool), []
    for i in map(int, include):
        covered[int(np.argmin(np.where(covered, np.inf, d[i])))] = taken[i] = True
        chosen.append(i)
    nearest = d.argmin(axis=0).tolist()
    for j in np.flatnonzero(~covered).tolist():
        i = nearest[j] if not taken[nearest[j]] else int(np.argmin(np.where(taken, np.inf, d[:, j])))
        taken[i] = True
        chosen.append(i)
    return np.asarray(chosen, dtype=np.int64)


def kmeans_centres(X: np.ndarray, k: int, *, rng: np.random.Generator, n_init: int = N_INIT) -> np.ndarray:
    """Steps 1–2 of the module docstring: the best-inertia centres, in seeding order.

    Parameters
    ----------
    X, k, rng, n_init
        As in :func:`kmeans_select`.

    Returns
    -------
    ndarray (k, p)
    """
    X = np.ascontiguousarray(X, dtype=float)
    if not 1 <= k <= X.shape[0]:
        raise ValueError(f"k = {k} is outside 1…{X.shape[0]}")
    return np.zeros((k, 0)) if X.shape[1] == 0 else _best_centres(X, [int(k)], [rng], n_init)[0]


def kmeans_many(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], *,
                include: Sequence[int] | np.ndarray = (), n_init: int = N_INIT) -> list[np.ndarray]:
    """:func:`kmeans_select` for every k of ``ks`` (``rngs[i]`` serves ``ks[i]``), with the
    same results; the (k, restart) runs of small pools share one batch.

    Returns
    -------
    list of ndarray of int, shapes (ks[i],)
    """
    X = np.ascontiguousarray(X, dtype=float)
    n, p = X.shape
    ks, inc = [int(k) for k in ks], [int(i) for i in np.asarray(include, dtype=np.int64)]
    if any(not max(1, len(inc)) <= k <= n for k in ks):
        raise ValueError(f"every k must lie in {max(1, len(inc))}…{n}, got {ks}")
    if p == 0 or not ks:  # no geometry: every point is the same
        return [np.asarray((inc + [i for i in range(n) if i not in inc])[:k], dtype=np.int64) for k in ks]
    XT, CT = X.T.copy(), np.concatenate(_best_centres(X, ks, rngs, n_init)).T.copy()
    step = max(1, _BLOCK // X.size)  # Σ (x − c)² over the columns in order: equal rows, equal values
    d = np.hstack([((XT[:, :, None] - CT[:, None, lo:lo + step]) ** 2).sum(axis=0)
                   for lo in range(0, CT.shape[1], step)])
    return [_pick(d[:, o - k:o], inc) for o, k in zip(np.cumsum(ks).tolist(), ks, strict=True)]


def kmeans_select(X: np.ndarray, k: int, *, rng: np.random.Generator, include: Sequence[int] | np.ndarray = (),
                  n_init: int = N_INIT) -> np.ndarray:
    """k-means++ with restarts, then the nearest distinct dataset to each centroid.

    Parameters
    ----------
    X : ndarray (n, p)
        Standardised descriptors.
    k : int
        Subset size, ``max(1, len(include)) ≤ k ≤ n``.
    rng : Generator
    include : sequence of int
        Rows taken first, in this order.
    n_init : int

    Returns
    -------
    ndarray of int, shape (k,)
        Distinct rows: include, then one per remaining centroid in seeding order.
    """
    return kmeans_many(X, [k], [rng], include=include, n_init=n_init)[0]


INFO = StrategyInfo(
    "kmeans", kmeans_select, nested=False, uses_features=True, title="k-means",
    description="k-means++ clustering into k groups; the dataset nearest each centroid represents it.",
    many=kmeans_many, colour="#1f77b4",
)
