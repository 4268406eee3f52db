"""Decision tools on the Evaluate and Representation pages.

- *How many datasets?* (:func:`advice_frame`, :func:`advice_marks`, :func:`advice_sentence`):
  the smallest k whose 95 % band reaches a target (:func:`subsetsel_core.evaluation.advice.advise`),
  as a table, as starred points on the curves and as one plain sentence.
- *Generalisation to new models* (:func:`generalisation_job`): the protocol on the models
  used to judge and on held-out ones (a random share, or the newest by release date).
- *Representation check* (:func:`check_job`): Mantel test and CKA
  (:func:`subsetsel_core.evaluation.check.check_representation`) plus a quick protocol run giving
  the gain over random that can be expected, and the plain verdict
  (:func:`subsetsel_core.evaluation.check.overall_verdict`).

The last two take seconds, so they run in a background thread (a :class:`Job`) kept in a
module-level registry keyed by every setting that changes the answer: the registry is the
cache (a second visit, another session with the same settings, or a return to earlier
settings finds the result at once). Threads never touch Streamlit; the page polls the job
from a fragment. The ``*_section`` functions are the page parts (layout only).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import Cancelled, SubsetselError
from subsetsel_core.evaluation.advice import advise
from subsetsel_core.evaluation.check import (
    RepresentationCheck,
    check_representation,
    overall_verdict,
)
from subsetsel_core.evaluation.generalisation import (
    GeneralisationResult,
    read_release_dates,
    split_models,
)
from subsetsel_core.evaluation.protocol import EvaluationConfig, EvaluationResult, iter_evaluate
from subsetsel_core.metrics import METRICS
from subsetsel_core.viz import figures

from . import runner, state, ui
from .model import ActiveData, RepConfig
from .state import K

log = logging.getLogger(__name__)

POLL_SECONDS = 0.75
_MAX_JOBS = 24
#: Seconds of one Mantel permutation test (999 permutations) on 112 datasets, for estimates.
MANTEL_SECONDS_112 = 1.2
#: Default targets per metric (MAE: see :func:`default_target`).


# =========================================================================== background jobs


@dataclass(eq=False)
class Job(runner.BackgroundWork):
    """One background computation (running or finished).

    Attributes
    ----------
    key : tuple
        Every setting that changes the answer (the cache key).
    label : str
    total : int
        Units of work (trials), for the progress bar.
    done : int
        Units finished so far.
    phase : str
        What it is doing now, for the progress text.
    result : Any
        The answer once finished.
    error : str or None
        Why it failed.
    """

    key: tuple[Hashable, ...]
    label: str
    total: int
    started: float = field(default_factory=time.time)
    done: int = 0
    phase: str = ""
    result: Any = None
    error: str | None = None
    finished: float | None = None
    stop_event: threading.Event = field(default_factory=threading.Event, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def progress(self) -> float:
        """Fraction done (0–1)."""
        return min(1.0, self.done / max(1, self.total))

    @property
    def status(self) -> str:
        """``running``, ``done``, ``stopped`` or ``failed``."""
        if self.running:
            return "running"
        if self.error is not None:
            return "stopped" if self.error == "stopped" else "failed"
        return "done"



_JOBS: OrderedDict[tuple[Hashable, ...], Job] = OrderedDict()
_LOCK = threading.Lock()


def _work(job: Job, fn: Callable[[Job], Any]) -> None:
    try:
        job.result = fn(job)
    except Cancelled:
        job.error = "stopped"
    except SubsetselError as exc:
        job.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged with the traceback
        log.exception("%s failed", job.label)
        job.error = f"{job.label} failed unexpectedly ({type(exc).__name__}: {exc})."
    finally:
        job.finished = time.time()


def submit(key: tuple[Hashable, ...], label: str, total: int, fn: Callable[[Job], Any]) -> Job:
    """Start ``fn(job)`` in a background thread, unless a job with this key exists.

    A finished job with the same key is returned as it is (the cache); a failed or stopped
    one is replaced by a new run.
    """
    with _LOCK:
        old = _JOBS.get(key)
        if old is not None and (old.running or old.error is None):
            _JOBS.move_to_end(key)
            return old
        job = Job(key, label, max(1, int(total)))
        job.thread = threading.Thread(target=_work, args=(job, fn), daemon=True, name=f"subsetsel-{label[:20]}")
        _JOBS[key] = job
        while len(_JOBS) > _MAX_JOBS:
            victim = next((k for k, j in _JOBS.items() if not j.running), None)
            if victim is None:
                break
            _JOBS.pop(victim)
    job.thread.start()
    return job


def get_job(key: tuple[Hashable, ...] | None) -> Job | None:
    """The job with this key, if the registry still holds it."""
    if key is None:
        return None
    with _LOCK:
        return _JOBS.get(tuple(key))


def stop_job(key: tuple[Hashable, ...] | None) -> None:
    """Ask a job to stop (no-op for an unknown key)."""
    job = get_job(key)
    if job is not None:
        job.stop()


def wait_all(timeout: float = 120.0) -> bool:
    """Wait until every job has ended (for tests); True if they all did."""
    t0 = time.time()
    with _LOCK:
        jobs = list(_JOBS.values())
    for j in jobs:
        j.wait(max(0.0, timeout - (time.time() - t0)))
    return all(not j.running for j in jobs)


def _progress_bar(job: Job, what: str) -> None:
    if job.running:
        st.progress(job.progress, text=f"{what}: {job.phase or 'starting'} · {job.elapsed:.0f} s")
    elif job.status == "done":
        st.progress(1.0, text=f"{what}: done in {job.elapsed:.1f} s")
    elif job.status == "stopped":
        st.progress(job.progress, text=f"{what}: stopped after {job.elapsed:.1f} s")
    else:
        st.progress(job.progress, text=f"{what}: failed")


# =========================================================================== how many datasets (advice)


def default_target(metric: str, n_models: int | None = None) -> float:
    """A sensible default target: 0.9 for Spearman / NDCG / MRR, 0.75 for Kendall; for rank MAE
    (an upper bound, in rank positions) 5 % of the models, at least 1."""
    return METRICS[metric].default_target(n_models)


def target_bounds(metric: str, n_models: int | None = None) -> tuple[float, float, float]:
    """``(min, max, step)`` of the target input for a metric."""
    lo, hi = METRICS[metric].bounds(n_models)
    return lo, hi, (0.01 if hi <= 1 else 0.1)


def _who(entry_strategy: str, entry_rep: str | None) -> str:
    return f"{entry_strategy} on {entry_rep}" if entry_rep else entry_strategy


def _entry(result: EvaluationResult, key: str) -> Any:
    return next(e for e in result.entries if e.key == key)


def advice_frame(result: EvaluationResult, metric: str, target: float) -> pd.DataFrame:
    """One row per strategy × representation: the advised k, the curve value and band there.

    Columns ``key, strategy, representation, k`` (``<NA>`` when not reached up to k_max),
    ``mean, lo, hi, reached``; reached rows first, by k (then best value).
    """
    rows = []
    for a in advise(result, metric=metric, target=float(target)):
        e = _entry(result, a.key)
        rows.append({"key": a.key, "strategy": e.strategy, "representation": e.representation, "k": a.k,
                     "mean": a.mean, "lo": a.lo, "hi": a.hi, "reached": a.k is not None})
    df = pd.DataFrame(rows, columns=["key", "strategy", "representation", "k", "mean", "lo", "hi", "reached"])
    df["k"] = pd.array(df["k"], dtype="Int64")
    sign = -1.0 if METRICS[metric].higher_is_better else 1.0
    order = df.assign(_k=df["k"].astype("Float64").fillna(np.inf), _v=sign * df["mean"].astype(float).fillna(0.0))
    order = order.sort_values(["_k", "_v"], kind="stable")
    return df.loc[order.index].reset_index(drop=True)


def best_advice(frame: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None]:
    """The first reached non-random row (fewest datasets) and random's row."""
    reached = frame[frame["reached"] & (frame["strategy"] != "random")]
    rand = frame[frame["strategy"] == "random"]
    return (reached.iloc[0] if len(reached) else None), (rand.iloc[0] if len(rand) else None)


