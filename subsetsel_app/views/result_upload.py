"""The Benchmark page's upload of a results folder (lm-evaluation-harness, MTEB, Every Eval Ever).

One uploader for a zip of the folder (or its JSON files), the format, the metric, the
missing-score policy and a name; then the validation report, the metric taken per task
and the button that makes it the active benchmark.
"""

from __future__ import annotations

import streamlit as st

from subsetsel_app import cache, state, upload, widgets
from subsetsel_app.state import K
from subsetsel_app.views.benchmark import use_upload
from subsetsel_core.io.score_format import MISSING_POLICIES, MISSING_TITLES, RESULT_FORMATS

FORMAT_TITLES = {"auto": "auto (from the files)", "lm-eval": "lm-evaluation-harness", "mteb": "MTEB",
                 "eee": "Every Eval Ever"}


def draw(nonce: int) -> None:
    """Draw the results-folder upload (its uploader is new for every ``nonce``)."""
    st.markdown("##### Or a results folder of an evaluation framework")
    st.caption("lm-evaluation-harness (results_*.json, one per model run), MTEB (model/revision/Task.json with "
               "model_meta.json) or Every Eval Ever records: zip the folder and upload the .zip, or upload its "
               "JSON files. One metric is taken per task (each format's main metric unless you type another).")
    files = widgets.file_uploader("Results folder (.zip) or result files (.json)", type=["zip", "json"],
                                  accept_multiple_files=True, key=f"up_results_{nonce}")
    if not files:
        return
    uploaded = tuple(upload.UploadedTable(f.name, f.getvalue()) for f in files)
    seen = "|".join(t.digest for t in uploaded)
    if st.session_state[K.UP_RES_SEEN] != seen:  # new files: their policy is chosen anew, never carried over
        was = st.session_state[K.UP_RES_MISSING]
        st.session_state[K.UP_RES_MISSING] = state.default(K.UP_RES_MISSING)
        st.session_state[K.UP_RES_SEEN] = seen
        if was != st.session_state[K.UP_RES_MISSING]:
            st.info(widgets.md_escape(f"Missing scores: back to '{st.session_state[K.UP_RES_MISSING]}' for these "
                                      f"new files (it was '{was}' for the previous ones)."), icon=widgets.ICONS["info"])
    c = st.columns([1.3, 2, 1, 1.2])
    c[0].selectbox("Format", list(RESULT_FORMATS), key=K.UP_RES_FORMAT, persist_state=state.PERSIST,
                   format_func=lambda f: FORMAT_TITLES[f])
    c[1].text_input("Metric", key=K.UP_RES_METRIC, persist_state=state.PERSIST,
                    placeholder="main metric; or acc_norm; or arc_easy=acc_norm; gsm8k=exact_match,flexible-extract",
                    help="Empty: each format's main metric (lm-evaluation-harness: each task's first metric; MTEB: "
                         "main_score; Every Eval Ever: each evaluation's first metric).")
    c[2].selectbox("Missing scores", list(MISSING_POLICIES), key=K.UP_RES_MISSING, persist_state=state.PERSIST,
                   format_func=lambda p: f"{p}: {MISSING_TITLES[p]}",
                   help="Tasks some models were not run on: stop and list them, keep them all (partial), or drop "
                        "models or tasks.")
    c[3].text_input("Benchmark name", key=K.UP_RES_NAME, persist_state=state.PERSIST, placeholder=uploaded[0].stem)
    skip = st.checkbox("Skip files that cannot be read", value=False, key=f"up_res_skip_{nonce}",
                       help="Off: a file that is not JSON, not a result file or has a field of the wrong type stops "
                            "the reading with an error naming it. On: such files are skipped, each listed in a "
                            "warning.")
    res = cache.check_results(tuple((t.name, t.digest) for t in uploaded), st.session_state[K.UP_RES_FORMAT],
                              st.session_state[K.UP_RES_METRIC], st.session_state[K.UP_RES_MISSING],
                              st.session_state[K.UP_RES_NAME], uploaded, bool(skip))
    if not res.metrics.empty:
        with st.expander(f"Metric per task ({len(res.metrics)} tasks)", expanded=res.check.error is not None):
            st.dataframe(res.metrics, hide_index=True, width="stretch")
    if not res.set_aside.empty:
        with st.expander(f"Set aside ({len(res.set_aside)})"):
            st.dataframe(res.set_aside, hide_index=True, width="stretch")
    if res.check.error:
        st.error(widgets.md_escape(res.check.error), icon=widgets.ICONS["error"])
        st.caption("Fix the files or the options above; the active benchmark is unchanged.")
        why = "the results cannot be loaded as they are: the error above says what to change"
        st.warning(widgets.md_escape(f"Not usable yet: {why}."), icon=widgets.ICONS["warning"])
        st.button("Use these results", type="primary", disabled=True, key="use_results_btn", help=why)
        return
    widgets.show_report(res.check.report, expanded_info=True)
    assert res.check.data is not None
    b = res.check.data.benchmark
    st.button(f"Use these results ({b.n_datasets} tasks × {b.n_models} models)", type="primary",
              on_click=use_upload, args=(res.check.data,), key="use_results_btn")
