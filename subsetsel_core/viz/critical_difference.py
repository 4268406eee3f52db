"""The critical-difference diagram (Demšar 2006) as a plotly figure.

The axis carries the mean ranks, 1 (best) on the left; each entry hangs from its mean
rank by an elbow line to its label (the better half on the left, the rest on the right);
thick bars under the axis join the entries no test tells apart
(:func:`subsetsel_core.evaluation.critical_difference.critical_difference`); for the Nemenyi
test the critical difference is drawn above the axis.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from subsetsel_core.evaluation.critical_difference import CriticalDifference
from subsetsel_core.text.rounding import d3, text
from subsetsel_core.viz.style import apply_layout, escape, strategy_color

__all__ = ["cd_figure"]

_ROW = 26  # px between label rows
_CHAR = 7.2  # px per character of a label (13 px font), to size the side margins


def cd_figure(cd: CriticalDifference, *, title: str | None = None, width_hint: int = 900) -> go.Figure:
    """The diagram of ``cd``.

    Parameters
    ----------
    cd : CriticalDifference
    title : str, optional
    width_hint : int
        Width the figure is laid out for (px); labels get side margins of their own size.
    """
    k = len(cd.labels)
    fig = go.Figure()
    if k == 0:
        apply_layout(fig, title, 200)
        if cd.note:
            fig.add_annotation(text=escape(cd.note), x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
        fig.update_xaxes(visible=False)
        fig.update_yaxes(visible=False)
        return fig
    lo, hi = 1.0, float(max(k, 2))
    half = math.ceil(k / 2)
    rows = max(half, k - half)
    bar_gap = 0.55  # in row units, below the axis
    n_bars = len(cd.cliques)
    top = 1.6 if cd.test == "nemenyi" and cd.cd is not None else 0.9
    bottom = -(bar_gap + 0.45 * n_bars + rows + 0.6)
    shapes: list[dict[str, Any]] = [
        {"type": "line", "x0": lo, "x1": hi, "y0": 0, "y1": 0, "line": {"color": "#31333f", "width": 1.5}}]
    notes: list[dict[str, Any]] = []
    for r in range(1, int(hi) + 1):
        shapes.append({"type": "line", "x0": r, "x1": r, "y0": 0, "y1": 0.18, "line": {"color": "#31333f", "width": 1}})
        notes.append({"x": r, "y": 0.22, "text": str(r), "showarrow": False, "yanchor": "bottom",
                      "font": {"size": 12}})
    for mid in (x + 0.5 for x in range(1, int(hi))):
        shapes.append({"type": "line", "x0": mid, "x1": mid, "y0": 0, "y1": 0.09,
                       "line": {"color": "#31333f", "width": 1}})
    longest = max(len(label) for label in cd.labels) + 8
    for i, (label, rank) in enumerate(zip(cd.labels, cd.mean_ranks, strict=True)):
        left = i < half
        row = i if left else k - 1 - i
        y = -(bar_gap + 0.45 * n_bars + 0.5 + row)
        end = lo if left else hi
        colour = strategy_color(label)
        shapes.append({"type": "path", "path": f"M {rank},0 L {rank},{y} L {end},{y}",
                       "line": {"color": colour, "width": 1.6}})
        notes.append({"x": end, "y": y, "xanchor": "right" if left else "left", "showarrow": False,
                      "text": (f"{escape(label)}  <b>{text(rank, 'mean_rank')}</b>" if left
                               else f"<b>{text(rank, 'mean_rank')}</b>  {escape(label)}"),
                      "xshift": -6 if left else 6, "font": {"color": "#31333f", "size": 13}})
    for j, members in enumerate(cd.cliques):
        ranks = [cd.mean_ranks[cd.labels.index(m)] for m in members]
        y = -(bar_gap * 0.6 + 0.45 * j)
        shapes.append({"type": "line", "x0": min(ranks) - 0.03, "x1": max(ranks) + 0.03, "y0": y, "y1": y,
                       "line": {"color": "#31333f", "width": 5}})
    if cd.test == "nemenyi" and cd.cd is not None and cd.cd < hi - lo:
        shapes.append({"type": "line", "x0": lo, "x1": lo + cd.cd, "y0": 1.15, "y1": 1.15,
                       "line": {"color": "#d62728", "width": 2}})
        for x in (lo, lo + cd.cd):
            shapes.append({"type": "line", "x0": x, "x1": x, "y0": 1.05, "y1": 1.25,
                           "line": {"color": "#d62728", "width": 2}})
        notes.append({"x": lo + cd.cd / 2, "y": 1.3, "text": f"CD = {text(cd.cd, 'statistic')}", "showarrow": False,
                      "yanchor": "bottom", "font": {"color": "#d62728", "size": 12}})
    if cd.note:  # entries or trials left out (their AUC is not a number): said under the diagram
        bottom -= 0.8
        notes.append({"x": (lo + hi) / 2, "y": bottom + 0.3, "text": escape(cd.note), "showarrow": False,
                      "font": {"color": "#6b6f7b", "size": 11}})
    height = int(60 + (top - bottom) * _ROW + (40 if title else 10))
    side = int(min(width_hint * 0.38, max(80, longest * _CHAR)))
    apply_layout(fig, title, height)
    fig.update_layout(shapes=shapes, annotations=notes, showlegend=False,
                      margin={"l": side, "r": side, "t": 60 if title else 20, "b": 10}, plot_bgcolor="rgba(0,0,0,0)")
    fig.update_xaxes(range=[lo - 0.05, hi + 0.05], visible=False, fixedrange=True)
    fig.update_yaxes(range=[bottom, top], visible=False, fixedrange=True)
    # an invisible trace carries the hover text (rank and mean rank of each entry)
    fig.add_trace(go.Scatter(x=list(cd.mean_ranks), y=[0.0] * k, mode="markers",
                             marker={"size": 9, "color": [strategy_color(s) for s in cd.labels]},
                             text=[escape(s) for s in cd.labels],
                             hovertemplate=f"%{{text}}<br>mean rank %{{x:{d3('mean_rank')}}}<extra></extra>",
                             name="mean rank"))
    return fig
