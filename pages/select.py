"""Select: one strategy, one k — the chosen datasets on the map, in a table, and as a CSV."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import data as D
from subsetsel_app import selectview, state, ui
from subsetsel_app.model import ActiveData
from subsetsel_app.state import K
from subsetsel_core import figures
from subsetsel_core.errors import InputError
from subsetsel_core.metrics import LABELS, METRICS
from subsetsel_core.strategies import REGISTRY

ui.header("Select", "Choose k datasets with a strategy. The subset's ranking is compared with the full benchmark's.")
data = ui.active_or_stop()


@st.fragment
def select_panel(data: ActiveData) -> None:
    """Controls and results; a change of k or strategy reruns only this fragment."""
    n = data.benchmark.n_datasets
    cfg, rep, rep_err = ui.current_representation(data)
    strategies = selectview.available_strategies(rep)
    state.ensure_choice(K.SEL_STRATEGY, strategies, fallback="fafi-cosine")
    state.ensure_subset(K.SEL_INCLUDE, list(data.benchmark.datasets))
    state.ensure_subset(K.SEL_EXCLUDE, list(data.benchmark.datasets))
    k_max = max(1, n - len(st.session_state[K.SEL_EXCLUDE]))
    k_ok = int(min(max(1, int(st.session_state[K.SEL_K])), k_max))
    if k_ok != st.session_state[K.SEL_K]:
        st.session_state[K.SEL_K] = k_ok

    c = st.columns([1.3, 2, 1.6], gap="medium")
    c[0].selectbox("Strategy", strategies, key=K.SEL_STRATEGY, persist_state=state.PERSIST, format_func=lambda s: REGISTRY[s].title,
                   help="\n\n".join(f"**{REGISTRY[s].title}** — {REGISTRY[s].description}" for s in strategies))
    c[1].slider("k — datasets in the subset", 1, k_max, key=K.SEL_K, persist_state=state.PERSIST)
    c[2].markdown(f"**Representation:** {ui.md_escape(cfg.name) if rep is not None and cfg is not None else 'none'}")
    c[2].page_link("pages/representation.py", label="change the descriptors", icon=":material/tune:")
    if rep is None:
        st.warning(f"No representation ({ui.md_escape(rep_err)}); only random selection is available.", icon=ui.ICONS["warning"])
    with st.expander("Must include / exclude", expanded=bool(st.session_state[K.SEL_INCLUDE] or st.session_state[K.SEL_EXCLUDE])):
        e = st.columns(2)
        e[0].multiselect("Must include (chosen first, in this order)", list(data.benchmark.datasets), key=K.SEL_INCLUDE, persist_state=state.PERSIST)
        e[1].multiselect("Exclude (never chosen)", list(data.benchmark.datasets), key=K.SEL_EXCLUDE, persist_state=state.PERSIST)

    strategy = st.session_state[K.SEL_STRATEGY]
    k = int(st.session_state[K.SEL_K])
    seed = int(st.session_state[K.SEED])
    try:
        sel = D.selection(data, cfg if rep is not None else None, rep, strategy, k, seed,
                          tuple(st.session_state[K.SEL_INCLUDE]), tuple(st.session_state[K.SEL_EXCLUDE]))
    except InputError as exc:
        st.error(ui.md_escape(exc), icon=ui.ICONS["error"])
        return

    rand = D.random_profile(data, n, seed)
    m = st.columns(len(METRICS))
    for col, metric in zip(m, METRICS, strict=True):
        med = float(rand[metric][0][k - 1])
        col.metric(LABELS[metric], f"{sel.agreement[metric]:.3f}", delta=f"{sel.agreement[metric] - med:+.3f} vs random",
                   delta_color="inverse" if metric == "mae" else "normal",
                   help=f"{LABELS[metric]} of the subset's model ranking against the full ranking; the delta compares "
                        f"with the median of 200 random {k}-subsets ({med:.3f}).")

    left, right = st.columns([3, 2], gap="large")
    with left:
        if rep is not None and cfg is not None:
            ui.map_controls(data, page="select")
            ui.map_chart(data, cfg, rep, key="select_map", selected=sel.indices,
                         selected_color=figures.strategy_color(strategy), height=540)
            st.caption("Numbers give the selection order; the first k of a farthest-first order are also its best k.")
        else:
            st.info("No map without descriptors.")
    with right:
        st.markdown(f"#### The {k} chosen datasets")
        table = selectview.subset_frame(data, cfg if rep is not None else None, sel)
        st.dataframe(table, hide_index=True, width="stretch", height=430)
        csv_file, json_file = selectview.deferred_downloads(data, cfg if rep is not None else None, sel)
        d = st.columns(2)
        d[0].download_button("Subset CSV", csv_file, file_name=selectview.file_stem(sel) + ".csv", mime="text/csv",
                             icon=":material/download:", key="dl_subset_csv", type="primary", on_click="ignore")
        d[1].download_button("JSON sidecar", json_file, file_name=selectview.file_stem(sel) + ".json",
                             mime="application/json", icon=":material/data_object:", key="dl_subset_json",
                             on_click="ignore")

    st.markdown("#### This strategy for every k")
    p = st.columns([1, 4])
    p[0].selectbox("Metric", list(METRICS), key=K.SEL_METRIC, persist_state=state.PERSIST, format_func=lambda x: LABELS[x])
    fig = D.k_profile_chart(data, cfg if rep is not None else None, rep, strategy, min(n, max(30, k)), seed,
                            selectview.positions(data, st.session_state[K.SEL_INCLUDE]),
                            selectview.positions(data, st.session_state[K.SEL_EXCLUDE]), st.session_state[K.SEL_METRIC])
    ui.chart(fig, key="select_profile", container=p[1])
    st.caption("One deterministic subset per k (this seed) against 200 random subsets of the same size: "
               "a single choice, not the averaged evaluation — see the Evaluate page for that.")


select_panel(data)
