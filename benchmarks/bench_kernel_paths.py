"""The two paths of the inner loops, timed: what loading the compiled kernels costs, and how the
numpy path's time follows the work it announces to ``kernel_choice`` (the basis of its budget).

    python benchmarks/bench_kernel_paths.py

Prints, in a fresh process, the first compiled call (numba's import, its registries, loading
the cached code), then for a few pool shapes the time of k-means (19 k of 10 restarts) and of
both optimal designs on each path, with the work announced and the numpy path's rate.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from subsetsel_core.strategies import kernel_choice
from subsetsel_core.strategies.kmeans import kmeans_many
from subsetsel_core.strategies.optimal import optimal_design_many

_FIRST_CALL = """
import time, numpy as np
t = time.perf_counter()
from subsetsel_core.strategies import kmeans_kernels
X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
kmeans_kernels.seed_runs(X, np.zeros(1, dtype=np.int64), np.full((1, 2), 0.5), np.array([2], dtype=np.int64))
print(time.perf_counter() - t)
"""


def _best(run: Callable[[], None], repeat: int = 5) -> float:
    """The least time of ``repeat`` calls of ``run`` (after one call to warm it)."""
    run()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times)


def _kmeans(X: np.ndarray, ks: list[int]) -> None:
    kmeans_many(X, ks, np.random.default_rng(1).spawn(len(ks)))


def _designs(X: np.ndarray, ks: list[int]) -> None:
    for criterion in "ad":
        optimal_design_many(X, ks, criterion=criterion)


def main() -> int:
    """Measure and print."""
    first = [float(subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True,
                                  check=True).stdout) for _ in range(3)]
    print(f"first compiled call in a fresh process (numba's import and loading): {min(first):.3f} s "
          f"(best of 3); load {os.getloadavg()[0]:.2f}")
    ks = list(range(2, 21))
    for n, p in ((89, 8), (89, 17), (200, 17), (89, 60)):
        X = np.random.default_rng(0).normal(size=(n, p))
        row = {}
        for path in ("compiled", "numpy"):
            with kernel_choice.forced(path):
                row[f"kmeans {path}"] = _best(partial(_kmeans, X, ks))
                row[f"designs {path}"] = _best(partial(_designs, X, ks))
        with kernel_choice.forced("numpy"):
            _kmeans(X, ks)
            work = kernel_choice.numpy_work()
        times = ", ".join(f"{name} {1000 * t:.1f} ms" for name, t in row.items())
        print(f"pool {n} × {p}: {times}; k-means work {work:.3g} → numpy {work / row['kmeans numpy'] / 1e9:.2f}e9 per s")
    print(f"budget: {kernel_choice.NUMPY_BUDGET:.3g} operations of numpy per process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
