"""The strategy registry, shared preprocessing and the validated public entry point."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from subsetsel_core.errors import InputError

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


REGISTRY: dict[str, StrategyInfo] = {}


def register(info: StrategyInfo) -> StrategyInfo:
    """Add a strategy to :data:`REGISTRY`."""
    REGISTRY[info.name] = info
    return info


def get_strategy(name: str) -> StrategyInfo:
    """Look a strategy up by name.

    Raises
    ------
    InputError
        For an unknown name, listing the valid ones.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(
            f"unknown strategy '{name}'; valid strategies: {', '.join(REGISTRY)}."
        ) from None


def standardize(X: np.ndarray) -> np.ndarray:
    """Drop constant columns, then z-score each column (population std, ddof = 0).

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    ndarray of shape (n, p') with p' ≤ p
    """
    X = np.asarray(X, dtype=float)
    keep = np.ptp(X, axis=0) > 0 if X.shape[0] else np.zeros(X.shape[1], bool)
    Z = X[:, keep]
    if Z.shape[1] == 0:
        return Z
    sd = Z.std(axis=0)
    keep2 = sd > 0
    Z = Z[:, keep2]
    return (Z - Z.mean(axis=0)) / sd[keep2]


def _as_indices(values: Sequence[int] | np.ndarray, n: int, what: str) -> np.ndarray:
    idx = np.asarray(list(values), dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise InputError(f"{what} has an index outside 0…{n - 1}.")
    if len(set(idx.tolist())) != idx.size:
        raise InputError(f"{what} lists a dataset twice.")
    return idx


def select(
    X: np.ndarray,
    k: int,
    strategy: str,
    *,
    rng: np.random.Generator | int | None = None,
    include: Sequence[int] = (),
    exclude: Sequence[int] = (),
) -> np.ndarray:
    """Select ``k`` rows of ``X`` with a registered strategy.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Descriptors of the pool (finite). Not modified.
    k : int
        Subset size, ``1 ≤ k ≤ n − len(exclude)``.
    strategy : str
        A key of :data:`REGISTRY`.
    rng : Generator or int, optional
        Randomness (``np.random.default_rng(rng)`` for an int).
    include : sequence of int
        Rows chosen first, in this order.
    exclude : sequence of int
        Rows never chosen (removed before preprocessing).

    Returns
    -------
    ndarray of int, shape (k,)
        Distinct row indices of ``X`` in selection order.

    Raises
    ------
    InputError
        Bad shapes, NaN, k out of range, unknown strategy, overlapping include/exclude.
    """
    info = get_strategy(strategy)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"the representation must be a 2-D matrix, got shape {X.shape}.")
    if not np.isfinite(X).all():
        raise InputError("the representation has NaN or infinite values; impute or drop them first.")
    n = X.shape[0]
    inc = _as_indices(include, n, "the must-include list")
    exc = _as_indices(exclude, n, "the exclude list")
    both = set(inc.tolist()) & set(exc.tolist())
    if both:
        raise InputError(f"{len(both)} dataset(s) are both must-include and excluded; remove them from one list.")
    avail = n - exc.size
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise InputError(f"k must be a whole number, got {k!r}.")
    if not 1 <= k <= avail:
        raise InputError(f"k = {k} is out of range: choose 1 ≤ k ≤ {avail} (the pool has {n} datasets"
                         f"{f', {exc.size} excluded' if exc.size else ''}).")
    if inc.size > k:
        raise InputError(f"{inc.size} must-include datasets do not fit in k = {k}; raise k or shorten the list.")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    cand = np.setdiff1d(np.arange(n), exc) if exc.size else np.arange(n)
    pos = np.full(n, -1)
    pos[cand] = np.arange(cand.size)
    Xc = X[cand]
    if info.uses_features:
        Xc = standardize(Xc)
    out = info.kernel(Xc, int(k), rng=rng, include=pos[inc])
    return cand[np.asarray(out, dtype=np.int64)]


def argmax_first(values: np.ndarray) -> int:
    """Index of the largest value; the first one among exact ties."""
    return int(values.argmax())
