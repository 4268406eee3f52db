"""What the coverage bound predicts against what the protocol observes, per k.

One chart: the predicted share of inverted model pairs (the GP model's bound at FAFI's
covering radius h_k) and the observed share of discordant pairs of the protocol's subsets
(mean over trials, shaded 2.5–97.5 %) on the left axis; h_k itself, dotted grey, on the
right axis. Takes :meth:`~subsetsel_core.evaluation.theory.Theory.to_frame`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.text.rounding import d3
from subsetsel_core.viz.style import apply_layout, escape, rgba

__all__ = ["OBSERVED_NAME", "PREDICTED_NAME", "RADIUS_NAME", "theory_figure"]

#: Legend names of the three curves.
PREDICTED_NAME = "predicted by the GP bound (at most)"
OBSERVED_NAME = "observed on the protocol's subsets"
RADIUS_NAME = "covering radius h_k (right axis)"
_RADIUS_COLOUR = "#7f7f7f"


def theory_figure(frame: pd.DataFrame, *, colour: str = "#ff7f0e", title: str | None = None,
                  height: int = 420) -> go.Figure:
    """Predicted and observed share of inverted model pairs vs k, with the covering radius.

    Parameters
    ----------
    frame : DataFrame
        Columns ``k, covering_radius, variance_bound, predicted, observed, observed_lo,
        observed_hi`` (shares in 0–1).
    colour : str
        The strategy's colour (hex).
    title : str, optional
    height : int
    """
    k = frame["k"]
    pct = 100.0
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=k, y=pct * frame["observed_hi"], mode="lines", line={"width": 0}, showlegend=False,
                             hoverinfo="skip", legendgroup="observed", name="observed 97.5%"))
    fig.add_trace(go.Scatter(x=k, y=pct * frame["observed_lo"], mode="lines", line={"width": 0}, fill="tonexty",
                             fillcolor=rgba(colour, 0.18), showlegend=False, hoverinfo="skip", legendgroup="observed",
                             name="observed 2.5%"))
    fig.add_trace(go.Scatter(
        x=k, y=pct * frame["observed"], mode="lines+markers", name=escape(OBSERVED_NAME), legendgroup="observed",
        line={"color": colour, "width": 2}, marker={"size": 5},
        customdata=list(zip(pct * frame["observed_lo"], pct * frame["observed_hi"], strict=True)),
        hovertemplate="k = %{x}<br>observed %{y:.1f} %<br>95% of trials [%{customdata[0]:.1f}, "
                      "%{customdata[1]:.1f}] %<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=k, y=pct * frame["predicted"], mode="lines+markers", name=escape(PREDICTED_NAME),
        line={"color": "#31333f", "width": 2, "dash": "dash"}, marker={"size": 5, "symbol": "diamond"},
        customdata=frame["variance_bound"],
        hovertemplate="k = %{x}<br>predicted ≤ %{y:.1f} %<br>V(h_k) = %{customdata:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=k, y=frame["covering_radius"], mode="lines", name=escape(RADIUS_NAME), yaxis="y2",
        line={"color": _RADIUS_COLOUR, "width": 1.5, "dash": "dot"},
        hovertemplate=f"k = %{{x}}<br>h_k = %{{y:{d3('distance')}}}<extra></extra>"))
    apply_layout(fig, title, height)
    top = max(1.0, float(pct * max(frame["predicted"].max(), frame["observed_hi"].max())) * 1.1)
    h_step = _nice_step(float(frame["covering_radius"].max()) / 5)
    h_top = h_step * max(1, int(np.ceil(float(frame["covering_radius"].max()) / h_step - 1e-9)))
    fig.update_layout(
        xaxis={"title": {"text": "k (datasets in the subset)"}, "dtick": 2 if len(frame) > 12 else 1},
        yaxis={"title": {"text": "model pairs inverted (%)"}, "range": [0, top], "rangemode": "tozero"},
        yaxis2={"title": {"text": "covering radius h_k"}, "overlaying": "y", "side": "right", "showgrid": False,
                "range": [0, h_top], "dtick": h_step, "tickmode": "linear", "linecolor": "#c9ced8",
                "zeroline": False},
        legend={"orientation": "h", "y": -0.22, "x": 0}, hovermode="closest",
        margin={"l": 64, "r": 64, "t": 56 if title else 28, "b": 56},
    )
    return fig


def _nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × a power of ten that is at least ``raw`` (1 for a non-positive ``raw``)."""
    if not np.isfinite(raw) or raw <= 0:
        return 1.0
    mag = 10.0 ** np.floor(np.log10(raw))
    return float(next(m * mag for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * mag >= raw * (1 - 1e-12)))
