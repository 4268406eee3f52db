"""Selection strategies: one module per family, one registry (:mod:`.registry`).

Every strategy is a pure function ``kernel(X, k, *, rng, include) -> ndarray[int]``
returning k distinct row indices in selection order; :func:`select` validates input,
applies the include / exclude lists and the shared preprocessing.
"""

from subsetsel_core.strategies.base import StrategyInfo, standardize
from subsetsel_core.strategies.registry import (
    BUDGET_STRATEGIES,
    REGISTRY,
    STRATEGIES,
    get_strategy,
    select,
)

__all__ = ["BUDGET_STRATEGIES", "REGISTRY", "STRATEGIES", "StrategyInfo", "get_strategy", "select", "standardize"]
