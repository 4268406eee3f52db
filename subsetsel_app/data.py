"""Cached wrappers around the core calls the pages make.

Every wrapper takes hashable arguments (a benchmark token, a :class:`RepConfig`, ints,
tuples); the unhashable benchmark object itself is passed as a leading-underscore
argument, which Streamlit does not hash. The token identifies the benchmark's content, so
two sessions on the same sample share every cache entry.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.io.folder import Catalog, scan_benchmarks
from subsetsel_core.selection import Selection, select_datasets
from subsetsel_core.viz import figures

from . import analysis, model, projection, upload
from .model import ActiveData, RepConfig
from .state import K

ROOT: Path = Path(__file__).resolve().parent.parent


def resolve_dir(directory: str) -> Path:
    """A benchmark directory typed by the user; relative paths are relative to the app."""
    p = Path(directory.strip() or "sample_data").expanduser()
    return p if p.is_absolute() else ROOT / p


@st.cache_data(ttl=30, show_spinner=False)
def catalog(directory: str) -> Catalog:
    """The benchmark folders in a directory (re-scanned at most every 30 s).

    Raises
    ------
    InputError
        The directory does not exist.
    """
    return scan_benchmarks(resolve_dir(directory))


@st.cache_resource(max_entries=12, show_spinner="Loading the benchmark …")
def _load_folder(folder: str, stamp: str, source: str) -> ActiveData:
    return model.load_folder_data(folder, source=source)


def load_folder(folder: str | Path) -> ActiveData:
    """Load a benchmark folder (cached until a file in it changes)."""
    p = Path(folder).resolve()
    source = "sample" if p.parent == model.SAMPLE_DIR.resolve() else "folder"
    return _load_folder(str(p), model.folder_stamp(p), source)


def default_data() -> ActiveData:
    """The sample the app opens on (TSC bake-off), else the first sample."""
    p = model.SAMPLE_DIR / model.DEFAULT_SAMPLE
    if not (p / "manifest.json").is_file():
        found = scan_benchmarks(model.SAMPLE_DIR).manifests
        if not found:
            raise InputError(f"no benchmark folder found in {model.SAMPLE_DIR}.")
        p = found[0].folder
    return load_folder(p)


def active() -> ActiveData:
    """The session's active benchmark (the default sample on first use)."""
    data = st.session_state.get(K.DATA)
    if data is None:
        data = default_data()
        st.session_state[K.DATA] = data
    return data


@st.cache_resource(max_entries=4, show_spinner=False)  # a 200 MB upload is ~0.5 GB of text cells
def upload_header(name: str, digest: str, _content: bytes) -> pd.DataFrame:
    """The uploaded table's cells (cached by content digest; shared and read-only — a
    resource cache, so a rerun does not unpickle a copy of a large upload)."""
    return upload.read_header(upload.UploadedTable(name, _content))


@st.cache_resource(max_entries=16, show_spinner="Validating the upload …")
def check_upload(
    scores_key: tuple[str, str], options: upload.ScoreOptions, desc_keys: tuple[tuple[str, str], ...],
    dataset_column: str, aliases: tuple[tuple[str, str], ...],
    _scores: upload.UploadedTable, _descriptors: tuple[upload.UploadedTable, ...],
) -> upload.UploadCheck:
    """:func:`subsetsel_app.upload.check_upload`, cached by file digests and options."""
    return upload.check_upload(_scores, options, _descriptors, dataset_column=dataset_column,
                               aliases=dict(aliases))


@st.cache_resource(max_entries=64, show_spinner="Building the representation …")
def _representation(token: str, cfg: RepConfig, seed: int, _data: ActiveData) -> Representation:
    return model.build_representation_for(_data, cfg, seed=seed)


def representation(data: ActiveData, cfg: RepConfig, seed: int = 0) -> Representation:
    """The representation described by ``cfg`` (cached per benchmark and settings).

    Raises
    ------
    InputError
        Datasets without descriptors, no usable column, bad options.
    """
    return _representation(data.token, cfg, seed, data)


def try_representation(data: ActiveData, cfg: RepConfig | None, seed: int = 0) -> tuple[Representation | None, str | None]:
    """Like :func:`representation` but returns ``(None, message)`` on bad input."""
    if cfg is None:
        return None, "this benchmark has no descriptor table."
    try:
        return representation(data, cfg, seed), None
    except InputError as exc:
        return None, str(exc)


def project(data: ActiveData, cfg: RepConfig, rep: Representation, method: str, seed: int) -> projection.Projection:
    """The 2-D map of a representation (PCA at once, UMAP / t-SNE in the background)."""
    return projection.project((data.token, cfg), rep.X, method, seed)


def projection_ready(data: ActiveData, cfg: RepConfig, method: str, seed: int) -> bool:
    """Whether the background projection for these settings finished."""
    return projection.projector().is_ready((data.token, cfg), method, seed)


