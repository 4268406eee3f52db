"""Every cache of the dashboard: ``st.cache_data`` / ``st.cache_resource`` around core calls.

Each wrapper takes the benchmark as :class:`~subsetsel_app.active_data.ActiveData`, which the
caches hash by its ``token`` (the token identifies the content, so two sessions on the
same sample share every entry), and hashable settings (a recipe, ints, tuples). A
representation goes in as a leading-underscore argument, which Streamlit does not hash:
the recipe and the seed that built it are in the key. ``cache_resource`` holds read-only
objects shared by every session (no copy per rerun); ``cache_data`` returns a copy of
small results. No figure is built here unless it is cached itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.check import Geometry, geometry_agreement
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.stability import Stability, full_stability
from subsetsel_core.io.guess.table import TableGuess
from subsetsel_core.io.roots import offering_root
from subsetsel_core.io.score_format import MissingPolicy, ScoreFormat
from subsetsel_core.loading.folder import Catalog, scan_benchmarks
from subsetsel_core.representations.descriptors import JoinedTables, Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.representations.tabular import column_kind
from subsetsel_core.selection import profiles
from subsetsel_core.selection.costs import (
    COST_ESTIMATE,
    BudgetSelection,
    Costs,
    cost_table,
    dataset_costs,
    select_within_budget,
)
from subsetsel_core.selection.coverage import Coverage, coverage
from subsetsel_core.selection.placement import Placement, place_model
from subsetsel_core.selection.profiles import k_profile, random_profile
from subsetsel_core.selection.subsets import Selection, select_datasets
from subsetsel_core.settings import server as server_settings
from subsetsel_core.viz import profiles as profile_figures

from . import active_data, result_upload, upload
from .active_data import ActiveData

if TYPE_CHECKING:
    from subsetsel_core.evaluation.theory import Theory

ROOT: Path = Path(__file__).resolve().parent.parent
BY_TOKEN: dict[str | type[Any], Callable[[Any], Any]] = {ActiveData: lambda data: data.token}
Recipe = RepresentationRecipe | None
Band = tuple[np.ndarray, np.ndarray, np.ndarray]


def resolve_dir(directory: str) -> Path:
    """A benchmark directory typed by the user; relative paths are relative to the app."""
    p = Path(directory.strip() or "sample_data").expanduser()
    return p if p.is_absolute() else ROOT / p


# --------------------------------------------------------------------------- benchmarks


@st.cache_data(ttl=30, show_spinner=False)
def catalog(directory: str) -> Catalog:
    """The benchmark folders in a directory (re-scanned at most every 30 s).

    Raises
    ------
    InputError
        The directory does not exist.
    """
    p = resolve_dir(directory)
    # under a benchmark root, every folder and file is read by descriptor below the root
    return scan_benchmarks(p, within=offering_root(p, server_settings.benchmark_roots()))


@st.cache_resource(max_entries=12, show_spinner="Loading the benchmark …")
def _load_folder(folder: str, stamp: str, source: str) -> ActiveData:
    return active_data.load_folder_data(folder, source=source)


def load_folder(folder: str | Path) -> ActiveData:
    """Load a benchmark folder (cached until a file in it changes).

    Raises
    ------
    InputError
        From the manifest or table validation.
    """
    p = Path(folder).resolve()
    return _load_folder(str(p), active_data.folder_stamp(p), "sample" if active_data.is_sample(p) else "folder")


def default_folder() -> Path:
    """The benchmark the app opens on: the TSC sample when a benchmark root offers it, else the
    first benchmark folder of the roots (the embedded sample when they offer none)."""
    sample = active_data.default_sample()
    roots = server_settings.benchmark_roots()
    if offering_root(sample, roots) is not None:
        return sample
    for root in roots:
        try:
            found = catalog(str(root)).manifests
        except InputError:
            continue
        if found:
            return found[0].folder
    return sample


def default_data() -> ActiveData:
    """The benchmark the app opens on (:func:`default_folder`)."""
    return load_folder(default_folder())


@st.cache_resource(max_entries=4, show_spinner=False)  # a 200 MB upload is ~0.5 GB of text cells
def upload_header(name: str, digest: str, _content: bytes) -> pd.DataFrame:
    """The uploaded table's cells (cached by content digest; shared and read-only — a
    resource cache, so a rerun does not unpickle a copy of a large upload)."""
    return upload.read_header(upload.UploadedTable(name, _content))


@st.cache_resource(max_entries=32, show_spinner=False)
def upload_guess(name: str, digest: str, options: tuple[tuple[str, Any], ...], _head: pd.DataFrame) -> TableGuess:
    """:func:`subsetsel_app.upload.guess` of an uploaded table (cached by its digest and the options).

    Raises
    ------
    InputError
        As the guess does (not cached).
    """
    return upload.guess(_head, name, options)


@st.cache_resource(max_entries=16, show_spinner="Validating the upload …")
def check_upload(
    scores_key: tuple[str, str], fmt: ScoreFormat, name: str, desc_keys: tuple[tuple[str, str], ...],
    dataset_column: str, aliases: tuple[tuple[str, str], ...], reading: TableGuess | None,
    model_dates: tuple[tuple[str, str], ...],
    _scores: upload.UploadedTable, _descriptors: tuple[upload.UploadedTable, ...],
) -> upload.UploadCheck:
    """:func:`subsetsel_app.upload.check_upload`, cached by file digests and options."""
    return upload.check_upload(_scores, fmt, _descriptors, name=name, dataset_column=dataset_column,
                               aliases=dict(aliases), reading=reading, model_dates=dict(model_dates))


@st.cache_resource(max_entries=8, show_spinner="Reading the results …")
def check_results(
    keys: tuple[tuple[str, str], ...], result_format: str, metric: str, missing: MissingPolicy, name: str,
    _files: tuple[upload.UploadedTable, ...], skip_unreadable: bool = False,
) -> result_upload.ResultCheck:
    """:func:`subsetsel_app.result_upload.check_results`, cached by file digests and options."""
    return result_upload.check_results(_files, result_format, metric=metric, missing=missing, name=name,
                                       skip_unreadable=skip_unreadable)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=BY_TOKEN)
def leaderboard(data: ActiveData) -> pd.DataFrame:
    """The full benchmark's model ranking."""
    return data.benchmark.leaderboard()


