"""Dataset costs and selection within a budget.

A benchmark maintainer rarely counts datasets: they count GPU hours. Each dataset gets a
cost (a descriptor column such as evaluation hours, or an estimate from size
descriptors); a budget is a total cost. Strategies with a cost-aware variant
(``StrategyInfo.cost_aware``, listed in ``BUDGET_STRATEGIES``) choose within it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from subsetsel_core.descriptors import align_descriptors
from subsetsel_core.errors import InputError
from subsetsel_core.strategies import BUDGET_STRATEGIES, get_strategy, standardize

SIZE_WORDS = ("size", "length", "samples", "instances", "rows", "interactions", "documents", "queries",
              "questions", "n_train", "n_test", "n_eval")


def estimate_costs(
    descriptors: pd.DataFrame, datasets: Sequence[str], *, cost_column: str | None = None
) -> tuple[np.ndarray, str]:
    """Per-dataset costs, from a cost column or estimated from size descriptors.

    Parameters
    ----------
    descriptors : DataFrame
        Raw descriptor table (index = dataset).
    datasets : sequence of str
        Benchmark order.
    cost_column : str, optional
        A column of positive costs (e.g. evaluation hours).

    Returns
    -------
    costs : ndarray (n,)
        Positive, in the column's units or relative units (mean 1) when estimated.
    how : str
        How the costs were obtained, for reports.
    """
    table = align_descriptors(descriptors, datasets, label="descriptors")
    if cost_column is not None:
        if cost_column not in table.columns:
            raise InputError(f"no cost column '{cost_column}'; the columns are {list(table.columns)}.")
        c = pd.to_numeric(table[cost_column], errors="coerce").to_numpy(dtype=float)
        bad = [d for d, v in zip(datasets, c, strict=True) if not np.isfinite(v) or v <= 0]
        if bad:
            raise InputError(f"cost column '{cost_column}' needs a positive number for every dataset; "
                             f"missing or ≤ 0 for {', '.join(bad[:5])}{' …' if len(bad) > 5 else ''}.")
        return c, f"column '{cost_column}'"
    cols = []
    for col in table.columns:
        name = str(col).lower()
        if any(w in name for w in SIZE_WORDS):
            v = pd.to_numeric(table[col], errors="coerce")
            if v.notna().all() and (v > 0).all():
                cols.append(col)
    if not cols:
        return np.ones(len(datasets)), "uniform (no size descriptor found: the budget counts datasets)"
    c = np.ones(len(datasets))
    for col in cols:
        c = c * pd.to_numeric(table[col]).to_numpy(dtype=float)
    return c / c.mean(), f"estimated as the product of {', '.join(map(str, cols))} (relative units, mean 1)"


def select_under_budget(
    X: np.ndarray, costs: np.ndarray, budget: float, strategy: str, *, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Rows chosen by a cost-aware strategy within ``budget`` (same units as ``costs``).

    Returns
    -------
    ndarray of int
        Selection order; possibly empty when no dataset fits.
    """
    kernel = get_strategy(strategy).cost_aware
    if kernel is None:
        raise InputError(f"budget selection supports {', '.join(BUDGET_STRATEGIES)}; got '{strategy}'.",
                         field="strategy")
    costs = np.asarray(costs, dtype=float)
    if costs.shape != (X.shape[0],) or not (np.isfinite(costs).all() and (costs > 0).all()):
        raise InputError("costs must be one positive number per dataset.")
    if not budget > 0:
        raise InputError(f"the budget must be positive, got {budget}.")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    Z = standardize(X) if get_strategy(strategy).uses_features else np.empty((X.shape[0], 0))
    out = kernel(Z, costs, budget, rng)
    return np.asarray(out, dtype=np.int64)
