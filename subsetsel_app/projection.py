"""Map projections that never block a page.

UMAP's first fit in a new process costs tens of seconds (numba compiles it) and t-SNE a
few seconds, so both run off the page: :func:`project` returns at once — the finished
projection when it is cached, otherwise the fast PCA map together with ``pending=True`` —
and the slow one is computed in the background. The page polls (a fragment with
``run_every``) and redraws when it is ready.

By default the slow projections run in one long-lived worker *process* (started on first
use), so numba's compilation holds neither this process's GIL nor its CPU-bound threads;
``SUBSETSEL_PROJECTION=thread`` uses a thread instead and ``=off`` never computes them
(the map stays on PCA; useful in tests). Finished projections are cached per key
(benchmark, representation, method, seed) for the life of the server.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .projection_worker import compute, pca_2d, read_frame, write_frame

log = logging.getLogger(__name__)

FAST = "PCA"
_CACHE_SIZE = 128


@dataclass(frozen=True, eq=False)
class Projection:
    """A 2-D map.

    Attributes
    ----------
    coords : ndarray of shape (n, 2)
    method : str
        The method the coordinates come from (PCA while the requested one is pending).
    requested : str
        The method asked for.
    pending : bool
        True while the requested method is still being computed.
    error : str or None
        Why the requested method failed (the map then shows PCA).
    """

    coords: np.ndarray
    method: str
    requested: str
    pending: bool = False
    error: str | None = None


class _ProcessWorker:
    """One worker process (``python -m subsetsel_app.projection_worker``) fed over a pipe.

    A plain subprocess rather than ``multiprocessing``: Streamlit replaces ``__main__`` with
    the page script, which a spawned child would re-run. The child ends when the pipe
    closes; the app also kills it at exit.
    """

    def __init__(self) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "subsetsel_app.projection_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root,
        )
        atexit.register(self.close)
        self._futures: dict[int, Future[np.ndarray]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.alive = True
        threading.Thread(target=self._collect, daemon=True, name="subsetsel-projection-results").start()

    def submit(self, X: np.ndarray, method: str, seed: int) -> Future[np.ndarray]:
        fut: Future[np.ndarray] = Future()
        with self._lock:
            job_id = next(self._ids)
            self._futures[job_id] = fut
        try:
            with self._write_lock:
                assert self._proc.stdin is not None
                write_frame(self._proc.stdin, (job_id, np.asarray(X, dtype=float), method, int(seed)))
        except (OSError, ValueError) as exc:
            self._fail_all(f"the projection worker stopped ({exc})")
        return fut

    def _collect(self) -> None:
        assert self._proc.stdout is not None
        while True:
            try:
                msg = read_frame(self._proc.stdout)
            except Exception:  # noqa: BLE001 - a broken pipe ends the worker
                msg = None
            if msg is None:
                self._fail_all("the projection worker stopped")
                return
            job_id, ok, payload = msg
            with self._lock:
                fut = self._futures.pop(job_id, None)
            if fut is None:
                continue
            if ok:
                fut.set_result(payload)
            else:
                fut.set_exception(RuntimeError(payload))

    def _fail_all(self, why: str) -> None:
        self.alive = False
        with self._lock:
            futs, self._futures = list(self._futures.values()), {}
        for f in futs:
            if not f.done():
                f.set_exception(RuntimeError(why))

    def close(self) -> None:
        """End the worker process."""
        self.alive = False
        if self._proc.poll() is None:
            self._proc.kill()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass


class _ThreadWorker:
    """Fallback: a single background thread."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="subsetsel-projection")
        self.alive = True

    def submit(self, X: np.ndarray, method: str, seed: int) -> Future[np.ndarray]:
        return self._pool.submit(compute, np.asarray(X, dtype=float), method, int(seed))