# --------------------------------------------------------------------------- recipes and representations


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=BY_TOKEN)
def joined(data: ActiveData, tables: tuple[str, ...]) -> JoinedTables:
    """:func:`subsetsel_app.active_data.joined` (shared, read-only).

    Raises
    ------
    InputError
        An unknown table, or no table.
    """
    return active_data.joined(data, tables)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=BY_TOKEN)
def default_columns(data: ActiveData, tables: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`subsetsel_app.active_data.default_columns`."""
    return tuple(active_data.default_columns(data, tables))


@st.cache_resource(max_entries=256, show_spinner=False, hash_funcs=BY_TOKEN)
def recipe(data: ActiveData, draft: RepresentationRecipe) -> RepresentationRecipe:
    """:func:`subsetsel_app.active_data.named_recipe`: the recipe, named for the benchmark."""
    return active_data.named_recipe(data, draft)


@st.cache_resource(max_entries=64, show_spinner="Building the representation …", hash_funcs=BY_TOKEN)
def representation(data: ActiveData, rec: RepresentationRecipe, seed: int = 0) -> Representation:
    """The representation a recipe describes (shared, read-only).

    Raises
    ------
    InputError
        Datasets without descriptors, no usable column, bad options.
    """
    return active_data.build_representation(data, rec, seed)


def try_representation(data: ActiveData, rec: Recipe, seed: int = 0) -> tuple[Representation | None, str | None]:
    """Like :func:`representation` but returns ``(None, message)`` on bad input."""
    if rec is None:
        return None, "this benchmark has no descriptor table."
    try:
        return representation(data, rec, int(seed)), None
    except InputError as exc:
        return None, str(exc)


# --------------------------------------------------------------------------- the map


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=BY_TOKEN)
def hover_frame(data: ActiveData, rec: RepresentationRecipe) -> pd.DataFrame:
    """:func:`subsetsel_app.active_data.hover_frame` (shared, read-only)."""
    return active_data.hover_frame(data, rec)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=BY_TOKEN)
def color_options(data: ActiveData) -> tuple[tuple[str, ...], str]:
    """What the map can be coloured by, and the default (:mod:`subsetsel_app.active_data`)."""
    return tuple(active_data.color_options(data)), active_data.default_color(data)


@st.cache_resource(max_entries=128, show_spinner=False, hash_funcs=BY_TOKEN)
def color_values(data: ActiveData, column: str | None) -> pd.Series | None:
    """:func:`subsetsel_app.active_data.color_values` (shared, read-only)."""
    return active_data.color_values(data, column)


@st.cache_resource(max_entries=64, show_spinner=False)
def map_memo(token: str, rec: RepresentationRecipe, method: str, seed: int, colour: str | None,
             kind: tuple[object, ...]) -> dict[str, object]:
    """The memo of one base map (:func:`subsetsel_core.viz.maps.map_figure`, ``svg.map_svg``),
    shared by the sessions that draw it: a change of k or strategy reuses the base map."""
    return {}


# --------------------------------------------------------------------------- selection


@st.cache_data(max_entries=256, show_spinner=False, hash_funcs=BY_TOKEN)
def selection(data: ActiveData, rec: Recipe, _rep: Representation | None, strategy: str, k: int, seed: int,
              include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Selection:
    """Choose k datasets with the representation ``rec`` built (a few milliseconds when not cached).

    Raises
    ------
    InputError
        k out of range, conflicting include / exclude lists, strategy needs descriptors.
    """
    return select_datasets(data.benchmark, _rep, strategy, k, seed=seed, include=include, exclude=exclude)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=BY_TOKEN)
def _random_profile(data: ActiveData, k_max: int, seed: int) -> dict[str, Band]:
    return random_profile(data.benchmark, np.arange(1, k_max + 1), seed=seed)


def random_profile_to(data: ActiveData, k_max: int, seed: int) -> dict[str, Band]:
    """Random subsets' agreement for k = 1 … at least ``k_max``: median and 95 % band.

    Computed up to ``k_max`` rounded up to a multiple of 32 (at most the number of
    datasets), so moving k does not recompute it, and a benchmark of thousands of datasets
    does not pay for every k. A k's values do not depend on how far the profile goes: each
    draw is one random order of all datasets and a k-subset is its first k.
    """
    return _random_profile(data, min(data.benchmark.n_datasets, 32 * -(-max(1, int(k_max)) // 32)), int(seed))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=BY_TOKEN)
def k_profile_chart(data: ActiveData, rec: Recipe, _rep: Representation | None, strategy: str, k_max: int, seed: int,
                    include: tuple[int, ...], exclude: tuple[int, ...], metric: str) -> go.Figure:
    """The strategy's agreement for every k next to random subsets (the figure is cached: it does
    not depend on the current k, so a k change neither rebuilds nor redraws it)."""
    ks = np.arange(max(1, len(include)), k_max + 1)
    prof = k_profile(data.benchmark, None if _rep is None else _rep.X, strategy, ks, seed=seed, include=include,
                     exclude=exclude)
    rand = random_profile_to(data, int(ks.max()), seed)
    band = {m: (med[ks - 1], lo[ks - 1], hi[ks - 1]) for m, (med, lo, hi) in rand.items()}
    return profile_figures.k_profile_figure(ks, prof, band, metric, strategy=strategy)


@st.cache_resource(max_entries=32, show_spinner="Resampling the benchmark's datasets …", hash_funcs=BY_TOKEN)
def stability(data: ActiveData, seed: int = 0) -> Stability:
    """The full benchmark's own stability (:func:`~subsetsel_core.evaluation.stability.full_stability`)."""
    return full_stability(data.benchmark, seed=seed)


