"""Figures for a meeting: the key figures sized to fit one screen, the map's labels kept apart and inside.

:func:`fit` gives a copy of a figure at a height that fits a 1280 × 720 screen beside
another; :func:`spread_map_labels` moves the numbered markers of a map's selection apart
(drawn at a distance with a thin leader line to the dataset's point) so that no two overlap,
and keeps every one inside the frame (the axes are padded, and markers are not clipped).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

__all__ = ["fit", "spread_map_labels", "LABEL_PX"]

#: Diameter of a numbered marker, in px.
LABEL_PX = 22
_SELECTION = "selected (in order)"


def fit(fig: go.Figure, height: int, *, title_size: int = 15) -> go.Figure:
    """A copy of ``fig`` at ``height`` px with a compact title and margins."""
    out = go.Figure(fig)
    t = out.layout.margin.t
    out.update_layout(height=height, title_font_size=title_size,
                      margin={"t": min(int(t) if t is not None else 48, 44 if out.layout.title.text else 16)})
    return out


def _frame(fig: go.Figure, width: int, height: int) -> tuple[float, float]:
    m = fig.layout.margin
    left = 80 if m.l is None else m.l
    right = 80 if m.r is None else m.r
    top = 100 if m.t is None else m.t
    bottom = 80 if m.b is None else m.b
    return max(50.0, width - left - right), max(50.0, height - top - bottom)


def spread_map_labels(fig: go.Figure, width: int, *, iterations: int = 200) -> go.Figure:
    """A copy of a map (:func:`~subsetsel_core.viz.maps.map_figure`) whose numbered markers do not overlap.

    Parameters
    ----------
    fig : Figure
        The map; its height is the one drawn.
    width : int
        The width it is drawn at (px), to turn data units into pixels.
    iterations : int
        Steps of the repulsion.

    Returns
    -------
    Figure
        The markers moved apart (at least :data:`LABEL_PX` + 2 px between centres), a leader
        line from each moved marker to its dataset's point, the axes padded so that every
        marker is inside the frame, and no marker clipped at the frame.
    """
    out = go.Figure(fig)
    idx = next((i for i, t in enumerate(out.data) if t.name == _SELECTION), None)
    points = out.data[0] if out.data else None
    if idx is None or points is None or points.x is None:
        return out
    sel = out.data[idx]
    x0, y0 = np.asarray(sel.x, dtype=float), np.asarray(sel.y, dtype=float)
    allx, ally = np.asarray(points.x, dtype=float), np.asarray(points.y, dtype=float)
    w, h = _frame(out, width, int(out.layout.height or 560))
    pad = (LABEL_PX / 2 + 4)
    lo_x, hi_x = float(np.nanmin(allx)), float(np.nanmax(allx))
    lo_y, hi_y = float(np.nanmin(ally)), float(np.nanmax(ally))
    span_x, span_y = max(hi_x - lo_x, 1e-12), max(hi_y - lo_y, 1e-12)
    # data → px with the padded ranges: a margin of `pad` px inside the frame on every side
    sx, sy = (w - 2 * pad) / span_x, (h - 2 * pad) / span_y
    px = np.c_[(x0 - lo_x) * sx + pad, (y0 - lo_y) * sy + pad]
    home = px.copy()
    need = LABEL_PX + 2.0
    for _ in range(iterations):
        moved = False
        for i in range(len(px)):
            for j in range(i + 1, len(px)):
                d = px[j] - px[i]
                dist = float(np.hypot(*d))
                if dist < need:
                    if dist < 1e-9:
                        d, dist = np.array([1.0, 0.3 * (1 + i % 3)]), 1.0
                    push = (need - dist) / 2 * d / dist
                    px[i] -= push
                    px[j] += push
                    moved = True
        px += 0.02 * (home - px)  # a weak pull home keeps labels near their points
        px[:, 0] = np.clip(px[:, 0], pad, w - pad)
        px[:, 1] = np.clip(px[:, 1], pad, h - pad)
        if not moved:
            break
    nx, ny = px[:, 0] / sx + lo_x - pad / sx, px[:, 1] / sy + lo_y - pad / sy
    leaders_x: list[Any] = []
    leaders_y: list[Any] = []
    for a, b, c, d in zip(x0, y0, nx, ny, strict=True):
        if abs(a - c) * sx > 1 or abs(b - d) * sy > 1:
            leaders_x += [float(a), float(c), None]
            leaders_y += [float(b), float(d), None]
    sel.update(x=nx, y=ny, cliponaxis=False)
    if leaders_x:
        out.add_trace(go.Scatter(x=leaders_x, y=leaders_y, mode="lines", hoverinfo="skip", showlegend=False,
                                 name="label leaders", line={"color": "#222", "width": 1}))
        data = list(out.data)
        data.insert(idx, data.pop())  # under the markers
        out.data = tuple(data)
    out.update_xaxes(range=[lo_x - pad / sx, hi_x + pad / sx], autorange=False)
    out.update_yaxes(range=[lo_y - pad / sy, hi_y + pad / sy], autorange=False)
    return out
