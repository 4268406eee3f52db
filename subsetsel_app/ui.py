"""Page pieces shared by several pages: header, sidebar, validation report, the map.

Pages stay layout-only by calling these; everything here reads the session through
:class:`~subsetsel_app.state.K` and computes through :mod:`subsetsel_app.data`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.io.validation import ValidationReport
from subsetsel_core.viz import figures, svg

from . import compute_ui, model, state, upload, workspace_ui
from . import data as D
from .model import ActiveData, RepConfig
from .projection import Projection
from .state import K

ICONS = {"error": ":material/error:", "warning": ":material/warning:", "info": ":material/info:"}
SOURCE_LABEL = {"sample": "embedded sample", "folder": "benchmark folder", "upload": "upload",
                "workspace": "workspace file"}


def header(title: str, caption: str) -> None:
    """Page title, a one-line caption, and any queued message."""
    _through_entry_point()
    st.title(title)
    st.caption(caption)
    msg = state.pop_flash()
    if msg is not None:
        level, text = msg
        {"success": st.success, "warning": st.warning, "error": st.error}.get(level, st.info)(md_escape(text))


def _through_entry_point() -> None:
    """Make sure the page runs under ``app.py`` (its session state, sidebar and navigation).

    Until ``app.py`` has called ``st.navigation`` once in a new server, Streamlit treats
    the ``pages/`` folder the old way: a first visit straight to a page's address (a
    bookmark, or a tab reconnecting after a restart) runs that page alone, without the
    entry point, and it fails. Switch Streamlit to ``app.py``'s navigation and run again
    (the same address then goes through ``app.py``). A session that has been through
    ``app.py`` already (its state is set) carries on.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and K.SEED not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()


def set_active(data: ActiveData, message: str | None = None) -> None:
    """Make ``data`` the session's benchmark and reset the settings that depend on it."""
    old = st.session_state.get(K.DATA)
    st.session_state[K.DATA] = data
    if old is None or old.token != data.token:
        state.reset_for_new_benchmark()
    if message:
        state.flash("success", message)


def active_or_stop() -> ActiveData:
    """The active benchmark; a readable error (and the page stops) if even the sample fails."""
    try:
        return D.active()
    except InputError as exc:
        st.error(f"The embedded sample could not be loaded: {md_escape(exc)}")
        st.stop()
        raise  # pragma: no cover - st.stop raises


# --------------------------------------------------------------------------- charts


def chart(fig: go.Figure, *, key: str, container: DeltaGenerator | None = None) -> None:
    """Draw a plotly figure as styled by :mod:`subsetsel_core.viz.figures`.

    Streamlit's chart theme is off: it roughly doubles plotly's drawing time in the
    browser, and the figures carry their own style.
    """
    (container or st).plotly_chart(fig, key=key, theme=None, config={"displaylogo": False})


# --------------------------------------------------------------------------- representation state


def ensure_rep_state(data: ActiveData) -> None:
    """Fill in / repair the Representation widgets' values for the active benchmark."""
    usable = list(data.usable_tables())
    tables = st.session_state.get(K.REP_TABLES)
    if tables is None or not set(tables) <= set(data.tables) or not tables:
        st.session_state[K.REP_TABLES] = usable[:1] if usable else list(data.tables)[:1]
    chosen = st.session_state[K.REP_TABLES]
    if not chosen:
        st.session_state[K.REP_COLUMNS] = []
        return
    comb = model.combined_table(data, chosen)
    cols = st.session_state.get(K.REP_COLUMNS)
    if cols is None:
        st.session_state[K.REP_COLUMNS] = model.default_columns(data, chosen)
    else:
        state.ensure_subset(K.REP_COLUMNS, comb.pickable)


def current_config(data: ActiveData) -> RepConfig | None:
    """The representation configured on the Representation page (None without tables)."""
    if not data.tables:
        return None
    ensure_rep_state(data)
    tables = st.session_state[K.REP_TABLES]
    if not tables:
        return None
    pca = float(st.session_state[K.REP_PCA_VAR]) if st.session_state[K.REP_PCA] else None
    return model.make_config(data, tables, st.session_state[K.REP_COLUMNS], text=bool(st.session_state[K.REP_TEXT]),
                             log=bool(st.session_state[K.REP_LOG]), pca=pca)