def advice_marks(frame: pd.DataFrame) -> pd.DataFrame:
    """The reached rows as points for :func:`subsetsel_core.viz.figures.mark_points`; the best
    strategy and random are labelled."""
    best, rand = best_advice(frame)
    marks = frame[frame["reached"]].copy()
    labels = []
    for key in marks["key"]:
        if best is not None and key == best["key"]:
            labels.append(f"{key}: k = {best['k']}")
        elif rand is not None and key == rand["key"] and bool(rand["reached"]):
            labels.append(f"random: k = {rand['k']}")
        else:
            labels.append("")
    marks["label"] = labels
    marks["k"] = marks["k"].astype(int)
    # the labelled points last, so they are drawn on top of others at the same k
    marks = marks.assign(_top=[bool(t) for t in labels]).sort_values("_top", kind="stable")
    return marks[["key", "strategy", "k", "mean", "lo", "hi", "label"]].reset_index(drop=True)


def advice_sentence(result: EvaluationResult, frame: pd.DataFrame, metric: str, target: float) -> str:
    """One plain-language sentence: the fewest datasets that reach the target, and random's need.

    E.g. "With fafi-cosine on ucr_info, 8 datasets give Spearman ρ 0.94 [0.91, 0.96]; random needs 17."
    """
    label = METRICS[metric].label
    k_max = int(result.ks[-1])
    cmp = "≤" if not METRICS[metric].higher_is_better else "≥"
    prefix = "" if result.complete else f"So far ({result.trials_done} of {result.config.trials} trials): "
    best, rand = best_advice(frame)
    if rand is None:
        rand_txt = ""
    elif bool(rand["reached"]):
        rand_txt = f"random needs {rand['k']}"
    else:
        rand_txt = f"random does not reach it up to k = {k_max}"
    if best is not None:
        rep = best["representation"] if isinstance(best["representation"], str) else None
        return (prefix + f"With {_who(str(best['strategy']), rep)}, {best['k']} datasets give {label} "
                f"{best['mean']:.2f} [{best['lo']:.2f}, {best['hi']:.2f}]" + (f"; {rand_txt}." if rand_txt else "."))
    others = frame[frame["strategy"] != "random"]
    if rand is not None and bool(rand["reached"]):
        lead = ("No strategy besides random was evaluated; " if others.empty else
                f"No strategy reaches {label} {cmp} {target:g} with its whole 95 % band up to k = {k_max}; ")
        return prefix + lead + f"random needs {rand['k']} datasets ({label} {rand['mean']:.2f} " \
                               f"[{rand['lo']:.2f}, {rand['hi']:.2f}])."
    return prefix + (f"Nothing reaches {label} {cmp} {target:g} with its whole 95 % band up to k = {k_max}: "
                     "relax the target or evaluate larger k.")


