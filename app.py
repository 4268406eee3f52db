"""subsetsel dashboard: ``streamlit run app.py``.

The entry point only sets the page up, declares the session state, builds the navigation
from :data:`pages.PAGES`, draws the shared sidebar and hands over to the page the user chose.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages import PAGES
from subsetsel_app import access, entry, persist, state
from subsetsel_app.views.sidebar import sidebar

FAVICON = str(Path(__file__).resolve().parent / "subsetsel_app" / "assets" / "favicon.png")

# A local favicon: a Material icon here would be fetched from a font server (no page asks any other host).
st.set_page_config(page_title="subsetsel — ranking-preserving benchmark subsets", page_icon=FAVICON,
                   layout="wide", initial_sidebar_state="expanded")
access.gate()  # with require_login, nothing below runs before the visitor logs in (docs/deploy.md)
state.init()
persist.begin()  # a reload or a shared link (?s=<id>): the kept session comes back
page = st.navigation([st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path, default=p.default)
                      for p in PAGES], position="sidebar")
entry.resume({p.url: p.file for p in PAGES if p.url})
sidebar()
page.run()
persist.save(end=True)  # kept on the server when it changed (subsetsel_app.persist)
