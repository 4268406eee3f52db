"""*What the theory predicts* on the Evaluate page, and its section of the report.

FAFI's coverage bound under a Gaussian-process model (PROTOCOL.md; docs/theory.md) for one
FAFI entry of the session's finished evaluation: the predicted share of inverted model
pairs at FAFI's covering radius next to the observed share of the evaluation's own subsets
(same seed, trials, α, β and k range). Layout only: the numbers come from
:func:`~subsetsel_core.evaluation.theory.coverage_theory` through :func:`subsetsel_app.cache.theory`,
the chart from :func:`~subsetsel_core.viz.theory.theory_figure`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from subsetsel_app import cache, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.strategies import COVERING
from subsetsel_core.text.rounding import text
from subsetsel_core.viz.report import Section
from subsetsel_core.viz.style import strategy_color
from subsetsel_core.viz.theory import theory_figure

if TYPE_CHECKING:
    from subsetsel_core.evaluation.theory import Theory

#: The entries that get the bound (as :data:`subsetsel_core.evaluation.theory.THEORY_STRATEGIES`,
#: named here without importing the GP code, which loads scipy.optimize).
STRATEGIES = COVERING
TITLE = "What the theory predicts"
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
    return EvaluationConfig(strategies=(STRATEGIES[0],), trials=result.trials_done, alpha=c.alpha, beta=c.beta,
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
                     help="Whose first k datasets give the covering radius h_k; the bound is written in the "
                          "Euclidean geometry of the standardized descriptors.")
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
    return Section(f"{TITLE} ({entry.key})", th.sentence(), figure=figure(th, entry), note=PROMISE)