def advice_display(frame: pd.DataFrame, metric: str, k_max: int) -> pd.DataFrame:
    """The advice table as shown: readable columns, "not reached up to k = …" where it is not."""
    label = METRICS[metric].label
    out = pd.DataFrame({
        "strategy": frame["strategy"],
        "representation": frame["representation"].fillna("—"),
        "advised k": [str(int(k)) if r else f"not reached up to k = {k_max}"
                      for k, r in zip(frame["k"], frame["reached"], strict=True)],
        f"{label} at k": frame["mean"].astype(float),
        "95% interval": [f"[{lo:.3f}, {hi:.3f}]" if r else "—"
                         for lo, hi, r in zip(frame["lo"], frame["hi"], frame["reached"], strict=True)],
    })
    if out["representation"][out["representation"] != "—"].nunique() <= 1:
        out = out.drop(columns=["representation"])
    return out


def _advice_settings(result: EvaluationResult) -> tuple[str, float]:
    """The advice metric and target from the session, repaired to be valid for ``result``."""
    metrics = list(result.config.metrics)
    state.ensure_choice(K.EV_ADV_METRIC, metrics, fallback="spearman")
    metric = st.session_state[K.EV_ADV_METRIC]
    n_models = result.info.get("pool_models")
    lo, hi, _ = target_bounds(metric, n_models)
    try:
        t = float(st.session_state[K.EV_ADV_TARGET])
    except (TypeError, ValueError):
        t = default_target(metric, n_models)
    if not (lo <= t <= hi) or not np.isfinite(t):
        t = default_target(metric, n_models)
    st.session_state[K.EV_ADV_TARGET] = t
    return metric, t


def _on_advice_metric(n_models: int | None) -> None:
    """Callback: a new advice metric → its default target, and the curves show that metric."""
    metric = st.session_state[K.EV_ADV_METRIC]
    st.session_state[K.EV_ADV_TARGET] = default_target(metric, n_models)
    st.session_state[K.EV_METRIC] = metric


def curve_marks(result: EvaluationResult, curve_metric: str) -> tuple[pd.DataFrame | None, float | None]:
    """Marks and target line for the curves figure, when it shows the advice metric."""
    metric, target = _advice_settings(result)
    if metric != curve_metric or result.trials_done < 2:
        return None, None
    return advice_marks(advice_frame(result, metric, target)), target


