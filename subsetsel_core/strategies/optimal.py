"""``a-optimal`` and ``d-optimal`` experimental design: greedy forward, then exchange.

Greedy forward selection is nested (the order for k is the prefix of the order for k+1),
so :func:`optimal_design_many` runs it once up to the largest k and then runs the
exchange search for every k from its prefix. One exchange pass scores every
(chosen, unchosen) swap at once from two matrix products (Sherman–Morrison down- and
up-dates), with no loop over positions; the scores' elementwise part and the choice of the
best swap run compiled (:mod:`.optimal_kernels`) or, for small inputs, as the numpy
expressions of :func:`best_swaps_numpy`, which give the same values
(:mod:`.kernel_choice`).

:func:`optimal_design_pools` runs the same search on many pools at once (the trials of a
protocol batch): pools of one shape are stacked, so one greedy step and one exchange pass
serve all of them. Every pool's matrices go through the same operations, with the same
shapes, as when it runs alone (a stacked matrix product computes each pool's slice by
itself), so the subsets are those of :func:`optimal_design_many` on each pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np

from subsetsel_core.strategies import kernel_choice
from subsetsel_core.strategies.base import StrategyInfo, argmax_first

LAMBDA = 1e-3
_REL_TOL = 1e-10
_BLOCK = 2**20  # elements of the largest array of one stacked exchange call
_SCORE_OPS = 14.0  # elementary operations per swap score (kernel_choice's estimate of a pass's size)


def _kernels() -> ModuleType:
    """The compiled best-swap kernels; numba loads on the first call only."""
    from subsetsel_core.strategies import optimal_kernels

    return optimal_kernels


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


def greedy_forward_stack(Xs: np.ndarray, k: int, include: Sequence[int], criterion: str,
                         lam: float = LAMBDA) -> np.ndarray:
    """:func:`greedy_forward` on each of ``Xs`` (G, n, p) at once; the orders as rows of a (G, k) array.

    Each step is one stacked matrix product and one rank-one (Sherman–Morrison) update of
    every pool's inverse, the same operations as :func:`greedy_forward`'s on each pool.
    """
    G, n, p = Xs.shape
    inc = [int(i) for i in include]
    order = np.empty((G, k), dtype=np.int64)
    order[:, : len(inc)] = inc
    taken = np.zeros((G, n), dtype=bool)
    taken[:, inc] = True
    XS = Xs[:, inc]
    Minv = np.linalg.inv(np.swapaxes(XS, 1, 2) @ XS + lam * np.eye(p))
    rows = np.arange(G)
    for step in range(len(inc), k):
        B = np.matmul(Xs, Minv)
        q = (B * Xs).sum(axis=2)
        gain = (B * B).sum(axis=2) / (1.0 + q) if criterion == "a" else np.log1p(q)
        i = np.where(taken, -np.inf, gain).argmax(axis=1)  # the first among exact ties
        xi = Xs[rows, i]  # (G, p)
        b = np.matmul(Minv, xi[:, :, None])  # (G, p, 1)
        den = 1.0 + np.matmul(xi[:, None, :], b)  # (G, 1, 1)
        b = b[:, :, 0]
        Minv = Minv - (b[:, :, None] * b[:, None, :]) / den
        order[:, step] = i
        taken[rows, i] = True
    return order


def best_swaps_numpy(criterion: str, G: np.ndarray, q: np.ndarray, den: np.ndarray, ok: np.ndarray, chosen: np.ndarray,
                *, L2: np.ndarray | None = None, H: np.ndarray | None = None, bb: np.ndarray | None = None,
                ba2: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every swap's score as numpy arrays, then per set the first largest in position-major order.

    The reference of :mod:`.optimal_kernels` (which computes the same values in one pass);
    used for the sets whose D-scores the kernel cannot rank. Shapes as in
    :func:`.optimal_kernels.a_best`; ``L2`` = log1p(−qa) for the D-criterion.
    """
    a, n, _ = G.shape
    denom = den[:, None, :]
    qp = G * G  # the same operations, in the same order, as the expressions in the comments, in place
    qp /= denom  # qp = q + G·G / denom
    qp += q[:, :, None]
    if criterion == "d":
        assert L2 is not None
        imp = np.log1p(qp)  # imp = log1p(qp) + log1p(−qa)
        imp += L2[:, None, :]
    else:
        assert H is not None and bb is not None and ba2 is not None
        r = G / denom
        imp = r * 2.0  # imp = (|b_j|² + 2·r·H + r·r·ba2) / (1 + qp) − ba2 / denom
        imp *= H
        imp += bb[:, :, None]
        r *= r
        r *= ba2[:, None, :]
        imp += r
        qp += 1.0
        imp /= qp
        imp -= ba2[:, None, :] / denom
    np.copyto(imp, -np.inf, where=chosen[:, :, None] | ~ok[:, None, :])
    flat = np.swapaxes(imp, 1, 2).reshape(a, -1)  # position-major
    best = flat.argmax(axis=1)
    return best, flat[np.arange(a), best]