@st.cache_data(max_entries=32, show_spinner="Comparing descriptor distances with performance distances …",
               hash_funcs=BY_TOKEN)
def geometry(data: ActiveData, rec: RepresentationRecipe, _rep: Representation, seed: int = 0) -> Geometry:
    """Agreement of the representation's geometry with the performance structure (Mantel test)."""
    return geometry_agreement(_rep.X, data.benchmark.rank_vectors, seed=seed)


@st.cache_resource(max_entries=64, show_spinner="Fitting the GP model of the coverage bound …", hash_funcs=BY_TOKEN)
def theory(data: ActiveData, rec: RepresentationRecipe, strategy: str, config: EvaluationConfig) -> Theory:
    """FAFI's coverage bound next to its observed share (:func:`~subsetsel_core.evaluation.theory.coverage_theory`);
    the representation is built with ``config.seed``, as an evaluation builds it.

    Raises
    ------
    InputError
        The bound cannot be computed here (gaps in the scores, no varying descriptor column).
    """
    # imported here: scipy.optimize loads only when the panel shows
    from subsetsel_core.evaluation.theory import coverage_theory

    return coverage_theory(data.benchmark, representation(data, rec, config.seed), config, strategy=strategy)


@st.cache_data(max_entries=256, show_spinner=False, hash_funcs=BY_TOKEN)
def _coverage(data: ActiveData, rec: RepresentationRecipe, _rep: Representation, seed: int,
              chosen: tuple[str, ...]) -> Coverage:
    return coverage(_rep, list(chosen))


