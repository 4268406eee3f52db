"""``kmeans``: k-means++ with restarts, then the nearest distinct dataset to each centroid.

:func:`kmeans_many` runs every (k, restart) pair of a trial as one batch of Lloyd
iterations, which is what makes the protocol fast; :func:`kmeans_select` is the same
computation for one k, so both give identical subsets for the same generator.

Floating point
--------------
Every number is computed with the same operations, in the same order, as the first
version of this module: distances ``(c·c − 2·c·x) + x·x`` from one BLAS product of the
centres with the datasets, cluster sums from one BLAS product with a 0/1 membership
matrix, and the same numpy reductions. So the optimised loop chooses the same subsets.
Three shortcuts rely on a property of the BLAS product checked in
``tests/test_performance_kernels.py``: single-threaded (as the protocol runs it), with an
even number of rows, row i of ``A @ B`` depends on row i of ``A`` only. They are taken
only where the original products had an even number of rows:

* the squared distances between datasets are computed once (n ≤ :data:`_GRAM_MAX`, an
  even number of restarts) and gathered for the seeding and the first Lloyd iteration;
* when the largest k is even, the centres of all runs are stacked without padding
  (:func:`_lloyd_ragged`) instead of padded to the largest k and masked (:func:`_lloyd`);
* minimum and first arg-minimum over the centres use two fast reductions instead of
  ``argmin`` along a middle axis (same values, ties to the first centre).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import StrategyInfo, register

N_INIT = 10
MAX_ITER = 100
_GRAM_MAX = 2048  # largest n for which the n × n distance tables are precomputed
_PICK_BLOCK = 2**22  # elements of one (rows, centres, p) block in _pick (memory bound)


def _gram(X: np.ndarray) -> np.ndarray:
    """``X @ X.T`` computed with an even number of rows (every row by the main BLAS kernel)."""
    n = X.shape[0]
    Xe = np.ascontiguousarray(X) if n % 2 == 0 else np.vstack([X, np.zeros((1, X.shape[1]))])
    return (Xe @ X.T)[:n]


def _use_tables(n: int, p: int, n_init: int) -> bool:
    return n_init % 2 == 0 and 2 <= n <= _GRAM_MAX and p >= 1


def _seed_centres(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], n_init: int) -> np.ndarray:
    """k-means++ seeding of ``n_init`` restarts for every k; shape (len(ks)·n_init, max k, p).

    Run ``i·n_init + r`` is restart r for ``ks[i]`` (padding rows are zero); see :func:`_seed`.
    """
    return _seed(X, ks, rngs, n_init)[0]


def _seed(
    X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator], n_init: int,
    gram: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """k-means++ seeding of ``n_init`` restarts for every k.

    Run ``i·n_init + r`` is restart r for ``ks[i]``; its draws come from ``rngs[i]`` only,
    in a fixed order (first centres, then one uniform per restart and step).

    Returns
    -------
    C : ndarray (len(ks)·n_init, max k, p)
        Seeded centres (padding rows are zero).
    rows : ndarray of int (len(ks)·n_init, max k)
        The dataset each centre was seeded on (−1 for padding).
    """
    n, p = X.shape
    kmax = max(ks)
    R = len(ks) * n_init
    x2 = (X * X).sum(axis=1)
    first = np.concatenate([g.integers(0, n, size=n_init) for g in rngs])
    # every generator's uniforms in one call: the same numbers, in the same order, as one
    # call of size n_init per seeding step
    draws = [g.random((k - 1) * n_init) for g, k in zip(rngs, ks, strict=True)]
    rows = np.full((R, kmax), -1, dtype=np.int64)
    rows[:, 0] = first
    if gram is not None:
        # (x2[j] − 2·x_i·x_j) + x2[i], clipped at 0: the seeding's distance formula
        table = x2[None, :] - 2.0 * gram
        table += x2[:, None]
        np.maximum(table, 0.0, out=table)
        d2 = table[first]
    else:
        C0 = X[first]
        d2 = np.maximum(x2[None, :] - 2.0 * C0 @ X.T + x2[first][:, None], 0.0)  # (R, n)
    karr = np.repeat(np.asarray(ks), n_init)
    suffix = bool(np.all(np.diff(karr) >= 0))  # ks ascending: the runs still seeding are a suffix
    for j in range(1, kmax):
        if suffix:
            s = int(np.searchsorted(karr, j, side="right"))
            if s == R:
                break
            act: slice | np.ndarray = slice(s, R)
        else:
            act = np.flatnonzero(karr > j)
            if act.size == 0:
                break
        u = np.concatenate([dr[(j - 1) * n_init:j * n_init] for dr, k in zip(draws, ks, strict=True) if k > j])
        dd = d2[act]
        total = dd.sum(axis=1)
        cum = np.cumsum(dd, axis=1)
        idx = np.minimum((cum <= (u * total)[:, None]).sum(axis=1), n - 1)
        flat = total <= 0
        if flat.any():  # every point sits on a centre: take the first point
            idx[flat] = 0
        rows[act, j] = idx
        if gram is not None:
            dnew = table[idx]
        else:
            dnew = np.maximum(x2[None, :] - 2.0 * X[idx] @ X.T + x2[idx][:, None], 0.0)
        if suffix:
            np.minimum(dd, dnew, out=dd)  # dd is a view of d2
        else:
            d2[act] = np.minimum(dd, dnew)
    C = np.zeros((R, kmax, p))
    ok = rows >= 0
    C[ok] = X[rows[ok]]
    return C, rows


def _first_weights(kmax: int) -> np.ndarray:
    """Weights ``kmax − j`` of centre j, shape (1, kmax, 1), in the smallest unsigned type."""
    dtype = np.uint8 if kmax < 2**8 else np.uint16 if kmax < 2**16 else np.uint32
    return (kmax - np.arange(kmax)).astype(dtype)[None, :, None]


def _min_argmin(d: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``d.min(axis=1)`` and ``d.argmin(axis=1)`` (first index among equal values) of (a, kmax, n).

    The minimum is a fast reduction along the middle axis; the first index reaching it is
    the largest ``(d == min) · (kmax − j)``, another such reduction (``argmin`` along a
    middle axis copies the array and is several times slower).
    """
    m = d.min(axis=1)
    eq = np.equal(d, m[:, None, :])
    t = eq.view(np.uint8) if weights.dtype == np.uint8 else eq.astype(weights.dtype)
    t *= weights
    return m, d.shape[1] - t.max(axis=1).astype(np.intp)


