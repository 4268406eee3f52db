"""Two checks of a decision, each a background job with its panel.

- *Generalisation to new models* (Evaluate page): the protocol on the models used to
  judge and on held-out ones (a random share, or the newest by release date).
- *Representation check* (Representation page): Mantel test and CKA plus a quick protocol
  run giving the gain over random that can be expected
  (:func:`subsetsel_core.evaluation.check.quick_check`), and its plain verdict.

Both take seconds, so they run as :mod:`subsetsel_app.jobs` keyed by every setting that
changes the answer: a second visit, another session with the same settings, or a return
to earlier settings finds the result at once. The page polls the job from a fragment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from subsetsel_app import cache, jobs, limits, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import SubsetselError
from subsetsel_core.evaluation.check import MANTEL_PERMUTATIONS
from subsetsel_core.evaluation.generalisation import (
    GeneralisationResult,
    evaluate_generalisation,
    read_release_dates,
    split_models,
)
from subsetsel_core.evaluation.quick import CHECK_PERMUTATIONS, QuickCheck, quick_check
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.timing import check_seconds, estimate_seconds
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.text import rounding
from subsetsel_core.text.rounding import format_p
from subsetsel_core.viz import curves

NO_DATES = ("there are no model release dates: this benchmark's files describe the datasets, not the models. "
            "Upload a table of release dates (columns model, release_date) to hold out the newest models.")


def geometry_table(data: ActiveData, seed: int = 0) -> pd.DataFrame:
    """Geometry agreement (Mantel test) of every representation offered for evaluation (p by ``format_p``)."""
    rows = []
    for name, rec in session.offered_recipes(data).items():
        rep, _ = cache.try_representation(data, rec, seed)
        g = None if rep is None else cache.geometry(data, rec, rep, seed)
        rows.append({"representation": name, "features": None if rep is None else rep.X.shape[1],
                     "Spearman ρ": None if g is None else g.rho, "Mantel p": format_p(None if g is None else g.p_value)})
    return pd.DataFrame(rows)


def _progress_bar(job: jobs.Job, what: str) -> None:
    text = {"running": f"{what}: {job.phase or 'starting'} · {rounding.text(job.elapsed, 'seconds')} s",
            "done": f"{what}: done in {rounding.text(job.elapsed, 'seconds')} s",
            "stopped": f"{what}: stopped after {rounding.text(job.elapsed, 'seconds')} s"}.get(job.status, f"{what}: failed")
    st.progress(1.0 if job.status == "done" else job.progress, text=text)


def _job_panel(key: jobs.JobKey, polling: bool, title: str, stop_key: str) -> jobs.Job | None:
    """Progress and stop button of a running job, or its error; the finished job when there is a result
    to draw. A job that ends while polling reruns the page once (the polling stops)."""
    job = jobs.get(key)
    if job is None:
        return None
    if polling and not job.running:
        st.rerun()
    if job.running:
        c = st.columns([4, 1])
        with c[0]:
            _progress_bar(job, title)
        c[1].button("Stop", on_click=jobs.stop, args=(key,), icon=":material/stop_circle:", key=stop_key,
                    width="stretch")
        return None
    if job.status == "failed":
        st.error(widgets.md_escape(job.error), icon=widgets.ICONS["error"])
    elif job.status == "stopped":
        st.info("Stopped. Press the button again to run it.")
    return job if job.status == "done" else None


# =========================================================================== generalisation to new models


def release_dates(data: ActiveData) -> tuple[dict[str, Any] | None, str]:
    """Model release dates of the active benchmark, or ``(None, why not)``.

    They come from a table the user uploaded in the generalisation section (kept in the
    session for this benchmark), else from :attr:`ActiveData.model_dates`.
    """
    up = st.session_state.get(K.EV_GEN_DATES)
    if up is not None and up[0] == data.token:
        return (None, up[1]) if isinstance(up[1], str) else (dict(up[1]), "")
    dates = data.model_dates
    if not dates:
        return None, NO_DATES
    missing = [m for m in data.benchmark.models if pd.isna(pd.to_datetime(dates.get(m), errors="coerce"))]
    if missing:
        return None, f"{len(missing)} of {data.benchmark.n_models} models have no release date."
    return dict(dates), ""


def _on_dates_upload(data: ActiveData) -> None:
    """Uploader callback: read the release-date table, keep it (or the reason it is not usable)."""
    f = st.session_state.get(K.EV_GEN_DATES_FILE)
    st.session_state[K.EV_GEN_NEWEST] = False
    if f is None:
        st.session_state[K.EV_GEN_DATES] = None
        return
    try:
        limits.check_upload(f.name, f.size)
        dates = read_release_dates(f.getvalue(), data.benchmark.models, label=f.name)
    except SubsetselError as exc:
        st.session_state[K.EV_GEN_DATES] = (data.token, f"the release dates in the upload are not used: {exc}")
        return
    st.session_state[K.EV_GEN_DATES] = (data.token, tuple((m, d.date().isoformat()) for m, d in dates.items()))
    st.session_state[K.EV_GEN_NEWEST] = True


@dataclass(frozen=True)
class GenSettings:
    """Everything that changes a generalisation result (the job's key)."""

    token: str
    reps: tuple[tuple[str, RepresentationRecipe], ...]
    config: EvaluationConfig
    newest: bool
    fraction: float
    seed: int
    dates: tuple[tuple[str, str], ...] = ()


def _gen_work(job: jobs.Job, benchmark: Benchmark, reps: Mapping[str, Representation], config: EvaluationConfig,
              *, fraction: float, seed: int, dates: Mapping[str, Any] | None) -> GeneralisationResult:
    """:func:`~subsetsel_core.evaluation.generalisation.evaluate_generalisation`, reporting to ``job``."""
    def progress(done: int, total: int, what: str) -> None:
        in_run = done if done <= config.trials else done - config.trials
        job.report(done, f"{what}, {in_run} of {config.trials} trials")

    return evaluate_generalisation(benchmark, reps, config, release_dates=dates, fraction=fraction, seed=seed,
                                   progress=progress, should_stop=job.should_stop)


def generalisation_frame(gen: GeneralisationResult, metric: str) -> pd.DataFrame:
    """Per entry: AUC and p vs random on both groups, the gain over random on the held-out models and
    whether it holds there (AUC as in the verdict: trapezoid over k with unit spacing)."""
    df = gen.to_frame(metric)
    out = pd.DataFrame({
        "strategy": df["key"],
        "AUC, judging models": df["auc_judged"],
        "p vs random on these pools, judging": [format_p(p) for p in pd.to_numeric(df["p_judged"], errors="coerce")],
        "AUC, held-out models": df["auc_new"],
        "p vs random on these pools, held-out": [format_p(p) for p in pd.to_numeric(df["p_new"], errors="coerce")],
    })
    if df["gain_new"].notna().any():
        out["gain over random, held-out"] = pd.to_numeric(df["gain_new"])
        out["holds on held-out"] = ["—" if h is None else ("yes" if h else "no") for h in df["holds"]]
    return out.sort_values("AUC, judging models", ascending=not METRICS[metric].higher_is_better).reset_index(drop=True)


def _gen_settings(data: ActiveData, run: jobs.Evaluation) -> GenSettings:
    offered = session.offered_recipes(data)
    trials = int(st.session_state[K.EV_GEN_TRIALS])
    c = run.config
    config = EvaluationConfig(strategies=c.strategies, trials=trials, alpha=c.alpha, beta=c.beta, k_min=c.k_min,
                              k_max=c.k_max, seed=c.seed, metrics=c.metrics,
                              batch_size=jobs.default_batch_size(trials))
    dates = release_dates(data)[0]
    newest = bool(st.session_state[K.EV_GEN_NEWEST]) and dates is not None
    return GenSettings(data.token, tuple((n, offered[n]) for n in run.representations if n in offered), config,
                       newest, float(st.session_state[K.EV_GEN_FRACTION]), session.seed(),
                       tuple(sorted((m, str(d)) for m, d in dates.items())) if newest and dates else ())


def _start_generalisation(data: ActiveData, run: jobs.Evaluation) -> None:
    """Button callback: build the representations and start the job; errors are flashed."""
    s = _gen_settings(data, run)
    try:
        limits.check_trials(s.config.trials, "trials of the generalisation check")
        reps = {name: cache.representation(data, rec, s.seed) for name, rec in s.reps}
        dates = release_dates(data)[0] if s.newest else None
        split_models(data.benchmark, release_dates=dates, fraction=s.fraction, seed=s.seed)  # validate first
        bench = data.benchmark
        jobs.submit(("generalisation", s), "the generalisation check", 2 * s.config.trials,
                    lambda j: _gen_work(j, bench, reps, s.config, fraction=s.fraction, seed=s.seed, dates=dates),
                    **limits.job_limits())
    except SubsetselError as exc:
        state.flash("error", f"The generalisation check could not start: {exc}")
        return
    st.session_state[K.EV_GEN_JOB] = ("generalisation", s)


def _gen_result(job: jobs.Job) -> None:
    gen: GeneralisationResult = job.result
    metrics = list(gen.judged.config.metrics)
    state.ensure_choice(K.EV_GEN_METRIC, metrics, fallback=state.default(K.EV_GEN_METRIC))
    c = st.columns([1.2, 4])
    c[0].selectbox("Metric", metrics, key=K.EV_GEN_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    metric = st.session_state[K.EV_GEN_METRIC]
    c[1].caption(f"Judging models ({len(gen.judge_models)}) and held-out models ({len(gen.new_models)}, "
                 f"{widgets.md_escape(gen.how)}), each run through the same {gen.judged.config.trials} random pools. "
                 f"Computed in {rounding.text(job.elapsed, 'seconds')} s; kept for these settings.")
    text, holds = gen.verdict(metric), gen.holds(metric)
    (st.success if holds else st.warning)(
        widgets.md_escape(text) + ("" if holds else " The subset is not shown to hold for unseen models: pick it "
                                   "with care and check again when new models arrive."),
        icon=":material/verified:" if holds else widgets.ICONS["warning"])
    widgets.chart(curves.generalisation_figure(
        gen.judged.curves_frame(), gen.held_out.curves_frame(), metric,
        titles=(f"models used to judge ({len(gen.judge_models)})", f"held-out models ({len(gen.new_models)})"),
        title=f"{METRICS[metric].label} vs k — seen vs held-out models"), key="ev_gen_curves")
    fmt, auc = st.column_config.NumberColumn, rounding.printf("auc")
    st.dataframe(generalisation_frame(gen, metric), hide_index=True, width="stretch",
                 column_config={"AUC, judging models": fmt(format=auc), "AUC, held-out models": fmt(format=auc),
                                "gain over random, held-out": fmt(format=rounding.printf("gain"))})
    ks = gen.judged.ks
    st.caption(f"AUC: trapezoid over k = {int(ks[0])} … {int(ks[-1])} (unit spacing), as in the AUC table above; "
               f"divided by {max(1, len(ks) - 1)} it is the curve's mean. p: one-sided Wilcoxon against random on "
               "the paired per-trial AUCs, Holm-corrected, within each group of models.")
    with st.expander("Which models are held out"):
        st.markdown("**Held out:** " + widgets.md_escape(", ".join(gen.new_models)))
        st.markdown("**Used to judge:** " + widgets.md_escape(", ".join(gen.judge_models)))


def _gen_panel(key: jobs.JobKey, polling: bool) -> None:
    job = _job_panel(key, polling, "Generalisation check", "ev_gen_stop")
    if job is not None:
        _gen_result(job)
    elif (j := jobs.get(key)) is not None and j.running:
        st.caption("Two runs of the protocol: on the models used to judge, then on the held-out models.")


def generalisation_section(data: ActiveData, run: jobs.Evaluation | None) -> None:
    """Will the subset hold for new models? Split controls, the background run and its view."""
    st.markdown("#### Generalisation to new models")
    st.caption("Strategies never see scores, but the evidence for choosing one comes from today's models. Hold some "
               "models out, run the same protocol on both groups, and see whether the winner on the judging models "
               "still beats random on the models it has not seen.")
    if run is None or run.token != data.token:
        st.info("Run an evaluation of this benchmark first: the check reuses its strategies, representations, α, β "
                "and k range.")
        return
    gone = [r for r in run.representations if r not in session.offered_recipes(data)]
    if gone:
        st.info(f"The evaluation used {', '.join(map(widgets.md_escape, gone))}, which is no longer configured on "
                "the Representation page; run the evaluation again to check it on held-out models.")
        return
    dates, why = release_dates(data)
    if dates is None:
        st.session_state[K.EV_GEN_NEWEST] = False
    c = st.columns([1.6, 1.4, 1, 1.2])
    c[0].toggle("Hold out the newest models", key=K.EV_GEN_NEWEST, persist_state=state.PERSIST,
                disabled=dates is None, help="By release date; off: a random share of the models."
                + (f" Unavailable: {why}" if dates is None else ""))
    c[1].slider("Share of models held out", 0.2, 0.8, step=0.05, key=K.EV_GEN_FRACTION, persist_state=state.PERSIST)
    c[2].number_input("Trials", min_value=4, max_value=2000, step=10, key=K.EV_GEN_TRIALS,
                      persist_state=state.PERSIST, help="Per group of models.")
    settings = _gen_settings(data, run)
    secs = 2 * estimate_seconds(settings.config, len(settings.reps), data.benchmark.n_datasets) * 0.6
    key: jobs.JobKey = ("generalisation", settings)
    job = jobs.get(key)
    c[3].button("Check on held-out models", icon=":material/science:", key="ev_gen_btn", width="stretch",
                on_click=_start_generalisation, args=(data, run), disabled=job is not None and job.running)
    with st.expander("Model release dates" + (" (loaded)" if dates is not None else ""), expanded=False):
        widgets.file_uploader("A table with a 'model' column and a 'release_date' column (CSV or Parquet)",
                              type=["csv", "tsv", "txt", "parquet", "gz"], key=K.EV_GEN_DATES_FILE,
                              on_change=_on_dates_upload, args=(data,))
        if dates is not None:
            newest = sorted(dates.items(), key=lambda kv: (pd.Timestamp(kv[1]), kv[0]))[-3:]
            st.caption("Newest: " + ", ".join(f"{widgets.md_escape(m)} ({pd.Timestamp(d).date()})"
                                              for m, d in newest[::-1]))
    if dates is None:
        up = st.session_state.get(K.EV_GEN_DATES)
        if up is not None and up[0] == data.token and isinstance(up[1], str):
            st.error(widgets.md_escape(why[0].upper() + why[1:]), icon=widgets.ICONS["error"])
        else:
            st.caption(f"Holding out the newest models is unavailable — {widgets.md_escape(why)}")
    if job is None:
        n_new = max(2, int(round(settings.fraction * data.benchmark.n_models)))
        st.caption(f"Holds out {n_new} of {data.benchmark.n_models} models "
                   f"({'newest' if settings.newest else f'random, seed {settings.seed}'}); about {rounding.text(secs, 'seconds')} s in the "
                   "background. Results are kept for these settings.")
        return
    st.fragment(_gen_panel, run_every=jobs.POLL_SECONDS if job.running else None)(key, job.running)


# =========================================================================== representation check


def _check_key(data: ActiveData, rec: RepresentationRecipe) -> jobs.JobKey:
    return ("repcheck", data.token, rec, session.seed(), int(st.session_state[K.REP_CHECK_TRIALS]))


def _start_check(data: ActiveData, rec: RepresentationRecipe) -> None:
    """Button callback: start the quick check of the configured representation (kept per settings)."""
    key = _check_key(data, rec)
    seed, trials = session.seed(), int(st.session_state[K.REP_CHECK_TRIALS])
    units = 1 + trials + CHECK_PERMUTATIONS
    try:
        limits.check_trials(trials, "trials of the quick run")
        rep = cache.representation(data, rec, seed)
        bench = data.benchmark
        jobs.submit(key, "the representation check", units,
                    lambda j: quick_check(bench, rep, trials=trials, seed=seed, should_stop=j.should_stop,
                                          progress=lambda f: j.report(round(f * units), _phase(f, trials))),
                    **limits.job_limits())
    except SubsetselError as exc:
        state.flash("error", f"The representation check could not start: {exc}")
        return
    st.session_state[K.REP_CHECK_JOB] = key


def _phase(fraction: float, trials: int) -> str:
    done = max(0, round(fraction * (1 + trials + CHECK_PERMUTATIONS)) - 1)
    if done <= trials:
        return f"quick run, {done} of {trials} trials"
    return (f"permutation test, {done - trials} of at most {CHECK_PERMUTATIONS} shuffles of the descriptors "
            "(the test stops early once ten shuffles reach the largest gain)")


def _check_result(job: jobs.Job) -> None:
    qc: QuickCheck = job.result
    chk, pt = qc.check, qc.permutation
    best = qc.best
    mu, sd = pt.null_summary(best) if best in pt.gain else (float("nan"), float("nan"))
    c, num = st.columns(4), rounding.text
    c[0].metric(f"Gain over random ({best})", num(qc.gain, "gain"),
                delta="helps" if qc.helps else "no evidence that it helps", delta_arrow="off",
                delta_color="normal" if qc.helps else "off",
                help=f"{pt.unit()}: Spearman AUC of {best} minus random's (per k that is "
                     f"{num(qc.gain_normalised, 'gain')} in Spearman ρ on average).")
    c[1].metric("Shuffled descriptors give", f"{num(mu, 'gain')} ± {num(sd, 'gain_sd')}" if pt.shuffles() > 1 else
                num(mu, "gain"),
                help=f"Mean ± sd of the same gain with the descriptors shuffled between datasets "
                     f"({pt.null[best]['spearman'].size} shuffles, same pools and streams).")
    c[2].metric("p (permutation, maxT)", format_p(pt.p_adjusted[best]["spearman"]) if best in pt.gain else "—",
                help=pt.describe())
    c[3].metric("Mantel r", num(chk.mantel_r, "correlation"), help=f"p = {format_p(chk.mantel_p)} ({MANTEL_PERMUTATIONS} "
                f"permutations): descriptor distances vs rank-profile distances. CKA = {num(chk.cka, 'correlation')}.")
    text = widgets.md_escape(qc.verdict)
    if qc.helps:
        st.success(text, icon=":material/verified:")
    else:
        st.warning(text, icon=widgets.ICONS["warning"])
    with st.expander("Per strategy: gain, shuffled null and both tests", expanded=True):
        fmt, pf = st.column_config.NumberColumn, rounding.printf
        table = qc.table()
        for col in ("p permutation (maxT)", "p vs random on these pools (Holm)"):
            if col in table:
                table[col] = [format_p(p) for p in table[col]]
        for col, quantity in (("shuffled: mean gain", "gain"), ("shuffled: sd", "gain_sd")):
            if col in table:
                table[col] = ["—" if pd.isna(v) else num(v, quantity) for v in table[col]]
        if "verdict" in table:
            table["verdict"] = table["verdict"].fillna("baseline")
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"Spearman AUC": fmt(format=pf("auc")), "gain over random": fmt(format=pf("gain"))})
        st.caption("The verdict rests on the permutation test only. 'p vs random on these pools' is the Wilcoxon "
                   "test of the paired trials: it holds the descriptors fixed, so their trials share datasets and "
                   "it overstates the evidence.")
    st.caption(f"Took {rounding.text(job.elapsed, 'seconds')} s: {qc.result.trials_done} trials (α = {qc.result.config.alpha}, seed "
               f"{qc.result.config.seed}, k = {int(qc.result.ks[0])}…{int(qc.result.ks[-1])}), {pt.describe()}. "
               "Kept for this representation, seed and number of trials.")