def subset_coverage(data: ActiveData, rec: Recipe, rep: Representation | None, chosen: tuple[str, ...],
                    seed: int) -> Coverage | None:
    """What each chosen dataset stands for; None without descriptors or a subset."""
    if rep is None or rec is None or not chosen:
        return None
    return _coverage(data, rec, rep, int(seed), tuple(chosen))


# --------------------------------------------------------------------------- budgets


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=BY_TOKEN)
def cost_options(data: ActiveData) -> tuple[str, ...]:
    """The estimate from size descriptors, then every numeric descriptor column."""
    table = cost_table(data.benchmark, data.tables, data.specs)
    cols = [] if table is None else [str(c) for c in table.columns if column_kind(table[c]) == "numeric"]
    return (COST_ESTIMATE, *cols)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=BY_TOKEN)
def costs(data: ActiveData, source: str) -> Costs:
    """Per-dataset costs from a descriptor column or the size estimate.

    Raises
    ------
    InputError
        The column has a missing, non-numeric or non-positive value.
    """
    return dataset_costs(data.benchmark, data.tables, data.specs, source)


@st.cache_data(max_entries=128, show_spinner=False, hash_funcs=BY_TOKEN)
def budget_selection(data: ActiveData, rec: Recipe, _rep: Representation | None, strategy: str, source: str,
                     budget: float, seed: int, exclude: tuple[str, ...] = ()) -> BudgetSelection:
    """The datasets a cost-aware strategy takes within ``budget``.

    Raises
    ------
    InputError
        Bad costs, a non-positive budget, a strategy that needs descriptors.
    """
    return select_within_budget(data.benchmark, _rep, strategy, costs(data, source), budget, seed=seed,
                                exclude=exclude)


@st.cache_data(max_entries=64, show_spinner="Choosing a subset for every budget level …", hash_funcs=BY_TOKEN)
def budget_profile(data: ActiveData, rec: Recipe, _rep: Representation | None, strategy: str, source: str, seed: int,
                   shares: tuple[float, ...], exclude: tuple[str, ...] = ()) -> profiles.BudgetProfile:
    """:func:`subsetsel_core.selection.profiles.budget_profile` at the budget levels ``shares``."""
    return profiles.budget_profile(data.benchmark, _rep, strategy, costs(data, source), shares, seed=seed,
                                  exclude=exclude)


# --------------------------------------------------------------------------- placing a new model


@st.cache_data(max_entries=64, show_spinner="Placing the model …", hash_funcs=BY_TOKEN)
def placement(data: ActiveData, subset: tuple[str, ...], rows: tuple[tuple[str, str | None, float], ...], name: str,
              seed: int) -> Placement:
    """:func:`~subsetsel_core.selection.placement.place_model` of the rows on the subset's datasets.

    Raises
    ------
    InputError
        The name is an existing model's, a subset of fewer than 2 datasets, missing folds.
    """
    keep = set(subset)
    df = pd.DataFrame([r for r in rows if r[0] in keep], columns=["dataset", "fold", "score"])
    return place_model(data.benchmark, list(subset), df, name=name.strip() or "new model", seed=seed)