def _lloyd(
    X: np.ndarray, C: np.ndarray, valid: np.ndarray, max_iter: int = MAX_ITER,
    first: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Batched Lloyd iterations; a run stops when none of its labels changes.

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (R, kmax, p)
        Initial centres (padded).
    valid : ndarray of bool (R, kmax)
        Which centres exist in each run; an emptied cluster keeps its centre.
    first : ndarray (R, kmax, n), optional
        The distances of the first iteration, if already known (``inf`` for padding).

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
    labels = np.full((R, n), -1)
    inertia = np.zeros(R)
    act = np.arange(R)
    weights = _first_weights(kmax)
    for it in range(max_iter + 1):
        if it == 0 and first is not None:
            d = first
        else:
            Ca = C[act]
            c2 = (Ca * Ca).sum(axis=2)
            c2[~valid[act]] = np.inf  # padded centres: inf distance, as adding an inf mask
            # (c2 − 2·c·x) + x2, in place: the same rounding as the expression spelled out
            d = (Ca.reshape(-1, p) @ XT).reshape(act.size, kmax, n)
            d *= -2.0
            d += c2[:, :, None]
            d += x2
        m, new = _min_argmin(d, weights)  # over the centres, ties to the first
        changed = (new != labels[act]).any(axis=1)
        if not changed.all():
            stop = ~changed
            inertia[act[stop]] = np.maximum(m[stop], 0.0).sum(axis=1)
        if it == max_iter:
            if changed.any():
                inertia[act[changed]] = np.maximum(m[changed], 0.0).sum(axis=1)
            break
        if not changed.all():
            act = act[changed]
            new = new[changed]
        if act.size == 0:
            break
        labels[act] = new
        a = act.size
        onehot = np.zeros((a * kmax, n))
        onehot.reshape(-1)[((np.arange(a)[:, None] * kmax + new) * n + np.arange(n)).ravel()] = 1.0
        counts = np.bincount((np.arange(a)[:, None] * kmax + new).ravel(), minlength=a * kmax).reshape(a, kmax)
        sums = (onehot @ X).reshape(a, kmax, p)
        has = counts > 0
        sums /= np.maximum(counts, 1.0)[:, :, None]
        C[act] = np.where(has[:, :, None], sums, C[act])
    return C, inertia


def _segments(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start of each segment and, per row, its position inside its segment."""
    starts = np.cumsum(sizes) - sizes
    local = np.arange(int(sizes.sum())) - np.repeat(starts, sizes)
    return starts, local


def _blocks(ks: Sequence[int], slack: float = 1.25) -> list[int]:
    """Padded size of each k: consecutive ks share the largest k of their block while the
    padded rows stay within ``slack`` times the real ones (fewer, larger blocks)."""
    out = list(ks)
    i = 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and max(ks[i:j + 2]) * (j + 2 - i) <= slack * sum(ks[i:j + 2]):
            j += 1
        top = max(ks[i:j + 1])
        out[i:j + 1] = [top] * (j + 1 - i)
        i = j + 1
    return out


def _groups(sizes: np.ndarray, starts: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Maximal blocks of consecutive runs with equal size: (first run, end run, first row, size)."""
    cut = (np.flatnonzero(np.diff(sizes)) + 1).tolist()
    lo = [0, *cut]
    hi = [*cut, len(sizes)]
    st = starts[lo].tolist()
    sz = sizes[lo].tolist()
    return list(zip(lo, hi, st, sz, strict=True))


def _lloyd_ragged(
    X: np.ndarray, C: np.ndarray, sizes: np.ndarray, max_iter: int = MAX_ITER, first: np.ndarray | None = None,
    real: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lloyd` with little padding: run r's ``sizes[r]`` centres are consecutive rows of ``C``.

    Runs are padded only to the size of their block (runs of similar k, see
    :func:`_blocks`), not to the largest k. The BLAS products get these rows (plus one zero
    row when their number is odd); each entry equals the fully padded computation's (the
    products have an even number of rows in both, see the module docstring), so the
    results are the same. Used when the largest k is even (then the fully padded products
    always had an even number of rows). Minimum and first arg-minimum are taken per block
    of runs of the same size.

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (sum(sizes), p)
        Initial centres, run after run (padding rows zero).
    sizes : ndarray of int (R,)
    first : ndarray (sum(sizes), n), optional
        The distances of the first iteration (``inf`` for padding).
    real : ndarray of bool (sum(sizes),), optional
        Which rows are real centres (default: all).

    Returns
    -------
    centres : ndarray (sum(sizes), p)
    inertia : ndarray (R,)
    """
    n, p = X.shape
    R = len(sizes)
    C = C.copy()
    offsets = np.cumsum(sizes) - sizes
    XT = X.T
    x2 = (X * X).sum(axis=1)
    labels = np.full((R, n), -1)
    inertia = np.zeros(R)
    act = np.arange(R)
    weights = {int(k): _first_weights(int(k)) for k in np.unique(sizes)}
    ka = sizes
    starts, local = _segments(ka)
    groups = _groups(ka, starts)
    rows = np.arange(int(ka.sum()))
    for it in range(max_iter + 1):
        if it == 0 and first is not None:
            d = first
        else:
            Ca = C[rows]
            c2 = (Ca * Ca).sum(axis=1)
            if real is not None:
                c2[~real[rows]] = np.inf  # padding: inf distance, as adding an inf mask
            if rows.size % 2:
                Ca = np.vstack([Ca, np.zeros((1, p))])
            d = (Ca @ XT)[: rows.size]
            d *= -2.0
            d += c2[:, None]
            d += x2
        m = np.empty((act.size, n))
        new = np.empty((act.size, n), dtype=np.intp)
        for a0, a1, r0, k in groups:  # runs of one k: (runs, k, n) blocks, as in _min_argmin
            m[a0:a1], new[a0:a1] = _min_argmin(d[r0:r0 + (a1 - a0) * k].reshape(a1 - a0, k, n), weights[k])
        changed = (new != labels[act]).any(axis=1)
        if not changed.all():
            stop = ~changed
            inertia[act[stop]] = np.maximum(m[stop], 0.0).sum(axis=1)
        if it == max_iter:
            if changed.any():
                inertia[act[changed]] = np.maximum(m[changed], 0.0).sum(axis=1)
            break
        if not changed.any():
            break
        if not changed.all():
            act = act[changed]
            new = new[changed]
            ka = sizes[act]
            starts, local = _segments(ka)
            groups = _groups(ka, starts)
            rows = np.repeat(offsets[act], ka) + local
        labels[act] = new
        nr = rows.size
        hot = (starts[:, None] + new).ravel()  # row of each (run, dataset) in the active block
        onehot = np.zeros((nr + nr % 2, n))
        onehot.reshape(-1)[hot * n + np.tile(np.arange(n), act.size)] = 1.0
        counts = np.bincount(hot, minlength=nr)
        sums = (onehot @ X)[:nr]
        sums /= np.maximum(counts, 1.0)[:, None]
        has = counts > 0
        C[rows[has]] = sums[has]
    return C, inertia


def _sq_dist(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``((X[:, None, :] − centres[None]) ** 2).sum(axis=2)``, shape (n, k)."""
    return ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)


def _sq_dist_blocks(X: np.ndarray, blocks: Sequence[np.ndarray]) -> list[np.ndarray]:
    """:func:`_sq_dist` of every block of centres; consecutive blocks share one call while
    its temporary holds at most :data:`_PICK_BLOCK` elements (a larger block gets its own)."""
    n, p = X.shape
    out: list[np.ndarray] = []
    i = 0
    while i < len(blocks):
        j, size = i + 1, len(blocks[i])
        while j < len(blocks) and n * (size + len(blocks[j])) * p <= _PICK_BLOCK:
            size += len(blocks[j])
            j += 1
        d = _sq_dist(X, np.concatenate(blocks[i:j]) if j > i + 1 else blocks[i])
        lo = 0
        for b in blocks[i:j]:
            out.append(d[:, lo:lo + len(b)])
            lo += len(b)
        i = j
    return out


def _pick(X: np.ndarray, centres: np.ndarray, include: Sequence[int], d: np.ndarray | None = None) -> np.ndarray:
    """Include first (each covering its nearest free centroid), then per centroid the nearest free row.

    ``d`` (n, k) may hold the squared distances already.
    """
    n = X.shape[0]
    k = centres.shape[0]
    if d is None:
        d = _sq_dist(X, centres)  # (n, k)
    covered = np.zeros(k, dtype=bool)
    taken = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    for i in include:
        j = int(np.argmin(np.where(covered, np.inf, d[i])))
        covered[j] = True
        taken[i] = True
        chosen.append(int(i))
    nearest = d.argmin(axis=0).tolist()  # ties: the lower row, as np.argmin below
    used: set[int] = set(chosen)
    for j in range(k):
        if covered[j]:
            continue
        i = nearest[j]
        if i in used:  # the nearest row is taken: the nearest free one
            i = int(np.argmin(np.where(taken, np.inf, d[:, j])))
        taken[i] = True
        used.add(i)
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
    gram = _gram(X) if _use_tables(n, p, n_init) else None
    C0, rows = _seed(X, ks, rngs, n_init, gram)
    valid = rows >= 0
    table = None
    if gram is not None:
        # first Lloyd iteration: centres are datasets, (x2[i] − 2·x_i·x_j) + x2[j]
        x2 = (X * X).sum(axis=1)
        table = np.empty((n + 1, n))
        np.multiply(gram, -2.0, out=table[:n])
        table[:n] += x2[:, None]
        table[:n] += x2[None, :]
        table[n] = np.inf
    if max(ks) % 2 == 0:
        sizes = np.repeat(np.asarray(_blocks(ks), dtype=np.int64), n_init)  # padded run sizes
        inside = np.arange(C0.shape[1])[None, :] < sizes[:, None]
        real = valid[inside]
        first = None if table is None else table[np.where(valid, rows, n)[inside]]
        Cr, inertia = _lloyd_ragged(X, C0[inside], sizes, first=first, real=real)
        C = np.zeros_like(C0)
        C[inside] = Cr
    else:
        first = None if table is None else table[np.where(valid, rows, n)]
        C, inertia = _lloyd(X, C0, valid, first=first)
    best = [i * n_init + int(np.argmin(inertia[i * n_init:(i + 1) * n_init])) for i in range(len(ks))]
    if inc:
        return [_pick(X, C[b, :k], inc) for b, k in zip(best, ks, strict=True)]
    # the chosen centres of several k against every dataset in one pass (same values as per k)
    centres = [C[b, :k] for b, k in zip(best, ks, strict=True)]
    return [_pick(X, c, inc, d) for c, d in zip(centres, _sq_dist_blocks(X, centres), strict=True)]


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