def advice_section(result: EvaluationResult, curve_metric: str) -> None:
    """The "How many datasets?" part of the results panel (inside the polling fragment)."""
    metric, target = _advice_settings(result)
    n_models = result.info.get("pool_models")
    st.markdown("#### How many datasets do I need?")
    c = st.columns([1.2, 1, 3])
    c[0].selectbox("Advice metric", list(result.config.metrics), key=K.EV_ADV_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label, on_change=_on_advice_metric, args=(n_models,))
    lo, hi, step = target_bounds(metric, n_models)
    higher = METRICS[metric].higher_is_better
    c[1].number_input("Target" + (" (at least)" if higher else " (at most)"), min_value=lo, max_value=hi, step=step,
                      key=K.EV_ADV_TARGET, persist_state=state.PERSIST, format="%.2f",
                      help=("The whole 95 % band must be at or above the target: the lower 2.5 % end counts."
                            if higher else "Rank MAE is an error in rank positions, lower is better: the whole 95 % "
                            "band must be at or below the target, so the upper 97.5 % end counts."))
    label = METRICS[metric].label
    c[2].caption(
        f"The smallest k at which the {'lower' if higher else 'upper'} end of the 95 % band of {label} "
        f"{'reaches' if higher else 'stays below'} the target, per strategy and representation"
        + ("." if metric == curve_metric else f" — the stars appear on the curves when they show {label}.")
        + (f" Based on {result.trials_done} trials so far; the bands narrow as trials finish."
           if not result.complete else "")
    )
    if result.trials_done < 2:
        st.info("Advice needs at least 2 finished trials.")
        return
    frame = advice_frame(result, metric, target)
    sentence = advice_sentence(result, frame, metric, target)
    st.markdown(f"**{ui.md_escape(sentence)}**")
    st.dataframe(advice_display(frame, metric, int(result.ks[-1])), hide_index=True, width="stretch",
                 column_config={f"{label} at k": st.column_config.NumberColumn(format="%.3f")})


# =========================================================================== generalisation to new models


def release_dates(data: ActiveData) -> tuple[dict[str, Any] | None, str]:
    """Model release dates of the active benchmark, or ``(None, why not)``.

    They come from a table the user uploaded in the generalisation section (kept in the
    session for this benchmark), else from :attr:`ActiveData.memo` under ``"model_dates"``
    (a benchmark folder loaded by code); neither the embedded samples nor the manifest
    format carry model metadata.
    """
    up = st.session_state.get(K.EV_GEN_DATES)
    if up is not None and up[0] == data.token:
        if isinstance(up[1], str):
            return None, up[1]
        return dict(up[1]), ""
    dates = data.memo.get("model_dates") if isinstance(data.memo, dict) else None
    if isinstance(dates, Mapping) and dates:
        missing = [m for m in data.benchmark.models if pd.isna(pd.to_datetime(dates.get(m), errors="coerce"))]
        if missing:
            return None, f"{len(missing)} of {data.benchmark.n_models} models have no release date."
        return dict(dates), ""
    return None, ("there are no model release dates: this benchmark's files describe the datasets, not the models. "
                  "Upload a table of release dates (columns model, release_date) to hold out the newest models.")


def _on_dates_upload(data: ActiveData) -> None:
    """Uploader callback: read the release-date table, keep it (or the reason it is not usable)."""
    f = st.session_state.get(K.EV_GEN_DATES_FILE)
    if f is None:
        st.session_state[K.EV_GEN_DATES] = None
        st.session_state[K.EV_GEN_NEWEST] = False
        return
    try:
        dates = read_release_dates(f.getvalue(), data.benchmark.models, label=f.name)
    except SubsetselError as exc:
        st.session_state[K.EV_GEN_DATES] = (data.token, f"the release dates in the upload are not used: {exc}")
        st.session_state[K.EV_GEN_NEWEST] = False
        return
    st.session_state[K.EV_GEN_DATES] = (data.token, tuple((m, d.date().isoformat()) for m, d in dates.items()))
    st.session_state[K.EV_GEN_NEWEST] = True


@dataclass(frozen=True)
class GenSettings:
    """Everything that changes a generalisation result (the job's cache key)."""

    token: str
    reps: tuple[tuple[str, RepConfig], ...]
    config: EvaluationConfig
    newest: bool
    fraction: float
    seed: int
    dates: tuple[tuple[str, str], ...] = ()


def generalisation_work(
    job: Job,
    benchmark: Benchmark,
    reps: Mapping[str, Representation],
    config: EvaluationConfig,
    *,
    fraction: float,
    seed: int,
    dates: Mapping[str, Any] | None,
) -> GeneralisationResult:
    """:func:`subsetsel_core.evaluation.generalisation.evaluate_generalisation`, reporting progress to ``job``
    (the same split and the same numbers)."""
    judge, new, how = split_models(benchmark, release_dates=dates, fraction=fraction, seed=seed)
    parts: list[EvaluationResult] = []
    for i, (models, what) in enumerate(((judge, "models used to judge"), (new, "held-out models"))):
        last = None
        for last in iter_evaluate(benchmark.subset(models=models), reps, config, should_stop=job.stop_event.is_set):
            job.done = i * config.trials + last.trials_done
            job.phase = f"{what}, {last.trials_done} of {config.trials} trials"
        if last is None or not last.complete:
            raise Cancelled("stopped")
        parts.append(last)
    return GeneralisationResult(tuple(judge), tuple(new), parts[0], parts[1], how)


