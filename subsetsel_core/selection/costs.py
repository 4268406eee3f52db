"""Dataset costs and selection within a budget.

A benchmark maintainer rarely counts datasets: they count GPU hours. Each dataset gets a
cost (a descriptor column such as evaluation hours, or an estimate from size
descriptors); a budget is a total cost. Strategies with a cost-aware variant
(``StrategyInfo.cost_aware``, listed in ``BUDGET_STRATEGIES``) choose within it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.representations.descriptors import Representation, align_descriptors
from subsetsel_core.selection.subsets import Selection, positions, subset_agreement
from subsetsel_core.strategies import BUDGET_STRATEGIES, get_strategy, standardize

if TYPE_CHECKING:
    from subsetsel_core.representations.recipe import TableSpec

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


#: The cost source that estimates costs from size descriptors (instead of a cost column).
COST_ESTIMATE = "estimate from size descriptors"


@dataclass(frozen=True, eq=False)
class Costs:
    """Per-dataset costs in benchmark order.

    Attributes
    ----------
    values : ndarray (n,)
    how : str
        How they were obtained (the columns used), in words.
    unit : str
        The column name, or ``"relative units"`` / ``"datasets"`` for the estimate.
    source : str
        The cost column, or :data:`COST_ESTIMATE`.
    """

    values: np.ndarray
    how: str
    unit: str
    source: str = COST_ESTIMATE

    @property
    def total(self) -> float:
        """The whole benchmark's cost."""
        return float(self.values.sum())


def cost_table(benchmark: Benchmark, descriptors: Mapping[str, pd.DataFrame],
               specs: Mapping[str, TableSpec] | None = None) -> pd.DataFrame | None:
    """Every descriptor table that describes all datasets and is not used in full, joined (None if none)."""
    from subsetsel_core.representations.recipe import join_for, used_in_full

    have = set(benchmark.datasets)
    tables = [t for t, df in descriptors.items()
              if have <= set(map(str, df.index)) and not used_in_full(specs, t)]
    return join_for(descriptors, specs, tables).table if tables else None


def dataset_costs(benchmark: Benchmark, descriptors: Mapping[str, pd.DataFrame],
                  specs: Mapping[str, TableSpec] | None = None, column: str | None = None) -> Costs:
    """Per-dataset costs from a descriptor column, or estimated from size descriptors.

    Parameters
    ----------
    benchmark : Benchmark
    descriptors : mapping of str to DataFrame
        Table name → raw descriptor table; the tables of :func:`cost_table` are used.
    specs : mapping of str to TableSpec, optional
    column : str, optional
        A column of positive costs (None or :data:`COST_ESTIMATE`: the estimate).

    Returns
    -------
    Costs
        Uniform (the budget counts datasets) when no table describes every dataset.

    Raises
    ------
    InputError
        An unknown column, or one with a missing, non-numeric or non-positive value.
    """

    column = None if column == COST_ESTIMATE else column
    source = COST_ESTIMATE if column is None else column
    table = cost_table(benchmark, descriptors, specs)
    if table is None:
        if column is not None:
            raise InputError(f"no cost column '{column}': no descriptor table describes every dataset.",
                             field="budget")
        return Costs(np.ones(benchmark.n_datasets),
                     "uniform (no descriptor table with size or cost columns: the budget counts datasets)",
                     "datasets", source)
    values, how = estimate_costs(table, benchmark.datasets, cost_column=column)
    unit = column if column is not None else "datasets" if how.startswith("uniform") else "relative units"
    return Costs(np.asarray(values, dtype=float), how, unit, source)


@dataclass(frozen=True, eq=False)
class BudgetSelection:
    """A subset chosen under a budget.

    Attributes
    ----------
    selection : Selection
        The chosen datasets (``k`` = their number) with their agreement.
    costs : ndarray (k,)
        Their costs, in selection order.
    budget : float
    source, how, unit : str
        The cost source (column or :data:`COST_ESTIMATE`), how the costs were obtained,
        their unit.
    total : float
        The whole benchmark's cost.
    cheapest : float
        The cheapest dataset that could be chosen.
    """

    selection: Selection
    costs: np.ndarray
    budget: float
    source: str
    how: str
    unit: str
    total: float
    cheapest: float = 0.0

    @property
    def spent(self) -> float:
        """Cost of the chosen datasets."""
        return float(self.costs.sum())


def select_within_budget(
    benchmark: Benchmark, representation: Representation | None, strategy: str, costs: Costs, budget: float,
    *, seed: int = 0, exclude: Sequence[str] = (),
) -> BudgetSelection:
    """The datasets a cost-aware strategy takes within ``budget`` (in the costs' unit).

    Raises
    ------
    InputError
        Every dataset excluded, a strategy that needs descriptors without them, bad costs,
        a non-positive budget, a strategy without a budget variant.
    """

    ex = set(exclude)
    positions(list(exclude), benchmark.datasets, "exclude")
    pool = np.asarray([i for i, d in enumerate(benchmark.datasets) if d not in ex], dtype=int)
    if pool.size == 0:
        raise InputError("every dataset is excluded; nothing is left to choose from.", field="exclude")
    if representation is None and get_strategy(strategy).uses_features:
        raise InputError(f"strategy '{strategy}' needs a representation (descriptors).", field="representation")
    X = np.zeros((benchmark.n_datasets, 0)) if representation is None else representation.X
    idx = pool[select_under_budget(X[pool], costs.values[pool], float(budget), strategy, rng=seed)]
    agree = subset_agreement(benchmark, idx) if idx.size else {}
    sel = Selection(tuple(benchmark.datasets[i] for i in idx), tuple(int(i) for i in idx), strategy,
                    "none" if representation is None else representation.name, len(idx), int(seed), benchmark.name,
                    agree, (), tuple(exclude))
    return BudgetSelection(sel, costs.values[idx], float(budget), costs.source, costs.how, costs.unit, costs.total,
                           float(costs.values[pool].min()))
