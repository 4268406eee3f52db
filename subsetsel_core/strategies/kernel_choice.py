"""Which implementation runs the inner loops of k-means and the optimal designs: compiled or numpy.

Both give the same numbers to the last bit (``tests/core/strategies/test_kernel_paths.py``):
the compiled kernels (:mod:`.kmeans_kernels`, :mod:`.optimal_kernels`) and their numpy
counterparts (:mod:`.kmeans_numpy`, :func:`.optimal.best_swaps_numpy`) do the same IEEE
operations in the same order. The compiled ones are many times faster on all but the
smallest inputs, but their first call in a process costs about half a second whatever the
size (numba's import, its registries and loading the cached machine code) — more than a
whole one-trial evaluation of six strategies on the samples takes in numpy.

So a process starts with numpy and keeps a tally of the work it has done there (in the
elementary operations each call announces); the first call that would take the tally past
:data:`NUMPY_BUDGET` loads the compiled kernels, and every later call uses them. A one-trial
evaluation of the six strategies on a sample stays in numpy (numba is never imported); a
200-trial one moves to the compiled kernels after its first trials. Which path
runs changes the time only, never a number.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

#: Elementary operations a process does in numpy before it loads the compiled kernels: numpy
#: does about 2e9 a second on the samples' pools and numba's start costs about 0.45 s, so the
#: budget is about what the start costs — the rule of ski rental: a process never spends more
#: than twice what the better path alone would have cost (``benchmarks/bench_kernel_paths.py``).
NUMPY_BUDGET = 8.0e8

KernelPath = Literal["auto", "compiled", "numpy"]

_state: dict[str, float | str] = {"spent": 0.0, "path": "auto"}


def use_compiled(work: float) -> bool:
    """Whether the call about to do ``work`` elementary operations runs the compiled kernels.

    Parameters
    ----------
    work : float
        The call's size: its elementary operations, as each caller estimates them.

    Returns
    -------
    bool
        True once the process has gone (or is about to go) past :data:`NUMPY_BUDGET`, or
        when the compiled path is forced; False while numpy is cheaper than loading numba.
    """
    path = _state["path"]
    spent = float(_state["spent"]) + float(work)
    if path == "compiled" or (path == "auto" and spent > NUMPY_BUDGET):
        _state["path"] = "compiled"  # from now on: numba's start is paid
        return True
    _state["spent"] = spent
    return False


def numpy_work() -> float:
    """The elementary operations this process has announced and run in numpy so far."""
    return float(_state["spent"])


def prefer_compiled() -> None:
    """Use the compiled kernels from now on (a worker process whose kernels are already loaded)."""
    _state["path"] = "compiled"


@contextmanager
def forced(path: KernelPath) -> Iterator[None]:
    """Run the enclosed code on one path (``"numpy"``, ``"compiled"``, or ``"auto"``), for tests
    and benchmarks; the tally and the path in force before are restored afterwards."""
    saved = dict(_state)
    _state["path"] = path
    _state["spent"] = 0.0
    try:
        yield
    finally:
        _state.clear()
        _state.update(saved)