def generalisation_frame(gen: GeneralisationResult, metric: str) -> pd.DataFrame:
    """Per entry: AUC and p vs random on both groups, the gain over random on the held-out models and
    whether it holds there (AUC as in the verdict: trapezoid over k with unit spacing)."""
    df = gen.to_frame(metric)
    higher = METRICS[metric].higher_is_better
    base = df.set_index("key").loc["random"] if (df["key"] == "random").any() else None

    def gain(v: float, b: float) -> float:
        return (v - b) if higher else (b - v)

    out = pd.DataFrame({
        "strategy": df["key"],
        "AUC, judging models": df["auc_judged"],
        "p, judging": pd.to_numeric(df["p_judged"], errors="coerce"),
        "AUC, held-out models": df["auc_new"],
        "p, held-out": pd.to_numeric(df["p_new"], errors="coerce"),
    })
    if base is not None:
        out["gain over random, held-out"] = [gain(v, base["auc_new"]) for v in df["auc_new"]]
        out["holds on held-out"] = [
            "—" if k == "random" else ("yes" if (p is not None and not pd.isna(p) and p < 0.05 and g > 0) else "no")
            for k, p, g in zip(df["key"], out["p, held-out"], out["gain over random, held-out"], strict=True)
        ]
    return out.sort_values("AUC, judging models", ascending=not higher).reset_index(drop=True)


def _gen_settings(data: ActiveData, run: runner.EvalRun) -> GenSettings:
    cfgs = ui.evaluation_configs(data)
    reps = tuple((name, cfgs[name]) for name in run.representations if name in cfgs)
    trials = int(st.session_state[K.EV_GEN_TRIALS])
    c = run.config
    config = EvaluationConfig(strategies=c.strategies, trials=trials, alpha=c.alpha, beta=c.beta, k_min=c.k_min,
                              k_max=c.k_max, seed=c.seed, metrics=c.metrics,
                              batch_size=runner.default_batch_size(trials))
    dates = release_dates(data)[0]
    newest = bool(st.session_state[K.EV_GEN_NEWEST]) and dates is not None
    return GenSettings(data.token, reps, config, newest, float(st.session_state[K.EV_GEN_FRACTION]),
                       int(st.session_state[K.SEED]),
                       tuple(sorted((m, str(d)) for m, d in dates.items())) if newest and dates else ())


def start_generalisation(data: ActiveData, settings: GenSettings) -> Job | None:
    """Build the representations (cached) and start the generalisation job; errors are flashed."""
    from . import data as D

    try:
        reps = {name: D.representation(data, cfg, settings.seed) for name, cfg in settings.reps}
        dates = release_dates(data)[0] if settings.newest else None
        split_models(data.benchmark, release_dates=dates, fraction=settings.fraction, seed=settings.seed)  # validate
        bench = data.benchmark
        key = ("generalisation", settings)
        job = submit(key, "the generalisation check", 2 * settings.config.trials,
                     lambda j: generalisation_work(j, bench, reps, settings.config, fraction=settings.fraction,
                                                   seed=settings.seed, dates=dates))
    except SubsetselError as exc:
        state.flash("error", f"The generalisation check could not start: {exc}")
        return None
    st.session_state[K.EV_GEN_JOB] = key
    return job


def _gen_button(data: ActiveData, run: runner.EvalRun) -> None:
    start_generalisation(data, _gen_settings(data, run))


