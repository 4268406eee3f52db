"""The Evaluate page's run: its settings, the start and stop callbacks, the live results panel,
the AUC table and the plain verdict."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_app import cache, jobs, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_app.views import compute, required_k
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.metrics import METRICS
from subsetsel_core.viz import curves


def config_from_state() -> EvaluationConfig:
    """The evaluation configured in the session (trials, α, β, k range, seed, strategies)."""
    lo, hi = st.session_state[K.EV_KRANGE]
    trials = int(st.session_state[K.EV_TRIALS])
    return EvaluationConfig(
        strategies=tuple(st.session_state[K.EV_STRATEGIES]) or (BASELINE,), trials=trials,
        alpha=float(st.session_state[K.EV_ALPHA]), beta=float(st.session_state[K.EV_BETA]), k_min=int(lo),
        k_max=int(hi), seed=session.seed(), batch_size=jobs.default_batch_size(trials),
    )


def current_job() -> jobs.Job | None:
    """The session's latest evaluation run, if the registry still holds it."""
    return jobs.get(st.session_state.get(K.EV_RUN))


def current_run() -> jobs.Evaluation | None:
    """What the session's latest evaluation run was asked to do."""
    job = current_job()
    return None if job is None else job.request


def current_result(data: ActiveData) -> EvaluationResult | None:
    """The latest (partial) result of the session's run, if it is of the active benchmark."""
    job = current_job()
    return job.result if job is not None and job.request.token == data.token else None


def start_from_state() -> None:
    """Form callback: build the chosen representations and start the evaluation (errors are flashed)."""
    data = session.active()
    config = config_from_state()
    jobs.stop(st.session_state.get(K.EV_RUN))  # one run per session at a time
    try:
        names = list(st.session_state[K.EV_REPS] or [])
        if any(s != BASELINE for s in config.strategies) and not names:
            raise InputError("choose at least one representation for the strategies other than random.",
                             field="representation")
        offered = session.offered_recipes(data)
        unknown = [n for n in names if n not in offered]
        if unknown:
            raise InputError(f"unknown representation '{unknown[0]}'.", field="representation")
        reps = {offered[n].label: cache.representation(data, offered[n], session.seed()) for n in names}
        job = jobs.start_evaluation(data.benchmark, reps, config, token=data.token, mapper=compute.mapper_from_state())
    except InputError as exc:
        state.flash("error", f"The evaluation could not start: {exc}")
        return
    st.session_state[K.EV_RUN] = job.key


def auc_table(result: EvaluationResult, metric: str) -> pd.DataFrame:
    """The AUC rows of one metric, best first, with readable columns."""
    df = result.to_frame()
    df = df[df["metric"] == metric].sort_values("auc_mean", ascending=not METRICS[metric].higher_is_better)
    out = pd.DataFrame({
        "strategy": df["strategy"],
        "representation": df["representation"].fillna("—"),
        "AUC": df["auc_mean"],
        "AUC 95% interval": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(df["auc_lo"], df["auc_hi"], strict=True)],
        "normalised AUC": df["auc_mean"] / max(1, len(result.ks) - 1),
        "p vs random (Holm)": pd.to_numeric(df["p_vs_random"], errors="coerce"),
        "p (raw)": pd.to_numeric(df["p_raw"], errors="coerce"),
    })
    if out["representation"][out["representation"] != "—"].nunique() <= 1:
        out = out.drop(columns=["representation"])
    return out.reset_index(drop=True)


@dataclass(frozen=True)
class Verdict:
    """A plain-language verdict of an evaluation on one metric.

    Attributes
    ----------
    text : str
        Markdown-free sentences.
    beats_random : bool
        Whether some strategy beats random significantly.
    """

    text: str
    beats_random: bool


def _fmt_p(p: float | None) -> str:
    if p is None or not np.isfinite(p):
        return "p n/a"
    return f"p = {p:.2g}" if p >= 0.001 else "p < 0.001"


def verdict(result: EvaluationResult, metric: str, *, k_target: int = 5, alpha: float = 0.05) -> Verdict:
    """The verdict: the best strategy that beats random on ``metric`` (Holm-corrected p below ``alpha``),
    quoted at the evaluated k nearest ``k_target``, or the best one when none does."""
    label, higher = METRICS[metric].label, METRICS[metric].higher_is_better
    df = result.to_frame()
    df = df[df["metric"] == metric]
    ks = np.asarray(result.ks)
    ki = int(np.argmin(np.abs(ks - k_target))) if ks.size else 0
    k = int(ks[ki]) if ks.size else k_target
    prefix = "" if result.complete else f"Preliminary ({result.trials_done} of {result.config.trials} trials): "

    def at_k(key: str) -> str:
        c = result.stats[key].curves[metric]
        return f"{c.mean[ki]:.2f} [{c.lo[ki]:.2f}, {c.hi[ki]:.2f}]"

    def who(row: pd.Series) -> str:
        rep = row["representation"]
        return f"{row['strategy']} on {rep}" if isinstance(rep, str) and rep else str(row["strategy"])

    others = df[df["strategy"] != BASELINE].copy()
    base = df[df["strategy"] == BASELINE]
    base_txt = f" (random: {at_k(str(base['key'].iloc[0]))})" if len(base) else ""
    if result.trials_done < 2 or others.empty:
        return Verdict(prefix + f"Not enough to compare yet: {result.trials_done} trial(s), {len(others)} "
                       "strategy(ies) besides random.", False)
    others["p"] = pd.to_numeric(others["p_vs_random"], errors="coerce")
    sig = others[others["p"] < alpha].sort_values("auc_mean", ascending=not higher)
    if len(sig):
        best = sig.iloc[0]
        text = (f"{who(best)} beats random on {label}, {_fmt_p(best['p'])} (Holm-corrected one-sided Wilcoxon over "
                f"{result.trials_done} trials); with k = {k} it reaches {at_k(str(best['key']))}{base_txt}.")
        rest = [f"{who(r)} ({_fmt_p(r['p'])})" for _, r in sig.iloc[1:].iterrows()]
        if rest:
            text += f" Also significantly better than random: {', '.join(rest)}."
        return Verdict(prefix + text, True)
    best = others.sort_values("auc_mean", ascending=not higher).iloc[0]
    return Verdict(prefix + f"No strategy beats random significantly on {label} (α = {alpha}, Holm-corrected, "
                   f"{result.trials_done} trials). The best, {who(best)}, has {_fmt_p(best['p'])}; with k = {k} it "
                   f"reaches {at_k(str(best['key']))}{base_txt}.", False)


