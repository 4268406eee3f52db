"""``kmeans``: k-means++ with restarts, then the nearest distinct dataset to each centroid.

:func:`kmeans_many` runs every (k, restart) pair of a trial as one batch of Lloyd
iterations (centres padded to the largest k and masked), which is what makes the protocol
fast; :func:`kmeans_select` is the same computation for one k, so both give identical
subsets for the same generator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import StrategyInfo, register

N_INIT = 10
MAX_ITER = 100


def _seed_centres(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], n_init: int) -> np.ndarray:
    """k-means++ seeding of ``n_init`` restarts for every k; shape (len(ks)·n_init, max k, p).

    Run ``i·n_init + r`` is restart r for ``ks[i]``; its draws come from ``rngs[i]`` only,
    in a fixed order (first centres, then one uniform per restart and step).
    """
    n, p = X.shape
    kmax = max(ks)
    R = len(ks) * n_init
    x2 = (X * X).sum(axis=1)
    C = np.zeros((R, kmax, p))
    first = np.concatenate([g.integers(0, n, size=n_init) for g in rngs])
    C[:, 0] = X[first]
    d2 = np.maximum(x2[None, :] - 2.0 * C[:, 0] @ X.T + x2[first][:, None], 0.0)  # (R, n)
    karr = np.repeat(np.asarray(ks), n_init)
    for j in range(1, kmax):
        act = np.flatnonzero(karr > j)
        if act.size == 0:
            break
        u = np.concatenate([g.random(n_init) for g, k in zip(rngs, ks, strict=True) if k > j])
        dd = d2[act]
        total = dd.sum(axis=1)
        cum = np.cumsum(dd, axis=1)
        idx = np.minimum((cum <= (u * total)[:, None]).sum(axis=1), n - 1)
        flat = total <= 0
        if flat.any():  # every point sits on a centre: take the first point not yet a centre
            idx[flat] = 0
        C[act, j] = X[idx]
        dnew = np.maximum(x2[None, :] - 2.0 * X[idx] @ X.T + x2[idx][:, None], 0.0)
        d2[act] = np.minimum(dd, dnew)
    return C


def _lloyd(X: np.ndarray, C: np.ndarray, valid: np.ndarray, max_iter: int = MAX_ITER) -> tuple[np.ndarray, np.ndarray]:
    """Batched Lloyd iterations; a run stops when none of its labels changes.

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (R, kmax, p)
        Initial centres (padded).
    valid : ndarray of bool (R, kmax)
        Which centres exist in each run; an emptied cluster keeps its centre.

    Returns
    -------
    centres : ndarray (R, kmax, p)
    inertia : ndarray (R,)
    """
    n, p = X.shape
    R, kmax, _ = C.shape
    C = C.copy()
    XT = X.T
    x2 = (X * X).sum(axis=1)
    inval = np.where(valid, 0.0, np.inf)[:, :, None]
    ar = np.arange(kmax)[None, :, None]
    labels = np.full((R, n), -1)
    inertia = np.zeros(R)
    act = np.arange(R)
    for it in range(max_iter + 1):
        Ca = C[act]
        d = ((Ca * Ca).sum(axis=2)[:, :, None] - 2.0 * (Ca.reshape(-1, p) @ XT).reshape(act.size, kmax, n)
             + x2[None, None, :] + inval[act])
        new = d.argmin(axis=1)  # (a, n)
        changed = (new != labels[act]).any(axis=1)
        done = act[~changed]
        inertia[done] = np.maximum(d[~changed].min(axis=1), 0.0).sum(axis=1)
        if it == max_iter:
            inertia[act[changed]] = np.maximum(d[changed].min(axis=1), 0.0).sum(axis=1)
            break
        act = act[changed]
        if act.size == 0:
            break
        lab = new[changed]
        labels[act] = lab
        onehot = (lab[:, None, :] == ar).astype(float)  # (a, kmax, n)
        counts = onehot.sum(axis=2)
        sums = (onehot.reshape(-1, n) @ X).reshape(act.size, kmax, p)
        C[act] = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1.0)[:, :, None], C[act])
    return C, inertia


def _pick(X: np.ndarray, centres: np.ndarray, include: Sequence[int]) -> np.ndarray:
    """Include first (each covering its nearest free centroid), then per centroid the nearest free row."""
    n = X.shape[0]
    k = centres.shape[0]
    d = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)  # (n, k)
    covered = np.zeros(k, dtype=bool)
    taken = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    for i in include:
        j = int(np.argmin(np.where(covered, np.inf, d[i])))
        covered[j] = True
        taken[i] = True
        chosen.append(int(i))
    for j in range(k):
        if covered[j]:
            continue
        i = int(np.argmin(np.where(taken, np.inf, d[:, j])))
        taken[i] = True
        chosen.append(i)
    return np.asarray(chosen, dtype=np.int64)


def kmeans_many(
    X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], *, include: Sequence[int] = (),
    n_init: int = N_INIT,
) -> list[np.ndarray]:
    """:func:`kmeans_select` for several k, all restarts batched; ``rngs[i]`` serves ``ks[i]``."""
    n, p = X.shape
    inc = [int(i) for i in np.asarray(include, dtype=np.int64)]
    if p == 0:  # no geometry: every point is the same
        rest = [i for i in range(n) if i not in set(inc)]
        return [np.asarray((inc + rest)[:k], dtype=np.int64) for k in ks]
    C0 = _seed_centres(X, ks, rngs, n_init)
    valid = np.arange(C0.shape[1])[None, :] < np.repeat(np.asarray(ks), n_init)[:, None]
    C, inertia = _lloyd(X, C0, valid)
    out = []
    for i, k in enumerate(ks):
        runs = inertia[i * n_init:(i + 1) * n_init]
        best = i * n_init + int(np.argmin(runs))
        out.append(_pick(X, C[best, :k], inc))
    return out


def kmeans_select(
    X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = (),  # type: ignore[assignment]
    n_init: int = N_INIT,
) -> np.ndarray:
    """k-means++ with ``n_init`` restarts (seeded from ``rng``), best inertia kept; then for
    each centroid, in seeding order, the nearest dataset not yet taken — exactly ``k``
    distinct datasets. Must-include rows are taken first, each covering its nearest
    uncovered centroid. Distance ties go to the lower row.

    Returns
    -------
    ndarray of int, shape (k,)
    """
    return kmeans_many(X, [k], [rng], include=include, n_init=n_init)[0]


def _many(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator]) -> list[np.ndarray]:
    return kmeans_many(X, ks, rngs)


register(StrategyInfo(
    "kmeans", kmeans_select, nested=False, uses_features=True, title="k-means",
    description="k-means++ clustering into k groups; the dataset nearest each centroid represents it.",
    many=_many,
))
