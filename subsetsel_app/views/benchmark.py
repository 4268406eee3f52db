"""The Benchmark page's state and callbacks: loading a folder, using or clearing an upload.

Callbacks run before the page script, so the sidebar sees their effect at once.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from subsetsel_app import cache, session, state, upload
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError


def load_folder(folder: str) -> None:
    """Callback: load a benchmark folder and make it active; a readable error keeps the old one."""
    try:
        new = cache.load_folder(folder)
    except InputError as exc:
        state.flash("error", f"Could not load {folder}: {upload.error_text(exc)} The previous benchmark is still "
                             "active.")
        return
    session.activate(new, f"Loaded {new.title}: {new.benchmark.n_datasets} datasets, "
                          f"{new.benchmark.n_models} models.")


def use_upload(new: ActiveData) -> None:
    """Callback: make a validated upload the active benchmark."""
    session.activate(new, f"Using the uploaded benchmark '{new.title}': {new.benchmark.n_datasets} datasets, "
                          f"{new.benchmark.n_models} models, {new.benchmark.n_folds} fold(s).")


def add_aliases(aliases: Mapping[str, str]) -> None:
    """Callback: append suggested aliases to the alias box (keeping what the user typed)."""
    try:
        cur = upload.parse_aliases(st.session_state.get(K.UP_ALIASES, ""))
    except InputError:
        cur = {}
    extra = {a: b for a, b in aliases.items() if a not in cur}
    text = st.session_state.get(K.UP_ALIASES, "").rstrip()
    add = upload.format_aliases(extra)
    st.session_state[K.UP_ALIASES] = (text + "\n" + add).strip() if text else add


def clear_upload() -> None:
    """Callback: forget the uploaded files (new uploader widgets) and the guessed mapping."""
    st.session_state[K.UP_NONCE] = int(st.session_state.get(K.UP_NONCE, 0)) + 1
    st.session_state[K.UP_GUESSED] = None
    st.session_state[K.UP_ALIASES] = ""
