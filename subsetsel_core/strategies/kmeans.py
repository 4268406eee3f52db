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
* when the largest k is even, the centres of all runs are stacked with little padding
  (runs of similar k share a block size) instead of padded to the largest k and masked;
* minimum and first arg-minimum over the centres use two fast reductions instead of
  ``argmin`` along a middle axis (same values, ties to the first centre).

One Lloyd loop, :func:`_lloyd_runs`, serves both layouts (``stacked``: the padded one,
whose odd products it reproduces, also used by ``budget.py`` through :func:`_lloyd`). For
large n it computes only the distances that can change a label (:func:`_lloyd_bounded`:
bounds with a margin far above the rounding error, so the labels are those of the whole
computation) and the cluster sums in the order the BLAS product adds them (blocks of the
inner dimension, each added one dataset after the other; checked against this BLAS once per
shape, else the whole products are used). There the restarts run side by side on two
threads (each run touches only its own rows; :func:`single_threaded` turns this off, as the
protocol's batches do), and the final picks compute exact distances only for the datasets
that can be the nearest (:class:`_BoundedDistances`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from typing import Any

import numpy as np

from subsetsel_core.evaluation.parallel import one_blas_thread
from subsetsel_core.strategies.base import StrategyInfo, register

N_INIT = 10
MAX_ITER = 100
_LOCAL = threading.local()
_GRAM_MAX = 2048  # largest n for which the n × n distance tables are precomputed
_PICK_BLOCK = 2**22  # elements of one (rows, centres, p) block in _pick (memory bound)


def _threads() -> int:
    """Threads for the restarts of a bounded Lloyd loop: two where the machine has them,
    one inside :func:`single_threaded` (the protocol's batches, which run in parallel)."""
    return getattr(_LOCAL, "threads", None) or min(2, os.cpu_count() or 1)


@contextmanager
def single_threaded() -> Iterator[None]:
    """Run the k-means of this thread on one thread (results do not depend on it)."""
    before = getattr(_LOCAL, "threads", None)
    _LOCAL.threads = 1
    try:
        yield
    finally:
        _LOCAL.threads = before


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
    """Batched Lloyd iterations on runs padded to the largest k (see :func:`_lloyd_runs`).

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (R, kmax, p)
        Initial centres (padded).
    valid : ndarray of bool (R, kmax)
        Which centres exist in each run; an emptied cluster keeps its centre.
    max_iter : int
    first : ndarray (R, kmax, n), optional
        The distances of the first iteration, if already known (``inf`` for padding).

    Returns
    -------
    centres : ndarray (R, kmax, p)
    inertia : ndarray (R,)
    """
    R, kmax, p = C.shape
    sizes = np.full(R, kmax, dtype=np.int64)
    f = None if first is None else first.reshape(R * kmax, -1)
    Cr, inertia = _lloyd_runs(X, C.reshape(R * kmax, p), sizes, max_iter=max_iter, first=f,
                              real=valid.reshape(-1), stacked=True)
    return Cr.reshape(R, kmax, p), inertia


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


def _lloyd_runs(
    X: np.ndarray, C: np.ndarray, sizes: np.ndarray, *, max_iter: int = MAX_ITER,
    first: np.ndarray | None = None, real: np.ndarray | None = None, stacked: bool = False,
    bounded: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Batched Lloyd iterations; run r's ``sizes[r]`` centres are consecutive rows of ``C``.

    A run stops when none of its labels changes (or after ``max_iter`` updates); an
    emptied cluster keeps its centre. Runs are padded only to the size of their block
    (runs of similar k, see :func:`_blocks`); padding rows have ``real`` False and an
    infinite distance.

    Every number is the one of the first version of this module, which computed each
    iteration with two BLAS products over the rows of all active runs (distances, and
    cluster sums through a 0/1 membership matrix). ``stacked`` says which products:

    * ``False``: the rows plus one zero row when their number is odd — every row by the
      main BLAS kernel, so each row's values depend on that row only (module docstring);
    * ``True``: the rows as they are (runs padded to the largest k) — when their number is
      odd, the last one goes through BLAS's single-row edge kernel, whose order of
      operations differs; that row is recomputed in a three-row product, which gives the
      same values (checked in ``tests/test_performance_kernels.py``).

    Two ways to get there (same results): for small n, the whole products (:func:`_lloyd_full`);
    for large n (``bounded``, default n > :data:`_GRAM_MAX`), :func:`_lloyd_bounded`.

    Parameters
    ----------
    X : ndarray (n, p)
    C : ndarray (sum(sizes), p)
        Initial centres, run after run (padding rows zero).
    sizes : ndarray of int (R,)
    max_iter : int
    first : ndarray (sum(sizes), n), optional
        The distances of the first iteration (``inf`` for padding).
    real : ndarray of bool (sum(sizes),), optional
        Which rows are real centres (default: all); within a run, a prefix.
    stacked : bool
        Reproduce the products of the fully padded layout (see above).
    bounded : bool, optional
        Force one of the two ways (tests); default by size.

    Returns
    -------
    centres : ndarray (sum(sizes), p)
    inertia : ndarray (R,)
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if bounded is None:
        bounded = X.shape[0] > _GRAM_MAX
    if bounded and X.shape[1] >= 1 and _sums_model_ok(*X.shape):
        return _lloyd_bounded(X, C, sizes, max_iter=max_iter, first=first, real=real, stacked=stacked)
    return _lloyd_full(X, C, sizes, max_iter=max_iter, first=first, real=real, stacked=stacked)


def _lloyd_full(
    X: np.ndarray, C: np.ndarray, sizes: np.ndarray, *, max_iter: int, first: np.ndarray | None,
    real: np.ndarray | None, stacked: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lloyd_runs` with the whole products at every iteration (small n)."""
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
            if rows.size % 2 and not stacked:
                Ca = np.vstack([Ca, np.zeros((1, p))])
            d = (Ca @ XT)[: rows.size]
            d *= -2.0
            d += c2[:, None]
            d += x2
        m = np.empty((act.size, n))
        new = np.empty((act.size, n), dtype=np.intp)
        for a0, a1, r0, k in groups:  # runs of one k: (runs, k, n) blocks
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
        onehot = np.zeros((nr + (0 if stacked else nr % 2), n))
        onehot.reshape(-1)[hot * n + np.tile(np.arange(n), act.size)] = 1.0
        counts = np.bincount(hot, minlength=nr)
        sums = (onehot @ X)[:nr]
        sums /= np.maximum(counts, 1.0)[:, None]
        has = counts > 0
        C[rows[has]] = sums[has]
    return C, inertia


_SINGLE = True  # single-precision distances decide the clear labels (tests switch it off)
# the same for single precision, per term of the product [x, ‖x‖², 1]·[−2c, 1, ‖c‖²]: its
# rounding error is at most about (p + 6)·2⁻²⁴·(‖x‖ + ‖c‖)² (inputs rounded, p + 2 terms);
# the margin is 25 times that
_TAU32 = 25 * 2.0**-24
_TINY32 = 1e-30  # and an absolute floor for underflow
_TAU = 1e-8  # bound on the rounding error of a computed squared distance, relative to (‖x‖ + ‖c‖)²
_SUM_Q, _SUM_U = 256, 4  # OpenBLAS (Haswell) dgemm: depth block and row unroll
_SUMS_OK: dict[tuple[int, int], bool] = {}


def _depth_blocks(n: int, q: int = _SUM_Q, u: int = _SUM_U) -> np.ndarray:
    """Start of each block of the inner dimension (n) in OpenBLAS's single-threaded dgemm."""
    out = []
    ls = 0
    while ls < n:
        m = n - ls
        if m >= 2 * q:
            m = q
        elif m > q:
            m = ((m // 2 + u - 1) // u) * u
        out.append(ls)
        ls += m
    return np.asarray(out, dtype=np.int64)


def _member_sums(X: np.ndarray, rowid: np.ndarray, cols: np.ndarray, nrows: int) -> np.ndarray:
    """``S[i] = X[cols[rowid == i]]`` added one after the other in index order (``cols`` ascending;
    ``X`` C-contiguous), from 0: a sparse product, shape (nrows, p)."""
    small = rowid.astype(np.uint16) if nrows <= 2**16 else rowid  # radix sort: several times faster
    order = np.argsort(small, kind="stable")
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rowid, minlength=nrows), out=indptr[1:])
    indices = cols[order].astype(np.int64, copy=False)
    kernel = _csr_kernel()
    if kernel is None:  # pragma: no cover - a scipy that moved it
        from scipy.sparse import csr_matrix

        return np.asarray(csr_matrix((np.ones(cols.size), indices, indptr), shape=(nrows, X.shape[0])) @ X)
    out = np.zeros((nrows, X.shape[1]))
    kernel(nrows, X.shape[0], X.shape[1], indptr, indices, np.ones(cols.size), X.ravel(), out.ravel())
    return out


_CSR: list[Any] = []


def _csr_kernel() -> Any:
    """scipy's CSR × dense kernel (``Y += A·X``), called without building a sparse matrix
    (its checks cost more than the sums); None if this scipy does not have it.

    The compiled module is loaded from its file when ``scipy.sparse`` is not imported yet:
    the package's own import takes about 0.2 s, the module alone under a millisecond.
    """
    if not _CSR:
        _CSR.append(_load_csr_kernel())
    return _CSR[0]


def _load_csr_kernel() -> Any:
    import sys

    name = "scipy.sparse._sparsetools"
    if name not in sys.modules:
        try:
            import importlib.machinery
            import importlib.util

            import scipy

            folder = os.path.join(os.path.dirname(scipy.__file__), "sparse")
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "_sparsetools" + suffix)
                if os.path.exists(path):
                    spec = importlib.util.spec_from_file_location(name, path)
                    if spec is not None and spec.loader is not None:
                        module = importlib.util.module_from_spec(spec)
                        spec.loader.exec_module(module)
                        return module.csr_matvecs
        except Exception:  # noqa: BLE001 - any surprise: the regular import below
            pass
    try:
        from scipy.sparse._sparsetools import csr_matvecs
    except ImportError:  # pragma: no cover
        return None
    return csr_matvecs


def _fold(parts: np.ndarray) -> np.ndarray:
    """Block partial sums (rows, blocks, p) added block after block, as BLAS adds them.

    With p ≥ 2 numpy's sum over the middle axis adds one block after the other (the
    pairwise summation applies only along a contiguous reduced axis, as with p = 1), and
    is several times faster than the cumulative sum.
    """
    if parts.shape[1] == 1:
        return parts[:, 0].copy()
    return parts.sum(axis=1) if parts.shape[2] >= 2 else np.add.accumulate(parts, axis=1)[:, -1]


def _sums_model_ok(n: int, p: int) -> bool:
    """Whether sums by :func:`_member_sums` per block of :func:`_depth_blocks`, then
    :func:`_fold`, equal this BLAS's product with a 0/1 matrix for shape (n, p) (cached)."""
    key = (n, p)
    if key not in _SUMS_OK:
        g = np.random.default_rng(20240601)
        Xp = g.standard_normal((n, p)) * np.exp(g.normal(0.0, 2.0, size=(n, 1)))
        lab = np.arange(n) % 4
        onehot = np.zeros((4, n))
        onehot[lab, np.arange(n)] = 1.0
        starts = _depth_blocks(n)
        blk = np.repeat(np.arange(starts.size), np.diff(np.append(starts, n)))
        parts = _member_sums(Xp, lab * starts.size + blk, np.arange(n), 4 * starts.size)
        _SUMS_OK[key] = bool(np.array_equal(onehot @ Xp, _fold(parts.reshape(4, starts.size, p))))
    return _SUMS_OK[key]


def _edge_product(A: np.ndarray, B: np.ndarray, alone: bool) -> np.ndarray:
    """Last row of an odd-row product ``M @ B`` whose last row is ``A`` (1-D): a three-row
    product (same kernel for that row), or ``A @ B`` as one row when M was one row."""
    if alone:
        return (A[None, :] @ B)[0]
    return (np.vstack([np.zeros((2, A.size)), A[None, :]]) @ B)[2]


def _lloyd_bounded(
    X: np.ndarray, C: np.ndarray, sizes: np.ndarray, *, max_iter: int, first: np.ndarray | None,
    real: np.ndarray | None, stacked: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lloyd_runs` computing only the distances that can change a label.

    Hamerly's bounds: per dataset an upper bound ``u`` on the distance to its centre and a
    lower bound ``l`` on the distance to every other centre, moved by how far the centres
    moved. When ``u² + e < l² − e``, with ``e`` = :data:`_TAU` · (‖x‖ + max ‖c‖)² larger
    than the rounding error of a computed squared distance, the computed distance to its
    centre is strictly the smallest: the label stays, with no tie. Other datasets get
    their distances to every centre of the run in single precision first: where the
    nearest and second-nearest are farther apart than twice (p + 6) · :data:`_TAU32` ·
    (‖x‖ + max ‖c‖)² (single precision's rounding error is about 25 times smaller), the
    nearest is the whole computation's, and the two values, widened by that margin, are the
    bounds. The few others get their distances computed as in the whole product (a BLAS
    product of the run's rows, made even, with those datasets' rows; each entry equals the
    whole product's). A run's inertia (when it stops or at ``max_iter``) comes
    from the whole product. A cluster's sums are recomputed only when its members changed
    (or the product that computes its row changed kernel), in the order of the BLAS
    product (:func:`_member_sums` per block, then :func:`_fold`).
    """
    n, p = X.shape
    R = len(sizes)
    C = C.copy()
    offsets = np.cumsum(sizes) - sizes
    rows_all = int(sizes.sum())
    real = np.ones(rows_all, dtype=bool) if real is None else np.asarray(real, dtype=bool)
    kr = np.add.reduceat(real.astype(np.int64), offsets) if R else np.zeros(0, dtype=np.int64)
    x2 = (X * X).sum(axis=1)
    xn = np.sqrt(x2)
    labels = np.full((R, n), -1)
    upper = np.zeros((R, n))
    lower = np.zeros((R, n))
    inertia = np.zeros(R)
    kind = np.full(rows_all, -1)  # how each row's centre was last computed: 0 main, 1 three-row, 2 one-row
    drift = np.zeros(rows_all)
    starts = _depth_blocks(n)
    nblk = starts.size
    blk = np.repeat(np.arange(nblk), np.diff(np.append(starts, n)))
    act = np.arange(R)
    weights = {int(k): _first_weights(int(k)) for k in np.unique(kr)}
    Xc = np.ascontiguousarray(X)
    parts: list[np.ndarray | None] = [None] * R  # per run: (cluster, block) partial sums

    def dist(r: int, cols: np.ndarray | None, edge: int) -> np.ndarray:
        """Distances of run r's real centres to X[cols] (all if None), shape (k, len)."""
        o, k = int(offsets[r]), int(kr[r])
        Cr = C[o:o + k]
        c2 = (Cr * Cr).sum(axis=1)
        Xs = X if cols is None else np.take(Xc, cols, axis=0)
        A = Cr if k % 2 == 0 else np.vstack([Cr, np.zeros((1, p))])
        d = (A @ Xs.T)[:k]
        if edge:  # the run's last row was the last row of an odd product
            row = _edge_product(Cr[k - 1], X.T, edge == 2)
            d[k - 1] = row if cols is None else row[cols]
        d *= -2.0
        d += c2[:, None]
        d += x2 if cols is None else x2[cols]
        return d

    # single precision first: it decides most labels, with a margin far above its rounding
    # error; the rest get the double-precision distances of the whole computation
    # [x, ‖x‖², 1] against [−2c, 1, ‖c‖²]: the whole squared distance from one product
    X32 = None
    if _SINGLE and np.abs(Xc).max() < 1e15:
        X32 = np.empty((n, p + 2), dtype=np.float32)
        X32[:, :p] = Xc
        X32[:, p] = x2
        X32[:, p + 1] = 1.0

    def dist32(r: int, cols: np.ndarray) -> np.ndarray:
        """Single-precision squared distances of run r's real centres to X[cols], (k, len)."""
        o, k = int(offsets[r]), int(kr[r])
        Cr = C[o:o + k]
        A = np.empty((k, p + 2), dtype=np.float32)
        A[:, :p] = -2.0 * Cr
        A[:, p] = 1.0
        A[:, p + 1] = (Cr * Cr).sum(axis=1)
        return A @ np.take(X32, cols, axis=0).T

    def edge_of(runs: np.ndarray) -> np.ndarray:
        """Per run of ``runs`` (stacked in this order): 1 or 2 if its last row is real and
        the last row of an odd product (2: the product has one row), else 0."""
        out = np.zeros(runs.size, dtype=np.int64)
        if stacked and runs.size:
            total = int(sizes[runs].sum())
            r = int(runs[-1])
            if total % 2 and kr[r] == sizes[r]:
                out[-1] = 2 if total == 1 else 1
        return out

    def labels_of(r: int, it: int, edge: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Run r's labels at iteration ``it``; None when none changed (or the last iteration,
        its inertia set), else the moved datasets with their old and new labels."""
        k = int(kr[r])
        cmax = float(np.sqrt((C[offsets[r]:offsets[r] + k] ** 2).sum(axis=1).max()))
        if it == 0:
            cols = None
            d = first[offsets[r]:offsets[r] + k].copy() if first is not None else dist(r, None, edge)
        else:
            e = _TAU * (xn + cmax) ** 2
            cand = upper[r] ** 2 + e >= lower[r] ** 2 - e
            cols = None if cand.all() else np.flatnonzero(cand)
            if cols is not None and X32 is not None and k > 1 and cols.size:
                return finish(r, it, edge, cols, cmax, *labels32(r, cols, cmax, edge))
            d = dist(r, cols, edge) if cols is None or cols.size else np.zeros((k, 0))
        m, lab, second = nearest_two(d, k)
        return finish(r, it, edge, cols, cmax, m, lab, second)

    def nearest_two(d: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per column of d (k, len): smallest value, its first row, second smallest value."""
        if k == 1:
            return d[0].copy(), np.zeros(d.shape[1], dtype=np.intp), np.full(d.shape[1], np.inf)
        mm, ll = _min_argmin(d[None], weights[k])
        d[ll[0], np.arange(d.shape[1])] = np.inf
        return mm[0], ll[0], d.min(axis=0)

    def labels32(r: int, cols: np.ndarray, cmax: float, edge: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Nearest and second-nearest of X[cols]: from single precision where the two are
        farther apart than twice its error bound (plus the double one), as bounds on the
        squared distances (smallest + bound, second − bound); else the exact values."""
        k = int(kr[r])
        m, lab, second = nearest_two(dist32(r, cols), k)
        m, second = m.astype(float), second.astype(float)
        xc = (xn[cols] + cmax) ** 2
        bound = (_TAU32 * (p + 6) + _TAU) * xc + _TINY32
        sure = second - m > 2.0 * bound
        m += bound
        second -= bound
        if not sure.all():
            unsure = np.flatnonzero(~sure)
            m[unsure], lab[unsure], second[unsure] = nearest_two(dist(r, cols[unsure], edge), k)
        return m, lab, second

    def finish(r: int, it: int, edge: int, cols: np.ndarray | None, cmax: float, m: np.ndarray,
               lab: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        idx = np.arange(n) if cols is None else cols
        e = _TAU * (xn[idx] + cmax) ** 2
        upper[r, idx] = np.sqrt(np.maximum(m, 0.0) + e)
        lower[r, idx] = np.sqrt(np.maximum(second - e, 0.0))
        old = labels[r, idx]
        ch = lab != old
        if not ch.any() or it == max_iter:
            if cols is not None:  # the whole product's minimum
                m = dist(r, None, edge).min(axis=0)
            inertia[r] = np.maximum(m[None, :], 0.0).sum(axis=1)[0]
            return None
        labels[r, idx] = lab
        return idx[ch], old[ch], lab[ch]

    def update_centres(r: int, edge: int, moved: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Run r's new centres (the clusters whose members changed) and its moved bounds."""
        o, k = int(offsets[r]), int(kr[r])
        j, was, now = moved
        counts = np.bincount(labels[r], minlength=k)
        need = np.zeros(k, dtype=bool)
        need[now] = True
        need[was[was >= 0]] = True
        need &= counts > 0
        want = np.zeros(k, dtype=np.int64)
        if edge:
            want[k - 1] = edge
        need |= (counts > 0) & (kind[o:o + k] != want)
        todo = np.flatnonzero(need)
        drift[o:o + k] = 0.0
        if not todo.size:
            return
        main = todo[want[todo] == 0]
        sums = np.empty((todo.size, p))
        if parts[r] is None:  # every (cluster, block) partial sum
            parts[r] = _member_sums(Xc, labels[r] * nblk + blk, np.arange(n), k * nblk).reshape(k, nblk, p)
        else:  # the (cluster, block) pairs that gained or lost a dataset
            pair = np.zeros(k * nblk, dtype=bool)
            pair[now * nblk + blk[j]] = True
            pair[was * nblk + blk[j]] = True
            pid = np.flatnonzero(pair)
            pos = np.full(k * nblk, -1)
            pos[pid] = np.arange(pid.size)
            key = pos[labels[r] * nblk + blk]
            cols = np.flatnonzero(key >= 0)
            parts[r].reshape(k * nblk, p)[pid] = _member_sums(Xc, key[cols], cols, pid.size)
        if main.size:
            sums[want[todo] == 0] = _fold(parts[r] if main.size == k else parts[r][main])
        for i in np.flatnonzero(want[todo]).tolist() if edge else ():
            c = int(todo[i])
            oh = (labels[r] == c).astype(float)
            sums[i] = _edge_product(oh, X, want[c] == 2)
        sums /= counts[todo][:, None].astype(float)
        diff = sums - C[o + todo]
        drift[o + todo] = np.sqrt((diff * diff).sum(axis=1))
        C[o + todo] = sums
        kind[o + todo] = want[todo]
        # move the bounds by the drift
        dr = drift[o:o + k]
        top = int(np.argmax(dr))
        d1 = dr[top]
        others = dr.copy()
        others[top] = 0.0
        d2 = others.max()
        upper[r] += dr[labels[r]]
        lower[r] -= np.where(labels[r] == top, d2, d1)
        np.maximum(lower[r], 0.0, out=lower[r])

    def whole_run(r: int) -> None:
        """Run r from start to end (no product is shared with other runs: no edge rows)."""
        for it in range(max_iter + 1):
            moved = labels_of(r, it, 0)
            if moved is None:
                return
            update_centres(r, 0, moved)

    # runs only touch their own rows, so they can go side by side on threads
    jobs = min(_threads(), R)
    pool = ThreadPoolExecutor(jobs) if jobs > 1 else None
    each = pool.map if pool is not None else map
    with ExitStack() as stack:
        if pool is not None:
            stack.enter_context(one_blas_thread())  # two callers, one BLAS thread each
            stack.callback(pool.shutdown)
        if not stacked:  # each run on its own, taken by the next free thread
            list(each(whole_run, range(R)))
            return C, inertia
        for it in range(max_iter + 1):  # the padded layout: a run's products depend on the others
            runs = act.tolist()
            edges = edge_of(act).tolist()
            out = list(each(labels_of, runs, [it] * len(runs), edges))
            moved = [(r, o) for r, o in zip(runs, out, strict=True) if o is not None]
            if it == max_iter or not moved:
                break
            act = np.asarray([r for r, _ in moved], dtype=np.int64)
            # cluster sums of the moved runs (the product after the stopped runs left)
            list(each(update_centres, act.tolist(), edge_of(act).tolist(), [o for _, o in moved]))
    return C, inertia


def _sq_dist(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``((X[:, None, :] − centres[None]) ** 2).sum(axis=2)``, shape (n, k).

    Not computed in chunks of rows: the layout of the temporary follows ``X``'s (often
    Fortran-ordered after standardising), and with it the order of the sums.
    """
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


class _BoundedDistances:
    """The entries of :func:`_sq_dist` that decide the picks, computed only where needed.

    A BLAS product gives every squared distance within ``e`` = 2·:data:`_TAU`·(‖x‖ + ‖c‖)²
    of :func:`_sq_dist`'s (both rounding errors are many orders of magnitude smaller). The
    nearest free row of a centre is among the rows whose lower bound reaches the smallest
    upper bound; only those rows get :func:`_sq_dist`'s values, computed on a copy of
    them in ``X``'s memory order (row- or column-major) with at least two rows — each
    row's values then equal the whole computation's (``tests/test_performance_kernels.py``).
    """

    def __init__(self, X: np.ndarray, centres: np.ndarray) -> None:
        x2 = (X * X).sum(axis=1)
        c2 = (centres * centres).sum(axis=1)
        approx = x2[:, None] - 2.0 * (X @ centres.T) + c2[None, :]
        e = 2.0 * _TAU * (np.sqrt(x2)[:, None] + np.sqrt(c2)[None, :]) ** 2
        self.lo, self.hi = approx - e, approx + e
        self.X, self.centres = X, centres
        self.fortran = min(X.shape) > 1 and abs(X.strides[0]) < abs(X.strides[1])  # column-major
        self.rows: dict[int, np.ndarray] = {}

    def _exact(self, rows: np.ndarray) -> np.ndarray:
        new = [int(i) for i in rows if int(i) not in self.rows]
        if new:
            sub = self.X[new if len(new) > 1 else new * 2]
            sub = np.asfortranarray(sub) if self.fortran else np.ascontiguousarray(sub)
            for i, dist in zip(new, _sq_dist(sub, self.centres), strict=False):
                self.rows[i] = dist
        return np.stack([self.rows[int(i)] for i in rows])

    def row(self, i: int) -> np.ndarray:
        """Squared distances of dataset ``i`` to every centre."""
        return self._exact(np.array([i]))[0]

    def nearest(self, j: int, taken: np.ndarray) -> int:
        """The nearest row to centre ``j`` among those not ``taken`` (ties: the lower row)."""
        bound = np.where(taken, np.inf, self.hi[:, j]).min()
        cand = np.flatnonzero((self.lo[:, j] <= bound) & ~taken)
        return int(cand[np.argmin(self._exact(cand)[:, j])])


def _pick_bounded(X: np.ndarray, centres: np.ndarray, include: Sequence[int]) -> np.ndarray:
    """:func:`_pick` through :class:`_BoundedDistances` (large n: the same rows, far fewer distances)."""
    k = centres.shape[0]
    dist = _BoundedDistances(X, centres)
    covered = np.zeros(k, dtype=bool)
    taken = np.zeros(X.shape[0], dtype=bool)
    chosen: list[int] = []
    for i in include:
        j = int(np.argmin(np.where(covered, np.inf, dist.row(int(i)))))
        covered[j] = True
        taken[i] = True
        chosen.append(int(i))
    for j in np.flatnonzero(~covered).tolist():
        i = dist.nearest(j, taken)
        taken[i] = True
        chosen.append(i)
    return np.asarray(chosen, dtype=np.int64)


def _pick(X: np.ndarray, centres: np.ndarray, include: Sequence[int], d: np.ndarray | None = None) -> np.ndarray:
    """Include first (each covering its nearest free centroid), then per centroid the nearest free row.

    ``d`` (n, k) may hold the squared distances already; without it, large n
    (> :data:`_GRAM_MAX`) goes through :func:`_pick_bounded`.
    """
    n = X.shape[0]
    k = centres.shape[0]
    if d is None:
        if n > _GRAM_MAX and X.shape[1] >= 1:
            return _pick_bounded(X, centres, include)
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
        Cr, inertia = _lloyd_runs(X, C0[inside], sizes, first=first, real=real)
        C = np.zeros_like(C0)
        C[inside] = Cr
    else:
        first = None if table is None else table[np.where(valid, rows, n)]
        C, inertia = _lloyd(X, C0, valid, first=first)
    best = [i * n_init + int(np.argmin(inertia[i * n_init:(i + 1) * n_init])) for i in range(len(ks))]
    if inc or n > _GRAM_MAX:
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


def kmeans_centres(X: np.ndarray, k: int, *, rng: np.random.Generator, n_init: int = N_INIT) -> np.ndarray:
    """Temporary bridge (being rewritten)."""
    C0 = _seed_centres(X, [k], [rng], n_init)
    C, inertia = _lloyd(X, C0, np.ones((n_init, k), dtype=bool))
    return C[int(np.argmin(inertia))]
