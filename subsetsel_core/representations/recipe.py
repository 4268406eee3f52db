"""Representation recipes: a hashable description of a representation built from descriptor tables.

A :class:`RepresentationRecipe` says which descriptor tables are joined, which of their
columns are used, whether text columns are embedded, whether heavy-tailed counts are
log-scaled and whether PCA reduces the result. :func:`build_recipe` turns it into a
:class:`~subsetsel_core.representations.descriptors.Representation` from plain inputs: the benchmark, the
raw descriptor tables by name and their specs (the manifest's
:class:`~subsetsel_core.loading.folder.RepresentationSpec`, or anything with ``kind`` and
``columns``). The dashboard and the command line build every table-based representation
through it, and a recipe's :meth:`~RepresentationRecipe.to_dict` goes into subset
sidecars and workspaces. A recipe with a table of kind ``names`` or ``names-sentence``
(:mod:`subsetsel_core.representations.names`) embeds the dataset names, with the other
tables' chosen text columns appended (when ``text`` is on); ``log`` does not apply to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.representations import get_builder
from subsetsel_core.representations.names import NAME_KINDS
from subsetsel_core.settings.table import RECIPE, defaults, get, problem

_DEFAULTS = defaults(RECIPE)

if TYPE_CHECKING:
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.representations.descriptors import JoinedTables, Representation


class TableSpec(Protocol):
    """How a descriptor table is meant to be used (what a recipe reads of a manifest spec)."""

    @property
    def kind(self) -> str:
        """A key of :data:`~subsetsel_core.representations.BUILDERS`."""

    @property
    def columns(self) -> tuple[str, ...] | None:
        """The default columns (None: every column)."""


@dataclass(frozen=True)
class RepresentationRecipe:
    """A representation, described by hashable settings (defaults: :data:`~subsetsel_core.settings.table.RECIPE`).

    Attributes
    ----------
    tables : tuple of str
        Descriptor tables joined on the dataset name, in this order.
    columns : tuple of str or None
        Columns of the joined table to use (None: every table's default columns).
        Columns of tables used in full (embeddings) are always used.
    text : bool
        Embed text columns with TF-IDF + SVD (else drop them).
    log : bool
        ``log1p`` of heavy-tailed count-like columns (``log_columns="auto"``).
    pca : float or None
        Keep this fraction of the variance with PCA (None: no PCA).
    name : str
        Display name (e.g. ``"ucr_info"`` or ``"ucr_info+description/log"``).
    """

    tables: tuple[str, ...]
    columns: tuple[str, ...] | None = _DEFAULTS["columns"]
    text: bool = _DEFAULTS["text"]
    log: bool = _DEFAULTS["log"]
    pca: float | None = _DEFAULTS["pca"]
    name: str = ""

    @property
    def label(self) -> str:
        """The name, or the tables joined with ``+`` when it has none."""
        return self.name or "+".join(self.tables)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (for sidecars and workspaces)."""
        return {"tables": list(self.tables), "columns": None if self.columns is None else list(self.columns),
                "text": self.text, "log": self.log, "pca": self.pca, "name": self.name}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RepresentationRecipe:
        """The recipe written by :meth:`to_dict`.

        Raises
        ------
        InputError
            A missing or mistyped entry.
        """
        def bad(what: str) -> InputError:
            return InputError(f"representation recipe: {what}.", field="representation")

        if not isinstance(data, Mapping):
            raise bad("not a JSON object")
        tables = data.get("tables")
        if not isinstance(tables, list) or not tables or not all(isinstance(t, str) for t in tables):
            raise bad("'tables' must be a non-empty list of table names")
        columns = data.get("columns")
        if columns is not None and (not isinstance(columns, list) or not all(isinstance(c, str) for c in columns)):
            raise bad("'columns' must be null or a list of column names")
        flags = {k: data.get(k, _DEFAULTS[k]) for k in ("text", "log")}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise bad("'text' and 'log' must be true or false")
        pca = data.get("pca")
        why = problem(get("pca"), pca)
        if why:
            raise bad(f"'pca' must be null or a variance fraction: it {why}")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise bad("'name' must be a string")
        return cls(tuple(tables), None if columns is None else tuple(columns), flags["text"], flags["log"],
                   None if pca is None else float(pca), name)


def _kind(specs: Mapping[str, TableSpec] | None, table: str) -> str:
    spec = None if specs is None else specs.get(table)
    return "tabular" if spec is None else spec.kind


def used_in_full(specs: Mapping[str, TableSpec] | None, table: str) -> bool:
    """Whether a table's columns are always used in full (its kind's ``in_full``)."""
    return get_builder(_kind(specs, table)).in_full


def join_for(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec] | None,
             tables: Sequence[str]) -> JoinedTables:
    """Join the named descriptor tables (see :func:`~subsetsel_core.representations.descriptors.join_tables`).

    Raises
    ------
    InputError
        An unknown table, or no table.
    """
    from subsetsel_core.representations.descriptors import join_tables

    unknown = [t for t in tables if t not in descriptors]
    if unknown:
        raise InputError(f"unknown descriptor table '{unknown[0]}'; the tables are {', '.join(descriptors)}.",
                         field="representation")
    return join_tables({t: descriptors[t] for t in tables}, [t for t in tables if used_in_full(specs, t)])