def current_representation(data: ActiveData) -> tuple[RepConfig | None, Representation | None, str | None]:
    """The configured representation, or ``(cfg, None, message)`` when it cannot be built."""
    cfg = current_config(data)
    rep, err = D.try_representation(data, cfg, int(st.session_state[K.SEED]))
    return cfg, rep, err


# --------------------------------------------------------------------------- sidebar


def sidebar() -> None:
    """The sidebar below the page list: active benchmark, representation, seed."""
    try:
        data = D.active()
    except InputError:
        return
    b = data.benchmark
    with st.sidebar:
        st.markdown("**Active benchmark**")
        st.markdown(md_escape(data.title))
        st.caption(
            f"{b.n_datasets} datasets · {b.n_models} models · {b.n_folds} fold(s) · "
            f"{'higher' if b.higher_is_better else 'lower'} is better · {SOURCE_LABEL.get(data.source, data.source)}"
        )
        cfg = current_config(data)
        st.markdown("**Representation**")
        st.caption(md_escape(cfg.name) if cfg is not None else "none (no descriptor table)")
        st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=K.SEED, persist_state=state.PERSIST,
                        help="One seed for selections, maps and evaluations: same seed, same result.")
    compute_ui.section()
    workspace_ui.section()


# --------------------------------------------------------------------------- reports


def show_report(report: ValidationReport, *, facts: bool = True, expanded_info: bool = False) -> None:
    """A validation report: sizes as a small table, then errors, warnings and notes."""
    if facts and report.facts:
        rows = [{"check": k, "value": v} for k, v in report.facts]
        st.dataframe(rows, hide_index=True, width="stretch")
    for f in report.findings:
        if f.level == "error":
            st.error(md_escape(f.message), icon=ICONS["error"])
        elif f.level == "warning":
            st.warning(md_escape(f.message), icon=ICONS["warning"])
    infos = [f for f in report.findings if f.level == "info"]
    if infos:
        with st.expander(f"Notes ({len(infos)})", expanded=expanded_info):
            for f in infos:
                st.markdown(f"- {md_escape(f.message)}")


def html(markup: str) -> None:
    """Show markup from :mod:`subsetsel_core.viz.svg` (drawn with the page: no chart library)."""
    st.markdown(markup, unsafe_allow_html=True)


def benchmark_metrics(data: ActiveData) -> None:
    """Sizes of the benchmark as a row of tiles."""
    b = data.benchmark
    html(svg.size_tiles_html(
        [("Datasets", f"{b.n_datasets:,}"), ("Models", f"{b.n_models:,}"), ("Folds / resamples", f"{b.n_folds:,}"),
         ("Descriptor tables", f"{len(data.tables):,}"), ("Scores", f"{b.scores.size:,}")],
        note=f"Scores: {'higher' if b.higher_is_better else 'lower'} is better.",
    ))


# --------------------------------------------------------------------------- the map


@st.fragment(run_every=1.0)
def _wait_for_projection(token: str, cfg: RepConfig, method: str, seed: int, data: ActiveData) -> None:
    if D.projection_ready(data, cfg, method, seed):
        st.rerun()
    st.caption(f":material/hourglass_top: {method} is being computed in the background (the first fit in a "
               "new server takes a while) — showing PCA until it is ready; the map will switch by itself.")


