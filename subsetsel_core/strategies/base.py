"""What a strategy is (:class:`StrategyInfo`) and the preprocessing every strategy shares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Kernel = Callable[..., np.ndarray]
CostKernel = Callable[[np.ndarray, np.ndarray, float, np.random.Generator], list[int]]


@dataclass(frozen=True)
class StrategyInfo:
    """A registered strategy.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"fafi-cosine"``.
    kernel : callable
        ``kernel(X, k, *, rng, include) -> ndarray[int]`` on preprocessed, valid input:
        k distinct row indices in selection order, ``include`` first.
    nested : bool
        Whether the k-subset is the prefix of the (k+1)-subset (one run to k_max gives
        every k).
    uses_features : bool
        False for ``random`` (which sees no descriptors and no preprocessing).
    title : str
        Human-readable name.
    description : str
        One sentence for users.
    many : callable, optional
        ``many(X, ks, rngs) -> list[ndarray[int]]``: the subsets for several k at once
        (``rngs[i]`` is the generator for ``ks[i]``), identical to calling ``kernel`` for
        each k with that generator; used by the protocol to share work across k.
    uses_rng : bool
        False for deterministic strategies: the protocol then creates no random streams
        for them (``rng`` / ``rngs`` are passed as None).
    colour : str
        The strategy's colour on every chart and report (hex).
    cost_aware : callable, optional
        ``cost_aware(Z, costs, budget, rng) -> list[int]``: the budget-aware variant
        (datasets in selection order whose costs fit in ``budget``), or None.
    score_aware : bool
        True for the strategies that choose from today's models' scores
        (:mod:`~subsetsel_core.strategies.score_aware`): they are judged on held-out models
        only (``subsetsel headroom``), never offered for a selection or an evaluation, and
        their ``kernel`` refuses to run.
    baseline : bool
        The strategy every other is compared with (exactly one: ``random``).
    covering : bool
        A farthest-first covering: FAFI's coverage bound (the theory of
        :mod:`~subsetsel_core.evaluation.theory`) applies to it.
    seconds_per_trial : float
        Rough seconds per protocol trial on a 112-dataset benchmark (k = 2…20, one core),
        its metrics included: ``benchmarks/bench_protocol.py`` section 2 on the TSC sample
        (2026-12-01), times 1.5 for a busy machine (:mod:`~subsetsel_core.evaluation.timing`).
    orders : callable, optional
        Of a nested score-aware strategy: ``orders(split, pools, k_max) -> ndarray (T, ≥ k_max)``,
        its selection orders in each pool from the judging models' data of ``split``
        (:class:`~subsetsel_core.evaluation.headroom.SplitData`).
    predicts : bool
        A score-aware strategy that ranks the held-out models by predicted scores (a
        regression), not by a subset's mean rank.
    many_pools : callable, optional
        Of a deterministic strategy: ``many_pools(Xs, ks) -> list (per pool) of list (per k)
        of ndarray[int]``, the subsets of several pools at once, identical to ``many`` on each
        pool; the protocol runs a batch's trials through it in one call.
    """

    name: str
    kernel: Kernel
    nested: bool
    uses_features: bool
    title: str
    description: str
    many: Callable[..., list[np.ndarray]] | None = None
    uses_rng: bool = True
    colour: str = "#7f7f7f"
    cost_aware: CostKernel | None = None
    score_aware: bool = False
    baseline: bool = False
    covering: bool = False
    seconds_per_trial: float = 0.012
    orders: Callable[..., np.ndarray] | None = None
    predicts: bool = False
    many_pools: Callable[..., list[list[np.ndarray]]] | None = None

    @property
    def deterministic(self) -> bool:
        """The same input always gives the same subset (no random stream)."""
        return not self.uses_rng


def column_scale(X: np.ndarray) -> np.ndarray:
    """A power of two per column, at least half its largest absolute value (1 for a zero column).

    Dividing by a power of two is exact, so z-scores computed on ``X / column_scale(X)``
    equal those of ``X`` wherever ``X``'s own arithmetic neither overflows nor underflows,
    and stay finite for values near the float limits (±1e308) or tiny ones (1e-310).

    Parameters
    ----------
    X : ndarray of shape (n, p), finite

    Returns
    -------
    ndarray of shape (p,)
    """
    top = np.abs(X).max(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    _, exponent = np.frexp(top)
    return np.where(top > 0, np.ldexp(1.0, exponent - 1), 1.0)  # 2**1024 would overflow


def standardize(X: np.ndarray) -> np.ndarray:
    """Drop constant columns, then z-score each column (population std, ddof = 0).

    The columns are first divided by :func:`column_scale` (exact), so descriptor values
    near the float limits neither overflow nor vanish.

    Parameters
    ----------
    X : ndarray of shape (n, p), finite

    Returns
    -------
    ndarray of shape (n, p') with p' ≤ p, finite
    """
    X = np.asarray(X, dtype=float)
    if X.shape[0] == 0:
        return X[:, :0]
    X = X / column_scale(X)
    keep = np.ptp(X, axis=0) > 0
    Z = X[:, keep]
    if Z.shape[1] == 0:
        return Z
    sd = Z.std(axis=0)
    keep2 = sd > 0
    Z = Z[:, keep2]
    return (Z - Z.mean(axis=0)) / sd[keep2]


def argmax_first(values: np.ndarray) -> int:
    """Index of the largest value; the first one among exact ties."""
    return int(values.argmax())
