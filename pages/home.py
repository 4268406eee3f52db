"""Start: the active benchmark at a glance — its size, the model leaderboard and a map."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import data as D
from subsetsel_app import ui
from subsetsel_core.viz import svg

ui.header(
    "Ranking-preserving benchmark subsets",
    "Pick a few datasets of a multi-dataset benchmark — from a-priori descriptors only — so that "
    "the model ranking on the subset matches the full ranking.",
)
data = ui.active_or_stop()
st.subheader(ui.md_escape(data.title))
if data.description:
    st.caption(ui.md_escape(data.description))
ui.benchmark_metrics(data)

# plain HTML and SVG here (no chart library to load): the page is complete as soon as it shows
left, right = st.columns([5, 6], gap="large")
with left:
    st.markdown("#### Leaderboard on the full benchmark")
    board = D.leaderboard(data)
    ui.html(svg.leaderboard_html(board, top=ui.TOP_MODELS))
    shown = f"Top {ui.TOP_MODELS} of {len(board)} models" if len(board) > ui.TOP_MODELS else f"All {len(board)} models"
    st.caption(f"{shown} by mean rank over all {data.benchmark.n_datasets} datasets "
               "(average ranks for ties). This is the ranking a subset should preserve.")
with right:
    st.markdown("#### Map of the datasets")
    cfg, rep, err = ui.current_representation(data)
    if rep is None or cfg is None:
        st.info(f"No map: {ui.md_escape(err)} Load descriptors on the Benchmark page.")
    else:
        ui.map_controls(data, page="home")
        ui.map_glance(data, cfg, rep)
        st.caption(f"Each point is a dataset, placed by its descriptors ({ui.md_escape(cfg.name)}); hover a point "
                   "for its name and values.")
        st.page_link("pages/representation.py", label="Zoom, pan and compare projections on the Representation page",
                     icon=":material/open_in_full:")

st.markdown("#### Next steps")
c = st.columns(4)
c[0].page_link("pages/benchmark.py", label="Load or upload a benchmark", icon=":material/table_chart:")
c[1].page_link("pages/representation.py", label="Choose the descriptors", icon=":material/scatter_plot:")
c[2].page_link("pages/select.py", label="Select a subset", icon=":material/checklist:")
c[3].page_link("pages/evaluate.py", label="Test against random", icon=":material/monitoring:")