def map_chart(
    data: ActiveData,
    cfg: RepConfig,
    rep: Representation,
    *,
    key: str,
    selected: Sequence[int] = (),
    selected_color: str = "#d62728",
    height: int = 560,
    title: str | None = None,
    representative: Sequence[int] | None = None,
    poorly: Sequence[int] = (),
    quick: bool = False,
) -> None:
    """Draw the map of a representation (method and colour from the session).

    ``representative`` (each dataset's nearest chosen dataset, by position) adds thin
    coverage lines (over the plain points, under the numbered ones); ``poorly`` rings the datasets
    not covered well. ``quick`` draws it as an SVG image (tooltips, no zoom, no ``title``)
    when the benchmark has at most :data:`QUICK_MAP_LIMIT` datasets: the browser redraws
    that in milliseconds, where a new plotly chart takes a few hundred (Streamlit mounts a
    new chart whenever the figure changes, e.g. for every k).
    """
    proj = _map_projection(data, cfg, rep)
    colour_by = st.session_state.get(K.MAP_COLOR)
    hover, color = model.hover_frame(data, cfg), model.color_values(data, colour_by)
    as_svg = quick and data.benchmark.n_datasets <= QUICK_MAP_LIMIT
    memo = _map_memo(data, (cfg, proj.method, int(st.session_state[K.SEED]), colour_by,
                            ("svg",) if as_svg else ("plotly", title), height))
    if as_svg:
        html(svg.map_svg(proj.coords, data.benchmark.datasets, hover=hover, color=color, method=proj.method,
                            width=560, height=round(height * 0.96), selected=selected,
                            selected_color=selected_color, representative=representative, poorly=poorly, memo=memo))
    else:
        chart(figures.map_figure(proj.coords, data.benchmark.datasets, hover=hover, color=color, selected=selected,
                                 selected_color=selected_color, method=proj.method, title=title, height=height,
                                 representative=representative, poorly=poorly, memo=memo), key=key)
    _projection_note(data, cfg, proj)


TOP_MODELS = 15  # rows of the start page's leaderboard
QUICK_MAP_LIMIT = 2000  # larger benchmarks always get the plotly map (SVG markup grows with n)
_MAP_MEMOS = 16  # base maps kept per benchmark (projection × colour × size; plotly and SVG ones together)
_MAP_LOCK = threading.Lock()


def _map_memo(data: ActiveData, key: tuple[object, ...]) -> dict[str, object]:
    """The :func:`figures.map_figure` memo of one base map of this benchmark (shared by the
    sessions that use it; a few are kept): changing k or the strategy reuses the map."""
    with _MAP_LOCK:
        memos = data.memo.setdefault("map_memos", {})
        if key not in memos:
            while len(memos) >= _MAP_MEMOS:
                memos.pop(next(iter(memos)))
            memos[key] = {}
        return memos[key]


def _map_projection(data: ActiveData, cfg: RepConfig, rep: Representation) -> Projection:
    """The map's projection with the session's method and seed (PCA while UMAP is pending)."""
    return D.project(data, cfg, rep, st.session_state[K.MAP_METHOD], int(st.session_state[K.SEED]))


def _projection_note(data: ActiveData, cfg: RepConfig, proj: Projection) -> None:
    """Under a map: wait for a pending projection (then redraw), or say why it is PCA."""
    method = st.session_state[K.MAP_METHOD]
    if proj.pending:
        _wait_for_projection(data.token, cfg, method, int(st.session_state[K.SEED]), data)
    elif proj.error:
        st.caption(f":material/info: {method} is not available: {md_escape(proj.error)} The map shows PCA.")


def map_glance(data: ActiveData, cfg: RepConfig, rep: Representation, *, height: int = 460) -> None:
    """The map of :func:`map_chart` as a plain SVG image (drawn with the page; hover shows
    the dataset and its descriptors, no zoom)."""
    proj = _map_projection(data, cfg, rep)
    color = model.color_values(data, st.session_state.get(K.MAP_COLOR))
    html(svg.map_svg(proj.coords, data.benchmark.datasets, hover=model.hover_frame(data, cfg), color=color,
                        method=proj.method, height=height))
    _projection_note(data, cfg, proj)


def ensure_map_state(data: ActiveData) -> list[str]:
    """Make the stored map method and colour valid; returns the colour options."""
    opts = [model.NO_COLOR, *model.color_options(data), model.MEAN_SCORE]
    state.ensure_choice(K.MAP_COLOR, opts, fallback=model.default_color(data))
    state.ensure_choice(K.MAP_METHOD, list(state.MAP_METHODS), fallback="UMAP")
    return opts


def _copy_widget(widget_key: str, state_key: str) -> None:
    st.session_state[state_key] = st.session_state[widget_key]


