"""The Benchmark page's state and callbacks: loading a folder, using or clearing an upload.

Callbacks run before the page script, so the sidebar sees their effect at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from subsetsel_app import cache, limits, session, state, upload
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_app.widgets import ICONS, md_escape
from subsetsel_core.errors import InputError
from subsetsel_core.io.roots import confine_directory, offering_root
from subsetsel_core.loading.manifest import Manifest


@dataclass(frozen=True)
class Offered:
    """The benchmark folders the server offers (:func:`offered_catalog`).

    Attributes
    ----------
    manifests : tuple of Manifest
        The valid benchmark folders, root by root.
    problems : tuple of (Path, str)
        Folders that could not be read, with why.
    errors : tuple of str
        A typed directory outside the roots, or a root that cannot be listed.
    """

    manifests: tuple[Manifest, ...] = ()
    problems: tuple[tuple[Path, str], ...] = ()
    errors: tuple[str, ...] = ()


def offered_catalog(typed: str = "") -> Offered:
    """The benchmark folders of every benchmark root, or of the directory typed in the path field
    (which must lie inside a root, links followed; see :func:`subsetsel_core.io.roots.confine_directory`)."""
    roots = limits.roots()
    try:
        dirs = [confine_directory(typed, roots)] if typed.strip() else list(roots)
    except InputError as exc:
        return Offered(errors=(upload.error_text(exc),))
    manifests: list[Manifest] = []
    problems: list[tuple[Path, str]] = []
    errors: list[str] = []
    for d in dirs:
        try:
            cat = cache.catalog(str(d))
        except InputError as exc:
            errors.append(upload.error_text(exc))
            continue
        manifests += cat.manifests
        problems += cat.problems
    return Offered(tuple(manifests), tuple(problems), tuple(errors))


def load_folder(folder: str) -> None:
    """Callback: load a benchmark folder and make it active; a readable error keeps the old one.

    Only a folder inside a benchmark root of the server is loaded.
    """
    if offering_root(folder, limits.roots()) is None:
        state.flash("error", "This benchmark folder is not among the benchmarks this server offers. The previous "
                             "benchmark is still active.")
        return
    try:
        new = cache.load_folder(folder)
    except InputError as exc:
        state.flash("error", f"Could not load {folder}: {upload.error_text(exc)} The previous benchmark is still "
                             "active.")
        return
    session.activate(new, f"Loaded {new.title}: {new.benchmark.n_datasets} datasets, "
                          f"{new.benchmark.n_models} models.")


#: The uploads' own settings: they describe the files still in the uploaders, so using an
#: upload does not reset them (a new file does, and so does any other benchmark).
UPLOAD_KEYS = (K.UP_MISSING, K.UP_RES_MISSING)


def use_upload(new: ActiveData) -> None:
    """Callback: make a validated upload the active benchmark."""
    session.activate(new, f"Using the uploaded benchmark '{new.title}': {new.benchmark.n_datasets} datasets, "
                          f"{new.benchmark.n_models} models, {new.benchmark.n_folds} fold(s).", keep=UPLOAD_KEYS)


#: Why *Use* is disabled while the scores cannot be loaded, or the aliases cannot be read.
NOT_LOADED = "the scores cannot be loaded as they are: the error above says what to change"
ALIASES_UNREAD = "the aliases cannot be read: the error above says which line to fix"


def use_button(data: ActiveData | None, why: Sequence[str], assumption: str | None = None) -> None:
    """*Use this benchmark (sizes)*, disabled while ``why`` names a part not usable yet (each reason
    said next to it, and as the button's tooltip) or there is no benchmark to use; the sizes and
    the assumption the reading makes are on its label."""
    reasons = list(dict.fromkeys(why)) or ([] if data is not None else [NOT_LOADED])
    for w in reasons:
        st.warning(md_escape(f"Not usable yet: {w}."), icon=ICONS["warning"])
    label = "Use this benchmark"
    if data is not None:
        b = data.benchmark
        label += (f" ({b.n_datasets} datasets × {b.n_models} models × {b.n_folds} folds"
                  + (f"; {assumption}" if assumption else "") + ")")
    st.button(label, type="primary", disabled=bool(reasons), on_click=None if reasons else use_upload,
              args=(data,), key="use_upload_btn", help="; ".join(reasons) or None)


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
