"""The Evaluate page's run: its settings, the start and stop callbacks, the live results panel,
the AUC table and the plain verdict."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from subsetsel_app import cache, jobs, limits, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_app.views import compute, outputs, required_k, theory
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.permutation import PermutationTest, p_phrase
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.evaluation.stability import Stability
from subsetsel_core.evaluation.tables import auc_table
from subsetsel_core.evaluation.verdict import (
    Verdict,
    evaluation_verdict,
    favoured_entry,
    gain_note,
    settings_label,
)
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text import rounding
from subsetsel_core.text.rounding import format_p, printf
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
    jobs.stop(jobs.permutation_key(st.session_state[K.EV_RUN]) if st.session_state.get(K.EV_RUN) else None)
    try:
        limits.check_trials(config.trials, "trials T")
        names = list(st.session_state[K.EV_REPS] or [])
        if any(s != BASELINE for s in config.strategies) and not names:
            raise InputError("choose at least one representation for the strategies other than random.",
                             field="representation")
        offered = session.offered_recipes(data)
        unknown = [n for n in names if n not in offered]
        if unknown:
            raise InputError(f"unknown representation '{unknown[0]}'.", field="representation")
        reps = {offered[n].label: cache.representation(data, offered[n], session.seed()) for n in names}
        permute = bool(st.session_state[K.EV_PERMUTE]) and any(s != BASELINE for s in config.strategies)
        b = int(st.session_state[K.EV_PERMUTATIONS]) if permute else 0
        limits.check_permutations(b)
        t = min(int(st.session_state[K.EV_PERM_TRIALS]), config.trials)
        job = jobs.start_evaluation(data.benchmark, reps, config, token=data.token, mapper=compute.mapper_from_state(),
                                    permutations=b, permutation_trials=t, **limits.job_limits())
    except InputError as exc:
        state.flash("error", f"The evaluation could not start: {exc}")
        return
    st.session_state[K.EV_RUN] = job.key


def permutation_job() -> jobs.Job | None:
    """The permutation test that follows the session's latest evaluation, if it was asked for."""
    job = current_job()
    return None if job is None else jobs.get(jobs.permutation_key(job.key))


def current_permutation(data: ActiveData) -> PermutationTest | None:
    """The finished permutation test of the session's latest evaluation of the active benchmark."""
    job = permutation_job()
    if job is None or job.status != "done" or current_result(data) is None:
        return None
    return job.result


def verdict(result: EvaluationResult, metric: str, permutation: PermutationTest | None = None, *,
            running: bool = False) -> Verdict:
    """The core's verdict (:func:`~subsetsel_core.evaluation.verdict.evaluation_verdict`)."""
    return evaluation_verdict(result, permutation, metric, running=running)


def show_verdict(v: Verdict) -> None:
    """A success box only when the permutation test says some strategy helps; an info box otherwise."""
    if v.helps:
        st.success(widgets.md_escape(v.text), icon=":material/verified:")
    else:
        st.info(widgets.md_escape(v.text), icon=":material/gavel:")


def _status(job: jobs.Job) -> None:
    done, total = job.done, job.total
    text = {"running": f"Running: {done} of {total} trials · {rounding.text(job.elapsed, 'seconds')} s",
            "done": f"Finished: {total} trials in {rounding.text(job.elapsed, 'seconds')} s",
            "stopped": f"Stopped after {done} of {total} trials ({rounding.text(job.elapsed, 'seconds')} s)"}.get(job.status, "Failed")
    st.progress(1.0 if job.status == "done" else job.progress, text=text)