def _gen_result(job: Job, data: ActiveData) -> None:
    gen: GeneralisationResult = job.result
    metrics = list(gen.judged.config.metrics)
    state.ensure_choice(K.EV_GEN_METRIC, metrics, fallback="spearman")
    c = st.columns([1.2, 4])
    c[0].selectbox("Metric", metrics, key=K.EV_GEN_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label)
    metric = st.session_state[K.EV_GEN_METRIC]
    c[1].caption(f"Judging models ({len(gen.judge_models)}) and held-out models ({len(gen.new_models)}, "
                 f"{ui.md_escape(gen.how)}), each run through the same {gen.judged.config.trials} random pools. "
                 f"Computed in {job.elapsed:.1f} s; kept for these settings.")
    text = gen.verdict(metric)
    holds = "still beats random" in text
    (st.success if holds else st.warning)(
        ui.md_escape(text) + ("" if holds else " The subset is not shown to hold for unseen models: pick it with care "
                              "and check again when new models arrive."),
        icon=":material/verified:" if holds else ui.ICONS["warning"])
    fig = figures.generalisation_figure(
        gen.judged.curves_frame(), gen.held_out.curves_frame(), metric,
        titles=(f"models used to judge ({len(gen.judge_models)})", f"held-out models ({len(gen.new_models)})"),
        title=f"{METRICS[metric].label} vs k — seen vs held-out models")
    ui.chart(fig, key="ev_gen_curves")
    st.dataframe(generalisation_frame(gen, metric), hide_index=True, width="stretch",
                 column_config={
                     "AUC, judging models": st.column_config.NumberColumn(format="%.3f"),
                     "AUC, held-out models": st.column_config.NumberColumn(format="%.3f"),
                     "gain over random, held-out": st.column_config.NumberColumn(format="%+.3f"),
                     "p, judging": st.column_config.NumberColumn(format="%.4f"),
                     "p, held-out": st.column_config.NumberColumn(format="%.4f"),
                 })
    width = max(1, len(gen.judged.ks) - 1)
    st.caption(f"AUC: trapezoid over k = {int(gen.judged.ks[0])} … {int(gen.judged.ks[-1])} (unit spacing), as in the "
               f"AUC table above; divided by {width} it is the curve's mean. p: one-sided Wilcoxon against random on "
               "the paired per-trial AUCs, Holm-corrected, within each group of models.")
    with st.expander("Which models are held out"):
        st.markdown("**Held out:** " + ui.md_escape(", ".join(gen.new_models)))
        st.markdown("**Used to judge:** " + ui.md_escape(", ".join(gen.judge_models)))


def _running_job_row(job: Job | None, key: tuple[Hashable, ...], polling: bool, title: str, stop_key: str) -> bool:
    """Progress bar and stop button of a running job (a finished one ends the polling with a
    rerun); True when there is nothing more to draw: no job, or still running."""
    if job is None:
        return True
    if polling and not job.running:
        st.rerun()
    if not job.running:
        return False
    c = st.columns([4, 1])
    with c[0]:
        _progress_bar(job, title)
    c[1].button("Stop", on_click=stop_job, args=(key,), icon=":material/stop_circle:", key=stop_key, width="stretch")
    return True


def _gen_panel(data: ActiveData, key: tuple[Hashable, ...], polling: bool) -> None:
    job = get_job(key)
    if _running_job_row(job, key, polling, "Generalisation check", "ev_gen_stop"):
        if job is not None:
            st.caption("Two runs of the protocol: on the models used to judge, then on the held-out models.")
        return
    if job.status == "failed":
        st.error(ui.md_escape(job.error), icon=ui.ICONS["error"])
        return
    if job.status == "stopped":
        st.info("Stopped. Press the button again to run it.")
        return
    _gen_result(job, data)


def generalisation_section(data: ActiveData, run: runner.EvalRun | None) -> None:
    """Will the subset hold for new models? Split controls, the background run and its view."""
    st.markdown("#### Generalisation to new models")
    st.caption("Strategies never see scores, but the evidence for choosing one comes from today's models. Hold some "
               "models out, run the same protocol on both groups, and see whether the winner on the judging models "
               "still beats random on the models it has not seen.")
    if run is None or run.token != data.token:
        st.info("Run an evaluation of this benchmark first: the check reuses its strategies, representations, α, β "
                "and k range.")
        return
    gone = [r for r in run.representations if r not in ui.evaluation_configs(data)]
    if gone:
        st.info(f"The evaluation used {', '.join(map(ui.md_escape, gone))}, which is no longer configured on the "
                "Representation page; run the evaluation again to check it on held-out models.")
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
    from . import evalview

    secs = 2 * evalview.estimate_seconds(settings.config, len(settings.reps), data.benchmark.n_datasets) * 0.6
    key = ("generalisation", settings)
    job = get_job(key)
    c[3].button("Check on held-out models", icon=":material/science:", key="ev_gen_btn", width="stretch",
                on_click=_gen_button, args=(data, run), disabled=job is not None and job.running)
    with st.expander("Model release dates" + (" (loaded)" if dates is not None else ""), expanded=False):
        st.file_uploader("A table with a 'model' column and a 'release_date' column (CSV or Parquet)",
                         type=["csv", "tsv", "txt", "parquet", "gz"], key=K.EV_GEN_DATES_FILE,
                         on_change=_on_dates_upload, args=(data,))
        if dates is not None:
            newest = sorted(dates.items(), key=lambda kv: (pd.Timestamp(kv[1]), kv[0]))[-3:]
            st.caption("Newest: " + ", ".join(f"{ui.md_escape(m)} ({pd.Timestamp(d).date()})" for m, d in newest[::-1]))
    if dates is None:
        up = st.session_state.get(K.EV_GEN_DATES)
        if up is not None and up[0] == data.token and isinstance(up[1], str):
            st.error(ui.md_escape(why[0].upper() + why[1:]), icon=ui.ICONS["error"])
        else:
            st.caption(f"Holding out the newest models is unavailable — {ui.md_escape(why)}")
    n_new = max(2, int(round(settings.fraction * data.benchmark.n_models)))
    if job is None:
        st.caption(f"Holds out {n_new} of {data.benchmark.n_models} models "
                   f"({'newest' if settings.newest else f'random, seed {settings.seed}'}); about {secs:.0f} s in the "
                   "background. Results are kept for these settings.")
        return
    st.fragment(_gen_panel, run_every=POLL_SECONDS if job.running else None)(data, key, job.running)


