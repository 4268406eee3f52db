"""The session's benchmark and representation: what every page reads first.

:func:`active` is the session's :class:`~subsetsel_app.active_data.ActiveData` (the default
sample on first use), :func:`activate` makes another benchmark active; the
Representation page's widgets describe the :func:`current_recipe`, and the Evaluate page
offers :func:`offered_recipes`. Computations go through :mod:`subsetsel_app.cache`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.settings.table import RECIPE, SETTINGS

from . import cache, state
from .active_data import ActiveData
from .state import K


def active() -> ActiveData:
    """The session's active benchmark (the default sample on first use).

    Raises
    ------
    InputError
        Even the default sample cannot be loaded.
    """
    data = st.session_state.get(K.DATA)
    if data is None:
        data = cache.default_data()
        st.session_state[K.DATA] = data
    return data


def activate(new: ActiveData, message: str | None = None, *, keep: Sequence[str] = ()) -> None:
    """Make ``new`` the session's benchmark; the settings that depend on it reset when it changes.

    ``message`` is shown at the top of the next page, then a notice naming the settings the
    switch reset (those the user had changed); the keys in ``keep`` are not reset (the
    upload's own reading settings, when the upload becomes the benchmark).
    """
    old = st.session_state.get(K.DATA)
    auto = filled_in(old) if old is not None and old.token != new.token else {}
    st.session_state[K.DATA] = new
    if message:
        state.flash("success", message)
    if old is None or old.token != new.token:
        changes = state.reset_for_new_benchmark(keep=keep, auto=auto)
        if changes:
            state.flash("info", state.reset_notice(changes))


def report_title(data: ActiveData) -> str:
    """The Report page's title until the user types another."""
    return f"Ranking-preserving subset — {data.title}"


def _default_tables(data: ActiveData) -> list[str]:
    usable = list(data.usable_tables())
    return usable[:1] if usable else list(data.tables)[:1]


def filled_in(data: ActiveData, ss: Mapping[Any, Any] | None = None) -> dict[str, Any]:
    """The values the pages fill in for ``data`` where a setting's default is "automatic"
    (None) or capped by the benchmark: a setting holding one of them was not chosen by the user."""
    ss = st.session_state if ss is None else ss
    n = data.benchmark.n_datasets
    out: dict[str, Any] = {K.MAP_COLOR: cache.color_options(data)[1], K.RP_TITLE: report_title(data),
                           K.REP_TABLES: _default_tables(data),
                           K.SEL_K: min(int(state.default(K.SEL_K)), n),
                           K.EV_KRANGE: tuple(max(1, min(int(v), n)) for v in state.default(K.EV_KRANGE)),
                           K.EV_REPS: [cache.recipe(data, RepresentationRecipe((t,))).label for t in data.usable_tables()[:1]]}
    tables = ss.get(K.REP_TABLES)
    if tables and set(tables) <= set(data.tables):
        out[K.REP_COLUMNS] = list(cache.default_columns(data, tuple(tables)))
    return out


def seed() -> int:
    """The session's seed (sidebar): same seed, same selections, maps and evaluations."""
    return int(st.session_state[K.SEED])


def ensure_rep_state(data: ActiveData) -> None:
    """Fill in / repair the Representation widgets' values for the active benchmark."""
    tables = st.session_state.get(K.REP_TABLES)
    if not tables or not set(tables) <= set(data.tables):
        st.session_state[K.REP_TABLES] = _default_tables(data)
    chosen = tuple(st.session_state[K.REP_TABLES])
    if not chosen:
        st.session_state[K.REP_COLUMNS] = []
    elif st.session_state.get(K.REP_COLUMNS) is None:
        st.session_state[K.REP_COLUMNS] = list(cache.default_columns(data, chosen))
    else:
        state.ensure_subset(K.REP_COLUMNS, cache.joined(data, chosen).pickable)


def reset_rep_columns() -> None:
    """Callback: a new table choice → that choice's default columns."""
    st.session_state[K.REP_COLUMNS] = None


#: The recipe's settings and the session keys that hold them (the Representation page's widgets).
RECIPE_KEYS: dict[str, str] = {spec.setting: key for key, spec in state.KEYS.items()
                               if spec.setting in {s.name for s in RECIPE}}


def _typed(name: str, value: Any) -> Any:
    kind = SETTINGS[name].kind
    if value is None:
        return None
    return {"bool": bool, "float": float, "int": int, "names": tuple}.get(kind, lambda v: v)(value)


def recipe_from_state(ss: Any) -> RepresentationRecipe:
    """The recipe the session's Representation settings describe (unnamed), field by setting name.

    ``ss``: ``st.session_state`` or a plain mapping of its keys.

    PCA is applied when its toggle is on (the variance is kept while it is off).
    """
    values = {name: _typed(name, ss.get(key)) for name, key in RECIPE_KEYS.items()}
    if not ss.get(K.REP_PCA):
        values["pca"] = None
    return RepresentationRecipe(**values)


def recipe_to_state(rec: RepresentationRecipe, ss: Any) -> None:
    """Set the Representation settings of the session to a recipe's (the inverse of :func:`recipe_from_state`)."""
    for name, key in RECIPE_KEYS.items():
        value = getattr(rec, name)
        if name == "pca":
            ss[K.REP_PCA] = value is not None
            if value is None:
                continue  # the variance stays as the user left it
        ss[key] = list(value) if isinstance(value, tuple) else value


def current_recipe(data: ActiveData) -> RepresentationRecipe | None:
    """The representation configured on the Representation page (None without tables)."""
    if not data.tables:
        return None
    ensure_rep_state(data)
    tables = tuple(st.session_state[K.REP_TABLES])
    if not tables:
        return None
    return cache.recipe(data, recipe_from_state(st.session_state))


def current_representation(data: ActiveData) -> tuple[RepresentationRecipe | None, Representation | None, str | None]:
    """The configured representation, or ``(recipe, None, message)`` when it cannot be built."""
    rec = current_recipe(data)
    rep, err = cache.try_representation(data, rec, seed())
    return rec, rep, err


def offered_recipes(data: ActiveData) -> dict[str, RepresentationRecipe]:
    """Representations the Evaluate page offers: each usable table, and the configured one."""
    out = {r.label: r for r in (cache.recipe(data, RepresentationRecipe((t,))) for t in data.usable_tables())}
    cur = current_recipe(data)
    if cur is not None and cur.label not in out:
        out[cur.label] = cur
    return out
