"""One strategy's agreement against the subset size (k) or the budget, next to random subsets."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from subsetsel_core.strategies import BASELINE
from subsetsel_core.text.rounding import d3
from subsetsel_core.viz.style import apply_layout, escape, metric_title, rgba, strategy_color

__all__ = ["budget_profile_figure", "k_profile_figure"]

Band = tuple[np.ndarray, np.ndarray, np.ndarray]
_TOP_LEGEND = {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0}
_AGREE, _COST = d3("agreement"), d3("cost")  # hover formats: agreement values, budgets and costs


def _add_random_band(fig: go.Figure, x: np.ndarray, band: Band, name: str, hovertemplate: str) -> None:
    """Random subsets' 95 % band (shaded) and median (dotted grey line) along ``x``."""
    med, lo, hi = band
    grey = strategy_color(BASELINE)
    fig.add_trace(go.Scatter(x=x, y=hi, mode="lines", line={"width": 0}, showlegend=False,
                             hoverinfo="skip", legendgroup=BASELINE))
    fig.add_trace(go.Scatter(x=x, y=lo, mode="lines", line={"width": 0}, fill="tonexty",
                             fillcolor=rgba(grey, 0.18), showlegend=False, hoverinfo="skip",
                             legendgroup=BASELINE))
    fig.add_trace(go.Scatter(x=x, y=med, mode="lines", name=name, line={"color": grey, "dash": "dot", "width": 2},
                             legendgroup=BASELINE, hovertemplate=hovertemplate))


def _ring(x: float, y: float, name: str, colour: str, hovertemplate: str) -> go.Scatter:
    """An open ring marking the current subset."""
    return go.Scatter(x=[x], y=[y], mode="markers", name=name,
                      marker={"size": 16, "color": "rgba(0,0,0,0)", "line": {"width": 3, "color": colour}},
                      hovertemplate=hovertemplate)


def k_profile_figure(
    ks: np.ndarray,
    chosen: Mapping[str, np.ndarray],
    random_band: Mapping[str, Band] | None,
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
                         f"random, k = %{{x}}: median %{{y:{_AGREE}}}<extra></extra>")
    y = np.asarray(chosen[metric], float)
    fig.add_trace(go.Scatter(x=ks, y=y, mode="lines+markers", name=escape(strategy),
                             line={"color": col, "width": 3}, marker={"size": 5},
                             hovertemplate=f"{escape(strategy)}, k = %{{x}}: %{{y:{_AGREE}}}<extra></extra>"))
    if current_k is not None and current_k in set(int(k) for k in ks):
        i = int(np.flatnonzero(np.asarray(ks) == current_k)[0])
        fig.add_trace(_ring(current_k, y[i], f"k = {current_k}", col, f"k = {current_k}: %{{y:{_AGREE}}}<extra></extra>"))
    fig.update_xaxes(title="k")
    fig.update_yaxes(title=metric_title(metric))
    fig.update_layout(legend=_TOP_LEGEND)
    return apply_layout(fig, title, height)


def budget_profile_figure(
    budgets: np.ndarray,
    chosen: Mapping[str, np.ndarray],
    random_band: Mapping[str, Band] | None,
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
                         f"random, budget %{{x:{_COST}}}: median %{{y:{_AGREE}}}<extra></extra>")
    y = np.asarray(chosen[metric], float)
    extra = np.c_[np.zeros(budgets.size) if k_used is None else k_used,
                  budgets if spent is None else spent]
    fig.add_trace(go.Scatter(
        x=budgets, y=y, mode="lines+markers", name=escape(strategy), line={"color": col, "width": 3},
        marker={"size": 5}, customdata=extra,
        hovertemplate=f"{escape(strategy)}, budget %{{x:{_COST}}}: %{{y:{_AGREE}}}<br>%{{customdata[0]:{d3('count')}}} datasets, "
                      f"cost %{{customdata[1]:{_COST}}}<extra></extra>",
    ))
    if current is not None:
        fig.add_trace(_ring(current[0], current[1], "this subset", col,
                            f"this subset, budget %{{x:{_COST}}}: %{{y:{_AGREE}}}<extra></extra>"))
    fig.update_xaxes(title=f"budget — total cost of the subset{f' ({escape(unit)})' if unit else ''}",
                     rangemode="tozero")
    fig.update_yaxes(title=metric_title(metric))
    fig.update_layout(legend=_TOP_LEGEND)
    return apply_layout(fig, title, height)
