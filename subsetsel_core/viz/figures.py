"""Plotly figures shared by the dashboard, the CLI and the reports.

Every builder takes plain data (arrays, DataFrames, names) and returns a
``plotly.graph_objects.Figure``; nothing here knows about Streamlit. Strategy colours are
fixed (:data:`STRATEGY_COLORS`) so a strategy looks the same on every page and in every
report. Text that comes from user files (dataset, model and column names, descriptor
values) is HTML-escaped before it goes into hover labels.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.metrics import METRICS

__all__ = [
    "CATEGORY_COLORS",
    "ColorScale",
    "EXPORT_TEMPLATE",
    "STRATEGY_COLORS",
    "auc_figure",
    "color_scale",
    "curves_figure",
    "escape",
    "for_export",
    "generalisation_figure",
    "geometry_figure",
    "k_profile_figure",
    "leaderboard_figure",
    "map_figure",
    "mark_points",
    "strategy_color",
    # issue 6
    "COVERAGE_TRACE",
    "POORLY_COVERED_TRACE",
    "add_coverage_lines",
    "budget_profile_figure",
    "placement_figure",
]

#: One colour per registered strategy, used on every page and in every report.
STRATEGY_COLORS: dict[str, str] = {
    "random": "#7f7f7f",
    "kmeans": "#1f77b4",
    "fafi-euclidean": "#ff7f0e",
    "fafi-cosine": "#d62728",
    "a-optimal": "#2ca02c",
    "d-optimal": "#9467bd",
}
_EXTRA_COLORS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939")
#: Discrete palette for categorical descriptors on the map.
CATEGORY_COLORS: tuple[str, ...] = (
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2",
    "#ff9da6", "#9d755d", "#bab0ac", "#1b9e77", "#d95f02", "#7570b3", "#e7298a",
    "#66a61e", "#e6ab02", "#a6761d", "#666666", "#8dd3c7", "#fb8072",
)
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_FONT = {"family": "Source Sans Pro, Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13, "color": "#31333f"}
_GRID = "#e6e9ef"
_AXIS = "#c9ced8"
_MAX_CATEGORIES = 20
_HOVER_COLUMNS = 8
_HOVER_TEXT = 60


def escape(value: object) -> str:
    """HTML-escape a value for a plotly label (``%{`` is defused too).

    Quotes stay as they are: plotly.js decodes ``&lt;`` ``&gt;`` ``&amp;`` and numeric entities but
    would show ``&quot;`` literally.
    """
    return html.escape(str(value), quote=False).replace("%{", "%&#123;")


def strategy_color(strategy: str) -> str:
    """The fixed colour of a strategy (a stable fallback for unknown names)."""
    if strategy in STRATEGY_COLORS:
        return STRATEGY_COLORS[strategy]
    return _EXTRA_COLORS[sum(map(ord, strategy)) % len(_EXTRA_COLORS)]


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _layout(fig: go.Figure, title: str | None, height: int) -> go.Figure:
    # The empty "none" template plus a few colours: a named template such as plotly_white
    # costs ~35 ms per figure to validate and copy, and Streamlit's chart theme doubles the
    # browser's drawing time; exports apply EXPORT_TEMPLATE (see subsetsel_core.viz.report).
    fig.update_layout(
        template="none",
        title={"text": escape(title) if title else None, "x": 0.01, "xanchor": "left"},
        height=height,
        margin={"l": 64, "r": 16, "t": 56 if title else 28, "b": 56},
        font=_FONT,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="white",
        hoverlabel={"font_size": 12},
        legend={"bgcolor": "rgba(0,0,0,0)"},
    )
    fig.update_xaxes(gridcolor=_GRID, linecolor=_AXIS, zeroline=False)
    fig.update_yaxes(gridcolor=_GRID, linecolor=_AXIS, zeroline=False)
    return fig


#: Template applied to figures written to files (HTML, PNG, SVG).
EXPORT_TEMPLATE = "plotly_white"


def for_export(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` styled for a file (white template)."""
    out = go.Figure(fig)
    out.update_layout(template=EXPORT_TEMPLATE)
    return out


def leaderboard_figure(board: pd.DataFrame, *, top: int = 15, title: str | None = None) -> go.Figure:
    """Horizontal bars of the best models' mean rank (1 = best).

    Parameters
    ----------
    board : DataFrame
        ``Benchmark.leaderboard()``: columns ``position, model, mean_rank, mean_score, wins``.
    top : int
        Number of models shown.
    title : str, optional
    """
    b = board.head(top).iloc[::-1]
    fig = go.Figure(
        go.Bar(
            x=b["mean_rank"],
            y=[f"{int(p)}. {escape(m)}" for p, m in zip(b["position"], b["model"], strict=True)],
            orientation="h",
            marker_color="#4c78a8",
            text=[f"{v:.2f}" for v in b["mean_rank"]],
            textposition="outside", cliponaxis=False,
            customdata=np.c_[b["mean_score"].to_numpy(), b["wins"].to_numpy()],
            hovertemplate="%{y}<br>mean rank %{x:.2f}<br>mean score %{customdata[0]:.4g}"
            "<br>wins %{customdata[1]}<extra></extra>",
            name="mean rank",
        )
    )
    top_x = float(b["mean_rank"].max()) if len(b) else 1.0
    fig.update_xaxes(title="mean rank over all datasets (1 = best)", range=[0, top_x * 1.15])
    fig.update_yaxes(automargin=True)
    return _layout(fig, title, max(260, 26 * len(b) + 80))


def _hover(datasets: Sequence[str], hover: pd.DataFrame | None) -> tuple[np.ndarray, str]:
    cols: list[str] = []
    data = [[escape(d) for d in datasets]]
    if hover is not None and hover.shape[1]:
        for c in list(hover.columns)[:_HOVER_COLUMNS]:
            vals = hover[c].tolist()
            cells = []
            for v in vals:
                if isinstance(v, float | np.floating):
                    s = "—" if np.isnan(v) else f"{v:.4g}"
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
    """Numbers (at least 80 % numeric, more than two values) get a continuous scale, up to
    :data:`_MAX_CATEGORIES` categories get discrete colours; anything else: no colour (None)."""
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
        ``selected_color``, ``representative`` and ``poorly``: the map without them is
        built once (plotly checks every property it is given, about 60 ms for a map with
        a legend) and copied afterwards.
    """
    coords = np.asarray(coords, dtype=float)
    kept = None if memo is None else memo.get("base")
    if kept is not None:
        base, custom, template = kept  # type: ignore[misc]
        spec = copy.deepcopy(base)
    else:
        custom, template = _hover(datasets, hover)
        spec = _map_base(coords, custom, template, color, method, title, height).to_dict()
        if memo is not None:  # one assignment: another thread sees all of it or nothing
            memo["base"] = (copy.deepcopy(spec), custom, template)
    traces = list(spec["data"])  # type: ignore[index]
    ring = None
    if representative is not None:
        lines, ring = _coverage_traces(coords, datasets, representative, poorly)
        traces.insert(1, lines)
    sel = np.asarray(list(selected), dtype=int)
    if sel.size:
        traces.append(_selection_trace(coords, custom, template, sel, selected_color))
    if ring is not None:
        traces.append(ring)
    spec["data"] = traces  # type: ignore[index]
    # every part was checked by plotly when built (the base) or has the fixed shape of
    # the two builders below (checked in the tests): no second check of the whole
    return go.Figure(spec, _validate=False)


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
    _layout(fig, title, height)
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


def curves_figure(
    curves: pd.DataFrame,
    metric: str,
    *,
    title: str | None = None,
    height: int = 480,
    bands: bool = True,
    marks: pd.DataFrame | None = None,
    target: float | None = None,
) -> go.Figure:
    """Performance-vs-k curves with shaded 95 % bands, one colour per strategy.

    Parameters
    ----------
    curves : DataFrame
        ``EvaluationResult.curves_frame()``: columns ``key, strategy, representation,
        metric, k, mean, lo, hi``.
    metric : str
        The metric to draw.
    bands : bool
        Whether to shade the 2.5–97.5 % percentile band.
    marks, target : optional
        Points to mark on the curves (e.g. the advised k) and a target level; see
        :func:`mark_points`. Without them the figure is unchanged.
    """
    df = curves[curves["metric"] == metric]
    reps = [r for r in pd.unique(df["representation"]) if isinstance(r, str)]
    dash = {r: _DASHES[i % len(_DASHES)] for i, r in enumerate(reps)}
    fig = go.Figure()
    for key, g in df.groupby("key", sort=False):
        g = g.sort_values("k")
        strat = str(g["strategy"].iloc[0])
        rep = g["representation"].iloc[0]
        col = strategy_color(strat)
        name = escape(key)
        if bands:
            fig.add_trace(
                go.Scatter(
                    x=g["k"], y=g["hi"], mode="lines", line={"width": 0}, showlegend=False,
                    legendgroup=name, hoverinfo="skip", name=f"{name} 97.5%",
                )
            )
            fig.add_trace(
                go.Scatter(
                    x=g["k"], y=g["lo"], mode="lines", line={"width": 0}, fill="tonexty",
                    fillcolor=_rgba(col, 0.13), showlegend=False, legendgroup=name,
                    hoverinfo="skip", name=f"{name} 2.5%",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=g["k"], y=g["mean"], mode="lines+markers", name=name, legendgroup=name,
                line={"color": col, "width": 3 if strat != "random" else 2.5,
                      "dash": dash.get(rep, "solid") if isinstance(rep, str) else "dot"},
                marker={"size": 5},
                customdata=np.c_[g["lo"], g["hi"]],
                hovertemplate=f"<b>{name}</b><br>k = %{{x}}<br>mean %{{y:.3f}}"
                + "<br>95% band [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<extra></extra>",
            )
        )
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    fig.update_xaxes(title="k (datasets in the subset)", dtick=1 if df["k"].nunique() <= 25 else None)
    fig.update_yaxes(title=f"{METRICS[metric].label} vs full ranking ({better} is better)")
    fig.update_layout(legend={"orientation": "h", "y": -0.18, "x": 0}, hovermode="closest")
    if marks is not None or target is not None:
        mark_points(fig, marks, metric, target=target)
    return _layout(fig, title, height)


def auc_figure(auc: pd.DataFrame, metric: str, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """Forest plot of the normalised AUC (mean and 95 % interval) per strategy.

    Parameters
    ----------
    auc : DataFrame
        ``EvaluationResult.to_frame()``.
    metric : str
    """
    df = auc[auc["metric"] == metric].copy()
    span = df["auc_mean"] / df["auc_norm"].where(df["auc_norm"] != 0)
    width = float(span.dropna().iloc[0]) if span.notna().any() else 1.0
    for c in ("auc_mean", "auc_lo", "auc_hi"):
        df[c + "_n"] = df[c] / width
    df = df.sort_values("auc_mean_n", ascending=not METRICS[metric].higher_is_better)
    fig = go.Figure()
    for _, r in df.iloc[::-1].iterrows():
        col = strategy_color(str(r["strategy"]))
        p = r["p_vs_random"]
        ptxt = "baseline" if r["strategy"] == "random" else ("p = n/a" if p is None or pd.isna(p) else f"p = {p:.3g}")
        fig.add_trace(
            go.Scatter(
                x=[r["auc_mean_n"]], y=[escape(r["key"])], mode="markers", showlegend=False,
                marker={"size": 12, "color": col, "symbol": "diamond"},
                error_x={"type": "data", "symmetric": False, "array": [r["auc_hi_n"] - r["auc_mean_n"]],
                         "arrayminus": [r["auc_mean_n"] - r["auc_lo_n"]], "color": col, "thickness": 2},
                hovertemplate=f"<b>{escape(r['key'])}</b><br>normalised AUC %{{x:.3f}}"
                f" [{r['auc_lo_n']:.3f}, {r['auc_hi_n']:.3f}]<br>{ptxt}<extra></extra>",
                name=escape(r["key"]),
            )
        )
    base = df[df["strategy"] == "random"]
    if len(base):
        fig.add_vline(x=float(base["auc_mean_n"].iloc[0]), line_dash="dot", line_color="#7f7f7f")
    fig.update_xaxes(title="normalised AUC (mean, 95% interval)")
    fig.update_yaxes(automargin=True)
    return _layout(fig, title, height or max(240, 42 * len(df) + 90))


def geometry_figure(
    desc_dist: np.ndarray, rank_dist: np.ndarray, *, rho: float, title: str | None = None,
    max_points: int = 4000, seed: int = 0, height: int = 420,
) -> go.Figure:
    """Pairwise descriptor distance against pairwise rank-vector distance.

    Parameters
    ----------
    desc_dist, rank_dist : ndarray of shape (P,)
        Condensed pairwise distances (same pair order).
    rho : float
        Their Spearman correlation, shown in the legend.
    max_points : int
        Pairs drawn at most (a seeded sample); the trend uses every pair.
    """
    desc_dist = np.asarray(desc_dist, float)
    rank_dist = np.asarray(rank_dist, float)
    idx = np.arange(desc_dist.size)
    if idx.size > max_points:
        idx = np.sort(np.random.default_rng(seed).choice(idx.size, max_points, replace=False))
    fig = go.Figure(
        go.Scattergl(
            x=desc_dist[idx], y=rank_dist[idx], mode="markers", name="dataset pairs",
            marker={"size": 4, "color": "#4c78a8", "opacity": 0.25},
            hovertemplate="descriptor distance %{x:.3f}<br>rank distance %{y:.3f}<extra></extra>",
        )
    )
    if desc_dist.size >= 10:
        q = np.unique(np.quantile(desc_dist, np.linspace(0, 1, 13)))
        if q.size >= 3:
            b = np.clip(np.searchsorted(q, desc_dist, side="right") - 1, 0, q.size - 2)
            xs = [(q[i] + q[i + 1]) / 2 for i in range(q.size - 1) if (b == i).any()]
            ys = [float(np.mean(rank_dist[b == i])) for i in range(q.size - 1) if (b == i).any()]
            fig.add_trace(
                go.Scatter(x=xs, y=ys, mode="lines+markers", name=f"binned mean (Spearman ρ = {rho:.2f})",
                           line={"color": "#d62728", "width": 3})
            )
    fig.update_xaxes(title="descriptor distance (Euclidean, standardised)")
    fig.update_yaxes(title="performance distance (1 − Spearman of rank vectors)")
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0})
    return _layout(fig, title, height)


def _add_random_band(fig: go.Figure, x: np.ndarray, band: tuple[np.ndarray, np.ndarray, np.ndarray], name: str,
                     hovertemplate: str) -> None:
    """Random subsets' 95 % band (shaded) and median (dotted grey line) along ``x``."""
    med, lo, hi = band
    grey = strategy_color("random")
    fig.add_trace(go.Scatter(x=x, y=hi, mode="lines", line={"width": 0}, showlegend=False,
                             hoverinfo="skip", legendgroup="random"))
    fig.add_trace(go.Scatter(x=x, y=lo, mode="lines", line={"width": 0}, fill="tonexty",
                             fillcolor=_rgba(grey, 0.18), showlegend=False, hoverinfo="skip",
                             legendgroup="random"))
    fig.add_trace(go.Scatter(x=x, y=med, mode="lines", name=name, line={"color": grey, "dash": "dot", "width": 2},
                             legendgroup="random", hovertemplate=hovertemplate))


def k_profile_figure(
    ks: np.ndarray,
    chosen: Mapping[str, np.ndarray],
    random_band: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None,
    metric: str,
    *,
    strategy: str,
    current_k: int | None = None,
    title: str | None = None,
    height: int = 340,
) -> go.Figure:
    """Agreement of one strategy's subsets against k, next to random subsets.

    Parameters
    ----------
    ks : ndarray of int, shape (K,)
    chosen : dict metric → ndarray (K,)
        The strategy's agreement at every k.
    random_band : dict metric → (median, lo, hi), each (K,), optional
        Random subsets of the same sizes: median and 2.5 / 97.5 % percentiles.
    metric : str
    strategy : str
        For the colour and the legend.
    current_k : int, optional
        Marked with a ring.
    """
    col = strategy_color(strategy)
    fig = go.Figure()
    if random_band is not None and metric in random_band:
        _add_random_band(fig, ks, random_band[metric], "random subsets (median, 95% band)",
                         "random, k = %{x}: median %{y:.3f}<extra></extra>")
    y = np.asarray(chosen[metric], float)
    fig.add_trace(go.Scatter(x=ks, y=y, mode="lines+markers", name=escape(strategy),
                             line={"color": col, "width": 3}, marker={"size": 5},
                             hovertemplate=f"{escape(strategy)}, k = %{{x}}: %{{y:.3f}}<extra></extra>"))
    if current_k is not None and current_k in set(int(k) for k in ks):
        i = int(np.flatnonzero(np.asarray(ks) == current_k)[0])
        fig.add_trace(go.Scatter(x=[current_k], y=[y[i]], mode="markers", name=f"k = {current_k}",
                                 marker={"size": 16, "color": "rgba(0,0,0,0)", "line": {"width": 3, "color": col}},
                                 hovertemplate=f"k = {current_k}: %{{y:.3f}}<extra></extra>"))
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    fig.update_xaxes(title="k")
    fig.update_yaxes(title=f"{METRICS[metric].label} ({better} is better)")
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0})
    return _layout(fig, title, height)


