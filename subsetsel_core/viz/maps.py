"""The interactive 2-D map of the datasets: colour scale, hover labels, selection and coverage.

:func:`map_figure` draws the points (coloured by one descriptor through
:func:`color_scale`), the chosen datasets as numbered markers and, optionally, lines from
every dataset to the chosen one that stands for it. The map without a selection is the
expensive part (plotly checks every property it is given); a caller that redraws the same
map for many selections keeps it in a ``memo``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.text.rounding import text
from subsetsel_core.viz.style import CATEGORY_COLORS, apply_layout, escape, rgba

__all__ = [
    "COVERAGE_TRACE",
    "POORLY_COVERED_TRACE",
    "ColorScale",
    "add_coverage_lines",
    "color_scale",
    "map_figure",
]

#: Name of the map trace that joins each unchosen dataset to its representative.
COVERAGE_TRACE = "stands for (nearest chosen)"
#: Name of the map trace that rings the datasets nothing covers well.
POORLY_COVERED_TRACE = "not covered well"
_MAX_CATEGORIES = 20
_HOVER_COLUMNS = 8
_HOVER_TEXT = 60
#: What a map memo keeps: the map without a selection as a figure spec, the hover cells and template.
_MapBase = tuple[dict[str, Any], np.ndarray, str]


@dataclass(frozen=True)
class ColorScale:
    """How the map colours its points by one value per dataset.

    Attributes
    ----------
    label : str
        The value's name (unescaped).
    numeric : ndarray of float or None
        The values on a continuous scale (Viridis; NaN for missing), or None.
    categories : list of str or None
        Each dataset's category ("missing" for none), or None.
    palette : dict of str to str
        Category → colour, in legend order (sorted); empty for a numeric scale.
    """

    label: str
    numeric: np.ndarray | None = None
    categories: list[str] | None = None
    palette: dict[str, str] = field(default_factory=dict)


def color_scale(color: pd.Series | Sequence[object] | None) -> ColorScale | None:
    """The colour scale of one value per dataset.

    Numbers (at least 80 % numeric, more than two distinct values) get a continuous scale, up
    to :data:`_MAX_CATEGORIES` categories get discrete colours (:data:`CATEGORY_COLORS`);
    anything else gets no colour (None).
    """
    if color is None:
        return None
    values = pd.Series(np.asarray(color), dtype=object) if not isinstance(color, pd.Series) else color.reset_index(drop=True)
    label = str(color.name) if isinstance(color, pd.Series) and color.name is not None else "value"
    num = pd.to_numeric(values, errors="coerce")
    if num.notna().mean() >= 0.8 and values.nunique() > 2:
        return ColorScale(label, numeric=num.to_numpy(dtype=float))
    cats = values.astype(object).where(values.notna(), "missing").astype(str)
    uniq = sorted(cats.unique())
    if len(uniq) > _MAX_CATEGORIES:
        return None
    palette = {c: CATEGORY_COLORS[i % len(CATEGORY_COLORS)] for i, c in enumerate(uniq)}
    return ColorScale(label, categories=cats.tolist(), palette=palette)


def _hover(datasets: Sequence[str], hover: pd.DataFrame | None) -> tuple[np.ndarray, str]:
    """Escaped hover cells (dataset name first, then the first columns) and their template."""
    cols: list[str] = []
    data = [[escape(d) for d in datasets]]
    if hover is not None and hover.shape[1]:
        for c in list(hover.columns)[:_HOVER_COLUMNS]:
            cells = []
            for v in hover[c].tolist():
                if isinstance(v, float | np.floating):
                    s = text(float(v), "descriptor")
                else:
                    s = str(v) if v is not None else "—"
                cells.append(escape(s if len(s) <= _HOVER_TEXT else s[: _HOVER_TEXT - 1] + "…"))
            data.append(cells)
            cols.append(escape(c))
    custom = np.array(data, dtype=object).T
    lines = [f"{c}: %{{customdata[{i + 1}]}}" for i, c in enumerate(cols)]
    more = hover.shape[1] - len(cols) if hover is not None else 0
    if more > 0:
        lines.append(f"… {more} more column(s)")
    template = "<b>%{customdata[0]}</b>" + "".join("<br>" + s for s in lines) + "<extra></extra>"
    return custom, template


def map_figure(
    coords: np.ndarray,
    datasets: Sequence[str],
    *,
    hover: pd.DataFrame | None = None,
    color: pd.Series | None = None,
    selected: Sequence[int] = (),
    selected_color: str = "#d62728",
    method: str = "UMAP",
    title: str | None = None,
    height: int = 560,
    representative: Sequence[int] | None = None,
    poorly: Sequence[int] = (),
    memo: dict[str, object] | None = None,
) -> go.Figure:
    """The 2-D map of the datasets, optionally coloured and with a numbered selection.

    Parameters
    ----------
    coords : ndarray of shape (n, 2)
        Projected positions, rows in ``datasets`` order.
    datasets : sequence of str, length n
    hover : DataFrame, optional
        Rows in ``datasets`` order; its first columns are shown on hover.
    color : Series, optional
        One value per dataset (``datasets`` order); numbers get a colour scale, a few
        categories get discrete colours, anything else is ignored. ``color.name`` is the label.
    selected : sequence of int
        Chosen dataset positions in selection order; drawn as numbered markers.
    selected_color : str
        Colour of the numbered markers (use the strategy's colour).
    method : str
        Projection name for the axis titles.
    title : str, optional
    height : int
    representative, poorly : optional
        Coverage lines and rings, as :func:`add_coverage_lines` draws them.
    memo : dict, optional
        Kept by the caller between calls that differ only in ``selected``,
        ``selected_color``, ``representative`` and ``poorly`` (it may be shared between
        threads): the map without them is built once, as a plain figure spec that is never
        changed afterwards, and each call makes a new figure of it and the selection's traces.

    Returns
    -------
    Figure
        A new figure; traces in order: the points, the coverage lines, the legend entries of
        the categories, the numbered selection, the rings.
    """
    coords = np.asarray(coords, dtype=float)
    sel = np.asarray(list(selected), dtype=int)
    kept = None if memo is None else memo.get("base")
    if kept is None:
        custom, template = _hover(datasets, hover)
        base = _map_base(coords, custom, template, color, method, title, height)
        if memo is None:
            if sel.size:
                base.add_trace(_selection_trace(coords, custom, template, sel, selected_color))
            if representative is not None:
                add_coverage_lines(base, coords, datasets, representative, poorly=poorly)
            return base
        kept = (base.to_dict(), custom, template)
        memo["base"] = kept  # one assignment: another thread sees all of it or nothing
    spec, custom, template = cast(_MapBase, kept)
    # shallow copies: plotly takes "type" out of the trace dicts it is given and copies the rest
    traces = [dict(t) for t in spec["data"]]
    ring = None
    if representative is not None:
        lines, ring = _coverage_traces(coords, datasets, representative, poorly)
        traces.insert(1, lines)
    if sel.size:
        traces.append(_selection_trace(coords, custom, template, sel, selected_color))
    if ring is not None:
        traces.append(ring)
    return go.Figure(data=traces, layout=dict(spec["layout"]))


def _map_base(coords: np.ndarray, custom: np.ndarray, template: str, color: pd.Series | None, method: str,
              title: str | None, height: int) -> go.Figure:
    """The map's points, colours, legend, axes and layout (no selection, no coverage)."""
    fig = go.Figure()
    base_marker = {"size": 9, "line": {"width": 0.5, "color": "white"}, "opacity": 0.85}
    points = {"x": coords[:, 0], "y": coords[:, 1], "mode": "markers", "name": "datasets",
              "customdata": custom, "hovertemplate": template, "showlegend": False}
    scale = color_scale(color)
    if scale is not None and scale.numeric is not None:
        fig.add_trace(go.Scatter(**points, marker={
            **base_marker, "color": scale.numeric, "colorscale": "Viridis", "showscale": True,
            "colorbar": {"title": {"text": escape(scale.label)}, "thickness": 14,
                         # the lower 70 %: the legend (selection, rings) keeps the top right
                         "len": 0.7, "y": 0, "yanchor": "bottom"}}))
    elif scale is not None:
        palette = scale.palette
        # One trace for the points (a trace per category costs a redraw ~10 ms each in
        # the browser), and empty traces that only draw the legend.
        fig.add_trace(go.Scatter(**points, marker={**base_marker, "color": [palette[c] for c in scale.categories or []]}))
        for i, c in enumerate(palette):
            fig.add_trace(
                go.Scatter(
                    x=[None], y=[None], mode="markers", name=escape(c), hoverinfo="skip",
                    legendgroup="cat", legendgrouptitle={"text": escape(scale.label)} if i == 0 else None,
                    marker={"size": 9, "color": palette[c]},
                )
            )
    else:
        fig.add_trace(go.Scatter(**points, marker={**base_marker, "color": "#4c78a8"}))
    m = escape(method)
    fig.update_xaxes(title=f"{m} 1", showticklabels=False, zeroline=False)
    fig.update_yaxes(title=f"{m} 2", showticklabels=False, zeroline=False)
    fig.update_layout(legend={"itemsizing": "constant", "font": {"size": 11}, "tracegroupgap": 4})
    apply_layout(fig, title, height)
    fig.update_layout(margin={"l": 36, "b": 40, "r": 8})
    return fig


def _selection_trace(coords: np.ndarray, custom: np.ndarray, template: str, sel: np.ndarray,
                     color: str) -> dict[str, object]:
    """The numbered markers of the chosen datasets (selection order), as a trace spec."""
    order = [str(i + 1) for i in range(sel.size)]
    return {
        "type": "scatter", "x": coords[sel, 0], "y": coords[sel, 1], "mode": "markers+text",
        "name": "selected (in order)", "text": order, "textposition": "middle center",
        "textfont": {"color": "white", "size": 11},
        "marker": {"size": 22, "color": color, "line": {"width": 1.5, "color": "#222"}, "opacity": 0.95},
        "customdata": np.c_[custom[sel], order],
        "hovertemplate": template.replace("<extra></extra>", "")
        + f"<br><b>selected #%{{customdata[{custom.shape[1]}]}}</b><extra></extra>",
    }


def add_coverage_lines(
    fig: go.Figure,
    coords: np.ndarray,
    datasets: Sequence[str],
    representative: Sequence[int],
    *,
    poorly: Sequence[int] = (),
    color: str = "#5b6270",
) -> go.Figure:
    """Add thin lines from every unchosen dataset to the chosen dataset it is nearest to.

    The lines come right after the first trace (the datasets' points, which stays
    ``fig.data[0]``): above the plain points, below the numbered chosen markers; the
    datasets nothing covers well get an open ring on top. (:func:`map_figure` draws the
    same with ``representative=``.)

    Parameters
    ----------
    fig : Figure
        A :func:`map_figure`; changed in place and returned.
    coords : ndarray (n, 2)
        The map's positions, rows in ``datasets`` order.
    datasets : sequence of str, length n
    representative : sequence of int, length n
        Position of each dataset's representative (its own position when chosen).
    poorly : sequence of int
        Positions of the datasets not covered well.
    color : str
        Colour of the lines (drawn at 55 % opacity).
    """
    lines, ring = _coverage_traces(np.asarray(coords, dtype=float), datasets, representative, poorly, color)
    fig.add_trace(lines)
    fig.data = (fig.data[0], fig.data[-1], *fig.data[1:-1]) if len(fig.data) > 1 else fig.data
    if ring is not None:
        fig.add_trace(ring)
    return fig


def _coverage_traces(
    coords: np.ndarray, datasets: Sequence[str], representative: Sequence[int], poorly: Sequence[int] = (),
    color: str = "#5b6270",
) -> tuple[dict[str, object], dict[str, object] | None]:
    """Trace specs of the coverage lines and of the rings on datasets not covered well (or None)."""
    rep = np.asarray(list(representative), dtype=int)
    free = np.flatnonzero(rep != np.arange(rep.size))
    xs = np.full(3 * free.size, np.nan)
    ys = np.full(3 * free.size, np.nan)
    xs[0::3], xs[1::3] = coords[free, 0], coords[rep[free], 0]
    ys[0::3], ys[1::3] = coords[free, 1], coords[rep[free], 1]
    lines: dict[str, object] = {
        "type": "scatter",
        "x": [None if np.isnan(v) else float(v) for v in xs], "y": [None if np.isnan(v) else float(v) for v in ys],
        "mode": "lines", "name": COVERAGE_TRACE, "hoverinfo": "skip", "connectgaps": False,
        "line": {"color": rgba(color, 0.55), "width": 1},
    }
    bad = np.asarray(list(poorly), dtype=int)
    if not bad.size:
        return lines, None
    names = [escape(datasets[i]) for i in bad]
    rep_names = [escape(datasets[rep[i]]) for i in bad]
    ring: dict[str, object] = {
        "type": "scatter", "x": coords[bad, 0], "y": coords[bad, 1], "mode": "markers", "name": POORLY_COVERED_TRACE,
        "marker": {"size": 17, "color": "rgba(0,0,0,0)", "line": {"width": 2, "color": "#e45756"}},
        "customdata": np.c_[names, rep_names],
        "hovertemplate": "<b>%{customdata[0]}</b><br>not covered well: nearest chosen is %{customdata[1]}"
                         "<extra></extra>",
    }
    return lines, ring
