"""The look shared by every plotly figure: fonts, axes, palettes, colours and safe labels.

A strategy's colour is its registry entry's
(``subsetsel_core.strategies.REGISTRY[name].colour``), so a strategy looks the same on every
page and in every report. Text that comes from user files (dataset, model and column names,
descriptor values) goes through :func:`escape` before it becomes a plotly label.
"""

from __future__ import annotations

import html

import plotly.graph_objects as go

from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.strategies import REGISTRY

__all__ = [
    "CATEGORY_COLORS",
    "DASHES",
    "EXPORT_TEMPLATE",
    "apply_layout",
    "escape",
    "for_export",
    "metric_title",
    "rgba",
    "strategy_color",
]

#: Colours of names that are not registered strategies (picked by a hash of the name).
_EXTRA_COLORS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939")
#: Discrete palette for categorical descriptors on the map.
CATEGORY_COLORS: tuple[str, ...] = (
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2",
    "#ff9da6", "#9d755d", "#bab0ac", "#1b9e77", "#d95f02", "#7570b3", "#e7298a",
    "#66a61e", "#e6ab02", "#a6761d", "#666666", "#8dd3c7", "#fb8072",
)
#: Line dashes of the representations on a curves figure, in order of appearance.
DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_FONT = {"family": "Source Sans Pro, Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13, "color": "#31333f"}
_GRID = "#e6e9ef"
_AXIS = "#c9ced8"
#: Template applied to figures written to files (HTML, PNG, SVG).
EXPORT_TEMPLATE = "plotly_white"


def escape(value: object) -> str:
    """HTML-escape a value for a plotly label (``%{`` is defused too).

    Quotes stay as they are: plotly.js decodes ``&lt;`` ``&gt;`` ``&amp;`` and numeric entities but
    would show ``&quot;`` literally.
    """
    return html.escape(str(value), quote=False).replace("%{", "%&#123;")


def strategy_color(strategy: str) -> str:
    """The colour of a strategy: its registry entry's, else a stable colour for the name.

    Parameters
    ----------
    strategy : str
        A registry name, or a key ``"name [representation]"`` (the name part decides).

    Returns
    -------
    str
        A hex colour.
    """
    name = strategy.split(" [", 1)[0].strip()
    info = REGISTRY.get(name)
    if info is not None:
        return info.colour
    return _EXTRA_COLORS[sum(map(ord, name)) % len(_EXTRA_COLORS)]


def rgba(hex_color: str, alpha: float) -> str:
    """``"#rrggbb"`` as a CSS ``rgba(r,g,b,alpha)`` colour."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def metric_title(metric: str, context: str = "") -> str:
    """An axis title naming a metric and its direction, e.g. ``"Spearman ρ (higher is better)"``.

    Parameters
    ----------
    metric : str
        A key of :data:`subsetsel_core.ranks.metrics.METRICS`.
    context : str
        Written between the label and the direction (e.g. ``" vs full ranking"``).
    """
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    return f"{METRICS[metric].label}{context} ({better} is better)"


def apply_layout(fig: go.Figure, title: str | None, height: int) -> go.Figure:
    """Give ``fig`` the shared style, an escaped title and a height (in place; returned).

    The style is the empty ``"none"`` template plus a few colours: a named template such as
    ``plotly_white`` costs ~35 ms per figure to validate and copy, and Streamlit's chart theme
    doubles the browser's drawing time; files get :data:`EXPORT_TEMPLATE` (:func:`for_export`).
    """
    fig.update_layout(
        template="none",
        title={"text": escape(title) if title else None, "x": 0.01, "xanchor": "left"},
        height=height,
        margin={"l": 64, "r": 16, "t": 56 if title else 28, "b": 56},
        font=_FONT,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="white",
        hoverlabel={"font_size": 12},
        legend={"bgcolor": "rgba(0,0,0,0)"},
    )
    fig.update_xaxes(gridcolor=_GRID, linecolor=_AXIS, zeroline=False)
    fig.update_yaxes(gridcolor=_GRID, linecolor=_AXIS, zeroline=False)
    return fig


def for_export(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` styled for a file (white template)."""
    out = go.Figure(fig)
    out.update_layout(template=EXPORT_TEMPLATE)
    return out
