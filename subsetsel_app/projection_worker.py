"""2-D projections computed off the page: UMAP and t-SNE (and PCA, the fast fallback).

This module imports neither Streamlit nor the rest of the app, only the core's
``standardize`` (the preprocessing the strategies see): the projection worker process runs
it (``python -m subsetsel_app.projection_worker``, :func:`serve_stdio`), and the thread
fallback calls :func:`compute`.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import warnings
from typing import Any, BinaryIO

import numpy as np

from subsetsel_core.strategies import standardize


def pca_2d(X: np.ndarray) -> np.ndarray:
    """First two principal components of the standardised rows (signs fixed).

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    ndarray of shape (n, 2)
        Zero columns where there are fewer than two components.
    """
    Z = standardize(X)
    n = Z.shape[0]
    out = np.zeros((n, 2))
    if n < 2 or Z.shape[1] == 0:
        return out
    U, S, _ = np.linalg.svd(Z, full_matrices=False)
    m = min(2, S.size)
    Y = U[:, :m] * S[:m]
    for j in range(m):
        i = int(np.argmax(np.abs(Y[:, j])))
        if Y[i, j] < 0:
            Y[:, j] = -Y[:, j]
    out[:, :m] = Y
    return out


def compute(X: np.ndarray, method: str, seed: int) -> np.ndarray:
    """Project the standardised rows of X to 2-D.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    method : {"UMAP", "t-SNE", "PCA"}
    seed : int

    Returns
    -------
    ndarray of shape (n, 2)
    """
    Z = standardize(X)
    n = Z.shape[0]
    if method == "PCA" or n < 5 or Z.shape[1] == 0:
        return pca_2d(X)
    if method == "UMAP":
        import umap

        _cache_compiled("umap")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = umap.UMAP(n_neighbors=max(2, min(15, n - 1)), min_dist=0.1, random_state=seed,
                              init="spectral" if n > 10 else "random")
            return np.asarray(model.fit_transform(Z), dtype=float)
    if method == "t-SNE":
        from sklearn.manifold import TSNE

        perplexity = float(max(2.0, min(30.0, (n - 1) / 3.0)))
        return np.asarray(TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed)
                          .fit_transform(Z), dtype=float)
    raise ValueError(f"unknown projection method {method!r}; use UMAP, t-SNE or PCA.")


_CACHED: set[str] = set()


def _cache_compiled(package: str) -> None:
    """Let numba keep the machine code of a package's compiled functions on disk.

    UMAP compiles about a hundred numba functions at its first fit in every new process
    (about 25 s on two cores), and only a few of them are declared cacheable. With caching
    on, the next server reuses the code: its first UMAP takes well under a second after
    the import. The code is the same, so are the maps. Where nothing can be written, numba
    just compiles again.
    """
    if package in _CACHED:
        return
    _CACHED.add(package)
    try:
        from numba.core.registry import CPUDispatcher
    except ImportError:  # pragma: no cover - numba comes with umap-learn
        return
    for name, module in list(sys.modules.items()):
        if name != package and not name.startswith(package + "."):
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, CPUDispatcher):
                try:
                    obj.enable_caching()
                except Exception:  # noqa: BLE001 - that function is compiled each time, as before
                    continue


def read_frame(stream: BinaryIO) -> Any:
    """Read one length-prefixed pickle frame (None at end of stream)."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = struct.unpack("<Q", head)[0]
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


def write_frame(stream: BinaryIO, obj: Any) -> None:
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