# --------------------------------------------------------------------------- issue 6: coverage, budget, placement

#: Name of the map trace that joins each unchosen dataset to its representative.
COVERAGE_TRACE = "stands for (nearest chosen)"
#: Name of the map trace that rings the datasets nothing covers well.
POORLY_COVERED_TRACE = "not covered well"


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
        "line": {"color": _rgba(color, 0.55), "width": 1},
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


def budget_profile_figure(
    budgets: np.ndarray,
    chosen: Mapping[str, np.ndarray],
    random_band: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None,
    metric: str,
    *,
    strategy: str,
    k_used: np.ndarray | None = None,
    spent: np.ndarray | None = None,
    current: tuple[float, float] | None = None,
    unit: str = "",
    title: str | None = None,
    height: int = 340,
) -> go.Figure:
    """Agreement of one cost-aware strategy's subsets against the budget, next to random ones.

    Parameters
    ----------
    budgets : ndarray (B,)
        Budget levels (total cost allowed, in the cost's units).
    chosen : dict metric → ndarray (B,)
        The strategy's agreement at every level.
    random_band : dict metric → (median, lo, hi), each (B,), optional
        Random datasets taken while they fit, many draws per level.
    metric : str
    strategy : str
    k_used, spent : ndarray (B,), optional
        Datasets chosen and cost spent at each level (shown on hover).
    current : (budget, value), optional
        The current subset, marked with a ring.
    unit : str
        The cost's unit for the axis title.
    """
    budgets = np.asarray(budgets, dtype=float)
    col = strategy_color(strategy)
    fig = go.Figure()
    if random_band is not None and metric in random_band:
        _add_random_band(fig, budgets, random_band[metric], "random datasets that fit (median, 95% band)",
                         "random, budget %{x:.4g}: median %{y:.3f}<extra></extra>")
    y = np.asarray(chosen[metric], float)
    extra = np.c_[np.zeros(budgets.size) if k_used is None else k_used,
                  budgets if spent is None else spent]
    fig.add_trace(go.Scatter(
        x=budgets, y=y, mode="lines+markers", name=escape(strategy), line={"color": col, "width": 3},
        marker={"size": 5}, customdata=extra,
        hovertemplate=f"{escape(strategy)}, budget %{{x:.4g}}: %{{y:.3f}}<br>%{{customdata[0]:.0f}} datasets, "
                      "cost %{customdata[1]:.4g}<extra></extra>",
    ))
    if current is not None:
        fig.add_trace(go.Scatter(x=[current[0]], y=[current[1]], mode="markers", name="this subset",
                                 marker={"size": 16, "color": "rgba(0,0,0,0)", "line": {"width": 3, "color": col}},
                                 hovertemplate="this subset, budget %{x:.4g}: %{y:.3f}<extra></extra>"))
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    fig.update_xaxes(title=f"budget — total cost of the subset{f' ({escape(unit)})' if unit else ''}",
                     rangemode="tozero")
    fig.update_yaxes(title=f"{METRICS[metric].label} ({better} is better)")
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0})
    return _layout(fig, title, height)


