"""Choosing one subset by dataset name, and how well it preserves the full ranking.

- :func:`select_datasets`: k datasets by a strategy; :func:`select_within_budget`: the
  datasets a cost-aware strategy takes within a budget (costs from :func:`dataset_costs`).
- :func:`k_profile` and :func:`random_profile`: agreement of one strategy's subsets for
  every k, next to random subsets of the same sizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.costs import estimate_costs, select_under_budget
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.strategies import get_strategy, select

if TYPE_CHECKING:
    from subsetsel_core.representations.recipe import TableSpec

#: The cost source that estimates costs from size descriptors (instead of a cost column).
COST_ESTIMATE = "estimate from size descriptors"


@dataclass(frozen=True)
class Selection:
    """A chosen subset.

    Attributes
    ----------
    datasets : tuple of str
        Chosen datasets in selection order.
    indices : tuple of int
        Their positions in the benchmark's dataset order.
    strategy, representation : str
    k, seed : int
    benchmark : str
        Benchmark name.
    agreement : dict of str to float
        Metrics of the subset's ranking against the full benchmark's.
    include, exclude : tuple of str
    """

    datasets: tuple[str, ...]
    indices: tuple[int, ...]
    strategy: str
    representation: str
    k: int
    seed: int
    benchmark: str
    agreement: dict[str, float] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def metadata(self) -> dict[str, object]:
        """Provenance of the subset (for a CSV header or a JSON sidecar)."""
        return {
            "benchmark": self.benchmark, "strategy": self.strategy, "representation": self.representation,
            "k": self.k, "seed": self.seed, "include": list(self.include), "exclude": list(self.exclude),
            "agreement": {m: round(v, 6) for m, v in self.agreement.items()},
        }


def _positions(names: Sequence[str], datasets: Sequence[str], what: str) -> list[int]:
    index = {d: i for i, d in enumerate(datasets)}
    missing = [n for n in names if n not in index]
    if missing:
        raise InputError(f"the {what} list names unknown datasets: {describe_mismatch(missing, list(datasets))}.",
                         field="exclude" if what == "exclude" else "include")
    return [index[n] for n in names]


def subset_agreement(benchmark: Benchmark, indices: Sequence[int] | np.ndarray,
                     metrics: Sequence[str] = tuple(METRICS)) -> dict[str, float]:
    """Metrics of the ranking on ``indices`` against the ranking on all datasets."""
    sums = benchmark.rank_sums
    ref = sums.sum(axis=0)
    sub = sums[list(indices)].sum(axis=0)
    f = benchmark.n_folds
    vals = agreement(ref, sub[None], ref_scale=1.0 / (2 * f * benchmark.n_datasets),
                     sub_scale=1.0 / (2 * f * len(indices)), metrics=metrics)
    return {m: float(v[0]) for m, v in vals.items()}


def select_datasets(
    benchmark: Benchmark,
    representation: Representation | None,
    strategy: str,
    k: int,
    *,
    seed: int = 0,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Selection:
    """Choose ``k`` datasets of ``benchmark`` from ``representation`` with ``strategy``.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation or None
        Aligned to ``benchmark.datasets``; may be None for ``random``.
    strategy : str
    k : int
    seed : int
    include, exclude : sequence of str
        Dataset names chosen first (in order) / never chosen.

    Returns
    -------
    Selection
    """
    info = get_strategy(strategy)
    if representation is None:
        if info.uses_features:
            raise InputError(f"strategy '{strategy}' needs a representation (descriptors).",
                             field="representation")
        X = np.zeros((benchmark.n_datasets, 0))
        rep_name = "none"
    else:
        if tuple(representation.datasets) != tuple(benchmark.datasets):
            raise InputError("the representation is not aligned to the benchmark's datasets.",
                             field="representation")
        X = representation.X
        rep_name = representation.name
    inc = _positions(include, benchmark.datasets, "must-include")
    exc = _positions(exclude, benchmark.datasets, "exclude")
    idx = select(X, k, strategy, rng=np.random.default_rng(seed), include=inc, exclude=exc)
    return Selection(
        tuple(benchmark.datasets[i] for i in idx), tuple(int(i) for i in idx), strategy, rep_name, int(k),
        int(seed), benchmark.name, subset_agreement(benchmark, idx), tuple(include), tuple(exclude),
    )


def _scales(benchmark: Benchmark, ks: np.ndarray) -> tuple[float, np.ndarray]:
    f = benchmark.n_folds
    return 1.0 / (2.0 * f * benchmark.n_datasets), 1.0 / (2.0 * f * ks.astype(float))


def k_profile(
    benchmark: Benchmark, X: np.ndarray | None, strategy: str, ks: Sequence[int], *, seed: int = 0,
    include: Sequence[int] = (), exclude: Sequence[int] = (), metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, np.ndarray]:
    """Agreement of the strategy's k-subset with the full ranking, for every k.

    Parameters
    ----------
    benchmark : Benchmark
    X : ndarray of shape (n, p) or None
        The representation (None for ``random``).
    strategy : str
    ks : sequence of int
    seed : int
        Every k-subset is chosen with ``numpy.random.default_rng(seed)`` (as
        :func:`select_datasets` does), so each value is that of the subset chosen alone.
    include, exclude : sequence of int
        Positions chosen first / never chosen.
    metrics : sequence of str

    Returns
    -------
    dict metric → ndarray (len(ks),)
    """
    ks_arr = np.asarray(list(ks), dtype=int)
    Xm = np.zeros((benchmark.n_datasets, 0)) if X is None else np.asarray(X, float)
    sums = benchmark.rank_sums
    subs = np.empty((ks_arr.size, benchmark.n_models))
    if get_strategy(strategy).nested and ks_arr.size:
        order = select(Xm, int(ks_arr.max()), strategy, rng=np.random.default_rng(seed), include=include,
                       exclude=exclude)
        subs[:] = np.cumsum(sums[order], axis=0)[ks_arr - 1]
    else:
        for i, k in enumerate(ks_arr):
            idx = select(Xm, int(k), strategy, rng=np.random.default_rng(seed), include=include, exclude=exclude)
            subs[i] = sums[idx].sum(axis=0)
    rs, ss = _scales(benchmark, ks_arr)
    return agreement(sums.sum(axis=0), subs, ref_scale=rs, sub_scale=ss, metrics=metrics)


def random_profile(
    benchmark: Benchmark, ks: Sequence[int], *, draws: int = 200, seed: int = 0,
    metrics: Sequence[str] = tuple(METRICS),
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Median and 2.5 / 97.5 % percentiles of random subsets' agreement, for every k.

    Returns
    -------
    dict metric → (median, lo, hi), each ndarray (len(ks),)
    """
    ks_arr = np.asarray(list(ks), dtype=int)
    sums = benchmark.rank_sums
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((draws, benchmark.n_datasets)), axis=1)
    subs = np.empty((draws, ks_arr.size, benchmark.n_models))
    for i, k in enumerate(ks_arr):
        subs[:, i] = sums[order[:, :k]].sum(axis=1)
    rs, ss = _scales(benchmark, ks_arr)
    ref = np.broadcast_to(sums.sum(axis=0), (draws, benchmark.n_models))
    vals = agreement(ref, subs, ref_scale=np.full(draws, rs), sub_scale=ss, metrics=metrics)
    return {m: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for m, v in vals.items()}


# --------------------------------------------------------------------------- budgets


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
    _positions(list(exclude), benchmark.datasets, "exclude")
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
