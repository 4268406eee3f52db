"""Does a representation track what makes models differ? (Mantel test and linear CKA.)

Distances between datasets in the representation (Euclidean on standardized descriptors)
are compared with distances between their model-rank profiles (1 − Spearman correlation
of their rank vectors). A representation whose geometry follows the rank profiles is one
from which spreading the subset out (FAFI, k-means) can be expected to help; one that
looks like noise cannot be expected to beat random choice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.strategies import standardize


def rank_profile_distances(benchmark: Benchmark) -> np.ndarray:
    """1 − Spearman correlation between the datasets' rank vectors; shape (n, n).

    A dataset whose models all tie (constant rank vector) has correlation 0 with every
    other dataset (distance 1).
    """
    r = rankdata(benchmark.rank_sums, axis=1)
    r = r - r.mean(axis=1, keepdims=True)
    norm = np.sqrt((r * r).sum(axis=1))
    u = r / np.where(norm > 0, norm, 1.0)[:, None]
    c = np.clip(u @ u.T, -1.0, 1.0)
    d = 1.0 - c
    np.fill_diagonal(d, 0.0)
    return d


def descriptor_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between standardized rows of ``X``; shape (n, n)."""
    Z = standardize(X)
    sq = (Z * Z).sum(axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)
    d = np.sqrt(d2)
    np.fill_diagonal(d, 0.0)
    return d


def mantel(a: np.ndarray, b: np.ndarray, *, permutations: int = 999, seed: int = 0) -> tuple[float, float]:
    """Mantel test with Spearman correlation between two distance matrices.

    Parameters
    ----------
    a, b : ndarray of shape (n, n)
        Symmetric distance matrices.
    permutations : int
        Number of joint row/column permutations of ``a``.
    seed : int

    Returns
    -------
    r : float
        Spearman correlation of the upper triangles.
    p : float
        One-sided permutation p-value (positive association), ``(1 + #{r_perm ≥ r}) / (1 + P)``.
    """
    n = a.shape[0]
    iu = np.triu_indices(n, k=1)
    rb = rankdata(b[iu])
    rb = (rb - rb.mean()) / (rb.std() or 1.0)

    def corr(m: np.ndarray) -> float:
        ra = rankdata(m[iu])
        sd = ra.std()
        if sd == 0:
            return 0.0
        return float(((ra - ra.mean()) / sd * rb).mean())

    r = corr(a)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(permutations):
        p = rng.permutation(n)
        if corr(a[np.ix_(p, p)]) >= r - 1e-12:
            hits += 1
    return r, (1 + hits) / (1 + permutations)


def linear_cka(X: np.ndarray, Y: np.ndarray) -> float:
    """Linear centred kernel alignment between two representations of the same rows."""
    X = X - X.mean(axis=0)
    Y = Y - Y.mean(axis=0)
    num = np.linalg.norm(Y.T @ X) ** 2
    den = np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)
    return float(num / den) if den > 0 else 0.0


@dataclass(frozen=True)
class RepresentationCheck:
    """How well a representation's geometry agrees with the models' performance structure.

    Attributes
    ----------
    representation : str
    mantel_r : float
        Spearman correlation between descriptor distances and rank-profile distances.
    mantel_p : float
        Permutation p-value of ``mantel_r`` (one-sided).
    cka : float
        Linear CKA between the standardized descriptors and the rank vectors.
    n_datasets, n_features : int
    """

    representation: str
    mantel_r: float
    mantel_p: float
    cka: float
    n_datasets: int
    n_features: int

    @property
    def looks_like_noise(self) -> bool:
        """True when the Mantel correlation is not significant at 5 % or below 0.05."""
        return self.mantel_p >= 0.05 or self.mantel_r < 0.05

    def verdict(self) -> str:
        """One plain sentence for users."""
        if self.looks_like_noise:
            return (f"'{self.representation}' looks like noise with respect to the model rankings "
                    f"(Mantel r = {self.mantel_r:.2f}, p = {self.mantel_p:.3g}): no better than random "
                    "should be expected.")
        strength = "strongly" if self.mantel_r >= 0.3 else "moderately" if self.mantel_r >= 0.15 else "weakly"
        return (f"'{self.representation}' {strength} tracks the model rankings (Mantel r = {self.mantel_r:.2f}, "
                f"p = {self.mantel_p:.3g}; CKA = {self.cka:.2f}).")


def check_representation(
    benchmark: Benchmark, representation: Representation, *, permutations: int = 999, seed: int = 0
) -> RepresentationCheck:
    """Mantel test and linear CKA of a representation against the benchmark's rank profiles."""
    if tuple(representation.datasets) != tuple(benchmark.datasets):
        raise InputError("the representation is not aligned to the benchmark's datasets.")
    dr = rank_profile_distances(benchmark)
    dx = descriptor_distances(representation.X)
    r, p = mantel(dx, dr, permutations=permutations, seed=seed)
    cka = linear_cka(standardize(representation.X), benchmark.rank_vectors)
    return RepresentationCheck(representation.name, r, p, cka, benchmark.n_datasets, representation.X.shape[1])


def overall_verdict(check: RepresentationCheck, best: str, gain: float, p: float | None) -> str:
    """Plain verdict from the geometry check and a quick protocol run.

    Parameters
    ----------
    check : RepresentationCheck
    best : str
        Best grid entry on this representation in the quick run.
    gain : float
        Its Spearman AUC minus random's.
    p : float or None
        Its Holm-corrected p-value against random.
    """
    beats = p is not None and p < 0.05 and gain > 0
    if beats:
        why = "" if not check.looks_like_noise else (
            " although its distances do not follow the rank profiles globally (the gain comes from "
            "spreading the subset over the descriptor space)")
        return f"'{check.representation}' helps: {best} beats random (Spearman AUC {gain:+.2f}, p = {p:.3g}){why}."
    if check.looks_like_noise:
        return (f"'{check.representation}' looks like noise for this benchmark (Mantel r = {check.mantel_r:.2f}) and no "
                "strategy beat random in the quick run: no better than random should be expected.")
    return (f"'{check.representation}' tracks the rank profiles (Mantel r = {check.mantel_r:.2f}) but no strategy beat "
            f"random in the quick run (best {best}, Spearman AUC {gain:+.2f}); treat subsets from it as no better "
            "than random.")