def default_columns(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec] | None,
                    tables: Sequence[str]) -> list[str]:
    """The columns used by default: each table's spec columns (else all), except tables used in full."""
    joined = join_for(descriptors, specs, tables)
    chosen: list[str] = []
    for t in tables:
        if used_in_full(specs, t):
            continue
        spec = None if specs is None else specs.get(t)
        cols = list(spec.columns) if spec is not None and spec.columns else [str(c) for c in descriptors[t].columns]
        for c in cols:
            name = joined.names.get((t, c))
            if name in joined.pickable and name not in chosen:
                chosen.append(name)
    return chosen


def recipe_name(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec] | None,
                tables: Sequence[str], columns: Sequence[str] | None, *, text: bool = True, log: bool = False,
                pca: float | None = None) -> str:
    """Readable name: the tables joined with ``+``, then what differs from the defaults."""
    mods: list[str] = []
    if columns is not None and list(columns) != default_columns(descriptors, specs, tables):
        mods.append(f"{len(columns)} cols")
    if not text:
        mods.append("no text")
    if log:
        mods.append("log")
    if pca is not None:
        mods.append(f"PCA {pca:.0%}")
    return "+".join(tables) + ("/" + ",".join(mods) if mods else "")


def make_recipe(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec] | None,
                tables: Sequence[str], columns: Sequence[str] | None = None, **options: Any) -> RepresentationRecipe:
    """A recipe with its display name; columns equal to the defaults are stored as None.

    ``options`` are the recipe's other settings (``text``, ``log``, ``pca``: :data:`RECIPE`).

    Raises
    ------
    InputError
        An unknown table.
    """
    return named_recipe(descriptors, specs, RepresentationRecipe(tuple(tables), None if columns is None
                                                                 else tuple(columns), **options))


def named_recipe(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec] | None,
                 draft: RepresentationRecipe) -> RepresentationRecipe:
    """A recipe completed for these tables: its display name, and columns equal to the defaults as None.

    Raises
    ------
    InputError
        An unknown table.
    """
    tables = tuple(draft.tables)
    join_for(descriptors, specs, tables)
    cols = None if draft.columns is None else tuple(draft.columns)
    if cols is not None and list(cols) == default_columns(descriptors, specs, tables):
        cols = None
    rec = replace(draft, tables=tables, columns=cols, text=bool(draft.text), log=bool(draft.log))
    options = {s.name: getattr(rec, s.name) for s in RECIPE if s.name not in ("tables", "columns")}
    return replace(rec, name=recipe_name(descriptors, specs, tables, cols, **options))


