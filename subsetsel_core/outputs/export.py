"""The files of a selection: the subset table and CSV, the JSON sidecar, the file name.

Both faces write a selection through these functions, so the dashboard's downloads and
``subsetsel select --out`` give the same bytes for the same selection. CSVs are written
by :mod:`subsetsel_core.text.safe_csv` (the product's one CSV writer: cells a spreadsheet would
run are neutralised); a sidecar read back by :func:`read_sidecar` reproduces its subset
(``subsetsel select --recipe``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.archive import json_part
from subsetsel_core.io.file_guard import read_input_file
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.text import strict_json
from subsetsel_core.text.safe_csv import csv_text
from subsetsel_core.version import VERSION

if TYPE_CHECKING:
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.selection.costs import BudgetSelection
    from subsetsel_core.selection.coverage import Coverage
    from subsetsel_core.selection.subsets import Selection

#: Largest JSON sidecar read, in bytes.
MAX_SIDECAR_BYTES = 32 * 2**20
#: Columns of the subset table that are not descriptors.
TABLE_COLUMNS = ("order", "dataset", "cost", "cumulative_cost", "n_represented", "represents",
                 "farthest_member_distance")


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
    """CSV text of a subset table (:func:`~subsetsel_core.text.safe_csv.csv_text`: formula-safe).

    Distances and costs are rounded for people (:mod:`subsetsel_core.text.rounding`; the JSON keeps
    them in full). ``metadata`` (a sidecar: :func:`sidecar`) goes into the leading comment
    block, one ``# key: value`` line per entry (values as JSON; :func:`csv_metadata`), which
    :func:`read_sidecar` reads back to replay the subset.
    """
    from subsetsel_core.text.rounding import round_frame

    return csv_text(round_frame(table), comments=csv_metadata(metadata or {}))


def csv_metadata(meta: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The comment lines of a subset CSV: the provenance first, then the sidecar without its dataset list."""
    from subsetsel_core.outputs.provenance import PROVENANCE_KEYS

    prov = meta.get("provenance") or {}
    out = [(k, prov[k]) for k in PROVENANCE_KEYS if k in prov]
    return out + [(str(k), v) for k, v in meta.items() if k not in ("provenance", "datasets") and k not in prov]


