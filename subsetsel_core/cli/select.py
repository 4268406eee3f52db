"""Command line: ``subsetsel select`` (k, budget or a dashboard sidecar) and ``subsetsel place``.

A subset is written by :mod:`subsetsel_core.outputs.export`, as the dashboard writes it: the
same selection gives the same CSV and sidecar bytes on both faces.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import readable
from subsetsel_core.errors import InputError
from subsetsel_core.settings.table import RECIPE, SELECT, SETTINGS
from subsetsel_core.text import strict_json
from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    from subsetsel_core.outputs.export import SubsetRecipe
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.selection.costs import BudgetSelection
    from subsetsel_core.selection.coverage import Coverage
    from subsetsel_core.selection.subsets import Selection

#: Options a sidecar (``--recipe``) fixes (the recipe's and the selection's settings, the seed, the cost
#: column), as argparse destinations; giving them as well is an error.
_FIXED = (*(s.flag.lstrip("-").replace("-", "_") for s in (*SELECT, *RECIPE, SETTINGS["seed"]) if s.flag),
          "cost_column")


def _from_sidecar(args: argparse.Namespace) -> SubsetRecipe:
    from subsetsel_core.outputs.export import read_sidecar

    given = [f"--{k.replace('_', '-')}" for k in _FIXED if getattr(args, k) is not None]
    if given:
        raise InputError(f"the sidecar given with --recipe fixes {', '.join(given)}; leave them out.",
                         field="recipe")
    return read_sidecar(args.recipe)


def _check_recipe_tables(args: argparse.Namespace, tables: list[str]) -> None:
    """Refuse a sidecar whose representation names a descriptor table the data does not have, listing those it has."""
    from subsetsel_core.io.names import did_you_mean
    from subsetsel_core.representations.names import NAME_KINDS

    have = D.table_names(args)
    unknown = [t for t in tables if t not in have and t not in NAME_KINDS]
    if not unknown:
        return
    offered = [*have, *NAME_KINDS]
    where = "this benchmark folder does" if args.benchmark else "the descriptor files given (--features) do"
    raise InputError(
        f"{Path(args.recipe).name}: key 'representation_recipe.tables' names the descriptor table '{unknown[0]}'"
        f"{did_you_mean(unknown[0], offered, 1)}, which {where} not have. Use the benchmark the sidecar was "
        f"made from, or change the table to one of: {', '.join(offered)}"
        f"{'' if have else ' (the dataset names; add descriptor files with --features for more)'}.",
        field="recipe")


def cmd_select(args: argparse.Namespace) -> int:
    """``subsetsel select``: one subset, written as the dashboard writes it."""
    from subsetsel_core.outputs import export
    from subsetsel_core.outputs.provenance import from_arguments
    from subsetsel_core.representations.recipe import recipe_columns

    side = _from_sidecar(args) if args.recipe else None
    if side is not None:
        tables = None if side.budget is not None or side.representation is None else list(side.representation.tables)
        _check_recipe_tables(args, tables or [])
    else:
        tables = None if args.budget is not None else D.requested_tables(args)
    data = D.load(args, tables)
    D.warn(data.benchmark.report)
    if side is not None:
        recipe = side.representation
        if side.benchmark != data.benchmark.name:
            D.say(f"warning: the sidecar is of benchmark '{side.benchmark}', the data of "
                  f"'{data.benchmark.name}'.", err=True)
    else:
        found = D.recipes(args, data)
        if len(found) > 1:
            raise InputError("select uses one representation; name one table or join tables with '+'.",
                             field="representation")
        recipe = found[0] if found else None
    seed = side.seed if side is not None else int(args.seed or 0)
    rep = None if recipe is None else D.build(recipe, data, seed)
    sel, bs = _choose(args, side, data, rep, seed)
    cov = _coverage(rep, sel) if args.coverage or (side is not None and side.coverage) else None
    descriptors = None if recipe is None else recipe_columns(recipe, data.benchmark.datasets, data.descriptors,
                                                             data.specs)
    table = export.subset_table(sel, descriptors, budget=bs, coverage=cov)
    meta = export.sidecar(sel, data.benchmark, recipe, title=data.title, budget=bs, coverage=cov,
                          provenance=from_arguments(args, seed))
    if side is not None and not side.datasets:
        D.say(f"note: {Path(args.recipe).name} records how the subset was chosen but not its datasets; this replay "
              "cannot be compared with them.", err=True)
    elif side is not None and tuple(sel.datasets) != side.datasets:
        D.say(f"warning: this subset differs from the one listed in {Path(args.recipe).name}: the "
              "benchmark or its descriptor tables are not the ones it was chosen from.", err=True)
    if args.format == "json":
        note = _names_note(rep)
        D.write(strict_json.dumps({**meta, **({"note": note} if note else {}),
                                   "subset": json.loads(table.to_json(orient="records"))}, indent=2) + "\n",
                args.out)
    else:
        D.write(export.subset_csv(table, meta), args.out)
    if args.sidecar:
        D.write(export.sidecar_json(meta), args.sidecar)
    return 0


def _names_note(rep: Representation | None) -> str | None:
    """That names are weak descriptors, when the representation is built from them."""
    from subsetsel_core.representations.names import WEAK_NOTE, uses_names

    return f"{rep.name}: {WEAK_NOTE}" if rep is not None and uses_names(rep) else None


def _choose(args: argparse.Namespace, side: SubsetRecipe | None, data: D.Data, rep: Representation | None,
            seed: int) -> tuple[Selection, BudgetSelection | None]:
    from subsetsel_core.selection.costs import dataset_costs, select_within_budget
    from subsetsel_core.selection.subsets import select_datasets
    from subsetsel_core.strategies import REGISTRY

    if side is not None:
        strategy, k, include, exclude = side.strategy, side.k, list(side.include), list(side.exclude)
        share, column = None, side.cost_source
    else:
        strategy, k, include, exclude = args.strategy, args.k, list(args.include or ()), list(args.exclude or ())
        share, column = args.budget, args.cost_column
        if strategy is None:
            raise InputError("choose a strategy.", field="strategy")
    if rep is None and strategy in REGISTRY and REGISTRY[strategy].uses_features:
        raise D.no_descriptors("select", f"--strategy {strategy}")
    absolute = side.budget if side is not None else None
    if absolute is not None or share is not None:
        costs = dataset_costs(data.benchmark, data.descriptors, data.specs, column)
        budget = absolute if absolute is not None else float(share or 0.0) * costs.total
        bs = select_within_budget(data.benchmark, rep, strategy, costs, budget, seed=seed, exclude=exclude)
        if bs.selection.k == 0:
            raise InputError(f"no dataset fits a budget of {budget:g} ({bs.unit}); the cheapest costs "
                             f"{bs.cheapest:g}.", field="budget")
        agree = bs.selection.agreement
        D.say(f"costs {bs.how}; spent {text(bs.spent / bs.total, 'percent')} of the total on {bs.selection.k} "
              f"datasets; Spearman {text(agree['spearman'], 'agreement')}, Kendall {text(agree['kendall'], 'agreement')}, "
              f"MAE {text(agree['mae'], 'agreement')}", err=True)
        return bs.selection, bs
    if k is None:
        raise InputError("give the number of datasets (or a budget).", field="k")
    return select_datasets(data.benchmark, rep, strategy, k, seed=seed, include=include, exclude=exclude), None


def _coverage(rep: Representation | None, sel: Selection) -> Coverage:
    from subsetsel_core.selection.coverage import coverage
    from subsetsel_core.text.rounding import text

    if rep is None:
        raise InputError("coverage needs descriptors.", field="descriptor_file")
    cov = coverage(rep, list(sel.datasets))
    D.say(f"covering radius {text(cov.radius, 'distance')}; not covered well: "
          f"{', '.join(cov.poorly_covered) or 'none'}", err=True)
    return cov


def cmd_place(args: argparse.Namespace) -> int:
    """``subsetsel place``: a new model's estimated position from its subset scores."""
    from subsetsel_core.io.tables import read_table
    from subsetsel_core.selection.placement import place_model, read_model_scores
    from subsetsel_core.text.rounding import text
    from subsetsel_core.text.safe_csv import restore_frame

    data = D.load(args, ())
    # the CSV 'subsetsel select' wrote (read_table skips its comment block): names as they were
    sub = restore_frame(read_table(readable(args.subset), label=Path(args.subset).name))
    if "dataset" not in sub.columns:
        raise InputError(f"{Path(args.subset).name}: no 'dataset' column; give the CSV written by 'subsetsel select'.")
    subset = [str(d).strip() for d in sub["dataset"]]
    scores = read_model_scores(readable(args.new_scores), label=Path(args.new_scores).name,
                               dataset_column=args.dataset_column or "dataset",
                               score_column=args.score_column or "score", fold_column=args.fold_column or "fold")
    pl = place_model(data.benchmark, subset, scores, name=args.model_name, seed=args.seed)
    lo, hi = pl.mean_rank_interval
    D.say(pl.sentence() + f"\nestimated mean rank {text(pl.estimated_mean_rank, 'mean_rank')} "
          f"[{text(lo, 'mean_rank')}, {text(hi, 'mean_rank')}] "
          f"(scale of the {pl.n_models - 1} existing models)")
    return 0