def placement_figure(
    board: pd.DataFrame,
    model: str,
    estimate: float,
    interval: tuple[float, float],
    *,
    window: int = 12,
    max_rows: int = 45,
    title: str | None = None,
) -> go.Figure:
    """The leaderboard with a new model's estimated mean rank and its 95 % interval.

    Parameters
    ----------
    board : DataFrame
        ``Benchmark.leaderboard()`` (``position, model, mean_rank, …``).
    model : str
        The new model's name.
    estimate : float
        Its estimated full-benchmark mean rank (the existing models' scale).
    interval : (lo, hi)
        95 % interval of ``estimate``.
    window : int
        With more than ``max_rows`` models, only the models within ``window`` places of the
        interval are drawn.
    """
    lo, hi = float(interval[0]), float(interval[1])
    ranks = board["mean_rank"].to_numpy(dtype=float)
    pos = int((ranks < estimate).sum())  # the new model's row goes after this many models
    keep = np.arange(len(board))
    if len(board) > max_rows:
        first = max(0, int((ranks < lo).sum()) - window)
        last = min(len(board), int((ranks <= hi).sum()) + window)
        keep = np.arange(first, last)
    b = board.iloc[keep]
    labels = [f"{int(p)}. {escape(m)}" for p, m in zip(b["position"], b["model"], strict=True)]
    new_label = f"<b>→ {escape(model)}</b>"
    inside = [lo <= r <= hi for r in b["mean_rank"]]
    fig = go.Figure()
    fig.add_vrect(x0=lo, x1=hi, fillcolor=_rgba("#d62728", 0.10), line_width=0, layer="below")
    fig.add_trace(go.Scatter(
        x=b["mean_rank"], y=labels, mode="markers", name="existing models",
        marker={"size": 9, "color": ["#4c78a8" if i else "#9aa5b8" for i in inside]},
        hovertemplate="%{y}<br>mean rank %{x:.2f}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=[estimate], y=[new_label], mode="markers", name=f"{escape(model)} (estimate, 95% interval)",
        marker={"size": 14, "symbol": "diamond", "color": "#d62728", "line": {"width": 1, "color": "#222"}},
        error_x={"type": "data", "symmetric": False, "array": [max(0.0, hi - estimate)],
                 "arrayminus": [max(0.0, estimate - lo)], "color": "#d62728", "thickness": 2, "width": 6},
        hovertemplate=f"{escape(model)}<br>estimated mean rank %{{x:.2f}} [{lo:.2f}, {hi:.2f}]<extra></extra>",
    ))
    at = int(np.clip(pos - keep[0] if keep.size else 0, 0, len(labels)))
    order = labels[:at] + [new_label] + labels[at:]
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], automargin=True, type="category")
    fig.update_xaxes(title="mean rank over all datasets (1 = best)")
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0}, showlegend=True)
    return _layout(fig, title, max(280, 19 * len(order) + 110))