def exchange_many(
    X: np.ndarray, starts: Sequence[Sequence[int]], fixed: int, criterion: str, lam: float = LAMBDA,
    max_swaps: int | None = None, owner: Sequence[int] | np.ndarray | None = None,
) -> list[list[int]]:
    """Best-improvement exchange from several start sets at once; the first ``fixed`` rows stay.

    ``X`` is one pool (n, p), or a stack of pools (G, n, p) with ``owner[i]`` the pool of
    ``starts[i]``.

    Each pass scores every swap (position a, unchosen row j) of every still-improving set
    from a few batched matrix products and applies each set's best swap if it improves
    the objective by more than a relative 1e-10; ties go to the earlier position, then
    the lower row. A set stops when no swap improves (or after ``max_swaps``, default
    50·k). The sets are padded to the largest size and masked.
    """
    Xs = X[None] if X.ndim == 2 else X
    _, n, p = Xs.shape
    K = len(starts)
    own = np.zeros(K, dtype=np.int64) if owner is None else np.asarray(owner, dtype=np.int64)
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
        oa = own[act]
        Xa = np.broadcast_to(Xs[0], (a, n, p)) if len(Xs) == 1 else Xs[oa]  # (a, n, p): each set's pool
        XS = Xs[oa[:, None], Sa] * va[:, :, None]  # (a, kmax, p); padded rows are zero
        if Minv is None or f is None:
            Minv = np.linalg.inv(np.swapaxes(XS, 1, 2) @ XS + eye)
            f = np.trace(Minv, axis1=1, axis2=2) if criterion == "a" else np.linalg.slogdet(Minv)[1]
        B = np.matmul(Xa, Minv)  # (a, n, p): rows (M⁻¹ x_j)ᵀ
        q = (B * Xa).sum(axis=2)  # (a, n)
        G = B @ np.swapaxes(XS, 1, 2)  # (a, n, kmax): x_jᵀ M⁻¹ x_s
        qa = np.take_along_axis(q, Sa, axis=1)  # (a, kmax)
        ok = mv & (qa < 1.0 - 1e-12)
        chosen = np.zeros((a, n), dtype=bool)
        np.put_along_axis(chosen, np.where(va, Sa, Sa[:, :1]), True, axis=1)
        den = np.where(ok, 1.0 - qa, 1.0)
        # the best swap of every set: the first largest score in position-major order, −∞ where j is
        # chosen or position s may not move (compiled, or best_swaps_numpy: the same scores)
        compiled = kernel_choice.use_compiled(_SCORE_OPS * G.size)
        if criterion == "d":
            L2 = np.log1p(-np.where(ok, qa, 0.0))
            if compiled:
                best, gain, full = _kernels().d_best(G, q, den, L2, ok, chosen)
                if full.size:  # sets the kernel cannot rank
                    best[full], gain[full] = best_swaps_numpy("d", G[full], q[full], den[full], ok[full],
                                                         chosen[full], L2=L2[full])
            else:
                best, gain = best_swaps_numpy("d", G, q, den, ok, chosen, L2=L2)
        else:
            BS = B[np.arange(a)[:, None], Sa]  # (a, kmax, p)
            H = B @ np.swapaxes(BS, 1, 2)  # (a, n, kmax): x_jᵀ M⁻² x_s
            bb, ba2 = (B * B).sum(axis=2), (BS * BS).sum(axis=2)
            if compiled:
                best, gain = _kernels().a_best(G, H, q, bb, den, ba2, ok, chosen)
            else:
                best, gain = best_swaps_numpy("a", G, q, den, ok, chosen, H=H, bb=bb, ba2=ba2)
        tol = _REL_TOL * np.maximum(1.0, np.abs(f))
        pos, j = np.divmod(best, n)
        cand = np.flatnonzero(gain > tol)
        if cand.size:
            # confirm with the objective computed afresh: the update formulas lose digits
            # when M is near-singular (k < p), and a false gain could make the search cycle
            Snew = Sa[cand].copy()
            Snew[np.arange(cand.size), pos[cand]] = j[cand]
            XN = Xs[oa[cand][:, None], Snew] * va[cand][:, :, None]
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