def sidecar(selection: Selection, benchmark: Benchmark, recipe: RepresentationRecipe | None = None, *,
            title: str | None = None, budget: BudgetSelection | None = None,
            coverage: Coverage | None = None, provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
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
    provenance : mapping, optional
        What made it (:func:`~subsetsel_core.outputs.provenance.provenance`), under ``"provenance"``.

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
    if provenance is not None:
        meta["provenance"] = dict(provenance)
    return meta


def sidecar_json(meta: Mapping[str, Any]) -> str:
    """The text of a sidecar file (indented JSON, UTF-8 names kept, a final newline)."""
    return strict_json.dumps(meta, indent=2, default=str) + "\n"


def file_stem(selection: Selection, budget: float | None = None) -> str:
    """``subset_<benchmark>_<strategy>_k<k>_seed<seed>`` (budget mode: ``…_budget<B>_seed<seed>``), safe characters only."""
    size = f"k{selection.k}" if budget is None else f"budget{budget:.4g}"
    raw = f"subset_{selection.benchmark}_{selection.strategy}_{size}_seed{selection.seed}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw)[:120]


def template_csv(datasets: Sequence[str], provenance: Mapping[str, Any] | None = None) -> str:
    """A ``dataset,score`` CSV with the given datasets and empty scores, to fill in (formula-safe).

    ``provenance`` (:func:`~subsetsel_core.outputs.provenance.provenance`: what made the subset) goes
    into the leading ``# key: value`` comment block, as in the subset CSV; the product's
    readers of a new model's scores (:func:`~subsetsel_core.selection.placement.read_model_scores`)
    and ``pandas.read_csv(comment="#")`` skip it.
    """
    from subsetsel_core.outputs.provenance import PROVENANCE_KEYS

    prov = provenance or {}
    return csv_text(pd.DataFrame({"dataset": list(datasets), "score": [""] * len(datasets)}),
                    comments=[(k, prov[k]) for k in PROVENANCE_KEYS if k in prov])


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
    """Read a sidecar written from :func:`sidecar`, or the subset CSV written with it.

    Parameters
    ----------
    source : str, Path or bytes
        The sidecar file or the subset CSV with its comment block (a regular file or a pipe,
        at most :data:`MAX_SIDECAR_BYTES`), or its bytes.

    Raises
    ------
    InputError
        Not readable, not JSON (nor a CSV with the comment block), or a missing, mistyped or
        out-of-range entry.
    """
    label = "sidecar" if isinstance(source, bytes) else Path(source).name
    raw = source if isinstance(source, bytes) else read_input_file(Path(source), label, MAX_SIDECAR_BYTES)
    start = raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start in (b"{", b"[", b""):
        meta = json_part(raw, "the JSON sidecar", label, field="recipe")
        if isinstance(meta, dict) and "strategy" not in meta and "provenance" in meta:  # an evaluation's JSON, …
            meta = recorded_subset(meta["provenance"], label)
    elif start == b"#" and b"\n# strategy: " in b"\n" + raw[:1 << 16].removeprefix(b"\xef\xbb\xbf"):
        meta = _csv_sidecar(raw, label)  # a subset CSV: its comment block
    else:  # any other file the product wrote: the subset its provenance records
        from subsetsel_core.outputs.provenance import read_provenance

        record = read_provenance(raw)
        if record is None:
            raise InputError(f"{label}: no subsetsel provenance in it (a subset CSV starts with a comment block of "
                             "'# strategy:' and '# k:' lines); give a subset CSV written by subsetsel 0.1 or later, its "
                             "JSON sidecar, or another output of subsetsel (report, figure, LaTeX, evaluation or "
                             "template file). A run.toml is run with 'subsetsel report --config'.", field="recipe")
        meta = recorded_subset(record, label)
    if not isinstance(meta, dict):
        raise InputError(f"{label}: not a JSON sidecar (not a JSON object).", field="recipe")

    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise InputError(f"{label}: '{key}' is missing or mistyped; give the JSON sidecar saved with the subset.",
                             field="recipe")
        return value

    def names(key: str) -> tuple[str, ...]:
        values = need(key, list)
        if not all(isinstance(v, str) for v in values):
            raise InputError(f"{label}: '{key}' must be a list of dataset names.", field="recipe")
        return tuple(values)

    k, seed = need("k", int), need("seed", int)
    if not 1 <= k <= 10**6 or not 0 <= seed <= 2**63 - 1:
        raise InputError(f"{label}: 'k' must be at least 1 and 'seed' from 0 to 2**63 - 1; give the JSON sidecar "
                         "saved with the subset.", field="recipe")
    rec = meta.get("representation_recipe")
    budget = meta.get("budget") if meta.get("mode") == "budget" else None
    total = budget.get("total_budget") if isinstance(budget, dict) else None
    if budget is not None and (isinstance(total, bool) or not isinstance(total, int | float)
                               or not 0 < total < float("inf")):
        raise InputError(f"{label}: 'budget' has no 'total_budget' above 0.", field="budget")
    source_column = None if budget is None else budget.get("cost_source")
    if source_column is not None and not isinstance(source_column, str):
        raise InputError(f"{label}: 'budget.cost_source' must be a column name.", field="budget")
    return SubsetRecipe(
        str(need("benchmark", str)), str(need("strategy", str)), int(k), int(seed),
        names("include"), names("exclude"), None if rec is None else RepresentationRecipe.from_dict(rec),
        names("datasets"), None if total is None else float(total), source_column, "coverage" in meta,
    )


def recorded_subset(record: Any, label: str) -> dict[str, Any]:
    """The subset a provenance record describes, in the sidecar's keys.

    A file that shows one subset records how it was chosen: the Select page's files in their
    ``settings``, the report's files under ``settings["selection"]``. Without ``datasets``
    the replay cannot be compared with the subset the file showed.

    Raises
    ------
    InputError
        The record describes no subset (an evaluation's files): the message says what made
        the file, so that it can be run again.
    """
    settings = record.get("settings") if isinstance(record, dict) else None
    settings = settings if isinstance(settings, dict) else {}
    sel = settings if "strategy" in settings and "k" in settings else settings.get("selection")
    if not isinstance(sel, dict) or "strategy" not in sel or "k" not in sel:
        made = record.get("command") if isinstance(record, dict) else None
        how = f"'{made}'" if isinstance(made, str) and made else \
            f"the dashboard's {settings.get('page') or 'Evaluate'} page (its 'Settings as run.toml' repeats it)"
        raise InputError(f"{label} records no subset, only how it was made: {how}. Run that again to reproduce it, "
                         "or give the subset CSV or its JSON sidecar.", field="recipe")
    budget = sel.get("budget") if sel.get("mode") == "budget" else None
    return {"benchmark": sel.get("benchmark"), "strategy": sel.get("strategy"), "k": sel.get("k"),
            "seed": sel.get("seed"), "include": sel.get("include", []), "exclude": sel.get("exclude", []),
            "representation_recipe": sel.get("representation_recipe"), "datasets": sel.get("datasets", []),
            "mode": sel.get("mode", "k"),
            **({"budget": {"total_budget": budget, "cost_source": sel.get("cost_source")}} if budget is not None
               else {})}


def _csv_sidecar(raw: bytes, label: str) -> dict[str, Any]:
    """The sidecar a subset CSV carries: its comment block, with the datasets of its ``dataset`` column."""
    from subsetsel_core.io.tables import read_table
    from subsetsel_core.outputs.provenance import PROVENANCE_KEYS
    from subsetsel_core.text.safe_csv import restore_frame, split_comments

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{label}: not UTF-8 text; give the subset CSV or the JSON sidecar saved with the subset.",
                         field="recipe") from None
    meta, body = split_comments(text)
    if "strategy" not in meta or "k" not in meta:
        raise InputError(f"{label}: the CSV has no subsetsel comment block (no '# strategy:' and '# k:' lines); "
                         "give a subset CSV written by subsetsel 0.1 or later, or its JSON sidecar.", field="recipe")
    table = restore_frame(read_table(body.encode("utf-8"), label=label, object_text=True))
    if "dataset" not in table.columns:
        raise InputError(f"{label}: no 'dataset' column under the comment block.", field="recipe")
    meta["datasets"] = [str(d) for d in table["dataset"]]
    meta["provenance"] = {k: meta[k] for k in PROVENANCE_KEYS if k in meta}
    return meta
