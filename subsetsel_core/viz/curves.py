"""The protocol's results: performance-vs-k curves with bands, advised-k marks, AUC forest plots.

Every builder takes the frames of an ``EvaluationResult`` (``curves_frame()``, ``to_frame()``)
and draws one colour per strategy (:func:`~subsetsel_core.viz.style.strategy_color`) and one
line dash per representation.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.evaluation.permutation import p_phrase
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.strategies import BASELINE
from subsetsel_core.text.rounding import d3, text
from subsetsel_core.viz.style import (
    DASHES,
    apply_layout,
    escape,
    metric_title,
    rgba,
    strategy_color,
)

__all__ = ["CEILING_NAME", "MARKS_NAME", "auc_figure", "curves_figure", "generalisation_figure", "mark_points"]

#: Legend name and colour of the full benchmark's own stability band (:func:`curves_figure`).
CEILING_NAME = "full benchmark's own stability (95 % of resamples)"
CEILING_FILL = "rgba(49, 51, 63, 0.14)"
#: Legend name of the trace :func:`mark_points` adds.
MARKS_NAME = "advised k (95% band reaches the target)"
_AGREE = d3("agreement")
_BAND_HOVER = f"<br>95% band [%{{customdata[0]:{_AGREE}}}, %{{customdata[1]:{_AGREE}}}]<extra></extra>"


def _curves(df: pd.DataFrame) -> list[tuple[str, str, str, pd.DataFrame]]:
    """Per curve key in order of appearance: escaped name, strategy, line dash, rows sorted by k."""
    reps = [r for r in pd.unique(df["representation"]) if isinstance(r, str)]
    dash = {r: DASHES[i % len(DASHES)] for i, r in enumerate(reps)}
    out = []
    for key, g in df.groupby("key", sort=False):
        rep = g["representation"].iloc[0]
        out.append((escape(key), str(g["strategy"].iloc[0]), dash.get(rep, "solid") if isinstance(rep, str) else "dot",
                    g.sort_values("k")))
    return out


def _band(g: pd.DataFrame, name: str, colour: str, alpha: float) -> tuple[go.Scatter, go.Scatter]:
    """The 97.5 % edge and the shaded 2.5 % edge of one curve's band (no legend, no hover)."""
    hi = go.Scatter(x=g["k"], y=g["hi"], mode="lines", line={"width": 0}, showlegend=False,
                    legendgroup=name, hoverinfo="skip", name=f"{name} 97.5%")
    lo = go.Scatter(x=g["k"], y=g["lo"], mode="lines", line={"width": 0}, fill="tonexty",
                    fillcolor=rgba(colour, alpha), showlegend=False, legendgroup=name,
                    hoverinfo="skip", name=f"{name} 2.5%")
    return hi, lo


