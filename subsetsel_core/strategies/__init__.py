"""Selection strategies: one module per family, one registry.

Every strategy is a pure function ``select(X, k, *, rng, include) -> ndarray[int]``
returning k distinct row indices in selection order; :func:`select` validates input,
applies the include / exclude lists and the shared preprocessing.
"""

from subsetsel_core.strategies import fafi, kmeans, optimal, random_choice  # noqa: F401  (registration)
from subsetsel_core.strategies.base import REGISTRY, StrategyInfo, get_strategy, select, standardize

STRATEGIES: tuple[str, ...] = ("random", "kmeans", "fafi-euclidean", "fafi-cosine", "a-optimal", "d-optimal")
"""Registry names in display order."""

__all__ = ["REGISTRY", "STRATEGIES", "StrategyInfo", "get_strategy", "select", "standardize"]
