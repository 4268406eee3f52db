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

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.ranks.ranking import twice_average_ranks
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.strategies import standardize
from subsetsel_core.text.rounding import format_p, text

#: Label permutations of the Mantel test, wherever it is shown.
MANTEL_PERMUTATIONS: int = SETTINGS["mantel_permutations"].default
#: Exceedances after which a Mantel test stops (sequential Monte-Carlo p-value).
STOP_AFTER = 10
_MANTEL_BLOCK = 2**22  # elements of one batch of permuted distance matrices


def p_text(p: float) -> str:
    """``p = 0.020`` or ``p < 1e-4`` (the registry's p-values in a sentence)."""
    t = format_p(p)
    return f"p {t}" if t.startswith("<") else f"p = {t}"


def _rank(values: np.ndarray) -> np.ndarray:
    """Average-tie ranks (1-based), as ``scipy.stats.rankdata``."""
    return twice_average_ranks(np.asarray(values, float)) / 2.0


def rank_distance(rank_vectors: np.ndarray) -> np.ndarray:
    """Condensed 1 − Spearman distances between the rows of ``rank_vectors`` (n, M).

    A row without variation (every model tied) has correlation 0 with everything
    (distance 1).
    """
    R = twice_average_ranks(np.asarray(rank_vectors, float)) / 2.0
    R = R - R.mean(axis=1, keepdims=True)
    norm = np.sqrt((R**2).sum(axis=1))
    U = np.zeros_like(R)
    ok = norm > 0
    U[ok] = R[ok] / norm[ok, None]
    C = np.clip(U @ U.T, -1.0, 1.0)
    return 1.0 - C[np.triu_indices(C.shape[0], k=1)]