# =========================================================================== representation check


@dataclass(frozen=True, eq=False)
class QuickCheck:
    """The geometry check and a quick protocol run of one representation.

    Attributes
    ----------
    check : RepresentationCheck
    result : EvaluationResult
        The quick run (Spearman only).
    best : str
        Strategy with the best Spearman AUC.
    gain : float
        Its Spearman AUC minus random's (unnormalised, as in :func:`overall_verdict`).
    p : float or None
        Its Holm-corrected p-value against random.
    """

    check: RepresentationCheck
    result: EvaluationResult
    best: str
    gain: float
    p: float | None

    @property
    def beats_random(self) -> bool:
        """Whether the best strategy beats random significantly."""
        return self.p is not None and self.p < 0.05 and self.gain > 0

    @property
    def verdict(self) -> str:
        """:func:`subsetsel_core.evaluation.check.overall_verdict`."""
        return overall_verdict(self.check, self.best, self.gain, self.p)

    @property
    def gain_normalised(self) -> float:
        """The gain divided by the k span (difference of mean Spearman over k)."""
        return self.gain / max(1, len(self.result.ks) - 1)

    def table(self) -> pd.DataFrame:
        """Per strategy: Spearman AUC, its gain over random (as in the verdict) and p."""
        base = self.result.stats["random"].auc["spearman"].mean
        rows = []
        for e in self.result.entries:
            s = self.result.stats[e.key]
            rows.append({"strategy": e.key, "Spearman AUC": s.auc["spearman"].mean,
                         "gain over random": s.auc["spearman"].mean - base,
                         "p vs random (Holm)": s.p_vs_random.get("spearman")})
        df = pd.DataFrame(rows)
        df["p vs random (Holm)"] = pd.to_numeric(df["p vs random (Holm)"], errors="coerce")
        return df.sort_values("Spearman AUC", ascending=False).reset_index(drop=True)


def quick_check(
    benchmark: Benchmark, rep: Representation, *, trials: int = 50, seed: int = 0, permutations: int = 999,
    job: Job | None = None,
) -> QuickCheck:
    """Mantel test and CKA of ``rep``, then a quick protocol run (all strategies, Spearman) on it."""
    if job is not None:
        job.phase = f"Mantel test ({permutations} permutations)"
    chk = check_representation(benchmark, rep, permutations=permutations, seed=seed)
    if job is not None:
        job.done = 1
    k_max = min(20, benchmark.n_datasets)
    cfg = EvaluationConfig(trials=trials, seed=seed, metrics=("spearman",), k_min=min(2, k_max), k_max=k_max,
                           batch_size=runner.default_batch_size(trials))
    res = None
    for res in iter_evaluate(benchmark, {rep.name: rep}, cfg,
                             should_stop=job.stop_event.is_set if job is not None else None):
        if job is not None:
            job.done = 1 + res.trials_done
            job.phase = f"quick run, {res.trials_done} of {trials} trials"
    if res is None or not res.complete:
        raise Cancelled("stopped")
    base = res.stats["random"].auc["spearman"].mean
    keys = [e.key for e in res.entries if e.representation == rep.name]
    best = max(keys, key=lambda k: res.stats[k].auc["spearman"].mean)
    gain = float(res.stats[best].auc["spearman"].mean - base)
    p = res.stats[best].p_vs_random.get("spearman")
    return QuickCheck(chk, res, best, gain, None if p is None or not np.isfinite(p) else float(p))


def check_seconds(n_datasets: int, trials: int) -> float:
    """A rough run time of :func:`quick_check` (Mantel test plus 6 strategies × ``trials``)."""
    from . import evalview

    cfg = EvaluationConfig(trials=trials)
    return MANTEL_SECONDS_112 * (n_datasets / 112) ** 2 + evalview.estimate_seconds(cfg, 1, n_datasets)


def _check_key(data: ActiveData, cfg: RepConfig) -> tuple[Hashable, ...]:
    return ("repcheck", data.token, cfg, int(st.session_state[K.SEED]), int(st.session_state[K.REP_CHECK_TRIALS]))