def map_controls(data: ActiveData, *, page: str) -> None:
    """Projection method and colour pickers, shared by several pages.

    The chosen values live in ``K.MAP_METHOD`` / ``K.MAP_COLOR``; each page has its own
    widgets (keys suffixed with ``page``) created from those values and copying back on
    change. (A widget key shared by two pages loses a value that was set through the
    session state rather than by the user when the page changes.)
    """
    opts = ensure_map_state(data)
    a, b = st.columns(2)
    wm, wc = f"{K.MAP_METHOD}__{page}", f"{K.MAP_COLOR}__{page}"
    methods = list(state.MAP_METHODS)
    a.radio("Map", methods, index=methods.index(st.session_state[K.MAP_METHOD]), key=wm, horizontal=True,
            on_change=_copy_widget, args=(wm, K.MAP_METHOD),
            help="UMAP (default) is computed in the background; PCA is instant; t-SNE takes a few seconds.")
    b.selectbox("Colour by", opts, index=opts.index(st.session_state[K.MAP_COLOR]), key=wc,
                on_change=_copy_widget, args=(wc, K.MAP_COLOR),
                help="Any descriptor column, or the mean score (shown for context; selection never uses scores).")


# --------------------------------------------------------------------------- upload helpers


def prime_upload_mapping(head: pd.DataFrame, scores: upload.UploadedTable) -> list[str]:
    """Guess the column mapping once per new score file; keep the stored choices valid.

    Returns
    -------
    list of str
        The score table's columns.
    """
    cols = [str(c) for c in head.columns]
    if st.session_state[K.UP_GUESSED] != scores.digest:
        g = upload.guess_mapping(head)
        st.session_state[K.UP_LAYOUT] = g["layout"]
        st.session_state[K.UP_DATASET] = g["dataset"]
        st.session_state[K.UP_MODEL] = g["model"] or cols[min(1, len(cols) - 1)]
        st.session_state[K.UP_SCORE] = g["score"] or cols[-1]
        st.session_state[K.UP_FOLD] = g["fold"] or upload.NONE
        st.session_state[K.UP_NAME] = scores.stem
        st.session_state[K.UP_GUESSED] = scores.digest
    for key in (K.UP_DATASET, K.UP_MODEL, K.UP_SCORE):
        state.ensure_choice(key, cols)
    state.ensure_choice(K.UP_FOLD, [upload.NONE, *cols], fallback=upload.NONE)
    return cols


def upload_options() -> upload.ScoreOptions:
    """The score-reading options chosen on the Benchmark page."""
    fold = st.session_state[K.UP_FOLD]
    return upload.ScoreOptions(
        layout=st.session_state[K.UP_LAYOUT],
        dataset_column=st.session_state[K.UP_DATASET],
        model_column=st.session_state[K.UP_MODEL],
        score_column=st.session_state[K.UP_SCORE],
        fold_column=None if fold == upload.NONE else fold,
        higher_is_better=st.session_state[K.UP_HIGHER] == "higher is better",
        missing=st.session_state[K.UP_MISSING],
        name=st.session_state[K.UP_NAME],
    )


# --------------------------------------------------------------------------- representations to evaluate


def evaluation_configs(data: ActiveData) -> dict[str, RepConfig]:
    """Representations offered on the Evaluate page: each usable table, and the configured one."""
    out: dict[str, RepConfig] = {}
    for t in data.usable_tables():
        cfg = model.table_config(data, t)
        out[cfg.name] = cfg
    cur = current_config(data)
    if cur is not None and cur.name not in out:
        out[cur.name] = cur
    return out


def reset_rep_columns() -> None:
    """Callback: new table choice → that choice's default columns."""
    st.session_state[K.REP_COLUMNS] = None


_MD_SPECIAL = set("\\`*_[]$<>:~|")


def md_escape(text: object) -> str:
    """Escape Markdown (and Streamlit's ``$`` math / ``:`` directives) in user-provided text.

    Backslash-escapes the characters that format anywhere in a line, and a leading
    ``#``, ``-``, ``+`` or ``=`` that would start a heading or a list.
    """
    s = "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))
    return "\\" + s if s[:1] in ("#", "-", "+", "=") else s
