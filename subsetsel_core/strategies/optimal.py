"""``a-optimal`` and ``d-optimal`` experimental design: greedy forward, then exchange.

Greedy forward selection is nested (the order for k is the prefix of the order for k+1),
so :func:`optimal_design_many` runs it once up to the largest k and then runs the
exchange search for every k from its prefix. One exchange pass scores every
(chosen, unchosen) swap at once from two matrix products (Sherman–Morrison down- and
up-dates), with no loop over positions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from subsetsel_core.strategies.base import StrategyInfo, argmax_first

LAMBDA = 1e-3
_REL_TOL = 1e-10


def _inv_info(X: np.ndarray, S: Sequence[int], lam: float) -> np.ndarray:
    XS = X[list(S)]
    return np.linalg.inv(XS.T @ XS + lam * np.eye(X.shape[1]))


def _objective(Minv: np.ndarray, criterion: str) -> float:
    """Value to minimise: trace(M⁻¹) (A) or log det M⁻¹ = −log det M (D)."""
    if criterion == "a":
        return float(np.trace(Minv))
    return float(np.linalg.slogdet(Minv)[1])


def greedy_forward(X: np.ndarray, k: int, include: Sequence[int], criterion: str, lam: float = LAMBDA) -> list[int]:
    """Greedy forward order of ``k`` rows (``include`` first), best gain first, ties to the lower row."""
    n = X.shape[0]
    chosen = [int(i) for i in include]
    taken = np.zeros(n, dtype=bool)
    taken[chosen] = True
    Minv = _inv_info(X, chosen, lam)
    while len(chosen) < k:
        B = X @ Minv
        q = (B * X).sum(axis=1)
        gain = (B * B).sum(axis=1) / (1.0 + q) if criterion == "a" else np.log1p(q)
        i = argmax_first(np.where(taken, -np.inf, gain))
        b = Minv @ X[i]
        Minv = Minv - np.outer(b, b) / (1.0 + X[i] @ b)
        chosen.append(i)
        taken[i] = True
    return chosen


def exchange_many(
    X: np.ndarray, starts: Sequence[Sequence[int]], fixed: int, criterion: str, lam: float = LAMBDA,
    max_swaps: int | None = None,
) -> list[list[int]]:
    """Best-improvement exchange from several start sets at once; the first ``fixed`` rows stay.

    Each pass scores every swap (position a, unchosen row j) of every still-improving set
    from a few batched matrix products and applies each set's best swap if it improves
    the objective by more than a relative 1e-10; ties go to the earlier position, then
    the lower row. A set stops when no swap improves (or after ``max_swaps``, default
    50·k). The sets are padded to the largest size and masked.
    """
    n, p = X.shape
    K = len(starts)
    kmax = max(len(s) for s in starts)
    S = np.zeros((K, kmax), dtype=np.int64)
    valid = np.zeros((K, kmax), dtype=bool)
    for i, st in enumerate(starts):
        S[i, : len(st)] = st
        valid[i, : len(st)] = True
    sizes = valid.sum(axis=1)
    movable = valid & (np.arange(kmax)[None, :] >= fixed)
    act = np.flatnonzero((sizes > fixed) & (sizes < n))
    eye = lam * np.eye(p)
    limit = max_swaps if max_swaps is not None else 50 * kmax
    Minv = f = None  # of the sets in ``act``, carried over from the confirmation
    for _ in range(limit):
        if act.size == 0:
            break
        a = act.size
        Sa, va, mv = S[act], valid[act], movable[act]
        XS = X[Sa] * va[:, :, None]  # (a, kmax, p); padded rows are zero
        if Minv is None or f is None:
            Minv = np.linalg.inv(np.swapaxes(XS, 1, 2) @ XS + eye)
            f = np.trace(Minv, axis1=1, axis2=2) if criterion == "a" else np.linalg.slogdet(Minv)[1]
        B = np.matmul(X[None], Minv)  # (a, n, p): rows (M⁻¹ x_j)ᵀ
        q = (B * X[None]).sum(axis=2)  # (a, n)
        G = B @ np.swapaxes(XS, 1, 2)  # (a, n, kmax): x_jᵀ M⁻¹ x_s
        qa = np.take_along_axis(q, Sa, axis=1)  # (a, kmax)
        ok = mv & (qa < 1.0 - 1e-12)
        denom = np.where(ok, 1.0 - qa, 1.0)[:, None, :]
        # the same operations, in the same order, as the expressions in the comments, in place
        qp = G * G  # qp = q + G·G / denom
        qp /= denom
        qp += q[:, :, None]
        if criterion == "d":
            imp = np.log1p(qp)  # imp = log1p(qp) + log1p(−qa)
            imp += np.log1p(-np.where(ok, qa, 0.0))[:, None, :]
        else:
            BS = np.take_along_axis(B, Sa[:, :, None], axis=1)  # (a, kmax, p)
            H = B @ np.swapaxes(BS, 1, 2)  # (a, n, kmax): x_jᵀ M⁻² x_s
            ba2 = (BS * BS).sum(axis=2)[:, None, :]
            r = G / denom
            imp = r * 2.0  # imp = (|b_j|² + 2·r·H + r·r·ba2) / (1 + qp) − ba2 / denom
            imp *= H
            imp += (B * B).sum(axis=2)[:, :, None]
            r *= r
            r *= ba2
            imp += r
            qp += 1.0
            imp /= qp
            imp -= ba2 / denom
        chosen = np.zeros((a, n), dtype=bool)
        np.put_along_axis(chosen, np.where(va, Sa, Sa[:, :1]), True, axis=1)
        np.copyto(imp, -np.inf, where=chosen[:, :, None] | ~ok[:, None, :])
        flat = np.swapaxes(imp, 1, 2).reshape(a, -1)  # position-major
        best = flat.argmax(axis=1)
        gain = flat[np.arange(a), best]
        tol = _REL_TOL * np.maximum(1.0, np.abs(f))
        pos, j = np.divmod(best, n)
        cand = np.flatnonzero(gain > tol)
        if cand.size:
            # confirm with the objective computed afresh: the update formulas lose digits
            # when M is near-singular (k < p), and a false gain could make the search cycle
            Snew = Sa[cand].copy()
            Snew[np.arange(cand.size), pos[cand]] = j[cand]
            XN = X[Snew] * va[cand][:, :, None]
            MN = np.linalg.inv(np.swapaxes(XN, 1, 2) @ XN + eye)
            fn = np.trace(MN, axis1=1, axis2=2) if criterion == "a" else np.linalg.slogdet(MN)[1]
            better = f[cand] - fn > tol[cand]
            cand = cand[better]
            S[act[cand], pos[cand]] = j[cand]
            # the next pass's sets are exactly these: their inverse is already known
            Minv, f = MN[better], fn[better]
        act = act[cand]
    return [S[i, : sizes[i]].tolist() for i in range(K)]


def optimal_design(
    X: np.ndarray, k: int, *, rng: np.random.Generator | None = None, include: np.ndarray = (),  # type: ignore[assignment]
    criterion: str = "a", lam: float = LAMBDA, max_swaps: int | None = None,
) -> np.ndarray:
    """Greedy forward selection then best-improvement exchange for an optimal design.

    A-optimal minimises ``trace((X_Sᵀ X_S + λI)⁻¹)``; D-optimal maximises
    ``log det(X_Sᵀ X_S + λI)``; λ = 1e-3. Deterministic (``rng`` is unused).

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
    max_swaps : int, optional

    Returns
    -------
    ndarray of int, shape (k,)
    """
    return optimal_design_many(X, [k], include=include, criterion=criterion, lam=lam, max_swaps=max_swaps)[0]


def optimal_design_many(
    X: np.ndarray, ks: Sequence[int], *, include: Sequence[int] | np.ndarray = (), criterion: str = "a",
    lam: float = LAMBDA, max_swaps: int | None = None,
) -> list[np.ndarray]:
    """:func:`optimal_design` for several k at once (one greedy pass to max k).

    When the representation is wider than it is tall (p > n) the same search runs in the
    k × k dual form (:mod:`.optimal_dual`); the objective differs from the primal one only
    by a constant, so the subsets are the same up to floating-point near-ties.
    """
    n, p = X.shape
    inc = [int(i) for i in np.asarray(include, dtype=np.int64)]
    if p == 0:
        rest = [i for i in range(n) if i not in set(inc)]
        return [np.asarray((inc + rest)[:k], dtype=np.int64) for k in ks]
    if p > n:  # wide representation: the k × k dual form is far cheaper than p × p inverses
        from subsetsel_core.strategies.optimal_dual import optimal_design_dual_many

        return optimal_design_dual_many(X, ks, include=inc, criterion=criterion, lam=lam, max_swaps=max_swaps)
    order = greedy_forward(X, max(ks), inc, criterion, lam)
    out = exchange_many(X, [order[:k] for k in ks], len(inc), criterion, lam, max_swaps)
    return [np.asarray(s, dtype=np.int64) for s in out]


def a_optimal(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """A-optimal design (see :func:`optimal_design`)."""
    return optimal_design(X, k, rng=rng, include=include, criterion="a")


def d_optimal(X: np.ndarray, k: int, *, rng: np.random.Generator, include: np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """D-optimal design (see :func:`optimal_design`)."""
    return optimal_design(X, k, rng=rng, include=include, criterion="d")


def _a_many(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator]) -> list[np.ndarray]:
    return optimal_design_many(X, ks, criterion="a")


def _d_many(X: np.ndarray, ks: Sequence[int], rngs: Sequence[np.random.Generator]) -> list[np.ndarray]:
    return optimal_design_many(X, ks, criterion="d")


A_OPTIMAL = StrategyInfo(
    "a-optimal", a_optimal, nested=False, uses_features=True, title="A-optimal design",
    description="Minimises the average variance of a linear model fitted on the chosen datasets.",
    many=_a_many, uses_rng=False, colour="#2ca02c", seconds_per_trial=0.007,
)
D_OPTIMAL = StrategyInfo(
    "d-optimal", d_optimal, nested=False, uses_features=True, title="D-optimal design",
    description="Maximises the volume (log-determinant) spanned by the chosen datasets' descriptors.",
    many=_d_many, uses_rng=False, colour="#9467bd", seconds_per_trial=0.0055,
)
