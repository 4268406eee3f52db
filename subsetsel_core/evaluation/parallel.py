"""Running the protocol's batches of trials in parallel: local processes or a Dask cluster.

A *mapper* takes the batch function, the evaluation context and the list of batches and
yields the batch results **in order**, so partial results and final numbers are identical
to a serial run with the same seed (each trial's randomness depends only on the seed and
the trial index).

Use it as ``evaluate(..., mapper=process_mapper(2))`` or
``evaluate(..., mapper=dask_mapper("tcp://scheduler:8786"))``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from subsetsel_core.errors import InputError

if TYPE_CHECKING:
    import multiprocessing as mp

    from threadpoolctl import ThreadpoolController

Mapper = Callable[[Callable[..., Any], Any, list[list[int]]], Iterator[Any]]


_WORKER: dict[str, Any] = {}


def _init_worker(fn: Callable[..., Any], ctx: Any) -> None:
    """Keep the batch function and the context in the worker (sent once, not per batch)."""
    _WORKER["fn"] = fn
    _WORKER["ctx"] = ctx


def _run_in_worker(batch: list[int]) -> Any:
    return _WORKER["fn"](_WORKER["ctx"], batch)


def _context() -> mp.context.BaseContext:
    """``fork`` when this process runs a single thread (workers start at once, sharing the
    loaded modules and data), else ``forkserver`` with the protocol and the compiled kernels
    preloaded (:mod:`.worker_preload`; safe in threaded programs such as the dashboard)."""
    import multiprocessing as mp  # process pools only: the command line starts without it

    if threading.active_count() == 1 and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["subsetsel_core.evaluation.worker_preload"])  # the protocol, compiled kernels warm
    return ctx


def process_mapper(n_jobs: int | None = None) -> Mapper:
    """Run batches in ``n_jobs`` local worker processes (default: all cores).

    Workers are forked when the calling process has a single thread, and started from a
    ``forkserver`` (with ``subsetsel_core`` preloaded) otherwise, e.g. in the dashboard.
    The evaluation context goes to each worker once; results come back in batch order.
    """
    jobs = n_jobs or os.cpu_count() or 1
    if jobs < 1:
        raise InputError(f"the number of worker processes must be ≥ 1, got {n_jobs}.")

    def run(fn: Callable[..., Any], ctx: Any, batches: list[list[int]]) -> Iterator[Any]:
        if jobs == 1 or len(batches) == 1:
            for b in batches:
                yield fn(ctx, b)
            return
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(batches)), mp_context=_context(),
                                 initializer=_init_worker, initargs=(fn, ctx)) as ex:
            yield from ex.map(_run_in_worker, batches)

    return run


def worker_pool(jobs: int, fn: Callable[..., Any], ctx: Any) -> Any:
    """A pool of ``jobs`` local worker processes holding ``fn`` and ``ctx`` (sent once).

    Submit batches with :func:`submit_batch`; the caller shuts the pool down (it is a
    :class:`concurrent.futures.ProcessPoolExecutor`, usable in a ``with`` block). Used where
    one computation submits many batches over time (the permutation test's shuffles), so that
    workers start once rather than once per round.
    """
    from concurrent.futures import ProcessPoolExecutor

    if jobs < 1:
        raise InputError(f"the number of worker processes must be ≥ 1, got {jobs}.")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=_context(), initializer=_init_worker,
                               initargs=(fn, ctx))


def submit_batch(pool: Any, batch: list[int]) -> Any:
    """Run ``fn(ctx, batch)`` in a :func:`worker_pool`; returns its future."""
    return pool.submit(_run_in_worker, batch)


def dask_mapper(scheduler: Any, *, timeout: float = 20.0) -> Mapper:
    """Run batches on a Dask cluster.

    Parameters
    ----------
    scheduler : str or distributed.Client
        Address of a running scheduler (``"tcp://10.0.0.5:8786"``) or a client.
        Workers need ``subsetsel_core`` installed (same version).
    timeout : float
        Seconds to wait for the scheduler.
    """
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError(
            "running on a Dask cluster needs the 'distributed' package: pip install -r requirements.txt"
        ) from None

    def run(fn: Callable[..., Any], ctx: Any, batches: list[list[int]]) -> Iterator[Any]:
        own = not isinstance(scheduler, Client)
        try:
            client = Client(scheduler, timeout=f"{timeout}s") if own else scheduler  # type: ignore[no-untyped-call]  # distributed ships no types here
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler!r} ({exc}). Check the address.") from None
        try:
            # hash=False: a fresh key per evaluation. With content-hashed keys, a second
            # evaluation of the same context can scatter while the first one's copy is being
            # released, and its batches fail with "lost dependencies".
            shared = client.scatter(ctx, broadcast=True, hash=False)
            futures = [client.submit(fn, shared, b, pure=False) for b in batches]
            for f in futures:
                yield f.result()
        finally:
            if own:
                client.close()

    return run


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
"""The variables through which each BLAS takes its number of threads when it loads."""
ONE_BLAS_THREAD_FROM_START = "SUBSETSEL_ONE_BLAS_THREAD"
"""Set to ``1`` by :func:`one_thread_from_start` when it set every BLAS variable to 1."""

_BLAS_LOCK = threading.Lock()
_BLAS_USERS: list[Any] = []  # the active limit while any thread is inside one_blas_thread
_BLAS_CONTROLLER: list[ThreadpoolController] = []  # found once per process (a scan of the loaded libraries)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread while any thread of this process is inside this block.

    The protocol's matrices are small: threaded BLAS only contends (and batches run in
    parallel anyway). The limit is process-wide, so threads share it: the first one in
    sets it, the last one out restores the previous setting. A process whose BLAS was asked
    for one thread before it loaded (the command line, :mod:`subsetsel_core.cli.entry`) has
    nothing to limit.
    """
    if _one_thread_from_start():
        yield
        return
    with _BLAS_LOCK:
        if not _BLAS_USERS:
            if not _BLAS_CONTROLLER:
                from threadpoolctl import ThreadpoolController

                _BLAS_CONTROLLER.append(ThreadpoolController())
            _BLAS_USERS.append(_BLAS_CONTROLLER[0].limit(limits=1, user_api="blas"))
        _BLAS_USERS.append(None)
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS.pop()
            if len(_BLAS_USERS) == 1:
                _BLAS_USERS.pop().restore_original_limits()


def _one_thread_from_start() -> bool:
    """Whether this process's BLAS was asked for one thread before NumPy loaded it
    (:func:`one_thread_from_start`): the mark and every BLAS variable at 1."""
    return (os.environ.get(ONE_BLAS_THREAD_FROM_START) == "1"
            and all(os.environ.get(v) == "1" for v in BLAS_THREAD_VARIABLES))


def one_thread_from_start(environ: MutableMapping[str, str]) -> None:
    """Ask every BLAS for one thread through ``environ`` (before NumPy loads), unless the user set
    any of :data:`BLAS_THREAD_VARIABLES`; then :func:`one_blas_thread` has nothing to change and
    skips its scan of the loaded libraries (about 10 ms). The command line does this first
    (:mod:`subsetsel_core.cli.entry`); child processes inherit it."""
    if not any(v in environ for v in BLAS_THREAD_VARIABLES):
        environ.update(dict.fromkeys(BLAS_THREAD_VARIABLES, "1"))
        environ[ONE_BLAS_THREAD_FROM_START] = "1"
