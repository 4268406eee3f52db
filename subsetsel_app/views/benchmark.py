"""The Benchmark page's state and callbacks: loading a folder, the upload's column mapping.

Callbacks run before the page script, so the sidebar sees their effect at once.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from subsetsel_app import cache, session, state, upload
from subsetsel_app.active_data import NONE, ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat


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


def prime_mapping(head: pd.DataFrame, scores: upload.UploadedTable) -> list[str]:
    """Guess the column mapping once per new score file; keep the stored choices valid.

    Returns
    -------
    list of str
        The score table's columns.
    """
    cols = [str(c) for c in head.columns]
    if st.session_state[K.UP_GUESSED] != scores.digest:
        g = upload.guess_mapping(head)
        st.session_state[K.UP_LAYOUT] = g["layout"]
        st.session_state[K.UP_DATASET] = g["dataset"]
        st.session_state[K.UP_MODEL] = g["model"] or cols[min(1, len(cols) - 1)]
        st.session_state[K.UP_SCORE] = g["score"] or cols[-1]
        st.session_state[K.UP_FOLD] = g["fold"] or NONE
        st.session_state[K.UP_NAME] = scores.stem
        st.session_state[K.UP_GUESSED] = scores.digest
    for key in (K.UP_DATASET, K.UP_MODEL, K.UP_SCORE):
        state.ensure_choice(key, cols)
    state.ensure_choice(K.UP_FOLD, [NONE, *cols], fallback=NONE)
    return cols


def score_format() -> ScoreFormat:
    """How to read the uploaded scores, as chosen on the Benchmark page."""
    fold = st.session_state[K.UP_FOLD]
    return ScoreFormat(
        layout=st.session_state[K.UP_LAYOUT],
        dataset_column=st.session_state[K.UP_DATASET],
        model_column=st.session_state[K.UP_MODEL],
        score_column=st.session_state[K.UP_SCORE],
        fold_column=None if fold == NONE else fold,
        higher_is_better=st.session_state[K.UP_HIGHER] == "higher is better",
        missing=st.session_state[K.UP_MISSING],
    )
