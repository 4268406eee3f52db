"""Agreement between a reference ranking and subset rankings (PROTOCOL.md, "Metrics").

All functions are vectorised over leading axes: ``ref`` has shape (..., M) and ``sub``
any shape that broadcasts against it, e.g. ``ref`` (T, 1, M) and ``sub`` (T, K, M). There
is no Python loop over models.

Orderings (ties, ranks, pair signs) are taken from the arrays as given; values (MAE, the
NDCG relevance) from the arrays times their scale. The protocol passes exact integer rank
sums with scales ``1 / (2·F·n_datasets)`` so that ties are exact; plain callers pass mean
ranks and keep the default scales of 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from subsetsel_core.ranks.ties import (
    TieRanks,
    as_float,
    ndcg_from_ranks,
    pearson,
    relevance,
    tau_b,
)


def mae(ref: np.ndarray, sub: np.ndarray, ref_scale: float | np.ndarray = 1.0,
        sub_scale: float | np.ndarray = 1.0) -> np.ndarray:
    """Mean absolute difference of rank positions, averaged over models.

    Parameters
    ----------
    ref, sub : ndarray of shape (..., M)
        Reference and subset rank vectors (or rank sums with their scales).
    ref_scale, sub_scale : float or ndarray broadcasting to (...,)
        Factors turning the arrays into mean ranks.

    Returns
    -------
    ndarray of shape (...)
    """
    r = as_float(ref) * np.expand_dims(as_float(ref_scale), -1)
    s = as_float(sub) * np.expand_dims(as_float(sub_scale), -1)
    return np.abs(r - s).mean(axis=-1)


def spearman(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Spearman correlation (Pearson of average-tie ranks), as ``scipy.stats.spearmanr``.

    A constant vector gives 0.
    """
    ref, sub = np.broadcast_arrays(as_float(ref), as_float(sub))
    return pearson(TieRanks(ref).average, TieRanks(sub).average)


