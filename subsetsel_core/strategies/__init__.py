"""Selection strategies: one module per family, one registry (:mod:`.registry`).

Every strategy is a pure function ``kernel(X, k, *, rng, include) -> ndarray[int]``
returning k distinct row indices in selection order; :func:`select` validates input,
applies the include / exclude lists and the shared preprocessing.

The registry also holds the score-aware strategies (:mod:`.score_aware`, marked
``score_aware``): upper bounds judged on held-out models only (``subsetsel headroom``);
:data:`STRATEGIES` — what every face lists and runs — leaves them out.
"""

from subsetsel_core.strategies.base import StrategyInfo, standardize
from subsetsel_core.strategies.registry import (
    BASELINE,
    BUDGET_STRATEGIES,
    COVERING,
    REGISTRY,
    SCORE_AWARE,
    STRATEGIES,
    a_priori,
    get_strategy,
    select,
)

__all__ = ["BASELINE", "BUDGET_STRATEGIES", "COVERING", "REGISTRY", "SCORE_AWARE", "STRATEGIES", "StrategyInfo", "a_priori", "get_strategy",
           "select", "standardize"]
