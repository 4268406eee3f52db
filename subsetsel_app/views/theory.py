"""*What the theory predicts*: on the Representation page before any run, on the Evaluate page
after one, and its section of the report.

The GP model of PROTOCOL.md (docs/theory.md): on the Representation page, the predicted share
of inverted model pairs of every strategy on the protocol's first pools, words first, curves
second (:func:`preview`, no protocol run); under a finished evaluation, the predicted and the
observed curves of every strategy of the run overlaid, and FAFI's coverage bound (an upper
bound) for one FAFI entry (same seed, trials, α, β and k range). Layout only: the numbers come
from :func:`~subsetsel_core.evaluation.prediction.predict` and
:func:`~subsetsel_core.evaluation.theory.coverage_theory` (through :func:`subsetsel_app.cache.theory`),
the charts from :mod:`subsetsel_core.viz.theory`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import streamlit as st

from subsetsel_app import cache, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.strategies import COVERING, REGISTRY
from subsetsel_core.text.rounding import text
from subsetsel_core.viz.report import Section
from subsetsel_core.viz.style import strategy_color
from subsetsel_core.viz.theory import prediction_figure, theory_figure

if TYPE_CHECKING:
    from subsetsel_core.evaluation.prediction import Prediction
    from subsetsel_core.evaluation.theory import Theory
    from subsetsel_core.representations.descriptors import Representation

#: The entries that get the bound (as :data:`subsetsel_core.evaluation.theory.THEORY_STRATEGIES`,
#: named here without importing the GP code, which loads scipy.optimize).
STRATEGIES = COVERING
TITLE = "What the theory predicts"
PREDICTION_NOTE = ("Under a Gaussian-process model of the standardized scores over the descriptors (a constant mean "
                   "per model, length-scale ℓ, signal σ² and noise τ² fitted to all models' scores — they describe, "
                   "never choose), the mean of a model's scores over a subset S errs by wᵀy with "
                   "w = 1_S/k − 1/n, whose variance is wᵀ(K + τ²I)w; a pair of models whose reference gap is Δ is "
                   "then inverted with probability Φ(−Δ/√(2·Var)). Dashed: the prediction at each strategy's subsets "
                   "on the protocol's pools (shaded: 2.5–97.5 % over the pools). See docs/theory.md.")
PROMISE = ("Under a Gaussian-process model of the standardized scores over the descriptor space, a subset that "
           "covers every dataset within distance h leaves each model's estimated mean standardized score with an "
           "error variance of at most V(h); a pair of models whose reference gap is Δ is then inverted with "
           "probability at most Φ(−Δ/√(2V)). The model's length-scale, signal and noise are fitted to all models' "
           "scores (they describe, never choose). The bound is about the model's estimate, not the subset's mean "
           "rank, so it can sit above or, where the model is wrong, below what is observed. See docs/theory.md.")


def entries(result: EvaluationResult) -> list[Entry]:
    """The result's FAFI entries with a representation."""
    return [e for e in result.entries if e.strategy in STRATEGIES and e.representation is not None]


def _config(result: EvaluationResult) -> EvaluationConfig:
    """The observed subsets' settings: the evaluation's seed, trials done, α, β and k range."""
    c = result.config
    return EvaluationConfig(strategies=c.strategies, trials=result.trials_done, alpha=c.alpha, beta=c.beta,
                            k_min=int(result.ks[0]), k_max=int(result.ks[-1]), seed=c.seed, metrics=c.metrics[:1])


def chosen_entry(result: EvaluationResult) -> Entry | None:
    """The entry the session shows (:data:`K.EV_THEORY`), else the first FAFI (Euclidean) one."""
    es = entries(result)
    keys = [e.key for e in es]
    state.ensure_choice(K.EV_THEORY, keys, fallback=next((e.key for e in es if e.strategy == STRATEGIES[0]), None))
    return next((e for e in es if e.key == st.session_state.get(K.EV_THEORY)), None)


def compute(data: ActiveData, result: EvaluationResult, entry: Entry) -> tuple[Theory | None, str | None]:
    """The entry's bound, or ``(None, why not)``."""
    rec = session.offered_recipes(data).get(entry.representation or "")
    if rec is None:
        return None, (f"The evaluation used {entry.representation}, which is no longer configured on the "
                      "Representation page; run the evaluation again to see what the theory predicts for it.")
    try:
        return cache.theory(data, rec, entry.strategy, _config(result)), None
    except InputError as exc:
        return None, f"The coverage bound cannot be computed here: {exc}"


def frames(pred: Prediction) -> dict[str, Any]:
    """Each predicted strategy's curves (:meth:`~subsetsel_core.evaluation.prediction.Prediction.to_frame`)."""
    return {s: pred.to_frame(s) for s in pred.strategies}


def preview_predictions(data: ActiveData, rep: Representation) -> Iterator[Prediction] | str:
    """The prediction of every strategy on the protocol's first pools (the session's seed), in two steps
    (:func:`~subsetsel_core.evaluation.prediction.staged`: the cheap strategies first), or why not.

    Cached in the core by the inputs' hash; no protocol run, no observed share.
    """
    from subsetsel_core.evaluation.prediction import PREVIEW_TRIALS, staged

    steps = staged(data.benchmark, rep, EvaluationConfig(seed=session.seed()), trials=PREVIEW_TRIALS)
    try:
        first = next(steps)
    except InputError as exc:
        return f"The GP model cannot predict anything here: {exc}"
    return itertools.chain((first,), steps)


