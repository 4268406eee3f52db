"""``a-optimal`` and ``d-optimal`` experimental design: greedy forward, then exchange."""

from __future__ import annotations

import numpy as np

from .base import StrategyInfo, argmax_first, register

LAMBDA = 1e-3
_REL_TOL = 1e-10


def _inv_info(X: np.ndarray, S: list[int], lam: float) -> np.ndarray:
    p = X.shape[1]
    XS = X[S]
    return np.linalg.inv(XS.T @ XS + lam * np.eye(p))


def _objective(Minv: np.ndarray, criterion: str) -> float:
    """Value to minimise: trace(M⁻¹) (A) or −log det M = log det M⁻¹ (D)."""
    if criterion == "a":
        return float(np.trace(Minv))
    sign, logdet = np.linalg.slogdet(Minv)
    return float(logdet)


def _gains(X: np.ndarray, Minv: np.ndarray, criterion: str) -> np.ndarray:
    """Decrease of the objective when each row is added (Sherman–Morrison)."""
    B = X @ Minv
    q = (B * X).sum(axis=1)
    if criterion == "a":
        return (B * B).sum(axis=1) / (1.0 + q)
    return np.log1p(q)


def optimal_design(
    X: np.ndarray, k: int, *, rng: np.random.Generator | None = None, include: np.ndarray = (),  # type: ignore[assignment]
    criterion: str = "a", lam: float = LAMBDA, max_swaps: int | None = None,
) -> np.ndarray:
    """Greedy forward selection then best-improvement exchange for an optimal design.

    A-optimal minimises ``trace((X_Sᵀ X_S + λI)⁻¹)``; D-optimal maximises
    ``log det(X_Sᵀ X_S + λI)``. Exchange passes swap a chosen (non-included) row for an
    unchosen one, taking the best improving swap each pass, until none improves by more
    than a relative 1e-10. Ties go to the earlier position and the lower row. Deterministic.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Standardized descriptors.
    k : int
    rng : unused
    include : ndarray of int
        Rows chosen first and never swapped out.
    criterion : {"a", "d"}
    lam : float
        Ridge λ.
    max_swaps : int, optional
        Bound on exchange steps (default ``50·k``).

    Returns
    -------
    ndarray of int, shape (k,)
    """
    n, p = X.shape
    chosen = [int(i) for i in np.asarray(include, dtype=np.int64)]
    fixed = len(chosen)
    taken = np.zeros(n, dtype=bool)
    taken[chosen] = True
    if p == 0:
        rest = [i for i in range(n) if not taken[i]]
        return np.asarray((chosen + rest)[:k], dtype=np.int64)
    Minv = _inv_info(X, chosen, lam)
    while len(chosen) < k:
        g = np.where(taken, -np.inf, _gains(X, Minv, criterion))
        i = argmax_first(g)
        b = Minv @ X[i]
        Minv = Minv - np.outer(b, b) / (1.0 + X[i] @ b)
        chosen.append(i)
        taken[i] = True
    Minv = _inv_info(X, chosen, lam)
    f = _objective(Minv, criterion)
    for _ in range(max_swaps if max_swaps is not None else 50 * k):
        best = (0.0, -1, -1)
        for pos in range(fixed, k):
            a = chosen[pos]
            b = Minv @ X[a]
            qa = float(X[a] @ b)
            if qa >= 1.0:  # numerically singular downdate; skip this position
                continue
            M_minus = Minv + np.outer(b, b) / (1.0 - qa)
            g = np.where(taken, -np.inf, _gains(X, M_minus, criterion))
            j = argmax_first(g)
            if criterion == "a":
                improvement = f - (float(np.trace(M_minus)) - g[j])
            else:
                improvement = g[j] + np.log1p(-qa)  # increase of log det M
            if improvement > best[0] + _REL_TOL * max(1.0, abs(f)):
                best = (improvement, pos, j)
        if best[1] < 0:
            break
        _, pos, j = best
        taken[chosen[pos]] = False
        chosen[pos] = j
        taken[j] = True
        Minv = _inv_info(X, chosen, lam)
        f = _objective(Minv, criterion)
    return np.asarray(chosen, dtype=np.int64)


def a_optimal(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """A-optimal design (see :func:`optimal_design`)."""
    return optimal_design(X, k, rng=rng, include=include, criterion="a")


def d_optimal(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """D-optimal design (see :func:`optimal_design`)."""
    return optimal_design(X, k, rng=rng, include=include, criterion="d")


register(StrategyInfo(
    "a-optimal", a_optimal, nested=False, uses_features=True, title="A-optimal design",
    description="Minimises the average variance of a linear model fitted on the chosen datasets.",
))
register(StrategyInfo(
    "d-optimal", d_optimal, nested=False, uses_features=True, title="D-optimal design",
    description="Maximises the volume (log-determinant) spanned by the chosen datasets' descriptors.",
))
