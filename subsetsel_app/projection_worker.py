"""2-D projections computed off the page: UMAP and t-SNE (and PCA, the fast fallback).

This module imports neither Streamlit nor the app: it is what the projection worker
process runs (:func:`serve`), and what the thread fallback calls (:func:`compute`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np


def standardised(X: np.ndarray) -> np.ndarray:
    """Drop constant columns and z-score the rest (as the strategies see X)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] == 0:
        return np.zeros((X.shape[0] if X.ndim else 0, 0))
    sd = X.std(axis=0)
    keep = sd > 0
    Z = X[:, keep]
    return (Z - Z.mean(axis=0)) / sd[keep] if Z.shape[1] else Z


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
    Z = standardised(X)
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
    Z = standardised(X)
    n = Z.shape[0]
    if method == "PCA" or n < 5 or Z.shape[1] == 0:
        return pca_2d(X)
    if method == "UMAP":
        import umap

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


def serve(jobs: Any, results: Any) -> None:
    """Worker-process loop: ``(job_id, X, method, seed)`` in, ``(job_id, ok, payload)`` out.

    A ``None`` job ends the loop.
    """
    while True:
        try:
            job = jobs.get()
        except (EOFError, OSError, KeyboardInterrupt):  # parent gone
            return
        if job is None:
            return
        job_id, X, method, seed = job
        try:
            results.put((job_id, True, compute(X, method, seed)))
        except Exception as exc:  # noqa: BLE001 - reported to the page as text
            results.put((job_id, False, f"{type(exc).__name__}: {exc}"))
