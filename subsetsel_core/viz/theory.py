"""What the GP model predicts against what the protocol observes, per k.

:func:`prediction_figure`: every strategy's predicted inverted share (dashed, with its band over
the protocol's pools) and, after an evaluation, its observed share (solid).
:func:`theory_figure`: the coverage bound (an upper bound at FAFI's covering radius h_k) and
the observed share of discordant pairs of the protocol's subsets (mean over trials, shaded
2.5–97.5 %) on the left axis; h_k itself, dotted grey, on the right axis. Takes
:meth:`~subsetsel_core.evaluation.theory.Theory.to_frame`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.text.rounding import d3
from subsetsel_core.viz.style import apply_layout, escape, rgba, strategy_color

__all__ = ["OBSERVED_NAME", "PREDICTED_NAME", "PREDICTION_SUFFIX", "RADIUS_NAME", "prediction_figure",
           "theory_figure"]

#: Legend names of the three curves.
PREDICTED_NAME = "coverage bound of the GP model (an upper bound)"
OBSERVED_NAME = "observed on the protocol's subsets"
RADIUS_NAME = "covering radius h_k (right axis)"
#: Legend suffixes of a strategy's curves in :func:`prediction_figure`.
PREDICTION_SUFFIX = "predicted by the GP"
OBSERVED_SUFFIX = "observed"
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
        customdata=np.c_[frame["observed"], frame["observed_lo"], frame["observed_hi"]],  # shares: d3 scales
        hovertemplate=f"k = %{{x}}<br>observed %{{customdata[0]:{d3('percent')}}}<br>95% of trials "
                      f"[%{{customdata[1]:{d3('percent')}}}, %{{customdata[2]:{d3('percent')}}}]<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=k, y=pct * frame["predicted"], mode="lines+markers", name=escape(PREDICTED_NAME),
        line={"color": "#31333f", "width": 2, "dash": "dash"}, marker={"size": 5, "symbol": "diamond"},
        customdata=np.c_[frame["predicted"], frame["variance_bound"]],
        hovertemplate=f"k = %{{x}}<br>predicted ≤ %{{customdata[0]:{d3('percent')}}}<br>V(h_k) = "
                      f"%{{customdata[1]:{d3('parameter')}}}<extra></extra>"))
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


def prediction_figure(frames: Mapping[str, pd.DataFrame], *, title: str | None = None, height: int = 440,
                      band: bool = True) -> go.Figure:
    """Per strategy, the GP's predicted share of inverted model pairs vs k (dashed, shaded band) and,
    where given, the observed share (solid, markers) in the strategy's colour.

    Parameters
    ----------
    frames : mapping strategy → DataFrame
        :meth:`~subsetsel_core.evaluation.prediction.Prediction.to_frame` (shares in 0–1; ``observed``
        all NaN when not observed).
    title : str, optional
    height : int
    band : bool
        Shade each strategy's 2.5–97.5 % band over the protocol's pools.
    """
    pct = 100.0
    fig = go.Figure()
    top = 1.0
    for name, f in frames.items():
        colour = strategy_color(name)
        label = escape(name)
        if band:
            fig.add_trace(go.Scatter(x=f["k"], y=pct * f["predicted_hi"], mode="lines", line={"width": 0},
                                     showlegend=False, hoverinfo="skip", legendgroup=name))
            fig.add_trace(go.Scatter(x=f["k"], y=pct * f["predicted_lo"], mode="lines", line={"width": 0},
                                     fill="tonexty", fillcolor=rgba(colour, 0.12), showlegend=False,
                                     hoverinfo="skip", legendgroup=name))
        fig.add_trace(go.Scatter(
            x=f["k"], y=pct * f["predicted"], mode="lines", name=f"{label} — {PREDICTION_SUFFIX}", legendgroup=name,
            line={"color": colour, "width": 2, "dash": "dash"},
            customdata=np.c_[f["predicted"], f["predicted_lo"], f["predicted_hi"]],  # shares: d3 scales
            hovertemplate=f"{label}<br>k = %{{x}}<br>predicted %{{customdata[0]:{d3('percent')}}}<br>95% of pools "
                          f"[%{{customdata[1]:{d3('percent')}}}, %{{customdata[2]:{d3('percent')}}}]<extra></extra>"))
        top = max(top, float(pct * f["predicted_hi"].max()))
        if f["observed"].notna().any():
            fig.add_trace(go.Scatter(
                x=f["k"], y=pct * f["observed"], mode="lines+markers", name=f"{label} — {OBSERVED_SUFFIX}",
                legendgroup=name, line={"color": colour, "width": 2}, marker={"size": 5},
                customdata=f["observed"].to_numpy(),  # the share: d3's percent scales by 100
                hovertemplate=f"{label}<br>k = %{{x}}<br>observed %{{customdata:{d3('percent')}}}<extra></extra>"))
            top = max(top, float(pct * f["observed"].max()))
    apply_layout(fig, title, height)
    dtick = 2 if frames and len(next(iter(frames.values()))) > 12 else 1
    fig.update_layout(
        xaxis={"title": {"text": "k (datasets in the subset)"}, "dtick": dtick},
        yaxis={"title": {"text": "model pairs inverted (%)"}, "range": [0, top * 1.08], "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.22, "x": 0}, hovermode="closest",
        margin={"l": 64, "r": 24, "t": 56 if title else 28, "b": 64},
    )
    return fig


def _nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × a power of ten that is at least ``raw`` (1 for a non-positive ``raw``)."""
    if not np.isfinite(raw) or raw <= 0:
        return 1.0
    mag = 10.0 ** np.floor(np.log10(raw))
    return float(next(m * mag for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * mag >= raw * (1 - 1e-12)))
