"""The price of a-priori selection: the best a-priori and the best score-aware strategy's curves on
held-out models (:class:`~subsetsel_core.evaluation.headroom_result.HeadroomResult`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.strategies import BASELINE
from subsetsel_core.text.rounding import d3
from subsetsel_core.viz.style import apply_layout, escape, metric_title, rgba, strategy_color

__all__ = ["SCORE_AWARE_SUFFIX", "headroom_figure"]

#: Appended to a score-aware strategy's legend name.
SCORE_AWARE_SUFFIX = " — score-aware (fitted to today's models)"
_HOVER = f"<br>95% band [%{{customdata[0]:{d3('agreement')}}}, %{{customdata[1]:{d3('agreement')}}}]<extra></extra>"


def headroom_figure(
    curves: pd.DataFrame,
    metric: str,
    keys: Sequence[str],
    *,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """Curves vs k on the held-out models with their 95 % bands (over splits × trials).

    Parameters
    ----------
    curves : DataFrame
        ``HeadroomResult.curves_frame()``: ``key, strategy, representation, score_aware,
        metric, k, mean, lo, hi``.
    metric : str
    keys : sequence of str
        The entries to draw, in legend order (e.g. best a-priori, best score-aware, random).
        Score-aware entries are dashed and labelled as such; ``random`` has no band.
    """
    df = curves[curves["metric"] == metric]
    fig = go.Figure()
    for key in keys:
        g = df[df["key"] == key].sort_values("k")
        if g.empty:
            continue
        strat = str(g["strategy"].iloc[0])
        aware = bool(g["score_aware"].iloc[0])
        colour = strategy_color(strat)
        name = escape(key + (SCORE_AWARE_SUFFIX if aware else ""))
        if strat != BASELINE:
            fig.add_trace(go.Scatter(x=g["k"], y=g["hi"], mode="lines", line={"width": 0}, showlegend=False,
                                     legendgroup=name, hoverinfo="skip"))
            fig.add_trace(go.Scatter(x=g["k"], y=g["lo"], mode="lines", line={"width": 0}, fill="tonexty",
                                     fillcolor=rgba(colour, 0.14), showlegend=False, legendgroup=name,
                                     hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=g["k"], y=g["mean"], mode="lines+markers", name=name, legendgroup=name,
            line={"color": colour, "width": 2 if strat == BASELINE else 3, "dash": "dash" if aware else "solid"},
            marker={"size": 5, "symbol": "diamond" if aware else "circle"},
            customdata=np.c_[g["lo"], g["hi"]],
            hovertemplate=f"<b>{name}</b><br>k = %{{x}}<br>mean %{{y:{d3('agreement')}}}" + _HOVER,
        ))
    fig.update_xaxes(title="k (datasets in the subset)", dtick=1 if df["k"].nunique() <= 25 else None)
    fig.update_yaxes(title=metric_title(metric))
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "x": 0}, hovermode="closest")
    return apply_layout(fig, title, height)
