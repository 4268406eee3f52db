"""Widget callbacks (run before the page script, so the sidebar sees their effect)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import EvaluationConfig

from . import compute_ui, runner, state, upload
from . import data as D
from .model import ActiveData
from .state import K


def load_folder(folder: str) -> None:
    """Load a benchmark folder and make it active; a readable error keeps the old one."""
    try:
        new = D.load_folder(folder)
    except InputError as exc:
        state.flash("error", f"Could not load {folder}: {exc} The previous benchmark is still active.")
        return
    _activate(new, f"Loaded {new.title}: {new.benchmark.n_datasets} datasets, {new.benchmark.n_models} models.")


def use_upload(new: ActiveData) -> None:
    """Make a validated upload the active benchmark."""
    _activate(new, f"Using the uploaded benchmark '{new.title}': {new.benchmark.n_datasets} datasets, "
                   f"{new.benchmark.n_models} models, {new.benchmark.n_folds} fold(s).")


def _activate(new: ActiveData, message: str) -> None:
    old = st.session_state.get(K.DATA)
    st.session_state[K.DATA] = new
    if old is None or old.token != new.token:
        state.reset_for_new_benchmark()
    state.flash("success", message)


def add_aliases(aliases: Mapping[str, str]) -> None:
    """Append suggested aliases to the alias box (keeping what the user typed)."""
    try:
        cur = upload.parse_aliases(st.session_state.get(K.UP_ALIASES, ""))
    except InputError:
        cur = {}
    extra = {a: b for a, b in aliases.items() if a not in cur}
    text = st.session_state.get(K.UP_ALIASES, "").rstrip()
    add = upload.format_aliases(extra)
    st.session_state[K.UP_ALIASES] = (text + "\n" + add).strip() if text else add


def clear_upload() -> None:
    """Forget the uploaded files (new uploader widgets) and the guessed mapping."""
    st.session_state[K.UP_NONCE] = int(st.session_state.get(K.UP_NONCE, 0)) + 1
    st.session_state[K.UP_GUESSED] = None
    st.session_state[K.UP_ALIASES] = ""


def start_evaluation_from_state() -> None:
    """Form callback: start the evaluation configured on the Evaluate page."""
    from . import evalview

    data = D.active()
    start_evaluation(data, list(st.session_state[K.EV_REPS] or []), evalview.config_from_state(data))


def start_evaluation(data: ActiveData, rep_names: Sequence[str], config: EvaluationConfig) -> None:
    """Build the representations and start a background evaluation (errors are flashed)."""
    from . import ui

    runner.stop_run(st.session_state.get(K.EV_RUN))  # one run per session at a time
    reps = {}
    try:
        if any(s != "random" for s in config.strategies) and not rep_names:
            raise InputError("choose at least one representation for the strategies other than random.")
        for name in rep_names:
            cfg = ui.evaluation_configs(data).get(name)
            if cfg is None:
                raise InputError(f"unknown representation '{name}'.")
            reps[cfg.name] = D.representation(data, cfg, int(st.session_state[K.SEED]))
        run = runner.start_run(data.benchmark, reps, config, token=data.token, mapper=compute_ui.mapper_from_state())
    except InputError as exc:
        state.flash("error", f"The evaluation could not start: {exc}")
        return
    st.session_state[K.EV_RUN] = run.id


def stop_evaluation() -> None:
    """Ask the session's running evaluation to stop after its current batch."""
    runner.stop_run(st.session_state.get(K.EV_RUN))
