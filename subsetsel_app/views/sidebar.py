"""The sidebar below the page list: the active benchmark, its representation, the seed,
where evaluations run and the workspace file."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import session
from subsetsel_app.active_data import SOURCES
from subsetsel_app.state import K
from subsetsel_app.views import compute, workspace
from subsetsel_app.widgets import md_escape, number
from subsetsel_core.errors import InputError


def sidebar() -> None:
    """Draw the sidebar (every page has it; ``app.py`` calls this before the page runs)."""
    try:
        data = session.active()
    except InputError:
        return
    b = data.benchmark
    with st.sidebar:
        st.markdown("**Active benchmark**")
        st.markdown(md_escape(data.title))
        st.caption(
            f"{b.n_datasets} datasets · {b.n_models} models · {b.n_folds} fold(s) · "
            f"{'higher' if b.higher_is_better else 'lower'} is better · {SOURCES.get(data.source, data.source)}"
        )
        if n := len(data.report.changes()):
            st.caption(f":material/warning: Read with {n} change(s) against its files; the Benchmark page lists "
                       f"{'it' if n == 1 else 'them'}.")
        rec = session.current_recipe(data)
        st.markdown("**Representation**")
        st.caption(md_escape(rec.label) if rec is not None else "none (no descriptor table)")
        if data.uses_names(rec):
            st.caption("The datasets' names: weak descriptors — the permutation test judges whether they help.")
        number(K.SEED, step=1,
               help="One seed for selections, maps and evaluations: same seed, same result.")
    compute.section()
    workspace.section()