def _perm_status(job: jobs.Job | None, res: EvaluationResult) -> None:
    if job is None:
        st.caption(f"Not tested against shuffled descriptors (the permutation test was switched off): no verdict "
                   "can say that a strategy helps. Switch it on above and run again "
                   f"({widgets.md_escape(settings_label(res))}).")
        return
    pt: PermutationTest | None = job.result
    drawn = 0 if pt is None else pt.drawn
    verdict_n = 0 if pt is None else pt.shuffles()  # each metric is a family with its own sequential stop
    reach = "" if pt is None else f"; smallest p still reachable {format_p(pt.smallest_reachable())}"
    early = pt is not None and any(pt.stopped.values())
    text = {"running": f"Permutation test: {drawn} of at most {job.total} shuffles so far{reach} · "
                       f"{rounding.text(job.elapsed, 'seconds')} s",
            "done": f"Permutation test finished in {rounding.text(job.elapsed, 'seconds')} s after {verdict_n} "
                    f"shuffles for the verdict's metric" + (f" ({drawn} for the metric that took the most)"
                                                           if drawn != verdict_n else "")
                    + (f" (sequential stop: {pt.stop_after if pt else ''} shuffles reached the largest gain)"
                       if early else ""),
            "stopped": f"Permutation test stopped after {drawn} shuffles: no verdict"}.get(job.status, "Failed")
    c = st.columns([4, 1])
    c[0].progress(1.0 if job.status == "done" else job.progress, text=text)
    if job.running:
        c[1].button("Stop test", on_click=jobs.stop, args=(job.key,), icon=":material/stop_circle:", key="pt_stop",
                    width="stretch")
    if job.error:
        st.error(widgets.md_escape(job.error))


def _test_and_verdict(res: EvaluationResult, metric: str, perm_job: jobs.Job | None) -> None:
    """The permutation test's progress and the verdict (the live state while it runs: shuffles so far and the
    smallest p still reachable; "stopped after b shuffles: no verdict" once stopped)."""
    _perm_status(perm_job, res)
    pt = perm_job.result if perm_job is not None else None
    show_verdict(evaluation_verdict(res, pt, metric, running=perm_job is not None and perm_job.running))


def _live_test(metric: str) -> None:
    """Polled while the permutation test runs after a finished evaluation: only its progress
    and the verdict are redrawn (the curves and tables stay), so that the page takes little
    of the machine from the test; when it ends, the whole page is drawn once more."""
    job = current_job()
    if job is None or job.result is None:
        return
    if not _busy(job):
        st.rerun()
    _test_and_verdict(job.result, metric, permutation_job())


def _final(res: EvaluationResult, metric: str, perm_job: jobs.Job | None, stab: Stability | None, *,
           live_test: bool = False) -> None:
    pt = perm_job.result if perm_job is not None and perm_job.status == "done" else None
    if live_test:
        st.fragment(_live_test, run_every=jobs.POLL_SECONDS)(metric)
    else:
        _test_and_verdict(res, metric, perm_job)
    st.markdown(f"#### Area under the curve — {METRICS[metric].label}")
    fmt = st.column_config.NumberColumn
    any_state = perm_job.result if perm_job is not None else None  # a running or stopped test says so in the table
    st.dataframe(auc_table(res, metric, any_state, pending=perm_job is not None and perm_job.running), hide_index=True,
                 width="stretch",
                 column_config={"AUC": fmt(format=printf("auc")), "normalised AUC": fmt(format=printf("auc_normalised")),
                                "gain over random": fmt(format=printf("gain"))})
    left, right = st.columns([3, 2], gap="large")
    with left:
        widgets.chart(curves.auc_figure(res.to_frame(), metric), key="ev_auc")
    with right:
        fr = res.friedman().get(metric)
        st.caption(
            f"{widgets.md_escape(settings_label(res))}. AUC: trapezoid over k = {int(res.ks[0])} … {int(res.ks[-1])} "
            f"(unit spacing); normalised = AUC / {max(1, len(res.ks) - 1)}; {widgets.md_escape(gain_note(res, pt))}. "
            "**Verdict**: the permutation test — the gain over random against the gains of the same strategies on "
            "shuffled descriptors (same pools, one shuffle for every representation), family-wise by step-down "
            "maxT over every entry" + (f"; {widgets.md_escape(pt.describe())}" if pt is not None else "")
            + ". **p vs random on these pools**: one-sided Wilcoxon on the paired per-trial AUCs, Holm-corrected; "
            "conditional on the one representation, it overstates the evidence and is no verdict."
            + (f" Friedman test across all strategies: {p_phrase(fr)}." if fr is not None else "")
        )
        outputs.downloads(res, pt, stab)
    outputs.cd_section(res, metric)


