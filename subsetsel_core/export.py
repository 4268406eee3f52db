"""The files of a selection: the subset table and CSV, the JSON sidecar, the file name.

Both faces write a selection through these functions, so the dashboard's downloads and
``subsetsel select --out`` give the same bytes for the same selection. CSV cells a
spreadsheet would execute are neutralised (:func:`safe_frame`); a sidecar read back by
:func:`read_sidecar` reproduces its subset (``subsetsel select --recipe``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.version import VERSION

if TYPE_CHECKING:
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.costs import BudgetSelection
    from subsetsel_core.coverage import Coverage
    from subsetsel_core.selection import Selection

_DANGEROUS = ("=", "+", "-", "@", "\t", "\r")
#: Columns of the subset table that are not descriptors.
TABLE_COLUMNS = ("order", "dataset", "cost", "cumulative_cost", "n_represented", "represents",
                 "farthest_member_distance")


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def safe_cell(value: Any) -> Any:
    """Prefix a text cell with ``'`` when a spreadsheet would run it as a formula.

    Numbers (and text that is a plain number, like ``-0.5``) are left as they are.
    """
    if isinstance(value, str) and value.startswith(_DANGEROUS) and not _is_number(value):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``df`` with every text cell and column name neutralised."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].map(safe_cell)
    out.columns = [safe_cell(str(c)) for c in out.columns]
    return out


def subset_table(selection: Selection, descriptors: pd.DataFrame | None = None, *,
                 budget: BudgetSelection | None = None, coverage: Coverage | None = None) -> pd.DataFrame:
    """The subset table: ``order, dataset``, cost columns, coverage columns, descriptors.

    Parameters
    ----------
    selection : Selection
        The chosen datasets, in selection order.
    descriptors : DataFrame, optional
        Raw descriptor values indexed by dataset (for a recipe:
        :func:`~subsetsel_core.representations.recipe.recipe_columns`).
    budget : BudgetSelection, optional
        Adds ``cost`` and ``cumulative_cost`` (budget mode).
    coverage : Coverage, optional
        Adds ``n_represented``, ``represents`` and ``farthest_member_distance``.

    Returns
    -------
    DataFrame
        One row per chosen dataset, in selection order.
    """
    chosen = list(selection.datasets)
    parts = [pd.DataFrame({"order": np.arange(1, len(chosen) + 1), "dataset": chosen})]
    if budget is not None:
        parts.append(pd.DataFrame({"cost": budget.costs, "cumulative_cost": np.cumsum(budget.costs)}))
    if coverage is not None:
        parts.append(coverage.columns())
    if descriptors is not None:
        extra = descriptors.reindex(chosen).reset_index(drop=True)
        parts.append(extra[[c for c in extra.columns if c not in TABLE_COLUMNS]])
    return pd.concat([p.reset_index(drop=True) for p in parts], axis=1)


def subset_csv(table: pd.DataFrame, metadata: Mapping[str, Any] | None = None) -> str:
    """CSV text of a subset table (formula-safe); ``metadata`` goes into leading ``# key: value`` lines."""
    head = ""
    if metadata:
        head = "".join(f"# {k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in metadata.items())
    return head + safe_frame(table).to_csv(index=False)


def sidecar(selection: Selection, benchmark: Benchmark, recipe: RepresentationRecipe | None = None, *,
            title: str | None = None, budget: BudgetSelection | None = None,
            coverage: Coverage | None = None) -> dict[str, Any]:
    """The JSON sidecar of a subset: what reproduces it, and what it achieves.

    Parameters
    ----------
    selection : Selection
    benchmark : Benchmark
        The benchmark it was chosen from.
    recipe : RepresentationRecipe, optional
        How the representation was built (None: no representation).
    title : str, optional
        The benchmark's display name (default: its name).
    budget : BudgetSelection, optional
        Budget mode: the budget, the cost source and what was spent.
    coverage : Coverage, optional
        The covering radius and the datasets not covered well.

    Returns
    -------
    dict
        Plain JSON values; ``datasets`` lists the subset in selection order.
    """
    meta: dict[str, Any] = dict(selection.metadata())
    meta["benchmark_title"] = title or benchmark.name
    meta["mode"] = "budget" if budget is not None else "k"
    meta["representation_recipe"] = None if recipe is None else recipe.to_dict()
    meta["n_datasets"] = benchmark.n_datasets
    meta["n_models"] = benchmark.n_models
    meta["subsetsel_version"] = VERSION
    meta["datasets"] = list(selection.datasets)
    if budget is not None:
        meta["budget"] = {"total_budget": budget.budget, "cost_source": budget.source, "costs": budget.how,
                          "unit": budget.unit, "spent": budget.spent, "benchmark_total_cost": budget.total,
                          "share_of_total": budget.spent / budget.total if budget.total else None}
    if coverage is not None:
        meta["coverage"] = coverage.facts()
    return meta


def sidecar_json(meta: Mapping[str, Any]) -> str:
    """The text of a sidecar file (indented JSON, UTF-8 names kept, a final newline)."""
    return json.dumps(meta, indent=2, ensure_ascii=False, default=str) + "\n"


def file_stem(selection: Selection, budget: float | None = None) -> str:
    """``subset_<benchmark>_<strategy>_k<k>_seed<seed>`` (budget mode: ``…_budget<B>_seed<seed>``), safe characters only."""
    size = f"k{selection.k}" if budget is None else f"budget{budget:.4g}"
    raw = f"subset_{selection.benchmark}_{selection.strategy}_{size}_seed{selection.seed}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw)[:120]


def template_csv(datasets: Sequence[str]) -> str:
    """A ``dataset,score`` CSV with the given datasets and empty scores, to fill in (formula-safe)."""
    return safe_frame(pd.DataFrame({"dataset": list(datasets), "score": [""] * len(datasets)})).to_csv(index=False)


@dataclass(frozen=True)
class SubsetRecipe:
    """What a sidecar says to reproduce its subset.

    Attributes
    ----------
    benchmark, strategy : str
    k, seed : int
    include, exclude : tuple of str
    representation : RepresentationRecipe or None
    datasets : tuple of str
        The subset the sidecar lists, in selection order.
    budget : float or None
        Budget mode: the total budget (in the costs' unit).
    cost_source : str or None
        Budget mode: the cost column, or the size estimate.
    coverage : bool
        Whether the subset's files carry its coverage (the dashboard's always do).
    """

    benchmark: str
    strategy: str
    k: int
    seed: int
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    representation: RepresentationRecipe | None
    datasets: tuple[str, ...]
    budget: float | None = None
    cost_source: str | None = None
    coverage: bool = False


def read_sidecar(source: str | Path | bytes) -> SubsetRecipe:
    """Read a sidecar written from :func:`sidecar`.

    Raises
    ------
    InputError
        Not readable, not JSON, or a missing or mistyped entry.
    """
    label = "sidecar" if isinstance(source, bytes) else Path(source).name
    try:
        raw = source if isinstance(source, bytes) else Path(source).read_bytes()
        meta = json.loads(raw)
    except OSError as exc:
        raise InputError(f"{label}: cannot read it ({exc.strerror}).", field="recipe") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{label}: not a JSON sidecar ({exc}).", field="recipe") from None

    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        value = meta.get(key) if isinstance(meta, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise InputError(f"{label}: '{key}' is missing or mistyped; give the JSON sidecar saved with the subset.",
                             field="recipe")
        return value

    names = {key: tuple(str(v) for v in need(key, list)) for key in ("include", "exclude", "datasets")}
    rec = meta.get("representation_recipe")
    budget = meta.get("budget") if meta.get("mode") == "budget" else None
    if budget is not None and not (isinstance(budget, dict) and isinstance(budget.get("total_budget"), int | float)):
        raise InputError(f"{label}: 'budget' has no 'total_budget'.", field="budget")
    return SubsetRecipe(
        str(need("benchmark", str)), str(need("strategy", str)), int(need("k", int)), int(need("seed", int)),
        names["include"], names["exclude"], None if rec is None else RepresentationRecipe.from_dict(rec),
        names["datasets"], None if budget is None else float(budget["total_budget"]),
        None if budget is None or budget.get("cost_source") is None else str(budget["cost_source"]),
        "coverage" in meta,
    )
