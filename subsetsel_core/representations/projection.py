"""2-D maps of the datasets: PCA (immediate), UMAP and t-SNE of the standardised descriptors.

One place for every face: the dashboard's projection worker, the Report page and
``subsetsel report`` all call :func:`compute`. UMAP needs the ``app`` extra (umap-learn);
:func:`compute` raises :class:`ImportError` naming the package when it is missing.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from subsetsel_core.strategies import standardize

#: The map methods, fastest first.
METHODS = ("PCA", "UMAP", "t-SNE")


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
        try:
            import umap
        except ImportError as exc:
            raise ImportError("UMAP maps need umap-learn: pip install umap-learn (or the 'app' extra)") from exc

        cache_compiled("umap")
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


def cache_compiled(package: str) -> None:
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