#: Legend name of the trace :func:`mark_points` adds.
MARKS_NAME = "advised k (95% band reaches the target)"


def mark_points(
    fig: go.Figure,
    marks: pd.DataFrame | None,
    metric: str,
    *,
    target: float | None = None,
    name: str = MARKS_NAME,
) -> go.Figure:
    """Mark points on a curves figure (one star per row) and draw the target level.

    Parameters
    ----------
    fig : Figure
        A :func:`curves_figure` (changed in place and returned).
    marks : DataFrame or None
        Columns ``key, strategy, k, mean, lo, hi`` and optionally ``label``: a non-empty
        label is written next to its point as an annotation with an arrow.
    metric : str
    target : float, optional
        Drawn as a dotted horizontal line.
    name : str
        Legend name of the markers' trace.
    """
    if target is not None and np.isfinite(target):
        fig.add_hline(y=float(target), line={"color": "#31333f", "width": 1, "dash": "dot"},
                      annotation={"text": f"target {target:g}", "font": {"size": 11, "color": "#31333f"}},
                      annotation_position="top left" if METRICS[metric].higher_is_better else "bottom left")
    if marks is None or len(marks) == 0:
        return fig
    keys = [escape(k) for k in marks["key"]]
    fig.add_trace(
        go.Scatter(
            x=marks["k"], y=marks["mean"], mode="markers", name=escape(name), legendgroup="__marks__",
            marker={"symbol": "star", "size": 17, "color": [strategy_color(str(s)) for s in marks["strategy"]],
                    "line": {"color": "#31333f", "width": 1.2}},
            text=keys, customdata=np.c_[marks["lo"], marks["hi"]],
            hovertemplate="<b>%{text}</b><br>advised k = %{x}<br>mean %{y:.3f}"
            "<br>95% band [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<extra></extra>",
        )
    )
    labels = marks["label"] if "label" in marks.columns else pd.Series([""] * len(marks), index=marks.index)
    higher = METRICS[metric].higher_is_better
    labelled = marks.assign(_label=labels)
    labelled = labelled[[isinstance(t, str) and bool(t) for t in labelled["_label"]]].sort_values("k", kind="stable")
    for shown, (_, r) in enumerate(labelled.iterrows()):
        text = r["_label"]
        # the leftmost label goes left, the next right (and so on), further down each time: the arrows of
        # two labels at nearby k do not cross and the boxes do not sit on each other
        side = -1 if shown % 2 == 0 else 1
        fig.add_annotation(
            x=r["k"], y=r["mean"], text=escape(text), showarrow=True, arrowhead=2, arrowsize=1, arrowwidth=1.2,
            arrowcolor=strategy_color(str(r["strategy"])), ax=36 * side, ay=(44 if higher else -44) * (1 + 0.5 * shown),
            font={"size": 12, "color": "#31333f"}, bgcolor="rgba(255,255,255,0.85)",
            bordercolor=strategy_color(str(r["strategy"])), borderwidth=1, borderpad=3,
        )
    return fig


