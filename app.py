"""subsetsel dashboard: ``streamlit run app.py``.

The entry point only sets the page up, declares the session state, draws the shared
sidebar and hands over to the page the user chose (``st.navigation`` over ``pages/``).
"""

from __future__ import annotations

import streamlit as st

from subsetsel_app import state, ui

st.set_page_config(page_title="subsetsel — ranking-preserving benchmark subsets", page_icon=":material/target:",
                   layout="wide", initial_sidebar_state="expanded")

state.init_state()

PAGES = [
    st.Page("pages/home.py", title="Start", icon=":material/home:", default=True),
    st.Page("pages/benchmark.py", title="Benchmark", icon=":material/table_chart:"),
    st.Page("pages/representation.py", title="Representation", icon=":material/scatter_plot:"),
    st.Page("pages/select.py", title="Select", icon=":material/checklist:"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=":material/monitoring:"),
    st.Page("pages/report.py", title="Report", icon=":material/slideshow:"),
]
page = st.navigation(PAGES, position="sidebar")
ui.sidebar()
page.run()
