"""``kmeans``: k-means++ with restarts, then the nearest distinct dataset to each centroid.

On a pool ``X`` (n, p), standardised by the caller, and a subset size k:

1. k-means++ seeding of ``n_init`` restarts, every draw from the generator passed in;
2. Lloyd iterations (at most :data:`MAX_ITER` centre updates, until no label changes; an
   emptied cluster keeps its centre); the restart of least inertia (the first) is kept;
3. must-include rows come first, each covering its nearest uncovered centroid; then each
   remaining centroid, in seeding order, takes the nearest dataset not yet taken (ties to
   the lower index): k distinct rows. With p = 0 (one point): include, then rows in order.

With more columns than rows (a text embedding of a small pool), the pool is first written in
coordinates of the space it spans (:func:`in_span`): the same distances, fewer numbers.

The same generator state, machine and library versions give the same selection. Seeding and
Lloyd's iterations run run by run, compiled (:mod:`~subsetsel_core.strategies.kmeans_kernels`)
or, for small inputs, in numpy (:mod:`~subsetsel_core.strategies.kmeans_numpy`) with the same
numbers (:mod:`~subsetsel_core.strategies.kernel_choice`), so a run's arithmetic depends on its
own data only and :func:`kmeans_many` equals :func:`kmeans_select` for each k.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from subsetsel_core.strategies import kernel_choice
from subsetsel_core.strategies.base import StrategyInfo

N_INIT = 10
MAX_ITER = 100
_BLOCK = 2**22  # elements of the largest temporary array of the final picks
#: Elementary operations of seeding and Lloyd's iterations per (centre, element of X): the seeding's
#: three per distance and about ten iterations of four (kernel_choice's estimate of a call's size)
_SEED_AND_LLOYD = 43.0


def _best_centres(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator],
                  n_init: int) -> list[np.ndarray]:
    """The best-inertia centres (k, p) of every k, in seeding order.

    ``rngs[i]`` draws the ``n_init`` first rows of ``ks[i]``'s restarts, then the (n_init,
    k − 1) uniforms of their next centres (step 1 of the module docstring).
    """
    n, ka = X.shape[0], np.repeat(np.asarray(ks, dtype=np.int64), n_init)
    first, u = np.empty(len(ka), dtype=np.int64), np.zeros((len(ka), max(ks)))
    for i, (k, g) in enumerate(zip(ks, rngs, strict=True)):
        first[i * n_init:(i + 1) * n_init] = g.integers(0, n, size=n_init)
        u[i * n_init:(i + 1) * n_init, 1:k] = g.random((n_init, k - 1))
    # compiled (numba, imported on first use) or numpy: the same numbers; numpy while loading numba costs more
    if kernel_choice.use_compiled(_SEED_AND_LLOYD * float(ka.sum()) * X.size):
        from subsetsel_core.strategies.kmeans_kernels import lloyd_runs, seed_runs
    else:
        from subsetsel_core.strategies.kmeans_numpy import lloyd_runs, seed_runs
    centres, inertia = lloyd_runs(X, X[seed_runs(X, first, u, ka)], ka, MAX_ITER)
    start = np.cumsum(ka) - ka
    best = [i * n_init + int(np.argmin(inertia[i * n_init:(i + 1) * n_init])) for i in range(len(ks))]
    return [centres[start[b]:start[b] + ka[b]] for b in best]


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


def in_span(X: np.ndarray) -> np.ndarray:
    """X's rows in coordinates of the space they span, when it has fewer dimensions than X has
    columns (n points span at most n − 1 after centring): every distance between points, and
    between points and means of points (k-means' centres), is the same, so k-means there is
    k-means on X, with p reduced to the rank (an embedding of 384 numbers per dataset, on a pool
    of 90 datasets: 4× less arithmetic per distance). Otherwise X itself.

    The coordinates are the left singular vectors scaled by the singular values of X less its
    column means (a rotation and a translation); directions of no spread (singular value below
    1e-12 of the largest) carry nothing and are left out.
    """
    n, p = X.shape
    if p <= n:
        return X
    u, sv, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    r = int(np.count_nonzero(sv > 1e-12 * sv[0])) if sv.size and sv[0] > 0 else 0
    return np.ascontiguousarray(u[:, :max(r, 1)] * sv[:max(r, 1)])


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
    X = in_span(X)
    XT, CT = X.T.copy(), np.concatenate(_best_centres(X, ks, rngs, n_init)).T.copy()
    if not inc and kernel_choice.use_compiled(3.0 * CT.shape[1] * X.size):  # compiled: the numbers of the lines below
        from subsetsel_core.strategies.kmeans_kernels import picks

        chosen = picks(XT, CT, np.asarray(ks, dtype=np.int64))
        return [chosen[o - k:o] for o, k in zip(np.cumsum(ks).tolist(), ks, strict=True)]
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
    many=kmeans_many, colour="#1f77b4", seconds_per_trial=0.012,
)
