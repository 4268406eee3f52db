"""Representation: which descriptors describe a dataset, the map, whether it fits performance, and what the
GP model predicts for every strategy before any run."""

from __future__ import annotations

import streamlit as st

from pages import page
from subsetsel_app import cache, session, state, widgets
from subsetsel_app.active_data import NAMES_NOTE, NAMES_NOTE_SHORT
from subsetsel_app.state import K
from subsetsel_app.views import decisions, theory
from subsetsel_core.text.rounding import printf, text
from subsetsel_core.viz import geometry

widgets.header("Representation",
               "The a-priori descriptors a strategy sees (never the scores), how they are encoded, and what they "
               "look like.")
data = widgets.active_or_stop()
if not data.tables:
    st.info("This benchmark has no descriptor table, so only random selection is possible. Upload descriptor "
            "tables on the Benchmark page.")
    st.page_link(page("benchmark").file, label="Go to the Benchmark page", icon=":material/table_chart:")
    st.stop()

session.ensure_rep_state(data)
if data.only_names:
    st.info(NAMES_NOTE, icon=":material/info:")
elif data.uses_names(session.current_recipe(data)):
    st.info(NAMES_NOTE_SHORT, icon=":material/info:")
settings, view = st.columns([1.25, 2.2], gap="large")
with settings:
    st.markdown("#### Descriptors")
    st.multiselect("Descriptor tables", list(data.tables), key=K.REP_TABLES, persist_state=state.PERSIST,
                   on_change=session.reset_rep_columns,
                   format_func=lambda t: (f"{t} — {data.specs[t].title}" if data.is_names(t) else
                                          f"{t} ({data.specs[t].kind})" if t in data.specs else t),
                   help="Several tables are joined on the dataset name.")
    tables = tuple(st.session_state[K.REP_TABLES])
    if tables:
        joined = cache.joined(data, tables)
        if joined.pickable:
            state.ensure_subset(K.REP_COLUMNS, joined.pickable)
            st.multiselect("Columns", joined.pickable, key=K.REP_COLUMNS, persist_state=state.PERSIST,
                           help="Numeric columns are used as they are, categorical ones one-hot, text with TF-IDF.")
        if joined.embedding:
            st.caption(f"Embedding columns used in full: {len(joined.embedding)}.")
    st.markdown("#### Encoding")
    st.toggle("Embed text columns (TF-IDF + SVD)", key=K.REP_TEXT, persist_state=state.PERSIST,
              help="Off: text columns are dropped.")
    st.toggle("Log-scale heavy-tailed counts", key=K.REP_LOG, persist_state=state.PERSIST,
              help="log1p of non-negative columns whose max is over 100× their median (sizes, lengths).")
    st.toggle("PCA", key=K.REP_PCA, persist_state=state.PERSIST,
              help="Replace the columns by principal components of the standardised columns.")
    if st.session_state[K.REP_PCA]:
        widgets.slider(K.REP_PCA_VAR, label="Variance kept by PCA", step=0.05)

rec, rep, err = session.current_representation(data)
with settings:
    if rep is not None:
        st.metric("Features", rep.X.shape[1], help=f"{rep.X.shape[0]} datasets × {rep.X.shape[1]} encoded features")
        with st.expander("Encoding report"):
            widgets.show_report(rep.report, expanded_info=True)
with view:
    if rep is None or rec is None:
        st.error(widgets.md_escape(err or "Choose at least one descriptor table."), icon=widgets.ICONS["error"])
    else:
        st.markdown(f"#### Map of the datasets — {widgets.md_escape(rec.label)}")
        widgets.map_controls(data, page="representation")
        widgets.map_chart(data, rec, rep, key="rep_map", height=560)
        st.caption("Hover a point to see the dataset and its descriptors. Nearby points have similar descriptors.")

if rep is not None and rec is not None:
    st.divider()
    st.markdown("#### Does the geometry follow the models' performance?")
    geo = cache.geometry(data, rec, rep, session.seed())
    c = st.columns([1, 1, 1, 3])
    c[0].metric("Spearman ρ", text(geo.rho, "correlation"), help="Between pairwise descriptor distances and pairwise "
                "performance distances (1 − Spearman correlation of the datasets' model-rank vectors).")
    c[1].metric("Mantel p", text(geo.p_value, "p"), help=f"One-sided, {geo.permutations} permutations of the datasets.")
    c[2].metric("Agreement", geo.strength())
    c[3].caption(
        "If datasets that are close in descriptor space also rank the models alike, a strategy that spreads the "
        "subset over the map covers the different performance behaviours — and should beat random. A ρ near 0 "
        "means the descriptors say little about how models rank."
    )
    g1, g2 = st.columns([3, 2], gap="large")
    widgets.chart(geometry.geometry_figure(geo.desc_dist, geo.rank_dist, rho=geo.rho), key="rep_geometry",
                  container=g1)
    with g2:
        st.markdown("**All representations of this benchmark**")
        st.dataframe(decisions.geometry_table(data, session.seed()), hide_index=True, width="stretch",
                     column_config={"Spearman ρ": st.column_config.NumberColumn(format=printf("correlation"))})
    st.divider()
    finish_preview = theory.preview(data, rep)  # the costlier strategies' curves are added last
    st.divider()
    decisions.representation_check_section(data, rec)
    finish_preview()