def start_check(data: ActiveData, cfg: RepConfig) -> Job | None:
    """Button callback: start the quick check of the configured representation (cached per settings)."""
    from . import data as D

    key = _check_key(data, cfg)
    seed, trials = int(key[3]), int(key[4])  # type: ignore[call-overload]
    try:
        rep = D.representation(data, cfg, seed)
        bench = data.benchmark
        job = submit(key, "the representation check", trials + 1,
                     lambda j: quick_check(bench, rep, trials=trials, seed=seed, job=j))
    except SubsetselError as exc:
        state.flash("error", f"The representation check could not start: {exc}")
        return None
    st.session_state[K.REP_CHECK_JOB] = key
    return job


def _check_result(job: Job) -> None:
    qc: QuickCheck = job.result
    chk = qc.check
    c = st.columns(4)
    c[0].metric("Expected AUC gain over random", f"{qc.gain:+.2f}",
                delta="significant" if qc.beats_random else "not significant", delta_arrow="off",
                delta_color="normal" if qc.beats_random else "off",
                help=f"Spearman AUC (trapezoid over k = {int(qc.result.ks[0])} … {int(qc.result.ks[-1])}) of the best "
                     f"strategy ({qc.best}) minus random's; per k that is {qc.gain_normalised:+.3f} in Spearman ρ on "
                     "average.")
    c[1].metric("p vs random", "n/a" if qc.p is None else f"{qc.p:.3g}",
                help="One-sided Wilcoxon signed-rank test on the paired per-trial AUCs, Holm-corrected.")
    c[2].metric("Mantel r", f"{chk.mantel_r:.2f}", help=f"p = {chk.mantel_p:.3g} (999 permutations): descriptor "
                "distances vs rank-profile distances.")
    c[3].metric("CKA", f"{chk.cka:.2f}", help="Linear centred kernel alignment between the standardised "
                "descriptors and the datasets' model-rank vectors (0 = unrelated, 1 = same geometry).")
    text = ui.md_escape(qc.verdict)
    if qc.beats_random:
        st.success(text, icon=":material/verified:")
    elif chk.looks_like_noise:
        st.warning(text + " Subsets chosen from it are as good as a random draw.", icon=ui.ICONS["warning"])
    else:
        st.warning(text, icon=ui.ICONS["warning"])
    with st.expander("Quick run per strategy"):
        st.dataframe(qc.table(), hide_index=True, width="stretch",
                     column_config={"Spearman AUC": st.column_config.NumberColumn(format="%.3f"),
                                    "gain over random": st.column_config.NumberColumn(format="%+.3f"),
                                    "p vs random (Holm)": st.column_config.NumberColumn(format="%.4f")})
    st.caption(f"Took {job.elapsed:.1f} s ({qc.result.trials_done} trials, α = {qc.result.config.alpha}); kept for "
               "this representation, seed and number of trials.")


def _check_panel(key: tuple[Hashable, ...], polling: bool) -> None:
    job = get_job(key)
    if _running_job_row(job, key, polling, "Representation check", "rep_check_stop"):
        return
    if job.status == "failed":
        st.error(ui.md_escape(job.error), icon=ui.ICONS["error"])
    elif job.status == "stopped":
        st.info("Stopped. Press the button again to run it.")
    else:
        _check_result(job)


def representation_check_section(data: ActiveData, cfg: RepConfig, rep: Representation) -> None:
    """Can a strategy on this representation be expected to beat random? (Representation page.)"""
    st.markdown("#### Can a strategy be expected to beat random here?")
    trials = int(st.session_state[K.REP_CHECK_TRIALS])
    secs = check_seconds(data.benchmark.n_datasets, trials)
    c = st.columns([1, 1.3, 3.2])
    c[0].number_input("Trials of the quick run", min_value=10, max_value=1000, step=10, key=K.REP_CHECK_TRIALS,
                      persist_state=state.PERSIST)
    key = _check_key(data, cfg)
    job = get_job(key)
    c[1].button("Run the check", icon=":material/play_arrow:", key="rep_check_btn", width="stretch",
                on_click=start_check, args=(data, cfg), disabled=job is not None and job.running,
                help=f"About {secs:.0f} s in the background; the page stays usable.")
    c[2].caption(f"A Mantel test (999 permutations) and CKA of '{ui.md_escape(cfg.name)}' against the rank "
                 f"profiles, then a quick protocol run (T = {trials}, α = 0.8, k = 2 … "
                 f"{min(20, data.benchmark.n_datasets)}, all strategies) for the Spearman gain over random. "
                 f"Takes about {secs:.0f} s in the background.")
    if job is None:
        return
    st.fragment(_check_panel, run_every=POLL_SECONDS if job.running else None)(key, job.running)

