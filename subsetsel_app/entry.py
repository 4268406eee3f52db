"""Every page runs under ``app.py``, even when a new server's first visit is a deep link.

The Streamlit behaviour this works around: a server decides once, at its first script
run, whether the app uses the legacy ``pages/`` directory (a folder named ``pages`` next
to the entry point) or ``st.navigation``, and it learns the latter only by running
``app.py``. So when the first visit of a new server is a page's address (a bookmark, or a
tab reconnecting after a restart), Streamlit runs that page script on its own, without
``app.py``'s session state, sidebar and navigation.

The page then notices that :func:`subsetsel_app.state.init` has not run in the session
(:func:`leave_if_alone`), remembers its address and switches to the entry point with
``st.switch_page("app.py")`` (documented for ``pages/``-directory apps). ``app.py`` calls
``st.navigation`` — from then on the server uses it for every session — and
:func:`resume` switches on to the remembered page.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from . import state
from .state import K

ENTRY_POINT = "app.py"


def leave_if_alone() -> None:
    """Switch to the entry point if this page runs without ``app.py`` (see the module docstring)."""
    if not state.initialised():
        url = (st.context.url or "").rstrip("/")
        st.session_state[K.ENTRY_TARGET] = url.rpartition("/")[2].partition("?")[0]
        st.switch_page(ENTRY_POINT, query_params=st.query_params.to_dict())  # keeps ?s=<id> (subsetsel_app.persist)


def resume(files_by_url: Mapping[str, str]) -> None:
    """After ``st.navigation`` in ``app.py``: go on to the page a lone page run was going to.

    Parameters
    ----------
    files_by_url : mapping
        Page address (``"select"``) → page script (``"pages/select.py"``).
    """
    target = st.session_state.get(K.ENTRY_TARGET)
    if target:
        st.session_state[K.ENTRY_TARGET] = None
        if target in files_by_url:
            st.switch_page(files_by_url[target], query_params=st.query_params.to_dict())
