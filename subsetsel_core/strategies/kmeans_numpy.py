"""The inner loops of ``kmeans`` in numpy: the same numbers as :mod:`.kmeans_kernels`, to the last bit.

k-means++ seeding and Lloyd's iterations of many runs (a run is one restart of one k), the
runs of one k side by side in arrays. Every squared distance is summed over the features in
the order the compiled kernels use (the seeding and the inertia one feature after another,
the labels' distances in blocks of four), the centres' sums in dataset order
(``numpy.add.at``), and the seeding's and the inertia's totals with ``numpy.cumsum``, which
adds in order; so every label, centre and inertia equals the compiled one. Lloyd's
iterations here compute every distance (no Hamerly bounds): the bounds of the compiled
kernel only skip distances that cannot change a label.

Used for small inputs, where loading the compiled kernels would cost more than the work
(:mod:`.kernel_choice`).
"""

from __future__ import annotations

import numpy as np

_BLOCK = 2**21  # elements of the largest temporary array of the distances


def seed_runs(X: np.ndarray, first: np.ndarray, u: np.ndarray, ka: np.ndarray) -> np.ndarray:
    """k-means++ seeding of every run; the seeded rows, run after run.

    As :func:`.kmeans_kernels.seed_runs`: run r starts at row ``first[r]``; its centre
    j ≥ 1 is the first row whose cumulative squared distance to the centres so far exceeds
    ``u[r, j]`` times the total (the last row if none does, row 0 if every row sits on a centre).
    """
    n, p = X.shape
    XT = np.ascontiguousarray(X.T)
    out = np.empty(int(ka.sum()), dtype=np.int64)
    start = np.cumsum(ka) - ka
    d2 = np.zeros((ka.size, n))
    live = np.arange(ka.size)
    for step in range(int(ka.max()) if ka.size else 0):  # every run side by side; a run stops at its k
        live = live[ka[live] > step]
        if step == 0:
            c = np.asarray(first[live], dtype=np.int64)
        else:
            cum = np.cumsum(d2[live], axis=1)  # in order, as the kernel's running sums
            tot = cum[:, -1]
            hit = cum > (u[live, step] * tot)[:, None]
            c = np.where(tot > 0.0, np.where(hit.any(axis=1), hit.argmax(axis=1), n - 1), 0)
        out[start[live] + step] = c
        s = _in_order((XT[None, :, :] - XT[:, c].T[:, :, None]) ** 2)  # (run, n): over the features in order
        d2[live] = s if step == 0 else np.minimum(d2[live], s)
    return out


def _in_order(terms: np.ndarray) -> np.ndarray:
    """The sum over axis 1 of ``terms`` (a, m, b), term after term: ((t₀ + t₁) + t₂) + … (numpy
    reduces an axis that is not the innermost by adding its slices in order; the pairwise
    summation of a contiguous innermost axis does not apply)."""
    return np.add.reduce(terms, axis=1) if terms.shape[1] else np.zeros((terms.shape[0], terms.shape[2]))


def _distances(XT: np.ndarray, CT: np.ndarray) -> np.ndarray:
    """Squared distances (run, centre, dataset) of the datasets ``XT`` (p, n) to the centres
    ``CT`` (run, p, k), summed over the features four at a time as the compiled kernel sums them:
    row += ((q₀ + q₁) + (q₂ + q₃)) for each block of four features, then the remaining features one by one."""
    p, n = XT.shape
    runs, _, k = CT.shape
    step = max(1, _BLOCK // max(1, p * k * n))
    if runs > step:  # a few runs at a time: the temporary arrays stay small
        return np.concatenate([_distances(XT, CT[lo:lo + step]) for lo in range(0, runs, step)])
    sq = XT[None, :, None, :] - CT[:, :, :, None]  # (run, p, k, n)
    np.square(sq, out=sq)
    blocks = p // 4
    four = sq[:, :4 * blocks].reshape(runs, blocks, 4, k, n)
    pairs = four[:, :, 0] + four[:, :, 1]
    pairs += four[:, :, 2] + four[:, :, 3]  # (run, blocks, k, n): ((q₀ + q₁) + (q₂ + q₃))
    row = _in_order(pairs.reshape(runs, blocks, k * n)).reshape(runs, k, n)
    for f in range(4 * blocks, p):  # then the remaining features, one by one
        row += sq[:, f]
    return row


def _means(X: np.ndarray, labels: np.ndarray, CT: np.ndarray) -> np.ndarray:
    """The new centres (run, p, k): each cluster's mean, its sum taken in dataset order; an
    empty cluster keeps its centre."""
    runs, n = labels.shape
    k, p = CT.shape[2], X.shape[1]
    flat = (np.arange(runs)[:, None] * k + labels).ravel()
    sums = np.zeros(runs * k * p)
    # numpy.add.at applies its (one-dimensional) indices one after another: each sum in dataset order
    np.add.at(sums, (flat[:, None] * p + np.arange(p)).ravel(), np.broadcast_to(X, (runs, n, p)).ravel())
    counts = np.bincount(flat, minlength=runs * k)
    full = counts > 0
    new = np.swapaxes(CT, 1, 2).reshape(runs * k, p).copy()
    new[full] = sums.reshape(runs * k, p)[full] / counts[full][:, None]
    return np.ascontiguousarray(np.swapaxes(new.reshape(runs, k, p), 1, 2))


def lloyd_runs(X: np.ndarray, C: np.ndarray, ka: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's iterations of every run, from centres ``C`` (run after run, run r has ``ka[r]``
    rows); at most ``max_iter`` centre updates, until no label changes; an emptied cluster keeps
    its centre. Returns the centres and each run's inertia (as :func:`.kmeans_kernels.lloyd_runs`)."""
    n, p = X.shape
    XT = np.ascontiguousarray(X.T)
    centres, inertia = np.array(C, dtype=float), np.empty(ka.size)
    start = np.cumsum(ka) - ka
    for k in np.unique(ka).tolist():
        runs = np.flatnonzero(ka == k)
        rows = start[runs][:, None] + np.arange(k)  # (run, k)
        CT = np.ascontiguousarray(np.swapaxes(centres[rows], 1, 2))  # (run, p, k)
        labels = np.zeros((runs.size, n), dtype=np.int64)
        live = np.arange(runs.size)
        for it in range(max_iter + 1):
            new = _distances(XT, CT[live]).argmin(axis=1)  # the first nearest centre: ties to the lower
            moved = np.ones(live.size, dtype=bool) if it == 0 else (new != labels[live]).any(axis=1)
            labels[live] = new
            live = live[moved]
            if live.size == 0 or it == max_iter:
                break
            CT[live] = _means(X, labels[live], CT[live])
        own = np.take_along_axis(CT, np.broadcast_to(labels[:, None, :], (runs.size, p, n)), axis=2)  # (run, p, n)
        acc = _in_order((XT[None] - own) ** 2)
        inertia[runs] = np.cumsum(acc, axis=1)[:, -1]
        centres[rows] = np.swapaxes(CT, 1, 2)
    return centres, inertia