class Projector:
    """Cache of finished projections plus the jobs in flight."""

    def __init__(self, mode: str | None = None) -> None:
        self.mode = (mode or os.environ.get("SUBSETSEL_PROJECTION", "process")).lower()
        self._worker: _ProcessWorker | _ThreadWorker | None = None
        self._done: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._errors: dict[Hashable, str] = {}
        self._pending: dict[Hashable, Future[np.ndarray]] = {}
        self._fast: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _get_worker(self) -> _ProcessWorker | _ThreadWorker:
        if self._worker is None or not self._worker.alive:
            if self.mode == "process":
                try:
                    self._worker = _ProcessWorker()
                except Exception as exc:  # noqa: BLE001 - fall back to a thread
                    log.warning("projection worker process failed to start (%s); using a thread", exc)
                    self._worker = _ThreadWorker()
            else:
                self._worker = _ThreadWorker()
        return self._worker

    def fast(self, key: Hashable, X: np.ndarray) -> np.ndarray:
        """The PCA map (computed inline, cached)."""
        with self._lock:
            if key in self._fast:
                return self._fast[key]
        Y = pca_2d(X)
        with self._lock:
            self._fast[key] = Y
            while len(self._fast) > _CACHE_SIZE:
                self._fast.popitem(last=False)
        return Y

    def project(self, key: Hashable, X: np.ndarray, method: str, seed: int = 0) -> Projection:
        """The requested map if ready, else PCA now and the requested one in the background.

        Parameters
        ----------
        key : hashable
            Identifies X (benchmark token and representation settings); ``(key, method,
            seed)`` is the cache key.
        X : ndarray of shape (n, p)
        method : {"UMAP", "t-SNE", "PCA"}
        seed : int
        """
        if method == FAST:
            return Projection(self.fast(key, X), FAST, FAST)
        full = (key, method, int(seed))
        with self._lock:
            if full in self._done:
                self._done.move_to_end(full)
                return Projection(self._done[full], method, method)
            err = self._errors.get(full)
            fut = self._pending.get(full)
        if err is not None:
            return Projection(self.fast(key, X), FAST, method, error=err)
        if fut is not None and fut.done():
            self._harvest(full, fut)
            return self.project(key, X, method, seed)
        if self.mode == "off":
            return Projection(self.fast(key, X), FAST, method, pending=False,
                              error="switched off on this server (SUBSETSEL_PROJECTION=off).")
        if fut is None:
            fut = self._get_worker().submit(X, method, seed)
            with self._lock:
                self._pending[full] = fut
        return Projection(self.fast(key, X), FAST, method, pending=True)

    def _harvest(self, full: Hashable, fut: Future[np.ndarray]) -> None:
        with self._lock:
            self._pending.pop(full, None)
            exc = fut.exception()
            if exc is None:
                self._done[full] = fut.result()
                while len(self._done) > _CACHE_SIZE:
                    self._done.popitem(last=False)
            else:
                self._errors[full] = str(exc)

    def is_ready(self, key: Hashable, method: str, seed: int = 0) -> bool:
        """Whether a background projection finished (successfully or not)."""
        full = (key, method, int(seed))
        with self._lock:
            if full in self._done or full in self._errors:
                return True
            fut = self._pending.get(full)
        return fut is None or fut.done()

    def wait(self, key: Hashable, method: str, seed: int = 0, timeout: float | None = None) -> bool:
        """Block until a background projection finished (for tests and scripts)."""
        full = (key, method, int(seed))
        with self._lock:
            fut = self._pending.get(full)
        if fut is None:
            return True
        try:
            fut.result(timeout=timeout)
        except Exception:  # noqa: BLE001 - recorded by project()
            return fut.done()
        return True


_PROJECTOR: Projector | None = None
_PLOCK = threading.Lock()


def projector() -> Projector:
    """The server-wide :class:`Projector`."""
    global _PROJECTOR
    with _PLOCK:
        if _PROJECTOR is None:
            _PROJECTOR = Projector()
        return _PROJECTOR


def project(key: Any, X: np.ndarray, method: str, seed: int = 0) -> Projection:
    """Shortcut for ``projector().project(...)``."""
    return projector().project(key, X, method, seed)