def kendall(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b, as ``scipy.stats.kendalltau`` (default variant); undefined → 0.

    Exact integer pair counts in O(M·√M) per row (see :func:`kendall_paired`).
    """
    ref, sub = np.broadcast_arrays(as_float(ref), as_float(sub))
    shape = ref.shape[:-1]
    m = ref.shape[-1]
    if m < 2:
        return np.zeros(shape)
    out = kendall_paired(ref.reshape(-1, m), sub.reshape(-1, 1, m))
    return out.reshape(shape)


def kendall_paired(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Kendall tau-b where ``ref`` has shape (T, M) and ``sub`` (T, K, M); result (T, K).

    Counts concordant minus discordant pairs exactly (integers) without listing the
    M(M−1)/2 pairs: the reference is sorted once per trial, the discordant pairs are the
    inversions of each subset ranking read in reference order (:func:`inversions`), and
    ties come from run lengths. Equal to the pair-sign computation to the last bit, and
    O(M·√M) instead of O(M²) per row (M = 1,000: 20× faster).
    """
    ref = as_float(ref)
    sub = as_float(sub)
    t, k, m = sub.shape
    if m < 2:
        return np.zeros((t, k))
    return np.clip(tau_b(ref, sub), -1.0, 1.0)


def ndcg5(ref: np.ndarray, sub: np.ndarray, ref_scale: float | np.ndarray = 1.0) -> np.ndarray:
    """NDCG@5 of the subset ordering, with relevance ``M + 1 − ref`` (mean-rank scale).

    Equals ``sklearn.metrics.ndcg_score(rel, −sub, k=min(5, M))`` including its tie
    handling (tied subset positions share their discounts, McSherry & Najork).
    """
    ref, sub = np.broadcast_arrays(as_float(ref), as_float(sub))
    r = TieRanks(sub)
    return ndcg_from_ranks(relevance(ref, ref_scale), r.lo, r.hi)


def mrr(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Reciprocal of the subset's average-tie rank of the reference's best model.

    The reference's best model is the one with the lowest reference rank (the first in
    model order if several tie).
    """
    ref, sub = np.broadcast_arrays(as_float(ref), as_float(sub))
    best = np.argmin(ref, axis=-1)[..., None]
    b = np.take_along_axis(sub, best, axis=-1)
    less = (sub < b).sum(axis=-1)
    equal = (sub == b).sum(axis=-1)
    return 1.0 / (less + (equal + 1) / 2.0)


class _Pair:
    """The inputs of one :func:`agreement` call, with the shared subset ranks computed once."""

    def __init__(self, ref: np.ndarray, sub: np.ndarray, ref_scale: np.ndarray,
                 sub_scale: float | np.ndarray) -> None:
        self.ref, self.sub, self.ref_scale, self.sub_scale = ref, sub, ref_scale, sub_scale
        self.ref3 = ref[:, None, :]

    @cached_property
    def sub_ranks(self) -> TieRanks:
        """One sort of the subset rankings (Spearman, Kendall and NDCG share it)."""
        return TieRanks(self.sub)


def _mae_of(p: _Pair) -> np.ndarray:
    return mae(p.ref3, p.sub, p.ref_scale[:, None], p.sub_scale)


def _spearman_of(p: _Pair) -> np.ndarray:
    return pearson(TieRanks(p.ref3).average, p.sub_ranks.average)


def _kendall_of(p: _Pair) -> np.ndarray:
    if p.ref.shape[-1] < 2:
        return np.zeros(p.sub.shape[:2])
    return np.clip(tau_b(p.ref, p.sub, p.sub_ranks), -1.0, 1.0)


def _ndcg5_of(p: _Pair) -> np.ndarray:
    r = p.sub_ranks
    return ndcg_from_ranks(relevance(p.ref3, p.ref_scale[:, None]), r.lo, r.hi)


def _mrr_of(p: _Pair) -> np.ndarray:
    return mrr(p.ref3, p.sub)


@dataclass(frozen=True)
class Metric:
    """A registered agreement metric.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"spearman"``.
    label : str
        Display name.
    higher_is_better : bool
        Direction: False for rank MAE.
    compute : callable
        ``compute(pair) -> ndarray (T, K)`` on the inputs of :func:`agreement`.
    unit : str
        Unit of its values ("rank positions" for MAE, "" for the unit-free ones).
    target : float or None
        Default target of the "how many datasets" advice; None: 5 % of the models
        (in rank positions, at least 1).
    lower, upper : float or None
        Bounds of the values (None: the number of models).
    from_values : bool
        Computed from the rank values (rank positions), not only from the orderings: a
        ranking known only as an order (predicted positions) must be mapped onto rank
        values first.
    relevance : bool
        Graded by a relevance taken from the reference's rank values (NDCG): on a subset of
        the models the reference is re-ranked among them first.
    headline : bool
        The metric of the verdicts and one-line summaries (exactly one).
    """

    name: str
    label: str
    higher_is_better: bool
    compute: Callable[[_Pair], np.ndarray]
    unit: str = ""
    target: float | None = 0.9
    lower: float = -1.0
    upper: float | None = 1.0
    from_values: bool = False
    relevance: bool = False
    headline: bool = False

    @property
    def sign(self) -> int:
        """+1 if higher is better, −1 if lower is better."""
        return 1 if self.higher_is_better else -1

    def default_target(self, n_models: int | None = None) -> float:
        """The advice's default target for a benchmark of ``n_models`` models."""
        if self.target is not None:
            return self.target
        return float(max(1.0, round(0.05 * (n_models or 20), 1)))

    def bounds(self, n_models: int | None = None) -> tuple[float, float]:
        """``(lowest, highest)`` value the metric can take."""
        upper = self.upper if self.upper is not None else float(max(2, n_models or 100))
        return self.lower, upper

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b``."""
        return a < b if not self.higher_is_better else a > b


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("mae", "rank MAE", False, _mae_of, unit="rank positions", target=None, lower=0.0, upper=None,
           from_values=True),
    Metric("spearman", "Spearman ρ", True, _spearman_of, headline=True),
    Metric("kendall", "Kendall τ-b", True, _kendall_of, target=0.75),
    Metric("ndcg5", "NDCG@5", True, _ndcg5_of, lower=0.0, relevance=True),
    Metric("mrr", "MRR", True, _mrr_of, lower=0.0),
)}
"""The metric registry, in display order (PROTOCOL.md, "Metrics")."""

HEADLINE: str = next(name for name, m in METRICS.items() if m.headline)
"""The metric of the verdicts and one-line summaries."""


def agreement(
    ref: np.ndarray,
    sub: np.ndarray,
    *,
    ref_scale: float | np.ndarray = 1.0,
    sub_scale: float | np.ndarray = 1.0,
    metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, np.ndarray]:
    """Every requested metric for paired reference and subset rankings.

    Parameters
    ----------
    ref : ndarray of shape (T, M) or (M,)
        Reference rank vectors (or exact rank sums).
    sub : ndarray of shape (T, K, M) or (K, M)
        Subset rank vectors (or exact rank sums).
    ref_scale : float or ndarray of shape (T,)
        Factor turning ``ref`` into mean ranks.
    sub_scale : float or ndarray of shape (K,) or (T, K)
        Factor turning ``sub`` into mean ranks.
    metrics : sequence of str
        Keys of :data:`METRICS`.

    Returns
    -------
    dict of str to ndarray of shape (T, K) (or (K,))
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; valid: {', '.join(METRICS)}")
    squeeze = np.ndim(ref) == 1
    ref = np.atleast_2d(as_float(ref))
    sub = as_float(sub)
    if sub.ndim == 2:
        sub = sub[None]
    pair = _Pair(ref, sub, np.broadcast_to(as_float(ref_scale), ref.shape[:1]), sub_scale)
    out: dict[str, np.ndarray] = {}
    for name in metrics:
        v = METRICS[name].compute(pair)
        out[name] = v[0] if squeeze else v
    return out
