"""Start: the active benchmark at a glance — its size, the model leaderboard and a map."""

from __future__ import annotations

import streamlit as st

from pages import page
from subsetsel_app import cache, session, widgets
from subsetsel_core.viz import svg

widgets.header(
    "Ranking-preserving benchmark subsets",
    "Pick a few datasets of a multi-dataset benchmark — from a-priori descriptors only — so that "
    "the model ranking on the subset matches the full ranking.",
)
data = widgets.active_or_stop()
st.subheader(widgets.md_escape(data.title))
if data.description:
    st.caption(widgets.md_escape(data.description))
widgets.benchmark_metrics(data)
widgets.show_changes(data.report)  # what the reading changed against the files, said as warnings

# plain HTML and SVG here (no chart library to load): the page is complete as soon as it shows
left, right = st.columns([5, 6], gap="large")
with left:
    st.markdown("#### Leaderboard on the full benchmark")
    board = cache.leaderboard(data)
    stab = cache.stability(data, session.seed())
    widgets.html(svg.leaderboard_html(stab.annotate(board), top=widgets.TOP_MODELS))
    top = widgets.TOP_MODELS
    shown = f"Top {top} of {len(board)} models" if len(board) > top else f"All {len(board)} models"
    st.caption(f"{shown} by mean rank over all {data.benchmark.n_datasets} datasets "
               "(average ranks for ties). This is the ranking a subset should preserve. "
               f"95% rank interval: the model's positions over {widgets.md_escape(stab.describe())}; rows shaded "
               f"alike and marked ≈ form a tie group (adjacent order not decided in 95 % of resamples). "
               f"{widgets.md_escape(stab.summary())}"
               + (" The table has gaps ('partial' policy): each model's mean rank is over the datasets that rank "
                  "it (column datasets)." if data.benchmark.has_gaps else ""))
with right:
    st.markdown("#### Map of the datasets")
    rec, rep, err = session.current_representation(data)
    if rep is None or rec is None:
        st.info(f"No map: {widgets.md_escape(err)} Load descriptors on the Benchmark page.")
    else:
        widgets.map_controls(data, page="home")
        widgets.map_glance(data, rec, rep)
        st.caption(f"Each point is a dataset, placed by its descriptors ({widgets.md_escape(rec.label)}); hover a "
                   "point for its name and values.")
        st.page_link(page("representation").file, label="Zoom, pan and compare projections on the Representation page",
                     icon=":material/open_in_full:")

st.markdown("#### Next steps")
c = st.columns(4)
c[0].page_link(page("benchmark").file, label="Load or upload a benchmark", icon=":material/table_chart:")
c[1].page_link(page("representation").file, label="Choose the descriptors", icon=":material/scatter_plot:")
c[2].page_link(page("select").file, label="Select a subset", icon=":material/checklist:")
c[3].page_link(page("evaluate").file, label="Test against random", icon=":material/monitoring:")