@st.cache_data(max_entries=256, show_spinner=False)
def _selection(token: str, cfg: RepConfig | None, strategy: str, k: int, seed: int,
               include: tuple[str, ...], exclude: tuple[str, ...], _data: ActiveData,
               _rep: Representation | None) -> Selection:
    return select_datasets(_data.benchmark, _rep, strategy, k, seed=seed, include=include, exclude=exclude)


def selection(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, strategy: str, k: int,
              seed: int, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Selection:
    """Choose k datasets (cached; a few milliseconds when not).

    Raises
    ------
    InputError
        k out of range, conflicting include / exclude lists, strategy needs descriptors.
    """
    return _selection(data.token, cfg, strategy, int(k), int(seed), tuple(include), tuple(exclude), data, rep)


@st.cache_data(max_entries=64, show_spinner=False)
def _k_profile(token: str, cfg: RepConfig | None, strategy: str, k_max: int, seed: int,
               include: tuple[int, ...], exclude: tuple[int, ...], _data: ActiveData,
               _rep: Representation | None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    lo = max(1, len(include))
    ks = np.arange(lo, k_max + 1)
    X = None if _rep is None else _rep.X
    return ks, analysis.k_profile(_data.benchmark, X, strategy, ks, seed=seed, include=include, exclude=exclude)


def k_profile(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, strategy: str, k_max: int,
              seed: int, include: tuple[int, ...] = (), exclude: tuple[int, ...] = ()
              ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Agreement of the strategy's subsets for k = 1 … k_max (cached)."""
    return _k_profile(data.token, cfg, strategy, int(k_max), int(seed), tuple(include), tuple(exclude), data, rep)


@st.cache_resource(max_entries=64, show_spinner=False)
def _k_profile_chart(token: str, cfg: RepConfig | None, strategy: str, k_max: int, seed: int,
                     include: tuple[int, ...], exclude: tuple[int, ...], metric: str, _data: ActiveData,
                     _rep: Representation | None) -> go.Figure:
    ks, prof = k_profile(_data, cfg, _rep, strategy, k_max, seed, include, exclude)
    rand = random_profile(_data, int(ks.max()), seed)
    band = {m: tuple(a[ks - 1] for a in v) for m, v in rand.items()}
    return figures.k_profile_figure(ks, prof, band, metric, strategy=strategy)


def k_profile_chart(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, strategy: str, k_max: int,
                    seed: int, include: tuple[int, ...], exclude: tuple[int, ...], metric: str) -> go.Figure:
    """The strategy's agreement for every k next to random subsets (the figure is cached: it does
    not depend on the current k, so a k change neither rebuilds nor redraws it)."""
    return _k_profile_chart(data.token, cfg, strategy, int(k_max), int(seed), tuple(include), tuple(exclude), metric,
                            data, rep)


@st.cache_data(max_entries=32, show_spinner=False)
def _random_profile(token: str, k_max: int, seed: int, _data: ActiveData
                    ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    return analysis.random_profile(_data.benchmark, np.arange(1, k_max + 1), seed=seed)


def random_profile(data: ActiveData, k_max: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Random subsets' agreement for k = 1 … at least ``k_max``: median and 95 % band (cached).

    Computed up to ``k_max`` rounded up to a multiple of 32 (at most the number of
    datasets), so moving k does not recompute it, and a benchmark of thousands of datasets
    does not pay for every k. A k's values do not depend on how far the profile goes: each
    draw is one random order of all datasets and a k-subset is its first k.
    """
    n = data.benchmark.n_datasets
    cap = min(n, 32 * -(-max(1, int(k_max)) // 32))
    return _random_profile(data.token, cap, int(seed), data)


@st.cache_data(max_entries=32, show_spinner="Comparing descriptor distances with performance distances …")
def _geometry(token: str, cfg: RepConfig, seed: int, _data: ActiveData, _rep: Representation) -> analysis.Geometry:
    return analysis.geometry_agreement(_rep.X, _data.benchmark.rank_vectors, seed=seed)


def geometry(data: ActiveData, cfg: RepConfig, rep: Representation, seed: int = 0) -> analysis.Geometry:
    """Agreement of the representation's geometry with the performance structure (cached)."""
    return _geometry(data.token, cfg, int(seed), data, rep)


@st.cache_data(max_entries=16, show_spinner=False)
def _leaderboard(token: str, _data: ActiveData) -> pd.DataFrame:
    return _data.benchmark.leaderboard()


def leaderboard(data: ActiveData) -> pd.DataFrame:
    """The full benchmark's model ranking (cached)."""
    return _leaderboard(data.token, data)


def geometry_table(data: ActiveData, seed: int = 0) -> pd.DataFrame:
    """Geometry agreement of every representation offered for evaluation."""
    from . import ui

    rows = []
    for name, cfg in ui.evaluation_configs(data).items():
        rep, err = try_representation(data, cfg, seed)
        if rep is None:
            rows.append({"representation": name, "features": None, "Spearman ρ": None, "Mantel p": None})
            continue
        g = geometry(data, cfg, rep, seed)
        rows.append({"representation": name, "features": rep.X.shape[1], "Spearman ρ": g.rho, "Mantel p": g.p_value})
    return pd.DataFrame(rows)
