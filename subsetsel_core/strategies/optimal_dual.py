"""A- and D-optimal design in the k × k dual form, for wide representations (p > n).

With K = X Xᵀ (n × n) and A_S = K_SS + λI_k, for any subset S of size k:

* trace((X_Sᵀ X_S + λI_p)⁻¹) = trace(A_S⁻¹) + (p − k)/λ
* log det(X_Sᵀ X_S + λI_p) = log det(A_S) + (p − k) log λ

because X_Sᵀ X_S and K_SS share their non-zero eigenvalues. The searches below are the
same greedy forward selection and best-improvement exchange as the primal ones
(:mod:`.optimal`), written with bordered inverses of A_S, so their cost grows with k and n
instead of p³ (783 tsfresh flags, 384-dimensional text embeddings).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_REL_TOL = 1e-10


def _objective(K: np.ndarray, S: Sequence[int], lam: float, criterion: str) -> float:
    """Value to minimise, up to the constant (p − k) terms: trace(A⁻¹) or −log det A."""
    A = K[np.ix_(S, S)] + lam * np.eye(len(S))
    if criterion == "a":
        return float(np.trace(np.linalg.inv(A)))
    return -float(np.linalg.slogdet(A)[1])


def greedy_forward_dual(K: np.ndarray, k: int, include: Sequence[int], criterion: str, lam: float) -> list[int]:
    """Greedy forward order of ``k`` rows from the Gram matrix ``K``; ties to the lower row."""
    n = K.shape[0]
    chosen = [int(i) for i in include]
    taken = np.zeros(n, dtype=bool)
    taken[chosen] = True
    diag = np.diag(K) + lam
    while len(chosen) < k:
        if chosen:
            Ainv = np.linalg.inv(K[np.ix_(chosen, chosen)] + lam * np.eye(len(chosen)))
            B = K[chosen, :]  # (k, n)
            W = Ainv @ B
            s = diag - (B * W).sum(axis=0)  # Schur complements
            u = (W * W).sum(axis=0)
        else:
            s, u = diag.copy(), np.zeros(n)
        s = np.maximum(s, 1e-300)
        if criterion == "a":
            score = -(1.0 + u) / s  # trace increase of A⁻¹ minus the constant 1/λ drop
        else:
            score = np.log(s)
        i = int(np.argmax(np.where(taken, -np.inf, score)))
        chosen.append(i)
        taken[i] = True
    return chosen


def exchange_dual(K: np.ndarray, S: Sequence[int], fixed: int, criterion: str, lam: float,
                  max_swaps: int | None = None) -> list[int]:
    """Best-improvement exchange in the dual form (positions ≥ ``fixed`` may be swapped).

    Every (position a, unchosen row j) swap is scored at once: A without a by the block
    inverse formula, then j bordered back in. The best swap is confirmed on the objective
    computed afresh and applied when it improves by more than a relative 1e-10.
    """
    S = [int(i) for i in S]
    k = len(S)
    n = K.shape[0]
    if k <= fixed or k >= n:
        return S
    diag = np.diag(K) + lam
    for _ in range(max_swaps if max_swaps is not None else 50 * k):
        A = K[np.ix_(S, S)] + lam * np.eye(k)
        Ainv = np.linalg.inv(A)
        f = float(np.trace(Ainv)) if criterion == "a" else -float(np.linalg.slogdet(A)[1])
        pos = np.arange(fixed, k)
        a_ii = np.diag(Ainv)[pos]  # (ka,)
        ok = a_ii > 1e-300
        # A_{-a}^{-1} = Ainv - Ainv[:, a] Ainv[a, :] / Ainv[a, a], embedded in k × k (row/col a zeroed)
        col = Ainv[:, pos].T  # (ka, k)
        Rinv = Ainv[None, :, :] - col[:, :, None] * col[:, None, :] / np.where(ok, a_ii, 1.0)[:, None, None]
        Rinv[np.arange(len(pos)), pos, :] = 0.0
        Rinv[np.arange(len(pos)), :, pos] = 0.0
        B = K[S, :]  # (k, n)
        W = Rinv @ B  # (ka, k, n)
        s = np.maximum(diag[None, :] - (B[None] * W).sum(axis=1), 1e-300)  # (ka, n)
        if criterion == "a":
            tr_minus = np.trace(Rinv, axis1=1, axis2=2)  # (ka,)
            new = tr_minus[:, None] + (1.0 + (W * W).sum(axis=1)) / s
            imp = f - new
        else:
            imp = np.log(np.where(ok, a_ii, 1.0))[:, None] + np.log(s)  # change of log det A
        imp[:, S] = -np.inf
        imp[~ok, :] = -np.inf
        best = int(np.argmax(imp))  # position-major: earlier position, then lower row
        gain = imp.flat[best]
        tol = _REL_TOL * max(1.0, abs(f))
        if not gain > tol:
            break
        pa, j = divmod(best, n)
        T = S.copy()
        T[fixed + pa] = j
        if f - _objective(K, T, lam, criterion) <= tol:
            break
        S = T
    return S


def optimal_design_dual_many(
    X: np.ndarray, ks: Sequence[int], *, include: Sequence[int] = (), criterion: str = "a",
    lam: float = 1e-3, max_swaps: int | None = None,
) -> list[np.ndarray]:
    """Dual-form counterpart of :func:`.optimal.optimal_design_many` (same search, same ties)."""
    K = X @ X.T
    inc = [int(i) for i in include]
    order = greedy_forward_dual(K, max(ks), inc, criterion, lam)
    return [np.asarray(exchange_dual(K, order[:k], len(inc), criterion, lam, max_swaps), dtype=np.int64) for k in ks]