def optimal_design_pools(
    pools: Sequence[np.ndarray], ks: Sequence[int], *, include: Sequence[int] | np.ndarray = (),
    criterion: str = "a", lam: float = LAMBDA, max_swaps: int | None = None,
) -> list[list[np.ndarray]]:
    """:func:`optimal_design_many` on each pool of ``pools``, with the same subsets, in fewer steps.

    Pools of one shape (n, p) with 0 < p ≤ n are stacked: one greedy step and one exchange
    pass serve all of them (in chunks of at most :data:`_BLOCK` elements per array). Other
    pools (p = 0, or wide ones in the dual form) run one by one.

    Returns
    -------
    list (per pool) of list (per k) of ndarray of int
    """
    inc = [int(i) for i in np.asarray(include, dtype=np.int64)]
    out: list[list[np.ndarray]] = [[] for _ in pools]
    shapes: dict[tuple[int, int], list[int]] = {}
    for i, X in enumerate(pools):
        n, p = X.shape
        if 0 < p <= n:
            shapes.setdefault((n, p), []).append(i)
        else:
            out[i] = optimal_design_many(X, ks, include=inc, criterion=criterion, lam=lam, max_swaps=max_swaps)
    nk, kmax = len(ks), max(ks)
    for (n, _), members in shapes.items():
        Xs = np.stack([np.asarray(pools[i], dtype=float) for i in members])
        orders = greedy_forward_stack(Xs, kmax, inc, criterion, lam)
        per = max(1, _BLOCK // (n * kmax * nk))  # pools per exchange call
        for lo in range(0, len(members), per):
            part = range(lo, min(lo + per, len(members)))
            starts = [orders[g, :k].tolist() for g in part for k in ks]
            owner = np.repeat(np.arange(len(part)), nk)
            sets = exchange_many(Xs[lo:lo + len(part)], starts, len(inc), criterion, lam, max_swaps, owner)
            for j, g in enumerate(part):
                out[members[g]] = [np.asarray(x, dtype=np.int64) for x in sets[j * nk:(j + 1) * nk]]
    return out


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


def _a_pools(Xs: Sequence[np.ndarray], ks: Sequence[int]) -> list[list[np.ndarray]]:
    return optimal_design_pools(Xs, ks, criterion="a")


def _d_pools(Xs: Sequence[np.ndarray], ks: Sequence[int]) -> list[list[np.ndarray]]:
    return optimal_design_pools(Xs, ks, criterion="d")


A_OPTIMAL = StrategyInfo(
    "a-optimal", a_optimal, nested=False, uses_features=True, title="A-optimal design",
    description="Minimises the average variance of a linear model fitted on the chosen datasets.",
    many=_a_many, uses_rng=False, colour="#2ca02c", seconds_per_trial=0.007, many_pools=_a_pools,
)
D_OPTIMAL = StrategyInfo(
    "d-optimal", d_optimal, nested=False, uses_features=True, title="D-optimal design",
    description="Maximises the volume (log-determinant) spanned by the chosen datasets' descriptors.",
    many=_d_many, uses_rng=False, colour="#9467bd", seconds_per_trial=0.0055, many_pools=_d_pools,
)
