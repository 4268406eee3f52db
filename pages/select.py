"""Select: one strategy, k datasets or a budget — the chosen datasets on the map, in a table, and as a CSV;
what each chosen dataset stands for; where a new model would rank."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import data as D
from subsetsel_app import select_tools as T
from subsetsel_app import selectview, state, ui
from subsetsel_app.model import ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.metrics import METRICS
from subsetsel_core.strategies import REGISTRY
from subsetsel_core.viz import figures

ui.header("Select", "Choose k datasets — or as many as a budget allows — with a strategy. The subset's ranking is "
                    "compared with the full benchmark's.")
data = ui.active_or_stop()


def _strategy_help(names: list[str]) -> str:
    return "\n\n".join(f"**{REGISTRY[s].title}** — {REGISTRY[s].description}" for s in names)


def _metrics_row(values: dict[str, float], k: int, seed: int) -> None:
    rand = D.random_profile(data, k, seed)
    m = st.columns(len(METRICS))
    for col, metric in zip(m, METRICS, strict=True):
        med = float(rand[metric][0][k - 1])
        col.metric(METRICS[metric].label, f"{values[metric]:.3f}", delta=f"{values[metric] - med:+.3f} vs random",
                   delta_color="normal" if METRICS[metric].higher_is_better else "inverse",
                   help=f"{METRICS[metric].label} of the subset's model ranking against the full ranking; the delta compares "
                        f"with the median of 200 random {k}-subsets ({med:.3f}).")


@st.fragment
def select_panel(data: ActiveData) -> None:
    """Controls and results; a change of k, budget or strategy reruns only this fragment."""
    n = data.benchmark.n_datasets
    seed = int(st.session_state[K.SEED])
    cfg, rep, rep_err = ui.current_representation(data)
    strategies = selectview.available_strategies(rep)
    state.ensure_choice(K.SEL_STRATEGY, strategies, fallback="fafi-cosine")
    state.ensure_choice(K.SEL_BUDGET_STRATEGY, T.budget_strategies(rep), fallback="fafi-cosine")
    state.ensure_choice(K.SEL_COST, T.cost_options(data), fallback=state.COST_ESTIMATE)
    state.ensure_subset(K.SEL_INCLUDE, list(data.benchmark.datasets))
    state.ensure_subset(K.SEL_EXCLUDE, list(data.benchmark.datasets))
    k_max = max(1, n - len(st.session_state[K.SEL_EXCLUDE]))
    k_ok = int(min(max(1, int(st.session_state[K.SEL_K])), k_max))
    if k_ok != st.session_state[K.SEL_K]:
        st.session_state[K.SEL_K] = k_ok

    st.radio("Choose", list(state.SELECT_MODES), key=K.SEL_MODE, persist_state=state.PERSIST, horizontal=True,
             help="A number of datasets, or a total cost (e.g. GPU hours) the subset may not exceed.")
    budget_mode = st.session_state[K.SEL_MODE] == state.SELECT_MODES[1]
    cost = None
    if budget_mode:
        c = st.columns([1.2, 1.4, 1.4, 1.4], gap="medium")
        opts = T.budget_strategies(rep)
        c[0].selectbox("Cost-aware strategy", opts, key=K.SEL_BUDGET_STRATEGY, persist_state=state.PERSIST,
                       format_func=lambda s: REGISTRY[s].title,
                       help="Farthest-first takes the affordable dataset farthest from the chosen ones **per unit "
                            "cost**; k-means takes the cheapest of the 3 datasets nearest each centre, with the "
                            "largest k that fits; random takes datasets in random order while they fit.\n\n"
                            + _strategy_help(opts))
        c[1].selectbox("Cost per dataset", T.cost_options(data), key=K.SEL_COST, persist_state=state.PERSIST,
                       help="A numeric descriptor column (e.g. evaluation hours), or an estimate: the product of the "
                            "size descriptors (columns named like size, length, samples, rows, …).")
        try:
            cost = T.costs(data, st.session_state[K.SEL_COST])
        except InputError as exc:
            st.error(ui.md_escape(exc), icon=ui.ICONS["error"])
            return
        T.ensure_budget_state(data, cost)
        step, fmt = T.budget_step(cost.total)
        c[2].number_input(f"Total budget ({cost.unit})", min_value=0.0, max_value=float(cost.total), step=step,
                          format=fmt, key=K.SEL_BUDGET, persist_state=state.PERSIST,
                          help="The subset's datasets together may cost at most this much.")
        budget = float(st.session_state[K.SEL_BUDGET])
        c[3].metric("Whole benchmark's cost", f"{T.fmt_cost(cost.total)}", delta=f"budget = {budget / cost.total:.1%} of it",
                    delta_color="off", delta_arrow="off", help=f"Sum of every dataset's cost ({cost.unit}).")
        st.caption(f"Costs: {ui.md_escape(cost.how)}.")
    else:
        c = st.columns([1.3, 2, 1.6], gap="medium")
        c[0].selectbox("Strategy", strategies, key=K.SEL_STRATEGY, persist_state=state.PERSIST,
                       format_func=lambda s: REGISTRY[s].title, help=_strategy_help(strategies))
        c[1].slider("k — datasets in the subset", 1, k_max, key=K.SEL_K, persist_state=state.PERSIST)
    where = c[-1]
    where.markdown(f"**Representation:** {ui.md_escape(cfg.name) if rep is not None and cfg is not None else 'none'}")
    where.page_link("pages/representation.py", label="change the descriptors", icon=":material/tune:")
    if rep is None:
        st.warning(f"No representation ({ui.md_escape(rep_err)}); only random selection is available.",
                   icon=ui.ICONS["warning"])
    with st.expander("Must include / exclude", expanded=bool(st.session_state[K.SEL_INCLUDE] or st.session_state[K.SEL_EXCLUDE])):
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
            bs = T.budget_selection(data, cfg if rep is not None else None, rep, strategy, st.session_state[K.SEL_COST],
                                    float(st.session_state[K.SEL_BUDGET]), seed, tuple(st.session_state[K.SEL_EXCLUDE]))
            sel = bs.selection
        else:
            strategy = st.session_state[K.SEL_STRATEGY]
            sel = D.selection(data, cfg if rep is not None else None, rep, strategy, int(st.session_state[K.SEL_K]),
                              seed, tuple(st.session_state[K.SEL_INCLUDE]), tuple(st.session_state[K.SEL_EXCLUDE]))
    except InputError as exc:
        st.error(ui.md_escape(exc), icon=ui.ICONS["error"])
        return
    if bs is not None and not sel.k:
        st.warning(f"No dataset fits a budget of {T.fmt_cost(bs.budget)} {ui.md_escape(bs.unit)}: the cheapest "
                   f"dataset costs {T.fmt_cost(bs.cheapest)}. Raise the budget.", icon=ui.ICONS["warning"])
        return
    k = sel.k
    if bs is not None:
        st.markdown(f"**{k} datasets** cost **{T.fmt_cost(bs.spent)}** {ui.md_escape(bs.unit)} of the budget of "
                    f"{T.fmt_cost(bs.budget)} — {bs.spent / bs.total:.1%} of the whole benchmark's cost.")
    _metrics_row(sel.agreement, k, seed)
    rcfg = cfg if rep is not None else None
    cov = T.subset_coverage(data, rcfg, rep, sel.datasets, seed)

    left, right = st.columns([3, 2], gap="large")
    with left:
        if rep is not None and cfg is not None:
            ui.map_controls(data, page="select")
            show_lines = bool(st.session_state[K.SEL_COVERAGE])
            ui.map_chart(data, cfg, rep, key="select_map", selected=sel.indices,
                         selected_color=figures.strategy_color(strategy), height=540,
                         representative=T.representative_positions(cov) if (cov is not None and show_lines) else None,
                         poorly=T.poorly_positions(cov) if (cov is not None and show_lines) else (),
                         quick=not st.session_state[K.SEL_ZOOM])  # plotly anyway above the SVG limit
            if n <= ui.QUICK_MAP_LIMIT:
                st.toggle("Zoomable map", key=K.SEL_ZOOM, persist_state=state.PERSIST,
                          help="Draw the map with plotly: zoom, pan, hover labels, PNG download. It redraws more "
                               "slowly when k or the strategy changes; without it the map is a plain image whose "
                               "points show the dataset and its descriptors on hover.")
            st.caption("Numbers give the selection order; the first k of a farthest-first order are also its best k."
                       + (" Grey lines join every other dataset to the chosen one it is nearest to (in the "
                          "standardised descriptors, not on this 2-D map); red rings mark datasets nothing covers well."
                          if show_lines and cov is not None else ""))
        else:
            st.info("No map without descriptors.")
    with right:
        if bs is not None:
            st.markdown(f"#### The {k} datasets within the budget")
        else:
            st.markdown(f"#### The {k} chosen datasets")
        table = T.subset_table(data, rcfg, sel, bs=bs, cov=cov)
        st.dataframe(table, hide_index=True, width="stretch", height=430)
        d = st.columns(2)
        stem = T.file_stem(sel, bs)
        d[0].download_button("Subset CSV", lambda: T.downloads(data, rcfg, sel, bs=bs, cov=cov)[0],
                             file_name=stem + ".csv", mime="text/csv", icon=":material/download:",
                             key="dl_subset_csv", type="primary", on_click="ignore")
        d[1].download_button("JSON sidecar", lambda: T.downloads(data, rcfg, sel, bs=bs, cov=cov)[1],
                             file_name=stem + ".json", mime="application/json", icon=":material/data_object:",
                             key="dl_subset_json", on_click="ignore")
        if cov is not None:
            st.markdown("##### Coverage")
            cv = st.columns(2, vertical_alignment="center")
            cv[0].metric("Covering radius", f"{cov.radius:.2f}",
                         help="The largest distance from any dataset to its nearest chosen dataset (Euclidean, "
                              "descriptors standardised over all datasets). Smaller means every dataset has a "
                              "close stand-in in the subset.")
            cv[1].toggle("Lines on the map", key=K.SEL_COVERAGE, persist_state=state.PERSIST,
                         help="Lines from each unchosen dataset to the chosen dataset that stands for it.")
            bad = T.poorly_frame(cov, limit=5)
            if len(bad):
                more = len(cov.poorly_covered) - len(bad)
                st.markdown(f"**Not covered well** (farther than {cov.threshold:.2f} from every chosen "
                            "dataset): " + ", ".join(
                                f"{ui.md_escape(d)} ({dist:.2f}, nearest {ui.md_escape(near)})"
                                for d, near, dist in bad.itertuples(index=False, name=None))
                            + (f", … and {more} more" if more > 0 else "") + ".",
                            help="Farther from its nearest chosen dataset than the mean plus two standard "
                                 "deviations of the unchosen datasets' distances; the full list is in the "
                                 "JSON sidecar, the stand-ins of every dataset in the CSV's 'represents' column.")
            else:
                st.markdown("**Not covered well:** none — every dataset is within "
                            f"{cov.threshold:.2f} of a chosen one.")

    if bs is not None:
        st.markdown("#### This strategy for every budget")
        p = st.columns([1, 4])
        p[0].selectbox("Metric", list(METRICS), key=K.SEL_METRIC, persist_state=state.PERSIST,
                       format_func=lambda x: METRICS[x].label)
        prof = T.budget_profile(data, rcfg, rep, strategy, bs.source, seed, bs.budget / bs.total,
                                tuple(st.session_state[K.SEL_EXCLUDE]))
        ui.chart(T.budget_profile_chart(prof, bs, st.session_state[K.SEL_METRIC]), key="select_budget_profile",
                 container=p[1])
        st.caption("One subset per budget level (this seed) against 200 random draws that take datasets in random "
                   "order while they fit the same budget; hover for the number of datasets and the cost spent.")
    else:
        st.markdown("#### This strategy for every k")
        p = st.columns([1, 4])
        p[0].selectbox("Metric", list(METRICS), key=K.SEL_METRIC, persist_state=state.PERSIST,
                       format_func=lambda x: METRICS[x].label)
        fig = D.k_profile_chart(data, rcfg, rep, strategy, min(n, max(30, k)), seed,
                                selectview.positions(data, st.session_state[K.SEL_INCLUDE]),
                                selectview.positions(data, st.session_state[K.SEL_EXCLUDE]),
                                st.session_state[K.SEL_METRIC])
        ui.chart(fig, key="select_profile", container=p[1])
        st.caption("One deterministic subset per k (this seed) against 200 random subsets of the same size: "
                   "a single choice, not the averaged evaluation — see the Evaluate page for that.")

    place_panel(data, list(sel.datasets), seed)


def place_panel(data: ActiveData, subset: list[str], seed: int) -> None:
    """Paste or upload a new model's scores on the subset; its estimated standing on the full benchmark."""
    b = data.benchmark
    st.markdown("#### Place a new model")
    st.caption(f"Score a new model on the {len(subset)} chosen datasets only; its position on the full benchmark "
               f"is estimated from how the {b.n_models} existing models' subset ranks relate to their full ranks "
               f"(95 % interval by bootstrap over the chosen datasets). Scores in the benchmark's metric"
               f"{' (' + ui.md_escape(data.metric) + ')' if data.metric else ''}, "
               f"{'higher' if b.higher_is_better else 'lower'} is better.")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.text_input("Model name", key=K.PL_NAME, persist_state=state.PERSIST)
        example = "\n".join(f"{d},0.85" for d in subset[:3])
        st.text_area("Scores — one 'dataset,score' (or dataset⇥score) line per chosen dataset", key=K.PL_TEXT,
                     persist_state=state.PERSIST, height=170, placeholder=example)
        nonce = int(st.session_state[K.PL_NONCE])
        up = st.file_uploader("… or a CSV with dataset and score columns (optional fold column)", type=["csv", "tsv", "txt"],
                              key=f"pl_upload_{nonce}")
        st.download_button("Template CSV of the chosen datasets", lambda: T.template_csv(subset),
                           file_name=f"scores_template_{len(subset)}.csv", mime="text/csv",
                           icon=":material/download:", key="dl_pl_template", on_click="ignore")
    with right:
        if up is not None:
            parsed = T.parse_upload(up.name, up.getvalue())
            st.caption(f"Using the uploaded file {ui.md_escape(up.name)} (the pasted text is ignored).")
        elif st.session_state[K.PL_TEXT].strip():
            parsed = T.parse_pasted(st.session_state[K.PL_TEXT])
        else:
            st.info("Paste or upload the new model's scores to see where it would rank.", icon=ui.ICONS["info"])
            return
        checked = T.check_scores(parsed, data, subset)
        for msg in checked.problems:
            st.error(ui.md_escape(msg[:1].upper() + msg[1:]), icon=ui.ICONS["error"])
        for msg in checked.notes:
            st.warning(ui.md_escape(msg[:1].upper() + msg[1:]), icon=ui.ICONS["warning"])
        if checked.problems:
            return
        try:
            pl = T.placement(data, subset, checked, st.session_state[K.PL_NAME], seed)
        except InputError as exc:
            st.error(ui.md_escape(exc), icon=ui.ICONS["error"])
            return
        lo, hi = pl.position_interval
        m = st.columns(3)
        m[0].metric("Estimated position", f"{pl.position} of {pl.n_models}",
                    help="Among the existing models and the new one, on the full benchmark (1 = best).")
        m[1].metric("95 % interval", f"{lo} – {hi}")
        mlo, mhi = pl.mean_rank_interval
        m[2].metric("Estimated mean rank", f"{pl.estimated_mean_rank:.2f}",
                    help=f"On the existing models' scale; 95 % interval {mlo:.2f} – {mhi:.2f}.")
        st.markdown(ui.md_escape(pl.sentence()))
        ui.chart(T.placement_chart(data, pl), key="select_placement")


select_panel(data)
