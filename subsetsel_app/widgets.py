"""Page pieces shared by several pages: header, charts, the validation report, size tiles, the map.

Everything here reads the session through :class:`~subsetsel_app.state.K` and computes
through :mod:`subsetsel_app.cache`; the figures come from :mod:`subsetsel_core.viz`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from subsetsel_core.errors import InputError
from subsetsel_core.io.validation import ValidationReport
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.viz import maps, svg

from . import cache, entry, limits, persist, projection, session, state
from .active_data import ActiveData
from .state import K

ICONS = {"error": ":material/error:", "warning": ":material/warning:", "info": ":material/info:"}
TOP_MODELS = 15  # rows of the start page's leaderboard
QUICK_MAP_LIMIT = 2000  # larger benchmarks always get the plotly map (SVG markup grows with n)
_MD_SPECIAL = set("\\`*_[]$<>:~|")


def md_escape(text: object) -> str:
    """Escape Markdown (and Streamlit's ``$`` math / ``:`` directives) in user-provided text.

    Backslash-escapes the characters that format anywhere in a line, and a leading
    ``#``, ``-``, ``+`` or ``=`` that would start a heading or a list.
    """
    s = "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))
    return "\\" + s if s[:1] in ("#", "-", "+", "=") else s


def header(title: str, caption: str) -> None:
    """Page title, a one-line caption, and any queued message (a page's first call)."""
    entry.leave_if_alone()
    persist.save()  # what the last interaction changed is kept across reloads (subsetsel_app.persist)
    st.title(title)
    st.caption(caption)
    for level, text in state.pop_flash():
        {"success": st.success, "warning": st.warning, "error": st.error}.get(level, st.info)(md_escape(text))


def active_or_stop() -> ActiveData:
    """The active benchmark; a readable error (and the page stops) if even the sample fails."""
    try:
        return session.active()
    except InputError as exc:
        st.error(f"The embedded sample could not be loaded: {md_escape(exc)}")
        st.stop()
        raise  # pragma: no cover - st.stop raises


def chart(fig: go.Figure, *, key: str, container: DeltaGenerator | None = None) -> None:
    """Draw a plotly figure as styled by :mod:`subsetsel_core.viz.style`.

    Streamlit's chart theme is off: it roughly doubles plotly's drawing time in the
    browser, and the figures carry their own style.
    """
    (container or st).plotly_chart(fig, key=key, theme=None, config={"displaylogo": False})


def html(markup: str) -> None:
    """Show markup from :mod:`subsetsel_core.viz.svg` (drawn with the page: no chart library)."""
    st.markdown(markup, unsafe_allow_html=True)


def show_report(report: ValidationReport, *, facts: bool = True, expanded_info: bool = False,
                changes: bool = True) -> None:
    """A validation report: sizes as a small table, then errors, the changes (every warning, and every
    note that says the benchmark differs from the file: :meth:`ValidationReport.changes`) as warnings,
    then the other notes. ``changes=False``: the changes are shown elsewhere on the page
    (:func:`show_changes`)."""
    if facts and report.facts:
        st.dataframe([{"check": k, "value": v} for k, v in report.facts], hide_index=True, width="stretch")
    for f in report.errors:
        st.error(md_escape(f.message), icon=ICONS["error"])
    if changes:
        show_changes(report)
    infos = [f for f in report.findings if f.level == "info" and not f.is_change]
    if infos:
        with st.expander(f"Notes ({len(infos)})", expanded=expanded_info):
            for f in infos:
                st.markdown(f"- {md_escape(f.message)}")


def show_changes(report: ValidationReport) -> None:
    """What changed the benchmark against its files (a dropped model or file, a flipped direction, a
    resolved duplicate, rewritten cells), one warning each: the lines the command line prints."""
    for message in report.changes():
        st.warning(md_escape(message), icon=ICONS["warning"])


def benchmark_metrics(data: ActiveData) -> None:
    """Sizes of the benchmark as a row of tiles."""
    b = data.benchmark
    html(svg.size_tiles_html(
        [("Datasets", f"{b.n_datasets:,}"), ("Models", f"{b.n_models:,}"), ("Folds / resamples", f"{b.n_folds:,}"),
         ("Descriptor tables", f"{len(data.tables):,}"),
         ("Scores", f"{int(np.isfinite(b.scores).sum()):,}" + (f" of {b.scores.size:,}" if b.has_gaps else ""))],
        note=f"Scores: {'higher' if b.higher_is_better else 'lower'} is better.",
    ))


# --------------------------------------------------------------------------- the map


def ensure_map_state(data: ActiveData) -> list[str]:
    """Make the stored map method and colour valid; returns the colour options."""
    options, default = cache.color_options(data)
    opts = list(options)
    state.ensure_choice(K.MAP_COLOR, opts, fallback=default)
    state.ensure_choice(K.MAP_METHOD, list(state.MAP_METHODS), fallback=state.MAP_METHODS[0])
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


def project(data: ActiveData, rec: RepresentationRecipe, rep: Representation) -> projection.Projection:
    """The map's projection with the session's method and seed (PCA while UMAP is pending)."""
    return projection.project((data.token, rec), rep.X, st.session_state[K.MAP_METHOD], session.seed())


@st.fragment(run_every=1.0)
def _wait_for_projection(token: str, rec: RepresentationRecipe, method: str, seed: int) -> None:
    if projection.projector().is_ready((token, rec), method, seed):
        st.rerun()
    st.caption(f":material/hourglass_top: {method} is being computed in the background (the first fit in a "
               "new server takes a while) — showing PCA until it is ready; the map will switch by itself.")


def _projection_note(data: ActiveData, rec: RepresentationRecipe, proj: projection.Projection) -> None:
    """Under a map: wait for a pending projection (then redraw), or say why it is PCA."""
    method = st.session_state[K.MAP_METHOD]
    if proj.pending:
        _wait_for_projection(data.token, rec, method, session.seed())
    elif proj.error:
        st.caption(f":material/info: {method} is not available: {md_escape(proj.error)} The map shows PCA.")


def map_chart(
    data: ActiveData,
    rec: RepresentationRecipe,
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
    coverage lines (over the plain points, under the numbered ones); ``poorly`` rings the
    datasets not covered well. ``quick`` draws it as an SVG image (tooltips, no zoom, no
    ``title``) when the benchmark has at most :data:`QUICK_MAP_LIMIT` datasets: the browser
    redraws that in milliseconds, where a new plotly chart takes a few hundred (Streamlit
    mounts a new chart whenever the figure changes, e.g. for every k).
    """
    proj = project(data, rec, rep)
    colour_by = st.session_state.get(K.MAP_COLOR)
    hover, color = cache.hover_frame(data, rec), cache.color_values(data, colour_by)
    as_svg = quick and data.benchmark.n_datasets <= QUICK_MAP_LIMIT
    memo = cache.map_memo(data.token, rec, proj.method, session.seed(), colour_by,
                          ("svg", height) if as_svg else ("plotly", title, height))
    if as_svg:
        html(svg.map_svg(proj.coords, data.benchmark.datasets, hover=hover, color=color, method=proj.method,
                         width=560, height=round(height * 0.96), selected=selected, selected_color=selected_color,
                         representative=representative, poorly=poorly, memo=memo))
    else:
        chart(maps.map_figure(proj.coords, data.benchmark.datasets, hover=hover, color=color, selected=selected,
                              selected_color=selected_color, method=proj.method, title=title, height=height,
                              representative=representative, poorly=poorly, memo=memo), key=key)
    _projection_note(data, rec, proj)


def file_uploader(label: str, *, where: DeltaGenerator | None = None, **kwargs: Any) -> Any:
    """``st.file_uploader`` (in ``where``, default the page) with this server's upload limit
    (:mod:`subsetsel_app.limits`): the browser refuses a larger file, and one that still
    arrives larger is dropped from what this returns, with an error naming it."""
    target = st if where is None else where
    got = target.file_uploader(label, max_upload_size=limits.widget_mb(), **kwargs)
    kept = []
    for f in got if isinstance(got, list) else ([] if got is None else [got]):
        problem = limits.too_large(str(f.name), int(f.size))
        if problem is None:
            kept.append(f)
        else:
            target.error(md_escape(problem), icon=ICONS["error"])
    if isinstance(got, list):
        return kept
    return kept[0] if kept else None


def map_glance(data: ActiveData, rec: RepresentationRecipe, rep: Representation, *, height: int = 460) -> None:
    """The map of :func:`map_chart` as a plain SVG image (drawn with the page; hover shows
    the dataset and its descriptors, no zoom)."""
    proj = project(data, rec, rep)
    html(svg.map_svg(proj.coords, data.benchmark.datasets, hover=cache.hover_frame(data, rec),
                     color=cache.color_values(data, st.session_state.get(K.MAP_COLOR)), method=proj.method,
                     height=height))
    _projection_note(data, rec, proj)


def _bounds(key: str) -> tuple[Any, Any, str]:
    """``(min, max, label)`` of the widget of a session key that holds a setting of the table."""
    name = state.KEYS[key].setting
    if name is None:
        raise KeyError(f"session key {key!r} holds no setting of subsetsel_core.settings.table")
    s = SETTINGS[name]
    lo, hi = s.widget_range()
    if lo is None or hi is None:
        raise KeyError(f"the setting {name!r} has no range for a widget")
    as_type = int if s.kind == "int" else float
    return as_type(lo), as_type(hi), s.label or s.name


def number(key: str, *, where: DeltaGenerator | None = None, label: str | None = None, **kwargs: Any) -> Any:
    """A number input for a session key holding a setting: label, min and max from the settings table."""
    lo, hi, text = _bounds(key)
    target: Any = where if where is not None else st  # a column, a form, or the page
    return target.number_input(label or text, min_value=lo, max_value=hi, key=key, persist_state=state.PERSIST,
                               **kwargs)


def slider(key: str, *, where: DeltaGenerator | None = None, label: str | None = None,
           high: float | None = None, **kwargs: Any) -> Any:
    """A slider for a session key holding a setting: label and range from the settings table (``high``:
    a lower maximum, e.g. the benchmark's datasets)."""
    lo, hi, text = _bounds(key)
    target: Any = where if where is not None else st
    return target.slider(label or text, lo, hi if high is None else type(hi)(high), key=key,
                         persist_state=state.PERSIST, **kwargs)