def generalisation_figure(
    judged: pd.DataFrame,
    held_out: pd.DataFrame,
    metric: str,
    *,
    titles: tuple[str, str] = ("models used to judge", "held-out models"),
    title: str | None = None,
    height: int = 440,
    bands: bool = True,
) -> go.Figure:
    """Curves on the judging models and on the held-out models, side by side (shared y axis).

    Parameters
    ----------
    judged, held_out : DataFrame
        ``EvaluationResult.curves_frame()`` of the two runs.
    metric : str
    titles : pair of str
        Panel titles.
    """
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[escape(t) for t in titles])
    for col, curves in enumerate((judged, held_out), start=1):
        df = curves[curves["metric"] == metric]
        reps = [r for r in pd.unique(df["representation"]) if isinstance(r, str)]
        dash = {r: _DASHES[i % len(_DASHES)] for i, r in enumerate(reps)}
        for key, g in df.groupby("key", sort=False):
            g = g.sort_values("k")
            strat = str(g["strategy"].iloc[0])
            rep = g["representation"].iloc[0]
            c = strategy_color(strat)
            name = escape(key)
            if bands:
                fig.add_trace(go.Scatter(x=g["k"], y=g["hi"], mode="lines", line={"width": 0}, showlegend=False,
                                         legendgroup=name, hoverinfo="skip", name=f"{name} 97.5%"), row=1, col=col)
                fig.add_trace(go.Scatter(x=g["k"], y=g["lo"], mode="lines", line={"width": 0}, fill="tonexty",
                                         fillcolor=_rgba(c, 0.10), showlegend=False, legendgroup=name,
                                         hoverinfo="skip", name=f"{name} 2.5%"), row=1, col=col)
            fig.add_trace(
                go.Scatter(
                    x=g["k"], y=g["mean"], mode="lines", name=name, legendgroup=name, showlegend=col == 1,
                    line={"color": c, "width": 2.5 if strat != "random" else 2,
                          "dash": dash.get(rep, "solid") if isinstance(rep, str) else "dot"},
                    customdata=np.c_[g["lo"], g["hi"]],
                    hovertemplate=f"<b>{name}</b> ({escape(titles[col - 1])})<br>k = %{{x}}<br>mean %{{y:.3f}}"
                    + "<br>95% band [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<extra></extra>",
                ),
                row=1, col=col,
            )
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    fig.update_xaxes(title="k (datasets in the subset)")
    fig.update_yaxes(title=f"{METRICS[metric].label} ({better} is better)", row=1, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "x": 0}, hovermode="closest")
    out = _layout(fig, title, height)
    out.update_annotations(font={"size": 13, "color": "#31333f"})
    return out
