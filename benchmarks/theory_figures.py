"""The figures of docs/theory.md, written by ``benchmarks/theory_checks.py`` (plotly, exported with kaleido).

- :func:`samples_figure`: per sample representation, every strategy's predicted (dashed) and
  observed (solid) share of inverted model pairs against k, on the protocol's pools.
- :func:`calibration_figure`: per calibration setting and strategy, the mean over k of
  observed − predicted (points) on benchmarks drawn from a known GP, with the tool's fitted
  hyperparameters (filled) and with the true ones (open), and how many of the setting's
  (strategy, k) cells lie inside ± 2 s.e.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def samples_figure(panels: Sequence[tuple[str, Any]], path: str) -> None:
    """``panels``: (title, :class:`~subsetsel_core.evaluation.prediction.Prediction` with observed shares)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from subsetsel_core.viz.style import apply_layout, for_export, strategy_color

    cols = 2
    rows = (len(panels) + cols - 1) // cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[t for t, _ in panels], horizontal_spacing=0.08,
                        vertical_spacing=0.07)
    for i, (_, pred) in enumerate(panels):
        r, c = i // cols + 1, i % cols + 1
        for s in pred.strategies:
            colour = strategy_color(s)
            first = i == 0
            fig.add_trace(go.Scatter(x=pred.ks, y=100 * pred.curve(s), mode="lines", name=f"{s} predicted",
                                     legendgroup=s, showlegend=first,
                                     line={"color": colour, "width": 1.6, "dash": "dash"}), row=r, col=c)
            fig.add_trace(go.Scatter(x=pred.ks, y=100 * pred.observed_curve(s), mode="lines", name=f"{s} observed",
                                     legendgroup=s, showlegend=first, line={"color": colour, "width": 1.6}),
                          row=r, col=c)
        fig.update_yaxes(title_text="inverted pairs (%)" if c == 1 else None, rangemode="tozero", row=r, col=c)
        fig.update_xaxes(title_text="k" if r == rows else None, row=r, col=c)
    apply_layout(fig, "Predicted (dashed) and observed (solid) share of inverted model pairs, "
                      f"mean over the protocol's first {panels[0][1].trials} pools", 300 * rows + 120)
    fig.update_layout(width=980, legend={"orientation": "h", "y": -0.04, "x": 0})
    for_export(fig).write_image(path)


def calibration_figure(rows: Sequence[tuple[str, Any, Any]], path: str) -> None:
    """``rows``: (setting label, :class:`~subsetsel_core.evaluation.theory_check.Calibration` with the fit,
    the same with the true hyperparameters)."""
    import plotly.graph_objects as go

    from subsetsel_core.viz.style import apply_layout, for_export, strategy_color

    fig = go.Figure()
    labels = [label for label, _, _ in rows]
    y = np.arange(len(rows))[::-1].astype(float)
    strategies = rows[0][1].strategies
    for j, s in enumerate(strategies):
        off = (j - (len(strategies) - 1) / 2) * 0.22
        for how, symbol in (("fitted", "circle"), ("true", "circle-open")):
            cals = [fitted if how == "fitted" else true for _, fitted, true in rows]
            gap = [100 * float((c.observed - c.predicted)[:, j].mean()) for c in cals]
            fig.add_trace(go.Scatter(x=gap, y=y + off, mode="markers", name=f"{s}, {how} ℓ, σ², τ²",
                                     marker={"color": strategy_color(s), "symbol": symbol, "size": 7,
                                             "line": {"width": 1.4, "color": strategy_color(s)}}))
    share = [f"{row[1].share_inside():.2f} / {row[2].share_inside():.2f}" for row in rows]
    fig.add_vline(x=0, line={"color": "#888", "dash": "dot"})
    apply_layout(fig, "Calibration: mean observed − predicted over k (right: cells inside ± 2 s.e., fitted / true)",
                 26 * len(rows) + 200)
    fig.update_layout(width=980, margin={"l": 330, "r": 110},
                      xaxis={"title": {"text": "observed − predicted inverted share (percentage points)"},
                             "zeroline": False},
                      yaxis={"tickvals": list(y), "ticktext": labels, "showgrid": True},
                      legend={"orientation": "h", "y": -0.12, "x": 0})
    for yy, t in zip(y, share, strict=True):
        fig.add_annotation(x=1.0, xref="paper", xanchor="left", y=yy, text=t, showarrow=False, font={"size": 11})
    for_export(fig).write_image(path)
