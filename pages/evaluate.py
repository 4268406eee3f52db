"""Evaluate: strategies × representations over many random pools, against random choice."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from subsetsel_app import session, state, widgets
from subsetsel_app.active_data import NAMES_NOTE, NAMES_NOTE_SHORT
from subsetsel_app.state import K
from subsetsel_app.views import decisions, evaluate, headroom
from subsetsel_core.evaluation.timing import estimate_seconds, permutation_seconds
from subsetsel_core.strategies import REGISTRY, STRATEGIES
from subsetsel_core.text.rounding import text

widgets.header("Evaluate",
               "How well does each strategy preserve the ranking, for every k, over many random dataset pools — and "
               "is it better than picking at random?")
data = widgets.active_or_stop()
n = data.benchmark.n_datasets
reps = session.offered_recipes(data)
strategies = [s for s in STRATEGIES if reps or not REGISTRY[s].uses_features]
state.ensure_subset(K.EV_STRATEGIES, strategies, fallback=strategies)
state.ensure_subset(K.EV_REPS, list(reps), fallback=list(reps)[:1])
lo, hi = st.session_state[K.EV_KRANGE]
st.session_state[K.EV_KRANGE] = (max(1, min(int(lo), n)), max(1, min(int(hi), n)))

with st.form("ev_form", border=True):
    c: Sequence[DeltaGenerator] = st.columns([2, 2])
    c[0].multiselect("Strategies", strategies, key=K.EV_STRATEGIES, persist_state=state.PERSIST,
                     help="random is always run as the baseline.")
    c[1].multiselect("Representations", list(reps), key=K.EV_REPS, persist_state=state.PERSIST,
                     help="Each descriptor table with its defaults, and the one configured on the Representation page.")
    c = st.columns(4)
    widgets.number(K.EV_TRIALS, where=c[0], step=10,
                   help="Random pools; more trials give tighter bands and p-values (the paper uses 200).")
    widgets.slider(K.EV_ALPHA, where=c[1], step=0.05)
    widgets.slider(K.EV_BETA, where=c[2], step=0.05)
    c[3].slider("k range", 1, n, key=K.EV_KRANGE, persist_state=state.PERSIST)
    c = st.columns([2, 1, 1])
    c[0].toggle("Test against shuffled descriptors (permutation test)", key=K.EV_PERMUTE, persist_state=state.PERSIST,
                help="The only test behind a verdict that a strategy helps: the gain over random is compared with "
                     "the gains of the same strategies on descriptors shuffled between datasets, on the same pools. "
                     "Runs after the evaluation, on by default; it stops early once ten shuffles reach the largest "
                     "gain (then no strategy helps). Off: every verdict says 'not tested'.")
    widgets.number(K.EV_PERMUTATIONS, where=c[1], step=10,
                   help="Every strategy on every representation forms one family (step-down maxT): the "
                        "smallest p is 1 / (B + 1) whatever the number of entries.")
    widgets.number(K.EV_PERM_TRIALS, where=c[2], step=10, help="Gain and null on the first T′ trials (at most T).")
    st.form_submit_button("Run evaluation", type="primary", icon=":material/play_arrow:",
                          on_click=evaluate.start_from_state)
if not reps:
    st.info("No descriptor table: only the random baseline can run.")
elif data.only_names:
    st.info(NAMES_NOTE, icon=":material/info:")
elif any(data.uses_names(reps[r]) for r in st.session_state[K.EV_REPS] or () if r in reps):
    st.info(NAMES_NOTE_SHORT, icon=":material/info:")
cfg = evaluate.config_from_state()
n_reps = len(st.session_state[K.EV_REPS] or [])
secs = estimate_seconds(cfg, n_reps, n)
test = ""
if st.session_state[K.EV_PERMUTE]:
    worst = permutation_seconds(cfg, n_reps, n, int(st.session_state[K.EV_PERMUTATIONS]),
                                min(int(st.session_state[K.EV_PERM_TRIALS]), cfg.trials))
    test = (f", then the permutation test in two worker processes: at most about {text(worst / 2, 'seconds')} s (the "
            "sequential stop shortens it)")
st.caption(f"Seed {cfg.seed} (sidebar). Roughly {text(secs, 'seconds')} s with these settings{test}; the curves update while it "
           "runs, and you can stop at any time and keep the trials done so far.")

run = evaluate.current_run()
if run is not None and run.token != data.token:
    st.warning(f"The evaluation below was run on '{widgets.md_escape(run.benchmark_name)}', not on the active "
               "benchmark.", icon=widgets.ICONS["warning"])
evaluate.results_panel()

st.divider()
decisions.generalisation_section(data, run)

st.divider()
headroom.headroom_section(data, run)
