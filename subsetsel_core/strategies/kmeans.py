"""``kmeans``: k-means++ with restarts, then the nearest distinct dataset to each centroid."""

from __future__ import annotations

import numpy as np

from .base import StrategyInfo, register

N_INIT = 10
MAX_ITER = 100
TOL = 1e-8


def _sq_dists(X: np.ndarray, x2: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances of rows of X to centres C (R, k, p) → (R, n, k)."""
    c2 = (C * C).sum(axis=-1)
    d = x2[None, :, None] - 2.0 * np.einsum("np,rkp->rnk", X, C) + c2[:, None, :]
    return np.maximum(d, 0.0)


def kmeans_plus_plus(X: np.ndarray, k: int, rng: np.random.Generator, n_init: int) -> np.ndarray:
    """k-means++ seeding for ``n_init`` independent restarts at once; shape (n_init, k, p)."""
    n, p = X.shape
    x2 = (X * X).sum(axis=1)
    first = rng.integers(0, n, size=n_init)
    C = np.empty((n_init, k, p))
    C[:, 0] = X[first]
    d2 = _sq_dists(X, x2, C[:, :1])[:, :, 0]
    rows = np.arange(n_init)
    for j in range(1, k):
        total = d2.sum(axis=1)
        u = rng.random(n_init) * total
        cum = np.cumsum(d2, axis=1)
        idx = np.minimum((cum <= u[:, None]).sum(axis=1), n - 1)
        flat = total <= 0  # all points coincide with centres: pick uniformly
        if flat.any():
            idx[flat] = rng.integers(0, n, size=int(flat.sum()))
        C[:, j] = X[idx]
        np.minimum(d2, _sq_dists(X, x2, C[rows, j][:, None, :])[:, :, 0], out=d2)
    return C


def lloyd(X: np.ndarray, C: np.ndarray, max_iter: int = MAX_ITER, tol: float = TOL) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd iterations for all restarts at once.

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (R, k, p)
        Initial centres; an emptied cluster keeps its centre.

    Returns
    -------
    centres : ndarray (R, k, p)
    inertia : ndarray (R,)
    """
    x2 = (X * X).sum(axis=1)
    R, k, _ = C.shape
    C = C.copy()
    for _ in range(max_iter):
        d = _sq_dists(X, x2, C)
        lab = d.argmin(axis=2)  # (R, n)
        onehot = (lab[:, :, None] == np.arange(k)[None, None, :]).astype(float)
        counts = onehot.sum(axis=1)  # (R, k)
        sums = np.einsum("rnk,np->rkp", onehot, X)
        newC = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1)[:, :, None], C)
        shift = ((newC - C) ** 2).sum()
        C = newC
        if shift <= tol:
            break
    d = _sq_dists(X, x2, C)
    return C, d.min(axis=2).sum(axis=1)


def kmeans_select(
    X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = (),  # type: ignore[assignment]
    n_init: int = N_INIT,
) -> np.ndarray:
    """k-means++ (``n_init`` restarts from ``rng``), then for each centroid the nearest
    dataset not yet taken — exactly ``k`` distinct datasets.

    Must-include rows are taken first; each covers its nearest still-uncovered centroid.
    Remaining centroids are visited in seeding order; distance ties go to the lower row.

    Returns
    -------
    ndarray of int, shape (k,)
    """
    n = X.shape[0]
    inc = [int(i) for i in np.asarray(include, dtype=np.int64)]
    if X.shape[1] == 0:  # no geometry: every point is the same
        rest = [i for i in range(n) if i not in set(inc)]
        return np.asarray((inc + rest)[:k], dtype=np.int64)
    C0 = kmeans_plus_plus(X, k, rng, n_init)
    C, inertia = lloyd(X, C0)
    centres = C[int(np.argmin(inertia))]
    d = np.sqrt(np.maximum(_sq_dists(X, (X * X).sum(axis=1), centres[None])[0], 0.0))  # (n, k)
    covered = np.zeros(k, dtype=bool)
    taken = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    for i in inc:
        j = int(np.argmin(np.where(covered, np.inf, d[i])))
        covered[j] = True
        taken[i] = True
        chosen.append(i)
    for j in range(k):
        if covered[j]:
            continue
        i = int(np.argmin(np.where(taken, np.inf, d[:, j])))
        taken[i] = True
        chosen.append(i)
    return np.asarray(chosen, dtype=np.int64)


register(StrategyInfo(
    "kmeans", kmeans_select, nested=False, uses_features=True, title="k-means",
    description="k-means++ clustering into k groups; the dataset nearest each centroid represents it.",
))
