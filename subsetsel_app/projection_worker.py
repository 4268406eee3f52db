"""2-D projections computed off the page: the worker process around the core's maps.

This module imports neither Streamlit nor the rest of the app, only the core's
:func:`~subsetsel_core.representations.projection.compute` (UMAP, t-SNE, PCA): the projection worker
process runs it (``python -m subsetsel_app.projection_worker``, :func:`serve_stdio`), and
the thread fallback calls :func:`compute`.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from typing import IO, Any

from subsetsel_core.representations.projection import compute, pca_2d

__all__ = ["compute", "pca_2d", "read_frame", "serve_stdio", "write_frame"]


def read_frame(stream: IO[bytes]) -> Any:
    """Read one length-prefixed pickle frame (None at end of stream)."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = struct.unpack("<Q", head)[0]
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


def write_frame(stream: IO[bytes], obj: Any) -> None:
    """Write one length-prefixed pickle frame and flush."""
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(body)) + body)
    stream.flush()


def serve_stdio() -> None:
    """Worker-process loop over stdin / stdout frames.

    In: ``(job_id, X, method, seed)``; out: ``(job_id, ok, coords or error text)``. Ends at
    the end of stdin (the app closed the pipe or exited). Anything a library prints goes
    to stderr, so stdout carries only frames.
    """
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    while True:
        job = read_frame(inp)
        if job is None:
            return
        job_id, X, method, seed = job
        try:
            write_frame(out, (job_id, True, compute(X, method, seed)))
        except Exception as exc:  # noqa: BLE001 - reported to the page as text
            write_frame(out, (job_id, False, f"{type(exc).__name__}: {exc}"))


def _yield_cpu() -> None:
    """Run at a lower priority: the pages and the browser come first (UMAP's first fit,
    numba compilation included, would otherwise slow the first page views of a new server)."""
    try:
        os.nice(10)
    except (AttributeError, OSError):  # pragma: no cover - not POSIX, or not allowed
        pass


if __name__ == "__main__":
    _yield_cpu()
    serve_stdio()
