"""The representation check: do datasets near in descriptor space rank the models alike?"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from subsetsel_core.text.rounding import d3, text
from subsetsel_core.viz.style import apply_layout

__all__ = ["geometry_figure"]


def geometry_figure(
    desc_dist: np.ndarray, rank_dist: np.ndarray, *, rho: float, title: str | None = None,
    max_points: int = 4000, seed: int = 0, height: int = 420,
) -> go.Figure:
    """Pairwise descriptor distance against pairwise rank-vector distance, with a binned trend.

    Parameters
    ----------
    desc_dist, rank_dist : ndarray of shape (P,)
        Condensed pairwise distances (same pair order).
    rho : float
        Their Spearman correlation, shown in the legend.
    title : str, optional
    max_points : int
        Pairs drawn at most (a seeded sample); the trend uses every pair.
    seed : int
        Seed of that sample.
    height : int
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
            hovertemplate=f"descriptor distance %{{x:{d3('distance')}}}<br>rank distance %{{y:{d3('distance')}}}"
                          "<extra></extra>",
        )
    )
    if desc_dist.size >= 10:
        q = np.unique(np.quantile(desc_dist, np.linspace(0, 1, 13)))
        if q.size >= 3:
            b = np.clip(np.searchsorted(q, desc_dist, side="right") - 1, 0, q.size - 2)
            xs = [(q[i] + q[i + 1]) / 2 for i in range(q.size - 1) if (b == i).any()]
            ys = [float(np.mean(rank_dist[b == i])) for i in range(q.size - 1) if (b == i).any()]
            fig.add_trace(
                go.Scatter(x=xs, y=ys, mode="lines+markers", name=f"binned mean (Spearman ρ = {text(rho, 'correlation')})",
                           line={"color": "#d62728", "width": 3})
            )
    fig.update_xaxes(title="descriptor distance (Euclidean, standardised)")
    fig.update_yaxes(title="performance distance (1 − Spearman of rank vectors)")
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0})
    return apply_layout(fig, title, height)