def _chosen(recipe: RepresentationRecipe, descriptors: Mapping[str, pd.DataFrame],
            specs: Mapping[str, TableSpec] | None) -> tuple[JoinedTables, list[str]]:
    joined = join_for(descriptors, specs, recipe.tables)
    if recipe.columns is None:
        return joined, default_columns(descriptors, specs, recipe.tables)
    unknown = [c for c in recipe.columns if c not in joined.pickable]
    if unknown:
        raise InputError(f"unknown descriptor column(s) {unknown}; choose among {joined.pickable}.",
                         field="descriptor_columns")
    return joined, list(recipe.columns)


def build_recipe(recipe: RepresentationRecipe, benchmark: Benchmark, descriptors: Mapping[str, pd.DataFrame],
                 specs: Mapping[str, TableSpec] | None = None, *, seed: int = 0) -> Representation:
    """Encode the recipe's descriptors as a representation aligned to the benchmark.

    Parameters
    ----------
    recipe : RepresentationRecipe
    benchmark : Benchmark
        Its dataset order is the rows' order.
    descriptors : mapping of str to DataFrame
        Table name → raw descriptor table indexed by dataset name (aliases applied).
    specs : mapping of str to TableSpec, optional
        Each table's kind and default columns (a table without a spec is ``tabular`` with
        every column).
    seed : int
        Seed of the text embedding and PCA.

    Returns
    -------
    Representation
        Named :attr:`RepresentationRecipe.label`.

    Raises
    ------
    InputError
        Unknown tables or columns, no column, datasets without descriptors, bad options.
    """
    from subsetsel_core.representations.descriptors import build_representation

    joined, cols = _chosen(recipe, descriptors, specs)
    named = [t for t in recipe.tables if _kind(specs, t) in NAME_KINDS]
    if named:
        return _build_names(recipe, named, joined, cols, benchmark, specs, seed)
    use = cols + joined.embedding
    if not use:
        raise InputError("no descriptor column chosen; pick at least one column or an embedding table.",
                         field="descriptor_columns")
    return build_representation(
        joined.table, benchmark.datasets, name=recipe.label, columns=use, text="tfidf" if recipe.text else "drop",
        log_columns="auto" if recipe.log else (), pca_variance=recipe.pca, seed=seed,
    )


def _build_names(recipe: RepresentationRecipe, named: list[str], joined: JoinedTables, cols: list[str],
                 benchmark: Benchmark, specs: Mapping[str, TableSpec] | None, seed: int) -> Representation:
    """A recipe with a names table: the names, the other chosen columns' text appended (``text`` on)."""
    if len(named) > 1:
        raise InputError(f"a representation uses the dataset names once; {' and '.join(named)} are both names "
                         "tables. Join one of them with the other tables.", field="representation")
    use = cols + joined.embedding
    info = joined.table.reindex([str(d) for d in benchmark.datasets])[use] if recipe.text and use else None
    build = get_builder(_kind(specs, named[0])).build
    rep: Representation = build(benchmark.datasets, info, name=recipe.label, pca=recipe.pca, seed=seed)
    return rep


def recipe_columns(recipe: RepresentationRecipe, datasets: Sequence[str], descriptors: Mapping[str, pd.DataFrame],
                   specs: Mapping[str, TableSpec] | None = None) -> pd.DataFrame:
    """The raw values of the recipe's chosen columns (not the embeddings), rows in ``datasets`` order.

    Chosen columns that are not in the joined tables are left out.

    Raises
    ------
    InputError
        An unknown table.
    """
    joined = join_for(descriptors, specs, recipe.tables)
    cols = default_columns(descriptors, specs, recipe.tables) if recipe.columns is None else list(recipe.columns)
    return joined.table.reindex(list(datasets))[[c for c in cols if c in joined.pickable]]