def curves_figure(
    curves: pd.DataFrame,
    metric: str,
    *,
    title: str | None = None,
    height: int = 480,
    bands: bool = True,
    marks: pd.DataFrame | None = None,
    target: float | None = None,
    ceiling: tuple[float, float] | None = None,
    band_keys: Collection[str] | None = None,
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
    ceiling : (lo, hi), optional
        The full benchmark's own stability band of this metric
        (:class:`~subsetsel_core.evaluation.stability.Stability`), drawn across every k.
    band_keys : collection of str, optional
        Entries whose band is shaded (default: all), so that six strategies stay readable.
    """
    df = curves[curves["metric"] == metric]
    fig = go.Figure()
    if ceiling is not None and all(np.isfinite(ceiling)):
        fig.add_hrect(y0=float(ceiling[0]), y1=float(ceiling[1]), fillcolor=CEILING_FILL, line_width=0, layer="below")
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=CEILING_NAME, hoverinfo="skip",
                                 marker={"symbol": "square", "size": 13, "color": CEILING_FILL}))
    for name, strat, dash, g in _curves(df):
        col = strategy_color(strat)
        key = str(g["key"].iloc[0])
        if bands and (band_keys is None or key in band_keys):
            fig.add_traces(list(_band(g, name, col, 0.13)))
        fig.add_trace(
            go.Scatter(
                x=g["k"], y=g["mean"], mode="lines+markers", name=name, legendgroup=name,
                line={"color": col, "width": 3 if strat != BASELINE else 2.5, "dash": dash},
                marker={"size": 5},
                customdata=np.c_[g["lo"], g["hi"]],
                hovertemplate=f"<b>{name}</b><br>k = %{{x}}<br>mean %{{y:{_AGREE}}}" + _BAND_HOVER,
            )
        )
    fig.update_xaxes(title="k (datasets in the subset)", dtick=1 if df["k"].nunique() <= 25 else None)
    if len(df):
        fig.update_xaxes(range=[float(df["k"].min()) - 0.5, float(df["k"].max()) + 0.5])
    fig.update_yaxes(title=metric_title(metric, " vs full ranking"))
    fig.update_layout(legend={"orientation": "h", "y": -0.18, "x": 0}, hovermode="closest")
    if marks is not None or target is not None:
        mark_points(fig, marks, metric, target=target)
    return apply_layout(fig, title, height)


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
    higher = METRICS[metric].higher_is_better
    if target is not None and np.isfinite(target):
        fig.add_hline(y=float(target), line={"color": "#31333f", "width": 1, "dash": "dot"},
                      annotation={"text": f"target {target:g}", "font": {"size": 11, "color": "#31333f"}},
                      annotation_position="top left" if higher else "bottom left")
    if marks is None or len(marks) == 0:
        return fig
    keys = [escape(k) for k in marks["key"]]
    fig.add_trace(
        go.Scatter(
            x=marks["k"], y=marks["mean"], mode="markers", name=escape(name), legendgroup="__marks__",
            marker={"symbol": "star", "size": 17, "color": [strategy_color(str(s)) for s in marks["strategy"]],
                    "line": {"color": "#31333f", "width": 1.2}},
            text=keys, customdata=np.c_[marks["lo"], marks["hi"]],
            hovertemplate=f"<b>%{{text}}</b><br>advised k = %{{x}}<br>mean %{{y:{_AGREE}}}" + _BAND_HOVER,
        )
    )
    labels = marks["label"] if "label" in marks.columns else pd.Series([""] * len(marks), index=marks.index)
    labelled = marks.assign(_label=labels)
    labelled = labelled[[isinstance(t, str) and bool(t) for t in labelled["_label"]]].sort_values("k", kind="stable")
    for shown, (_, r) in enumerate(labelled.iterrows()):
        # the leftmost label goes left, the next right (and so on), further down each time: the arrows of
        # two labels at nearby k do not cross and the boxes do not sit on each other
        side = -1 if shown % 2 == 0 else 1
        col = strategy_color(str(r["strategy"]))
        fig.add_annotation(
            x=r["k"], y=r["mean"], text=escape(r["_label"]), showarrow=True, arrowhead=2, arrowsize=1,
            arrowwidth=1.2, arrowcolor=col, ax=36 * side, ay=(44 if higher else -44) * (1 + 0.5 * shown),
            font={"size": 12, "color": "#31333f"}, bgcolor="rgba(255,255,255,0.85)",
            bordercolor=col, borderwidth=1, borderpad=3,
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
    bands : bool
        Whether to shade the 2.5–97.5 % percentile bands.
    """
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[escape(t) for t in titles])
    for col, curves in enumerate((judged, held_out), start=1):
        panel = escape(titles[col - 1])
        for name, strat, dash, g in _curves(curves[curves["metric"] == metric]):
            c = strategy_color(strat)
            if bands:
                fig.add_traces(list(_band(g, name, c, 0.10)), rows=1, cols=col)
            fig.add_trace(
                go.Scatter(
                    x=g["k"], y=g["mean"], mode="lines", name=name, legendgroup=name, showlegend=col == 1,
                    line={"color": c, "width": 2.5 if strat != BASELINE else 2, "dash": dash},
                    customdata=np.c_[g["lo"], g["hi"]],
                    hovertemplate=f"<b>{name}</b> ({panel})<br>k = %{{x}}<br>mean %{{y:{_AGREE}}}" + _BAND_HOVER,
                ),
                row=1, col=col,
            )
    fig.update_xaxes(title="k (datasets in the subset)")
    fig.update_yaxes(title=metric_title(metric), row=1, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "x": 0}, hovermode="closest")
    out = apply_layout(fig, title, height)
    out.update_annotations(font={"size": 13, "color": "#31333f"})
    return out


def auc_figure(auc: pd.DataFrame, metric: str, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """Forest plot of the normalised AUC (mean and 95 % interval) per strategy.

    Parameters
    ----------
    auc : DataFrame
        ``EvaluationResult.to_frame()``.
    metric : str
    height : int, optional
        Default: 42 px per row plus the margins.
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
        ptxt = "baseline" if r["strategy"] == BASELINE else (
            p_phrase(None if p is None or pd.isna(p) else float(p)) + " vs random on these pools")
        fig.add_trace(
            go.Scatter(
                x=[r["auc_mean_n"]], y=[escape(r["key"])], mode="markers", showlegend=False,
                marker={"size": 12, "color": col, "symbol": "diamond"},
                error_x={"type": "data", "symmetric": False, "array": [r["auc_hi_n"] - r["auc_mean_n"]],
                         "arrayminus": [r["auc_mean_n"] - r["auc_lo_n"]], "color": col, "thickness": 2},
                hovertemplate=f"<b>{escape(r['key'])}</b><br>normalised AUC %{{x:{d3('auc_normalised')}}}"
                f" [{text(r['auc_lo_n'], 'auc_normalised')}, {text(r['auc_hi_n'], 'auc_normalised')}]<br>{ptxt}"
                "<extra></extra>",
                name=escape(r["key"]),
            )
        )
    base = df[df["strategy"] == BASELINE]
    if len(base):
        fig.add_vline(x=float(base["auc_mean_n"].iloc[0]), line_dash="dot", line_color="#7f7f7f")
    fig.update_xaxes(title="normalised AUC (mean, 95% interval)")
    fig.update_yaxes(automargin=True)
    return apply_layout(fig, title, height or max(240, 42 * len(df) + 90))
