"""The gaps of a score table as a heat strip: datasets × models, ranked or missing."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from subsetsel_core.evaluation.gaps import Gaps
from subsetsel_core.viz.style import apply_layout, escape

__all__ = ["gaps_figure"]

_PRESENT, _MISSING = "#4c78a8", "#f2f4f8"


def gaps_figure(g: Gaps, *, height: int | None = None) -> go.Figure:
    """Which dataset ranks which model: one cell per pair, models and datasets with most gaps first.

    Parameters
    ----------
    g : Gaps
    height : int, optional
        Pixels (default: grows with the number of datasets, 260…900).
    """
    mo = np.lexsort((np.asarray(g.models, dtype=object), g.ranked.sum(axis=0)))
    do = np.lexsort((np.asarray(g.datasets, dtype=object), g.ranked.sum(axis=1)))
    z = g.ranked[np.ix_(do, mo)].astype(float)
    models = [escape(g.models[i]) for i in mo]
    datasets = [escape(g.datasets[i]) for i in do]
    fig = go.Figure(go.Heatmap(
        z=z, x=models, y=datasets, zmin=0, zmax=1, showscale=False, xgap=0, ygap=0,
        colorscale=[[0.0, _MISSING], [0.5, _MISSING], [0.5, _PRESENT], [1.0, _PRESENT]],
        customdata=np.where(z > 0, "ranked", "missing"),
        hovertemplate="%{y} × %{x}: %{customdata}<extra></extra>",
    ))
    fig.update_xaxes(showticklabels=len(models) <= 60, automargin=True, tickangle=-45 if len(models) > 8 else 0,
                     dtick=1 if len(models) <= 60 else None, title_text=f"{len(models)} models, most gaps on the left")
    fig.update_yaxes(showticklabels=len(datasets) <= 60, automargin=True, autorange="reversed",
                     dtick=1 if len(datasets) <= 60 else None, title_text=f"{len(datasets)} datasets, most gaps on top")
    h = height or int(min(900, max(300, 16 * len(datasets) + 160)))
    return apply_layout(fig, "Gaps: which dataset ranks which model (blue = ranked, pale = missing)", h)
