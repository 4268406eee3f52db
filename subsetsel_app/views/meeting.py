"""The Report page's presentation, laid out for a meeting: at 1280 × 720 with the sidebar collapsed
the key figures (the map with the subset, the curves with the ceiling band) come first and fit
without scrolling; the verdict, the headline numbers and the chosen datasets follow."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from subsetsel_app import widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.views import evaluate
from subsetsel_app.views import report as view
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text.rounding import text
from subsetsel_core.viz.meeting import fit, spread_map_labels
from subsetsel_core.viz.report import Report

#: Height of the key figures (px): with the page's header and the tabs above them, they end
#: above the bottom of a 720 px high window.
FIGURE_HEIGHT = 380
#: Width one of the two figures is drawn at on a 1280 px wide window (sidebar collapsed).
FIGURE_WIDTH = 540


def meeting_map(fig: go.Figure) -> go.Figure:
    """The map at the meeting size: a compact legend on the right, the numbered markers apart and inside."""
    out = fit(fig, FIGURE_HEIGHT)
    out.update_layout(legend={"font": {"size": 9}, "tracegroupgap": 0, "itemsizing": "constant",
                              "grouptitlefont": {"size": 10}})
    names = [str(t.name) for t in out.data if t.showlegend is not False and t.name]
    legend = 46 + 6 * max((len(n) for n in names), default=0) if names else 0
    return spread_map_labels(out, FIGURE_WIDTH - legend)


def meeting_curves(fig: go.Figure, metric: str) -> go.Figure:
    """The curves at the meeting size: short axis titles, the legend inside where the curves are not."""
    out = fit(fig, FIGURE_HEIGHT)
    up = METRICS[metric].higher_is_better  # curves rise with k: the lower right is free (else the upper right)
    out.update_layout(legend={"orientation": "v", "x": 0.99, "xanchor": "right", "y": 0.02 if up else 0.98,
                              "yanchor": "bottom" if up else "top", "bgcolor": "rgba(255,255,255,0.85)",
                              "font": {"size": 11}}, margin={"b": 44})
    out.update_xaxes(title_text="k")
    out.update_yaxes(title_text=METRICS[metric].label)
    return out


def presentation(data: ActiveData, content: view.Content, report: Report, title: str) -> None:
    """The presentation tab."""
    st.markdown(f"**{widgets.md_escape(title)}**",
                help=widgets.md_escape(report.subtitle) + " Tip: collapse the sidebar for more room while screen "
                                                          "sharing.")
    left, right = st.columns(2, gap="medium")
    with left:
        if "map" in content.figures:
            widgets.chart(meeting_map(content.figures["map"]), key="rp_map")
        else:
            widgets.chart(fit(content.figures["leaderboard"], FIGURE_HEIGHT), key="rp_board_left")
    with right:
        if "curves" in content.figures:
            widgets.chart(meeting_curves(content.figures["curves"], content.metric), key="rp_curves")
        else:
            widgets.chart(fit(content.figures["leaderboard"], FIGURE_HEIGHT), key="rp_board")
    if content.verdict is not None:
        evaluate.show_verdict(content.verdict)
        fav = content.favoured
        if content.mismatch and fav is not None:
            c = st.columns([4, 1.3])
            c[0].warning(widgets.md_escape(content.mismatch), icon=widgets.ICONS["warning"])
            c[1].button(f"Use {fav.strategy}" + (f" on {fav.representation}" if fav.representation else ""),
                        on_click=view.use_favoured, args=(data, fav.strategy, fav.representation),
                        icon=":material/swap_horiz:", key="rp_use_favoured", width="stretch")
    else:
        st.info("No finished evaluation for this benchmark yet — run one on the Evaluate page to add the "
                "rank-agreement curves and the test against random.", icon=":material/monitoring:")
    tiles = [(label, value) for label, value in report.facts if label != "Strategy"]
    for col, (label, value) in zip(st.columns(len(tiles)), tiles, strict=True):
        col.metric(label, value)
    if content.selection is not None:
        sel = content.selection
        st.markdown(f"#### The {sel.k} datasets chosen by {widgets.md_escape(sel.strategy)}")
        st.markdown(" · ".join(f"**{i}.** {widgets.md_escape(d)}" for i, d in enumerate(sel.datasets, start=1)))
        for col, (name, metric) in zip(st.columns(len(METRICS)), METRICS.items(), strict=True):
            col.metric(metric.label, text(sel.agreement[name], "agreement"))
    elif content.selection_error:
        st.error(widgets.md_escape(content.selection_error), icon=widgets.ICONS["error"])
