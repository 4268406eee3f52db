"""The Evaluate page's live results panel (a polling fragment) and its tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_core.evaluation.protocol import EvaluationConfig, EvaluationResult
from subsetsel_core.metrics import METRICS
from subsetsel_core.viz import figures

from . import analysis, eval_tools, runner, state, ui
from .model import ActiveData
from .state import K

POLL_SECONDS = 0.75
#: Rough cost of one trial of one strategy on a 112-dataset benchmark (seconds), for estimates.
SECONDS_PER_ENTRY_TRIAL = 0.022


def config_from_state(data: ActiveData) -> EvaluationConfig:
    """The evaluation configured in the session (trials, α, β, k range, seed, strategies)."""
    lo, hi = st.session_state[K.EV_KRANGE]
    trials = int(st.session_state[K.EV_TRIALS])
    return EvaluationConfig(
        strategies=tuple(st.session_state[K.EV_STRATEGIES]) or ("random",),
        trials=trials,
        alpha=float(st.session_state[K.EV_ALPHA]),
        beta=float(st.session_state[K.EV_BETA]),
        k_min=int(lo),
        k_max=int(hi),
        seed=int(st.session_state[K.SEED]),
        batch_size=runner.default_batch_size(trials),
    )


def estimate_seconds(config: EvaluationConfig, n_reps: int, n_datasets: int) -> float:
    """A rough run time, to warn before a long run."""
    entries = 1 + max(0, len([s for s in config.strategies if s != "random"])) * max(1, n_reps)
    return config.trials * entries * SECONDS_PER_ENTRY_TRIAL * max(0.5, n_datasets / 112)


def current_run() -> runner.EvalRun | None:
    """The session's latest evaluation run, if the registry still holds it."""
    return runner.get_run(st.session_state.get(K.EV_RUN))


def auc_table(result: EvaluationResult, metric: str) -> pd.DataFrame:
    """The AUC rows of one metric, best first, with readable columns."""
    df = result.to_frame()
    df = df[df["metric"] == metric].copy()
    width = max(1, len(result.ks) - 1)
    df = df.sort_values("auc_mean", ascending=not METRICS[metric].higher_is_better)
    out = pd.DataFrame({
        "strategy": df["strategy"],
        "representation": df["representation"].fillna("—"),
        "AUC": df["auc_mean"],
        "AUC 95% interval": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(df["auc_lo"], df["auc_hi"], strict=True)],
        "normalised AUC": df["auc_mean"] / width,
        "p vs random (Holm)": pd.to_numeric(df["p_vs_random"], errors="coerce"),
        "p (raw)": pd.to_numeric(df["p_raw"], errors="coerce"),
    })
    if out["representation"][out["representation"] != "—"].nunique() <= 1:
        out = out.drop(columns=["representation"])
    return out.reset_index(drop=True)


def result_json(result: EvaluationResult) -> bytes:
    """The result in the CLI's JSON layout."""
    return json.dumps(result.to_json_dict(), indent=2, default=float).encode("utf-8")


def _status(run: runner.EvalRun) -> None:
    done, total = run.trials_done, run.config.trials
    if run.status == "running":
        st.progress(run.progress, text=f"Running: {done} of {total} trials · {run.elapsed:.0f} s")
    elif run.status == "done":
        st.progress(1.0, text=f"Finished: {total} trials in {run.elapsed:.1f} s")
    elif run.status == "stopped":
        st.progress(run.progress, text=f"Stopped after {done} of {total} trials ({run.elapsed:.1f} s)")
    else:
        st.progress(run.progress, text="Failed")


