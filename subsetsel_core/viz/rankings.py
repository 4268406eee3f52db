"""The leaderboard: the models' mean rank, and where a new model would be placed on it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.text.rounding import d3, text
from subsetsel_core.viz.style import apply_layout, escape, rgba

__all__ = ["leaderboard_figure", "placement_figure"]

_RANK_AXIS = "mean rank over all datasets (1 = best)"


def _labels(board: pd.DataFrame) -> list[str]:
    """``"position. model"`` per row (model names escaped)."""
    return [f"{int(p)}. {escape(m)}" for p, m in zip(board["position"], board["model"], strict=True)]


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
            y=_labels(b),
            orientation="h",
            marker_color="#4c78a8",
            text=[text(v, "mean_rank") for v in b["mean_rank"]],
            textposition="outside", cliponaxis=False,
            customdata=np.c_[b["mean_score"].to_numpy(), b["wins"].to_numpy()],
            hovertemplate=f"%{{y}}<br>mean rank %{{x:{d3('mean_rank')}}}<br>mean score %{{customdata[0]:{d3('score')}}}"
            "<br>wins %{customdata[1]}<extra></extra>",
            name="mean rank",
        )
    )
    top_x = float(b["mean_rank"].max()) if len(b) else 1.0
    fig.update_xaxes(title=_RANK_AXIS, range=[0, top_x * 1.15])
    fig.update_yaxes(automargin=True)
    return apply_layout(fig, title, max(260, 26 * len(b) + 80))


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
    max_rows : int
    title : str, optional
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
    labels = _labels(b)
    new_label = f"<b>→ {escape(model)}</b>"
    inside = [lo <= r <= hi for r in b["mean_rank"]]
    fig = go.Figure()
    fig.add_vrect(x0=lo, x1=hi, fillcolor=rgba("#d62728", 0.10), line_width=0, layer="below")
    fig.add_trace(go.Scatter(
        x=b["mean_rank"], y=labels, mode="markers", name="existing models",
        marker={"size": 9, "color": ["#4c78a8" if i else "#9aa5b8" for i in inside]},
        hovertemplate=f"%{{y}}<br>mean rank %{{x:{d3('mean_rank')}}}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=[estimate], y=[new_label], mode="markers", name=f"{escape(model)} (estimate, 95% interval)",
        marker={"size": 14, "symbol": "diamond", "color": "#d62728", "line": {"width": 1, "color": "#222"}},
        error_x={"type": "data", "symmetric": False, "array": [max(0.0, hi - estimate)],
                 "arrayminus": [max(0.0, estimate - lo)], "color": "#d62728", "thickness": 2, "width": 6},
        hovertemplate=f"{escape(model)}<br>estimated mean rank %{{x:{d3('mean_rank')}}} "
                      f"[{text(lo, 'mean_rank')}, {text(hi, 'mean_rank')}]<extra></extra>",
    ))
    at = int(np.clip(pos - keep[0] if keep.size else 0, 0, len(labels)))
    order = labels[:at] + [new_label] + labels[at:]
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], automargin=True, type="category")
    fig.update_xaxes(title=_RANK_AXIS)
    fig.update_layout(legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0}, showlegend=True)
    return apply_layout(fig, title, max(280, 19 * len(order) + 110))