def _show(pred: Prediction, pending: tuple[str, ...]) -> None:
    from subsetsel_core.evaluation.prediction_text import gain_verdict, summary

    verdict = gain_verdict(pred)
    (st.success if verdict.predicts_gain else st.warning)(widgets.md_escape(summary(pred)),
                                                          icon=":material/functions:")
    f = pred.fit
    cols = st.columns(4)
    cols[0].metric("length-scale ℓ", text(f.lengthscale, "parameter"))
    cols[1].metric("nearest-neighbour distance", text(pred.nn_distance, "distance"))
    cols[2].metric("signal variance σ²", text(f.signal_variance, "parameter"))
    cols[3].metric("noise variance τ²", text(f.noise_variance, "parameter"))
    if pending:
        st.caption(widgets.md_escape(f"Adding {', '.join(REGISTRY[s].title for s in pending)}: their selections take "
                                     "longer; the verdict above compares the strategies shown so far."))
    else:  # as many elements in either step: a step's element left over would stay on the page
        st.empty()
    widgets.chart(prediction_figure(frames(pred), title="Predicted share of inverted model pairs vs k"),
                  key="rep_prediction_chart" + ("_partial" if pending else ""))
    st.caption(widgets.md_escape(PREDICTION_NOTE) + f" Before any evaluation: the protocol's first {pred.trials} "
               "pools; the Evaluate page puts the observed curves next to these.")


def preview(data: ActiveData, rep: Representation) -> Callable[[], None]:
    """The Representation page's section: the verdict in words, ℓ against the distances, then the curves.

    Random and the cheap strategies are drawn at once; the returned function adds the others in
    the same place (the page calls it after its last section, so nothing below waits for them).
    """
    from subsetsel_core.evaluation.prediction import PREVIEW_TRIALS

    st.markdown(f"#### {TITLE}")
    steps = preview_predictions(data, rep)
    if isinstance(steps, str):
        st.info(widgets.md_escape(steps))
        return lambda: None
    wanted = EvaluationConfig(seed=session.seed(), trials=PREVIEW_TRIALS).strategies
    slot = st.empty()

    def draw(pred: Prediction) -> None:
        with slot.container():
            _show(pred, tuple(s for s in wanted if s not in pred.predicted))

    def finish() -> None:
        for pred in steps:
            draw(pred)

    draw(next(steps))
    return finish


def overlay(th: Theory, height: int = 460) -> Any:
    """The predicted and observed curves of every strategy of the evaluation (None without a prediction)."""
    if th.prediction is None:
        return None
    return prediction_figure(frames(th.prediction), height=height, band=False,
                             title=f"Inverted model pairs vs k on {th.representation}: GP prediction vs observed")


def figure(th: Theory, entry: Entry, height: int = 420) -> Any:
    """The bound and the observed share vs k, with the covering radius."""
    return theory_figure(th.to_frame(), colour=strategy_color(entry.strategy), height=height,
                         title=f"Inverted model pairs vs k — {entry.key}: GP bound vs observed")


def section(data: ActiveData, job: Any) -> None:
    """The panel under a finished evaluation of the active benchmark (nothing while it runs)."""
    res: EvaluationResult | None = None if job is None else job.result
    if job is None or job.running or res is None or res.trials_done < 1 or job.request.token != data.token:
        return
    es = entries(res)
    if not es:
        return
    st.markdown(f"#### {TITLE}")
    entry = chosen_entry(res)
    if len(es) > 1:
        st.selectbox("FAFI entry", [e.key for e in es], key=K.EV_THEORY, persist_state=state.PERSIST,
                     help="Whose representation's prediction is shown, and whose first k datasets give the "
                          "coverage bound's radius h_k (Euclidean geometry of the standardized descriptors).")
        entry = chosen_entry(res)
    if entry is None:
        return
    th, why = compute(data, res, entry)
    if th is None:
        st.info(widgets.md_escape(why))
        return
    f = th.fit
    (st.info if th.informative else st.warning)(widgets.md_escape(th.sentence()),
                                                icon=":material/functions:" if th.informative else
                                                widgets.ICONS["warning"])
    cols = st.columns(5)
    cols[0].metric("length-scale ℓ", text(f.lengthscale, "parameter"))
    cols[1].metric("nearest-neighbour distance", text(th.nn_distance, "distance"))
    cols[2].metric("signal variance σ²", text(f.signal_variance, "parameter"))
    cols[3].metric("noise variance τ²", text(f.noise_variance, "parameter"))
    cols[4].metric(f"covering radius h at k = {int(th.ks[-1])}", text(th.covering_radius[-1], "distance"))
    over = overlay(th)
    if over is not None:
        widgets.chart(over, key="ev_prediction_chart")
        st.caption(widgets.md_escape(PREDICTION_NOTE) + f" Solid: observed on the evaluation's {th.observed.shape[0]} "
                   "trials (mean); a pair tied in either ranking counts as not inverted.")
    st.markdown("**The coverage bound** (an upper bound under the same model)")
    widgets.chart(figure(th, entry), key="ev_theory_chart")
    st.caption(widgets.md_escape(PROMISE) + f" Observed: the evaluation's {th.observed.shape[0]} trials (mean; "
               "shaded 2.5–97.5 %); a pair tied in either ranking counts as not inverted.")


def report_section(data: ActiveData, result: EvaluationResult | None) -> Section | None:
    """The report's section for the entry the Evaluate page shows (None without a FAFI entry)."""
    if result is None or result.trials_done < 1:
        return None
    entry = chosen_entry(result)
    if entry is None:
        return None
    th, why = compute(data, result, entry)
    if th is None:
        return Section(TITLE, why or "")
    over = overlay(th)
    if over is None:
        return Section(f"{TITLE} ({entry.key})", th.sentence(), figure=figure(th, entry), note=PROMISE)
    return Section(f"{TITLE} ({entry.key})", th.sentence(), figure=over, note=PREDICTION_NOTE + " " + PROMISE)