def curves_for(res: EvaluationResult, metric: str, pt: PermutationTest | None, stab: Stability | None, *,
               all_bands: bool, bands: bool = True, height: int = 500, marks: pd.DataFrame | None = None,
               target: float | None = None) -> Any:
    """The curves figure with the ceiling band; bands for random and the favoured entry unless ``all_bands``."""
    fav = favoured_entry(res, pt, metric)
    band = stab.bands.get(metric) if stab is not None else None
    return curves.curves_figure(
        res.curves_frame(), metric, bands=bands, height=height, marks=marks, target=target,
        ceiling=None if band is None else (band.lo, band.hi),
        band_keys=None if all_bands else {BASELINE, *([fav] if fav else [])},
        title=f"{METRICS[metric].label} vs k — T = {res.trials_done}{'' if res.complete else ' so far'}, "
              f"seed {res.config.seed}")


def _panel(polling: bool, testing: bool = False) -> None:
    job = current_job()
    if job is None:
        return
    if polling and (not _busy(job) or not job.running):
        st.rerun()  # the run ended (its test may go on): redraw the whole page once, without polling it
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
    m = st.columns([1.2, 1, 1.4, 1.6])
    state.ensure_choice(K.EV_METRIC, list(res.config.metrics), fallback=state.default(K.EV_METRIC))
    m[0].selectbox("Metric", list(res.config.metrics), key=K.EV_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    m[1].toggle("95% bands", key=K.EV_BANDS, persist_state=state.PERSIST)
    m[2].toggle("Bands of every strategy", key=K.EV_ALL_BANDS, persist_state=state.PERSIST,
                help="Off: bands of random and of the strategy the evaluation favours only.")
    metric = st.session_state[K.EV_METRIC]
    marks, target = required_k.curve_marks(res, metric)
    perm_job = permutation_job()
    pt = perm_job.result if perm_job is not None and perm_job.status == "done" else None
    data = session.active()
    stab = cache.stability(data, res.config.seed) if job.request.token == data.token else None
    fig = curves_for(res, metric, pt, stab, all_bands=bool(st.session_state[K.EV_ALL_BANDS]),
                     bands=bool(st.session_state[K.EV_BANDS]), marks=marks, target=target)
    widgets.chart(fig, key="ev_curves")
    st.caption("Lines: mean over trials; shaded: 2.5–97.5 % of trials. Each trial draws a pool of "
               f"⌊α·n⌋ = {res.info.get('pool_datasets')} datasets and {res.info.get('pool_models')} models; "
               "every strategy sees the same pools."
               + ("" if stab is None else " Grey band: the full benchmark's own stability — "
                  f"{widgets.md_escape(stab.describe())}, {widgets.md_escape(stab.band_text(metric))}"
                  if metric in stab.bands else "")
               + ("" if stab is None else ": a yardstick for 'faithful enough', not a bound (a large subset can "
                  "lie above it).")
               + (" Stars: the advised k of each strategy (below); dotted line: the target." if marks is not None
                  else ""))
    covered = res.coverage_sentence()
    if covered:
        st.info(widgets.md_escape(covered), icon=":material/grid_on:")
    if not job.running:
        _final(res, metric, perm_job, stab, live_test=testing)
    required_k.advice_section(res, metric, stab, favoured_entry(res, pt, metric), pt,
                              pending=perm_job is not None and perm_job.running)
    theory.section(data, job)


def _busy(job: jobs.Job) -> bool:
    """The evaluation or the permutation test after it is still running."""
    test = jobs.get(jobs.permutation_key(job.key))
    return job.running or (test is not None and test.running) or (
        not job.running and job.status == "done" and job.request.permutations > 0 and test is None)


def results_panel() -> None:
    """The live panel: polls while the run is going, then shows the final tables."""
    job = current_job()
    if job is None:
        st.info("No evaluation in this session yet. Choose strategies and representations above and press "
                "**Run evaluation**; the curves fill in while the trials run.")
        return
    busy = _busy(job)
    testing = busy and not job.running  # the evaluation is done, its permutation test runs (polled on its own)
    st.fragment(_panel, run_every=jobs.POLL_SECONDS if busy and not testing else None)(busy and not testing, testing)
