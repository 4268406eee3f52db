"""Select: one strategy, k datasets or a budget — the chosen datasets on the map, in a table, and as a CSV;
what each chosen dataset stands for; where a new model would rank."""

from __future__ import annotations

import streamlit as st

from pages import page
from subsetsel_app import cache, persist, session, state, upload, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_app.views import placement
from subsetsel_app.views import select as view
from subsetsel_core.errors import InputError
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.selection import profiles
from subsetsel_core.selection.costs import COST_ESTIMATE
from subsetsel_core.text import rounding
from subsetsel_core.viz import style

widgets.header("Select", "Choose k datasets — or as many as a budget allows — with a strategy. The subset's ranking "
                         "is compared with the full benchmark's.")
data = widgets.active_or_stop()


def _error(exc: InputError) -> None:
    st.error(widgets.md_escape(upload.error_text(exc)), icon=widgets.ICONS["error"])


@st.fragment
def select_panel(data: ActiveData) -> None:
    """Controls and results; a change of k, budget or strategy reruns only this fragment."""
    persist.save()  # a fragment's run does not reach the end of app.py: keep the new k or strategy here
    n = data.benchmark.n_datasets
    seed = session.seed()
    rec, rep, rep_err = session.current_representation(data)
    rec = rec if rep is not None else None
    strategies = view.available_strategies(rep)
    state.ensure_choice(K.SEL_STRATEGY, strategies, fallback=state.default(K.SEL_STRATEGY))
    state.ensure_choice(K.SEL_BUDGET_STRATEGY, view.budget_strategies(rep),
                        fallback=state.default(K.SEL_BUDGET_STRATEGY))
    state.ensure_choice(K.SEL_COST, cache.cost_options(data), fallback=COST_ESTIMATE)
    state.ensure_subset(K.SEL_INCLUDE, list(data.benchmark.datasets))
    state.ensure_subset(K.SEL_EXCLUDE, list(data.benchmark.datasets))
    k_max = max(1, n - len(st.session_state[K.SEL_EXCLUDE]))
    k_ok = int(min(max(1, int(st.session_state[K.SEL_K])), k_max))
    if k_ok != st.session_state[K.SEL_K]:
        st.session_state[K.SEL_K] = k_ok

    st.radio("Choose", list(state.SELECT_MODES), key=K.SEL_MODE, persist_state=state.PERSIST, horizontal=True,
             help="A number of datasets, or a total cost (e.g. GPU hours) the subset may not exceed.")
    budget_mode = st.session_state[K.SEL_MODE] == state.SELECT_MODES[1]
    if budget_mode:
        c = st.columns([1.2, 1.4, 1.4, 1.4], gap="medium")
        opts = view.budget_strategies(rep)
        c[0].selectbox("Cost-aware strategy", opts, key=K.SEL_BUDGET_STRATEGY, persist_state=state.PERSIST,
                       help="Farthest-first takes the affordable dataset farthest from the chosen ones **per unit "
                            "cost**; k-means takes the cheapest of the 3 datasets nearest each centre, with the "
                            "largest k that fits; random takes datasets in random order while they fit.\n\n"
                            + view.strategy_help(opts))
        c[1].selectbox("Cost per dataset", cache.cost_options(data), key=K.SEL_COST, persist_state=state.PERSIST,
                       help="A numeric descriptor column (e.g. evaluation hours), or an estimate: the product of the "
                            "size descriptors (columns named like size, length, samples, rows, …).")
        try:
            cost = cache.costs(data, st.session_state[K.SEL_COST])
        except InputError as exc:
            _error(exc)
            return
        view.ensure_budget_state(data, cost)
        step, fmt = view.budget_step(cost.total)
        c[2].number_input(f"Total budget ({cost.unit})", min_value=0.0, max_value=float(cost.total), step=step,
                          format=fmt, key=K.SEL_BUDGET, persist_state=state.PERSIST,
                          help="The subset's datasets together may cost at most this much.")
        budget = float(st.session_state[K.SEL_BUDGET])
        c[3].metric("Whole benchmark's cost", view.fmt_cost(cost.total), delta=f"budget = {rounding.text(budget / cost.total, 'percent')} "
                    "of it", delta_color="off", delta_arrow="off", help=f"Sum of every dataset's cost ({cost.unit}).")
        st.caption(f"Costs: {widgets.md_escape(cost.how)}.")
    else:
        c = st.columns([1.3, 2, 1.6], gap="medium")
        c[0].selectbox("Strategy", strategies, key=K.SEL_STRATEGY, persist_state=state.PERSIST,
                       help=view.strategy_help(strategies))
        widgets.slider(K.SEL_K, where=c[1], label="k — datasets in the subset", high=k_max)
    where = c[-1]
    where.markdown(f"**Representation:** {widgets.md_escape(rec.label) if rec is not None else 'none'}")
    where.page_link(page("representation").file, label="change the descriptors", icon=":material/tune:")
    if rep is None:
        st.warning(f"No representation ({widgets.md_escape(rep_err)}); only random selection is available.",
                   icon=widgets.ICONS["warning"])
    include, exclude = tuple(st.session_state[K.SEL_INCLUDE]), tuple(st.session_state[K.SEL_EXCLUDE])
    with st.expander("Must include / exclude", expanded=bool(include or exclude)):
        e = st.columns(2)
        e[0].multiselect("Must include (chosen first, in this order)", list(data.benchmark.datasets), key=K.SEL_INCLUDE,
                         persist_state=state.PERSIST, disabled=budget_mode,
                         help="Applies to k datasets; under a budget only the exclusions apply.")
        e[1].multiselect("Exclude (never chosen)", list(data.benchmark.datasets), key=K.SEL_EXCLUDE,
                         persist_state=state.PERSIST)

    bs = None
    try:
        if budget_mode:
            strategy = st.session_state[K.SEL_BUDGET_STRATEGY]
            bs = cache.budget_selection(data, rec, rep, strategy, st.session_state[K.SEL_COST],
                                        float(st.session_state[K.SEL_BUDGET]), seed, exclude)
            sel = bs.selection
        else:
            strategy = st.session_state[K.SEL_STRATEGY]
            sel = cache.selection(data, rec, rep, strategy, int(st.session_state[K.SEL_K]), seed, include, exclude)
    except InputError as exc:
        _error(exc)
        return
    if bs is not None and not sel.k:
        st.warning(f"No dataset fits a budget of {view.fmt_cost(bs.budget)} {widgets.md_escape(bs.unit)}: the "
                   f"cheapest dataset costs {view.fmt_cost(bs.cheapest)}. Raise the budget.",
                   icon=widgets.ICONS["warning"])
        return
    k = sel.k
    if bs is not None:
        st.markdown(f"**{k} datasets** cost **{view.fmt_cost(bs.spent)}** {widgets.md_escape(bs.unit)} of the budget "
                    f"of {view.fmt_cost(bs.budget)} — {rounding.text(bs.spent / bs.total, 'percent')} of the whole benchmark's cost.")
    view.metrics_row(data, sel.agreement, k, seed)
    cov = cache.subset_coverage(data, rec, rep, sel.datasets, seed)

    left, right = st.columns([3, 2], gap="large")
    with left:
        if rep is not None and rec is not None:
            widgets.map_controls(data, page="select")
            lines = cov if (cov is not None and st.session_state[K.SEL_COVERAGE]) else None
            widgets.map_chart(data, rec, rep, key="select_map", selected=sel.indices,
                              selected_color=style.strategy_color(strategy), height=540,
                              representative=view.representative_positions(lines) if lines is not None else None,
                              poorly=view.poorly_positions(lines) if lines is not None else (),
                              quick=not st.session_state[K.SEL_ZOOM])  # plotly anyway above the SVG limit
            if n <= widgets.QUICK_MAP_LIMIT:
                st.toggle("Zoomable map", key=K.SEL_ZOOM, persist_state=state.PERSIST,
                          help="Draw the map with plotly: zoom, pan, hover labels, PNG download. It redraws more "
                               "slowly when k or the strategy changes; without it the map is a plain image whose "
                               "points show the dataset and its descriptors on hover.")
            st.caption("Numbers give the selection order; the first k of a farthest-first order are also its best k."
                       + (" Grey lines join every other dataset to the chosen one it is nearest to (in the "
                          "standardised descriptors, not on this 2-D map); red rings mark datasets nothing covers well."
                          if lines is not None else ""))
        else:
            st.info("No map without descriptors.")
    with right:
        st.markdown(f"#### The {k} datasets within the budget" if bs is not None else f"#### The {k} chosen datasets")
        table = view.subset_table(data, rec, sel, bs=bs, cov=cov)
        st.dataframe(table, hide_index=True, width="stretch", height=430, column_config=view.table_formats(table))
        view.download_buttons(data, rec, sel, key="dl_subset", bs=bs, cov=cov, primary=True)
        if cov is not None:
            view.coverage_panel(cov)

    st.markdown("#### This strategy for every budget" if bs is not None else "#### This strategy for every k")
    p = st.columns([1, 4])
    p[0].selectbox("Metric", list(METRICS), key=K.SEL_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    metric = st.session_state[K.SEL_METRIC]
    if bs is not None:
        prof = cache.budget_profile(data, rec, rep, strategy, bs.source, seed, profiles.shares_for(bs.budget / bs.total),
                                    exclude)
        widgets.chart(view.budget_profile_chart(prof, bs, metric), key="select_budget_profile", container=p[1])
        st.caption(f"One subset per budget level (this seed) against {view.RANDOM_DRAWS} random draws that take "
                   "datasets in random order while they fit the same budget; hover for the number of datasets and "
                   "the cost spent.")
    else:
        fig = cache.k_profile_chart(data, rec, rep, strategy, min(n, max(30, k)), seed, view.positions(data, include),
                                    view.positions(data, exclude), metric)
        widgets.chart(fig, key="select_profile", container=p[1])
        st.caption(f"One deterministic subset per k (this seed) against {view.RANDOM_DRAWS} random subsets of the "
                   "same size: a single choice, not the averaged evaluation — see the Evaluate page for that.")

    placement.place_panel(data, list(sel.datasets), seed, selection=sel, recipe=rec, budget=bs)


select_panel(data)