def descriptor_distance(X: np.ndarray) -> np.ndarray:
    """Condensed Euclidean distances between the standardized rows of ``X`` (as the strategies see it)."""
    from scipy.spatial.distance import pdist

    Z = standardize(np.asarray(X, float))
    n = Z.shape[0]
    return np.asarray(pdist(Z), dtype=float) if Z.shape[1] else np.zeros(n * (n - 1) // 2)


def _standard(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else np.zeros_like(v)


def mantel(a: np.ndarray, b: np.ndarray, *, permutations: int = MANTEL_PERMUTATIONS, seed: int = 0,
           stop_after: int | None = STOP_AFTER) -> tuple[float, float]:
    """Mantel test with Spearman correlation between two distance matrices.

    Parameters
    ----------
    a, b : ndarray of shape (n, n), or condensed of shape (n (n − 1) / 2,)
        Symmetric distances (both square or both condensed).
    permutations : int
        Largest number of joint row/column permutations of ``a``.
    seed : int
    stop_after : int or None
        Sequential Monte-Carlo p-value (Besag & Clifford 1991): stop at the ``stop_after``-th
        permutation with a statistic ≥ r, then p = stop_after / permutations drawn. None:
        always draw every permutation.

    Returns
    -------
    r : float
        Spearman correlation of the pairwise distances.
    p : float
        One-sided permutation p-value (positive association): ``h / b`` when stopped early,
        else ``(1 + #{r_perm ≥ r}) / (1 + permutations)``.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.ndim == 2:
        iu = np.triu_indices(a.shape[0], k=1)
        a, b = a[iu], b[iu]
    n = int(round((1 + np.sqrt(1 + 8 * a.size)) / 2))
    iu = np.triu_indices(n, k=1)
    ra, rb = _standard(_rank(a)), _standard(_rank(b))
    r = float((ra * rb).mean())
    # ranks permute with the datasets (no re-ranking per permutation); with both as full
    # symmetric matrices, a permuted statistic is one gather and one dot product, batched
    A, B = np.zeros((n, n)), np.zeros((n, n))
    A[iu], B[iu] = ra, rb
    A, B = A + A.T, B + B.T
    rng = np.random.default_rng(seed)
    per = max(1, _MANTEL_BLOCK // (n * n))
    hits = drawn = 0
    while drawn < permutations:
        P = np.stack([rng.permutation(n) for _ in range(min(per, permutations - drawn))])
        stats = np.einsum("bij,ij->b", A[P[:, :, None], P[:, None, :]], B) / (2 * rb.size)
        for above in stats >= r - 1e-12:
            drawn += 1
            hits += int(above)
            if stop_after is not None and hits >= stop_after:
                return r, hits / drawn
    return r, (1 + hits) / (1 + permutations)


@dataclass(frozen=True, eq=False)
class Geometry:
    """Agreement between descriptor geometry and performance structure.

    Attributes
    ----------
    rho : float
        Spearman correlation between pairwise descriptor distances and pairwise
        performance distances (NaN with fewer than three datasets).
    p_value : float
        One-sided Mantel permutation p-value.
    permutations : int
    desc_dist, rank_dist : ndarray of shape (n (n − 1) / 2,)
        The condensed distances (:func:`descriptor_distance`, :func:`rank_distance`).
    """

    rho: float
    p_value: float
    permutations: int
    desc_dist: np.ndarray
    rank_dist: np.ndarray

    def strength(self) -> str:
        """``"strong"``, ``"moderate"``, ``"weak"`` or ``"none"`` (by ρ and p)."""
        if not np.isfinite(self.rho) or self.p_value > 0.05 or self.rho <= 0:
            return "none"
        if self.rho >= 0.4:
            return "strong"
        return "moderate" if self.rho >= 0.2 else "weak"


def geometry_agreement(X: np.ndarray, rank_vectors: np.ndarray, *, permutations: int = MANTEL_PERMUTATIONS,
                       seed: int = 0) -> Geometry:
    """Mantel test between descriptor distances and rank-profile distances.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The representation (standardized here as the strategies see it).
    rank_vectors : ndarray of shape (n, M)
        ``Benchmark.rank_vectors`` (or rank sums: only the order within a row counts);
        NaN (a model a dataset does not rank, ``partial`` policy) counts as the middle rank.
    permutations : int
    seed : int
    """
    d_desc = descriptor_distance(X)
    d_rank = rank_distance(middle_filled(rank_vectors))
    if d_desc.size < 3:
        return Geometry(float("nan"), 1.0, 0, d_desc, d_rank)
    r, p = mantel(d_desc, d_rank, permutations=permutations, seed=seed)
    return Geometry(r, p, permutations, d_desc, d_rank)


def middle_filled(rank_vectors: np.ndarray) -> np.ndarray:
    """Rank vectors with an undefined rank (NaN, ``partial`` policy) replaced by the middle
    rank (M + 1) / 2: a dataset says nothing about a model it does not rank."""
    rv = np.asarray(rank_vectors, dtype=float)
    return np.where(np.isnan(rv), (rv.shape[-1] + 1) / 2.0, rv)


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
                    f"(Mantel r = {text(self.mantel_r, 'correlation')}, {p_text(self.mantel_p)}): no better than random "
                    "should be expected.")
        strength = "strongly" if self.mantel_r >= 0.3 else "moderately" if self.mantel_r >= 0.15 else "weakly"
        return (f"'{self.representation}' {strength} tracks the model rankings (Mantel r = {text(self.mantel_r, 'correlation')}, "
                f"{p_text(self.mantel_p)}; CKA = {text(self.cka, 'correlation')}).")


def check_representation(
    benchmark: Benchmark, representation: Representation, *, permutations: int = MANTEL_PERMUTATIONS, seed: int = 0
) -> RepresentationCheck:
    """Mantel test (:func:`geometry_agreement`) and linear CKA of a representation against the rank profiles."""
    if tuple(representation.datasets) != tuple(benchmark.datasets):
        raise InputError("the representation is not aligned to the benchmark's datasets.", field="representation")
    g = geometry_agreement(representation.X, benchmark.rank_vectors, permutations=permutations, seed=seed)
    cka = linear_cka(standardize(representation.X), middle_filled(benchmark.rank_vectors))
    return RepresentationCheck(representation.name, g.rho, g.p_value, cka, benchmark.n_datasets,
                               representation.X.shape[1])