def _check_panel(key: jobs.JobKey, polling: bool) -> None:
    job = _job_panel(key, polling, "Representation check", "rep_check_stop")
    if job is not None:
        _check_result(job)


def representation_check_section(data: ActiveData, rec: RepresentationRecipe) -> None:
    """Can a strategy on this representation be expected to beat random? (Representation page.)"""
    st.markdown("#### Do these descriptors help a strategy beat random?")
    trials = int(st.session_state[K.REP_CHECK_TRIALS])
    secs = check_seconds(data.benchmark.n_datasets, trials, CHECK_PERMUTATIONS)
    c = st.columns([1, 1.3, 3.2])
    c[0].number_input("Trials of the quick run", min_value=10, max_value=1000, step=10, key=K.REP_CHECK_TRIALS,
                      persist_state=state.PERSIST)
    key = _check_key(data, rec)
    job = jobs.get(key)
    c[1].button("Run the check", icon=":material/play_arrow:", key="rep_check_btn", width="stretch",
                on_click=_start_check, args=(data, rec), disabled=job is not None and job.running,
                help=f"At most about {rounding.text(secs, 'seconds')} s in the background; the page stays usable.")
    c[2].caption(f"A Mantel test ({MANTEL_PERMUTATIONS} permutations) and CKA of '{widgets.md_escape(rec.label)}' "
                 f"against the rank profiles, a quick protocol run (T = {trials}, α = 0.8, k = 2 … "
                 f"{min(20, data.benchmark.n_datasets)}, seed {session.seed()}, all strategies) for the Spearman "
                 f"gain over random, then the permutation test (up to {CHECK_PERMUTATIONS} shuffles of the "
                 f"descriptors) that decides whether it helps. At most about {rounding.text(secs, 'seconds')} s in the background; "
                 "early stops shorten it.")
    if job is not None:
        st.fragment(_check_panel, run_every=jobs.POLL_SECONDS if job.running else None)(key, job.running)