def show_verdict(v: Verdict) -> None:
    """The verdict as a success box (beats random) or an info box."""
    (st.success if v.beats_random else st.info)(widgets.md_escape(v.text), icon=":material/gavel:")


def _status(job: jobs.Job) -> None:
    done, total = job.done, job.total
    text = {"running": f"Running: {done} of {total} trials · {job.elapsed:.0f} s",
            "done": f"Finished: {total} trials in {job.elapsed:.1f} s",
            "stopped": f"Stopped after {done} of {total} trials ({job.elapsed:.1f} s)"}.get(job.status, "Failed")
    st.progress(1.0 if job.status == "done" else job.progress, text=text)


def _final(res: EvaluationResult, metric: str) -> None:
    show_verdict(verdict(res, metric))
    st.markdown(f"#### Area under the curve — {METRICS[metric].label}")
    fmt = st.column_config.NumberColumn
    st.dataframe(auc_table(res, metric), hide_index=True, width="stretch",
                 column_config={"AUC": fmt(format="%.3f"), "normalised AUC": fmt(format="%.3f"),
                                "p vs random (Holm)": fmt(format="%.4f"), "p (raw)": fmt(format="%.4f")})
    left, right = st.columns([3, 2], gap="large")
    with left:
        widgets.chart(curves.auc_figure(res.to_frame(), metric), key="ev_auc")
    with right:
        fr = res.friedman().get(metric)
        st.caption(
            f"AUC: trapezoid over k = {int(res.ks[0])} … {int(res.ks[-1])} (unit spacing); normalised = AUC / "
            f"{max(1, len(res.ks) - 1)}. p: one-sided Wilcoxon signed-rank test on the paired per-trial AUCs against "
            "random, Holm-corrected across strategies."
            + (f" Friedman test across all strategies: p = {fr:.3g}." if fr is not None else "")
        )
        name = res.info.get("benchmark", "benchmark")
        st.download_button("Results (JSON)", json.dumps(res.to_json_dict(), indent=2, default=float).encode("utf-8"),
                           file_name=f"evaluation_{name}.json", mime="application/json", icon=":material/download:",
                           key="dl_eval_json")
        st.download_button("AUC table (CSV)", res.to_frame().to_csv(index=False).encode(), mime="text/csv",
                           file_name=f"auc_{name}.csv", icon=":material/download:", key="dl_eval_auc")
        st.download_button("Curves (CSV)", res.curves_frame().to_csv(index=False).encode(), mime="text/csv",
                           file_name=f"curves_{name}.csv", icon=":material/download:", key="dl_eval_curves")


def _panel(polling: bool) -> None:
    job = current_job()
    if job is None:
        return
    if polling and not job.running:
        st.rerun()  # the run ended: redraw the whole page once, without polling
    c = st.columns([4, 1])
    with c[0]:
        _status(job)
    if job.running:
        c[1].button("Stop", on_click=jobs.stop, args=(job.key,), icon=":material/stop_circle:", key="ev_stop",
                    type="secondary", width="stretch")
    if job.error:
        st.error(widgets.md_escape(job.error))
    res: EvaluationResult | None = job.result
    if res is None:
        st.info("Waiting for the first batch of trials …")
        return
    m = st.columns([1.2, 1, 3])
    state.ensure_choice(K.EV_METRIC, list(res.config.metrics), fallback=state.default(K.EV_METRIC))
    m[0].selectbox("Metric", list(res.config.metrics), key=K.EV_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    m[1].toggle("95% bands", key=K.EV_BANDS, persist_state=state.PERSIST)
    metric = st.session_state[K.EV_METRIC]
    marks, target = required_k.curve_marks(res, metric)
    fig = curves.curves_figure(res.curves_frame(), metric, bands=bool(st.session_state[K.EV_BANDS]), height=500,
                               title=f"{METRICS[metric].label} vs k — {res.trials_done} trials"
                                     f"{'' if res.complete else ' so far'}", marks=marks, target=target)
    widgets.chart(fig, key="ev_curves")
    st.caption("Lines: mean over trials; shaded: 2.5–97.5 % of trials. Each trial draws a pool of "
               f"⌊α·n⌋ = {res.info.get('pool_datasets')} datasets and {res.info.get('pool_models')} models; "
               "every strategy sees the same pools."
               + (" Stars: the advised k of each strategy (below); dotted line: the target." if marks is not None
                  else ""))
    if not job.running:
        _final(res, metric)
    required_k.advice_section(res, metric)


def results_panel() -> None:
    """The live panel: polls while the run is going, then shows the final tables."""
    job = current_job()
    if job is None:
        st.info("No evaluation in this session yet. Choose strategies and representations above and press "
                "**Run evaluation**; the curves fill in while the trials run.")
        return
    st.fragment(_panel, run_every=jobs.POLL_SECONDS if job.running else None)(job.running)
