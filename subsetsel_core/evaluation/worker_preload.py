"""Imported once by the ``forkserver`` of the worker processes, before it starts any worker.

Loads the protocol and calls every compiled kernel once on a tiny input: numba's first call
in a process costs about a second (loading the compiled code), and a worker started from a
warm forkserver inherits the loaded code, so the first shuffle of every worker starts at once
(and every call of a worker runs compiled: :mod:`~subsetsel_core.strategies.kernel_choice`).
"""

from __future__ import annotations

import numpy as np

import subsetsel_core.evaluation.protocol  # noqa: F401 - loaded for the workers
from subsetsel_core.strategies import kernel_choice, kmeans_kernels, optimal_kernels


def warm() -> None:
    """Call each compiled kernel once (their results are discarded)."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    ka = np.array([2], dtype=np.int64)
    rows = kmeans_kernels.seed_runs(X, np.zeros(1, dtype=np.int64), np.full((1, 2), 0.5), ka)
    centres, _ = kmeans_kernels.lloyd_runs(X, X[rows], ka, 5)
    kmeans_kernels.picks(X.T.copy(), centres.T.copy(), ka)
    G, q = np.zeros((1, 4, 2)), np.zeros((1, 4))
    den, ok, chosen = np.ones((1, 2)), np.ones((1, 2), dtype=bool), np.zeros((1, 4), dtype=bool)
    optimal_kernels.a_best(G, G, q, q, den, den, ok, chosen)
    optimal_kernels.d_best(G, q, den, den, ok, chosen)
    kernel_choice.prefer_compiled()  # loaded: the workers' calls all run compiled


warm()
