"""Evaluate page: "How much do the scores know?" — the price of a-priori selection.

Score-aware strategies (clearly labelled upper bounds) choose from the scores of the models
used to judge; every strategy, the evaluation's a-priori ones included, is scored on the
held-out models (:func:`subsetsel_core.evaluation.headroom.evaluate_headroom`). The run takes
seconds, so it is a background job (:mod:`subsetsel_app.jobs`) keyed by every setting that
changes it, polled from a fragment, as the generalisation check is. The page calls
:func:`headroom_section` once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_app import cache, jobs, limits, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_app.views.decisions import release_dates
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import SubsetselError
from subsetsel_core.evaluation.headroom import evaluate_headroom, model_splits
from subsetsel_core.evaluation.headroom_result import HeadroomResult
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.strategies import BASELINE, SCORE_AWARE
from subsetsel_core.strategies.score_aware import LABEL
from subsetsel_core.text.rounding import printf, text
from subsetsel_core.viz.headroom import headroom_figure

#: Share of the models held out (a half, as in PROTOCOL.md).
FRACTION = 0.5

INTRO = (f"A maintainer has today's models' scores. The score-aware strategies ({', '.join(SCORE_AWARE)}) choose "
         "from the scores of half of the models; every strategy — the a-priori ones of the evaluation above "
         "included — is then scored on the other half, which nobody chose with. The gap between the best of each "
         "kind is the price of choosing from descriptors alone.")
NOT_OFFERED = ("Score-aware strategies are an upper bound, not a way to choose: they are not offered on the Select "
               "page, because a subset fitted to today's models' scores is not known to hold for tomorrow's.")


@dataclass(frozen=True)
class HeadroomSettings:
    """Everything that changes a headroom result (the job's key)."""

    token: str
    reps: tuple[tuple[str, RepresentationRecipe], ...]
    config: EvaluationConfig
    splits: int
    newest: bool
    dates: tuple[tuple[str, str], ...] = ()


def settings(data: ActiveData, run: jobs.Evaluation) -> HeadroomSettings:
    """The panel's settings: the evaluation's strategies, representations, α, k range and seed."""
    offered = session.offered_recipes(data)
    c = run.config
    config = EvaluationConfig(strategies=c.strategies, trials=int(st.session_state[K.EV_HR_TRIALS]), alpha=c.alpha,
                              k_min=c.k_min, k_max=c.k_max, seed=c.seed, metrics=c.metrics)
    dates = release_dates(data)[0]
    newest = bool(st.session_state[K.EV_HR_NEWEST]) and dates is not None
    return HeadroomSettings(data.token, tuple((n, offered[n]) for n in run.representations if n in offered), config,
                            int(st.session_state[K.EV_HR_SPLITS]), newest,
                            tuple(sorted((m, str(d)) for m, d in dates.items())) if newest and dates else ())


def _work(job: jobs.Job, benchmark: Benchmark, reps: Mapping[str, Representation], s: HeadroomSettings,
          dates: Mapping[str, Any] | None) -> HeadroomResult:
    def progress(done: int, total: int, what: str) -> None:
        job.report(done, what)

    return evaluate_headroom(benchmark, reps, s.config, splits=s.splits, fraction=FRACTION, release_dates=dates,
                             progress=progress, should_stop=job.should_stop)


def _start(data: ActiveData, run: jobs.Evaluation) -> None:
    """Button callback: build the representations and start the job; errors are flashed."""
    s = settings(data, run)
    try:
        limits.check_trials(s.config.trials, "trials per split")
        reps = {name: cache.representation(data, rec, s.config.seed) for name, rec in s.reps}
        dates = dict(s.dates) if s.newest else None
        model_splits(data.benchmark, splits=s.splits, fraction=FRACTION, seed=s.config.seed,
                     release_dates=dates)  # validate first
        bench = data.benchmark
        jobs.submit(("headroom", s), "the headroom run", s.config.trials + (1 if s.newest else s.splits),
                    lambda j: _work(j, bench, reps, s, dates), **limits.job_limits())
    except SubsetselError as exc:
        state.flash("error", f"The headroom run could not start: {exc}")
        return
    st.session_state[K.EV_HR_JOB] = ("headroom", s)


def table(res: HeadroomResult, metric: str) -> pd.DataFrame:
    """Every entry on the held-out models, best first: rank, strategy, kind, AUC and its interval."""
    rows = []
    for key in res.ranking(metric):
        a = res.auc(key, metric)
        aware = res.entry(key).score_aware
        rows.append({"rank": res.rank(key, metric), "strategy": key,
                     "kind": LABEL if aware else "a-priori (descriptors only)",
                     "AUC, held-out models": a.mean, "2.5 %": a.lo, "97.5 %": a.hi})
    return pd.DataFrame(rows)


def _result(job: jobs.Job) -> None:
    res: HeadroomResult = job.result
    metrics = list(res.config.metrics)
    state.ensure_choice(K.EV_HR_METRIC, metrics, fallback=state.default(K.EV_HR_METRIC))
    c = st.columns([1.2, 4])
    c[0].selectbox("Metric", metrics, key=K.EV_HR_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    metric = st.session_state[K.EV_HR_METRIC]
    c[1].caption(f"{res.config.trials} trials × {len(res.splits)} split(s) of the models ({widgets.md_escape(res.how)});"
                 f" computed in {text(job.elapsed, 'seconds')} s, kept for these settings.")
    p = res.price(metric)
    (st.warning if p.ci_lo > 0 else st.info)(widgets.md_escape(res.sentence(metric)), icon=widgets.ICONS["info"])
    tiles = st.columns(3)
    tiles[0].metric("judging models (seen by score-aware selection)", res.judging_models)
    tiles[1].metric("price of a-priori selection", text(p.mean, "gain"))
    tiles[2].metric("95 % confidence interval of the mean",
                f"[{text(p.ci_lo, 'gain')}, {text(p.ci_hi, 'gain')}]" if np.isfinite(p.ci_lo) else "—",
                help=f"t-interval over the {len(p.per_split)} {p.over}; a single {p.over[:-1]}'s price spreads over "
                     f"[{text(p.lo, 'gain')}, {text(p.hi, 'gain')}] (2.5–97.5 %), which is not a confidence interval.")
    keys = list(dict.fromkeys([p.best_a_priori, p.best_score_aware, BASELINE]))  # the baseline for scale
    widgets.chart(headroom_figure(res.curves_frame(), metric, keys,
                                  title=f"{METRICS[metric].label} vs k on held-out models: best a-priori vs best "
                                        "score-aware"), key="ev_hr_curves")
    fmt = st.column_config.NumberColumn
    st.dataframe(table(res, metric), hide_index=True, width="stretch",
                 column_config={"AUC, held-out models": fmt(format=printf("auc")), "2.5 %": fmt(format=printf("auc")),
                                "97.5 %": fmt(format=printf("auc"))})
    st.caption("AUC: trapezoid over k (unit spacing) of each (split, trial) on the held-out models' ranking; interval: "
               "2.5–97.5 % over splits × trials. Price: the best score-aware entry's AUC minus the best a-priori "
               f"entry's; its confidence interval is the t-interval of the mean over {p.over} (they share datasets, "
               f"so it is if anything too narrow); the spread is that of single {p.over}. Score-aware strategies see "
               f"the scores of {res.judging_models} judging models only: with few judging models they overfit that "
               "small pool. " + NOT_OFFERED)


def _progress(job: jobs.Job) -> None:
    seconds = text(job.elapsed, "seconds")
    label = {"running": f"Headroom: {job.phase or 'starting'} · {seconds} s",
             "done": f"Headroom: done in {seconds} s",
             "stopped": f"Headroom: stopped after {seconds} s"}.get(job.status, "Headroom: failed")
    st.progress(1.0 if job.status == "done" else job.progress, text=label)


def _panel(key: jobs.JobKey, polling: bool) -> None:
    job = jobs.get(key)
    if job is None:
        return
    if polling and not job.running:
        st.rerun()
    if job.running:
        c = st.columns([4, 1])
        with c[0]:
            _progress(job)
        c[1].button("Stop", on_click=jobs.stop, args=(key,), icon=":material/stop_circle:", key="ev_hr_stop",
                    width="stretch")
    elif job.status == "failed":
        st.error(widgets.md_escape(job.error), icon=widgets.ICONS["error"])
    elif job.status == "stopped":
        st.info("Stopped. Press the button again to run it.")
    else:
        _result(job)


def headroom_section(data: ActiveData, run: jobs.Evaluation | None) -> None:
    """How much do the scores know? Split controls, the background run and its view."""
    st.markdown("#### How much do the scores know?")
    st.caption(INTRO + " " + NOT_OFFERED)
    if run is None or run.token != data.token:
        st.info("Run an evaluation of this benchmark first: the headroom reuses its strategies, representations, α "
                "and k range.")
        return
    if [r for r in run.representations if r not in session.offered_recipes(data)]:
        st.info("The evaluation used a representation that is no longer configured; run the evaluation again.")
        return
    dates, why = release_dates(data)
    if dates is None:
        st.session_state[K.EV_HR_NEWEST] = False
    c = st.columns([1, 1, 1.6, 1.4])
    c[0].number_input("Splits", min_value=1, max_value=100, step=1, key=K.EV_HR_SPLITS, persist_state=state.PERSIST,
                      help="Random halves of the models (one split when the newest are held out).")
    c[1].number_input("Trials per split", min_value=4, max_value=1000, step=10, key=K.EV_HR_TRIALS,
                      persist_state=state.PERSIST)
    c[2].toggle("Hold out the newest half", key=K.EV_HR_NEWEST, persist_state=state.PERSIST, disabled=dates is None,
                help="By release date; off: random halves." + (f" Unavailable: {why}" if dates is None else ""))
    s = settings(data, run)
    key: jobs.JobKey = ("headroom", s)
    job = jobs.get(key)
    c[3].button("Measure the headroom", icon=":material/insights:", key="ev_hr_btn", width="stretch",
                on_click=_start, args=(data, run), disabled=job is not None and job.running)
    if job is None:
        n_held = max(2, int(round(FRACTION * data.benchmark.n_models)))
        st.caption(f"Holds out {n_held} of {data.benchmark.n_models} models "
                   f"({'the newest' if s.newest else f'{s.splits} random halves, seed {s.config.seed}'}); "
                   "runs in the background. Results are kept for these settings.")
        return
    st.fragment(_panel, run_every=jobs.POLL_SECONDS if job.running else None)(key, job.running)