def _panel(polling: bool) -> None:
    run = current_run()
    if run is None:
        return
    if polling and not run.running:
        st.rerun()  # the run ended: redraw the whole page once, without polling
    c = st.columns([4, 1])
    with c[0]:
        _status(run)
    if run.running:
        c[1].button("Stop", on_click=runner.stop_run, args=(run.id,), icon=":material/stop_circle:",
                    key="ev_stop", type="secondary", width="stretch")
    if run.error:
        st.error(ui.md_escape(run.error))
    res = run.latest
    if res is None:
        st.info("Waiting for the first batch of trials …")
        return
    m = st.columns([1.2, 1, 3])
    state.ensure_choice(K.EV_METRIC, list(res.config.metrics), fallback="spearman")
    m[0].selectbox("Metric", list(res.config.metrics), key=K.EV_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    m[1].toggle("95% bands", key=K.EV_BANDS, persist_state=state.PERSIST)
    metric = st.session_state[K.EV_METRIC]
    marks, target = eval_tools.curve_marks(res, metric)
    fig = figures.curves_figure(res.curves_frame(), metric, bands=bool(st.session_state[K.EV_BANDS]), height=500,
                                title=f"{METRICS[metric].label} vs k — {res.trials_done} trials"
                                      f"{'' if res.complete else ' so far'}", marks=marks, target=target)
    ui.chart(fig, key="ev_curves")
    st.caption("Lines: mean over trials; shaded: 2.5–97.5 % of trials. Each trial draws a pool of "
               f"⌊α·n⌋ = {res.info.get('pool_datasets')} datasets and {res.info.get('pool_models')} models; "
               "every strategy sees the same pools."
               + (" Stars: the advised k of each strategy (below); dotted line: the target." if marks is not None
                  else ""))
    if not run.running:
        _final(run, res, metric)
    eval_tools.advice_section(res, metric)


def _final(run: runner.EvalRun, res: EvaluationResult, metric: str) -> None:
    text = analysis.verdict(res, metric)
    (st.success if "beats random" in text else st.info)(ui.md_escape(text), icon=":material/gavel:")
    st.markdown(f"#### Area under the curve — {METRICS[metric].label}")
    st.dataframe(
        auc_table(res, metric), hide_index=True, width="stretch",
        column_config={
            "AUC": st.column_config.NumberColumn(format="%.3f"),
            "normalised AUC": st.column_config.NumberColumn(format="%.3f"),
            "p vs random (Holm)": st.column_config.NumberColumn(format="%.4f"),
            "p (raw)": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    left, right = st.columns([3, 2], gap="large")
    with left:
        ui.chart(figures.auc_figure(res.to_frame(), metric), key="ev_auc")
    with right:
        fr = res.friedman().get(metric)
        st.caption(
            f"AUC: trapezoid over k = {int(res.ks[0])} … {int(res.ks[-1])} (unit spacing); normalised = AUC / "
            f"{max(1, len(res.ks) - 1)}. p: one-sided Wilcoxon signed-rank test on the paired per-trial AUCs against "
            "random, Holm-corrected across strategies."
            + (f" Friedman test across all strategies: p = {fr:.3g}." if fr is not None else "")
        )
        name = res.info.get("benchmark", "benchmark")
        st.download_button("Results (JSON)", result_json(res), file_name=f"evaluation_{name}.json",
                           mime="application/json", icon=":material/download:", key="dl_eval_json")
        st.download_button("AUC table (CSV)", res.to_frame().to_csv(index=False).encode(), mime="text/csv",
                           file_name=f"auc_{name}.csv", icon=":material/download:", key="dl_eval_auc")
        st.download_button("Curves (CSV)", res.curves_frame().to_csv(index=False).encode(), mime="text/csv",
                           file_name=f"curves_{name}.csv", icon=":material/download:", key="dl_eval_curves")


def results_panel() -> None:
    """The live panel: polls while the run is going, then shows the final tables."""
    run = current_run()
    if run is None:
        st.info("No evaluation in this session yet. Choose strategies and representations above and press "
                "**Run evaluation**; the curves fill in while the trials run.")
        return
    polling = run.running
    st.fragment(_panel, run_every=POLL_SECONDS if polling else None)(polling)


def best_at_k(result: EvaluationResult, metric: str, k: int) -> pd.DataFrame:
    """Mean and band of every entry at one k (for the report)."""
    ks = np.asarray(result.ks)
    i = int(np.argmin(np.abs(ks - k)))
    rows = []
    for e in result.entries:
        c = result.stats[e.key].curves[metric]
        rows.append({"strategy": e.key, "k": int(ks[i]), "mean": c.mean[i], "lo": c.lo[i], "hi": c.hi[i]})
    return pd.DataFrame(rows)

