"""subsetsel dashboard: ``streamlit run app.py``.

The entry point only sets the page up, declares the session state, builds the navigation
from :data:`pages.PAGES`, draws the shared sidebar and hands over to the page the user chose.
"""

from __future__ import annotations

import streamlit as st

from pages import PAGES
from subsetsel_app import entry, state
from subsetsel_app.views.sidebar import sidebar

st.set_page_config(page_title="subsetsel — ranking-preserving benchmark subsets", page_icon=":material/target:",
                   layout="wide", initial_sidebar_state="expanded")
state.init()
page = st.navigation([st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path, default=p.default)
                      for p in PAGES], position="sidebar")
entry.resume({p.url: p.file for p in PAGES if p.url})
sidebar()
page.run()
