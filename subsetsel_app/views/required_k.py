"""*How many datasets do I need?* on the Evaluate page.

The smallest k whose 95 % band reaches a target, its ordering and its headline come from
:mod:`subsetsel_core.evaluation.required_k` (as ``subsetsel advise`` prints them); here they are
shown as a table (:func:`advice_display`), as starred points on the curves (:func:`advice_marks`,
:func:`curve_marks`) and as the headline sentence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_app import state, widgets
from subsetsel_app.state import K
from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.required_k import (
    advice_frame,
    advice_sentence,
    best_advice,
    within_ceiling,
)
from subsetsel_core.evaluation.required_k import value_text as _v
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.evaluation.stability import Stability
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text.rounding import printf

__all__ = ["advice_display", "advice_frame", "advice_marks", "advice_section", "advice_sentence", "best_advice",
           "ceiling_sentence", "curve_marks", "helps_caveat", "target_bounds"]


def target_bounds(metric: str, n_models: int | None = None) -> tuple[float, float, float]:
    """``(min, max, step)`` of the target input for a metric."""
    lo, hi = METRICS[metric].bounds(n_models)
    return lo, hi, (0.01 if hi <= 1 else 0.1)


def advice_marks(frame: pd.DataFrame) -> pd.DataFrame:
    """The reached rows as points for :func:`subsetsel_core.viz.curves.mark_points`; the best
    strategy and random are labelled."""
    best, rand = best_advice(frame)
    marks = frame[frame["reached"]].copy()
    labels = []
    for key in marks["key"]:
        if best is not None and key == best["key"]:
            labels.append(f"{key}: k = {best['k']}")
        elif rand is not None and key == rand["key"] and bool(rand["reached"]):
            labels.append(f"{BASELINE}: k = {rand['k']}")
        else:
            labels.append("")
    marks["label"] = labels
    marks["k"] = marks["k"].astype(int)
    # the labelled points last, so they are drawn on top of others at the same k
    marks = marks.assign(_top=[bool(t) for t in labels]).sort_values("_top", kind="stable")
    return marks[["key", "strategy", "k", "mean", "lo", "hi", "label"]].reset_index(drop=True)


def advice_display(frame: pd.DataFrame, metric: str, k_max: int) -> pd.DataFrame:
    """The advice table as shown: readable columns, "not reached up to k = …" where it is not."""
    label = METRICS[metric].label
    out = pd.DataFrame({
        "strategy": frame["strategy"],
        "representation": frame["representation"].fillna("—"),
        "advised k": [str(int(k)) if r else f"not reached up to k = {k_max}"
                      for k, r in zip(frame["k"], frame["reached"], strict=True)],
        f"{label} at k": ["—" if pd.isna(v) else _v(v) for v in frame["mean"]],
        "95% interval": [f"[{_v(lo)}, {_v(hi)}]" if r else "—"
                         for lo, hi, r in zip(frame["lo"], frame["hi"], frame["reached"], strict=True)],
    })
    if out["representation"][out["representation"] != "—"].nunique() <= 1:
        out = out.drop(columns=["representation"])
    return out


def _settings(result: EvaluationResult) -> tuple[str, float]:
    """The advice metric and target from the session, repaired to be valid for ``result``."""
    state.ensure_choice(K.EV_ADV_METRIC, list(result.config.metrics), fallback=state.default(K.EV_ADV_METRIC))
    metric = st.session_state[K.EV_ADV_METRIC]
    n_models = result.info.get("pool_models")
    lo, hi, _ = target_bounds(metric, n_models)
    try:
        t = float(st.session_state[K.EV_ADV_TARGET])
    except (TypeError, ValueError):
        t = METRICS[metric].default_target(n_models)
    if not (np.isfinite(t) and lo <= t <= hi):
        t = METRICS[metric].default_target(n_models)
    st.session_state[K.EV_ADV_TARGET] = t
    return metric, t


def _on_metric(n_models: int | None) -> None:
    """Callback: a new advice metric → its default target, and the curves show that metric."""
    metric = st.session_state[K.EV_ADV_METRIC]
    st.session_state[K.EV_ADV_TARGET] = METRICS[metric].default_target(n_models)
    st.session_state[K.EV_METRIC] = metric


def curve_marks(result: EvaluationResult, curve_metric: str) -> tuple[pd.DataFrame | None, float | None]:
    """Marks and target line for the curves figure, when it shows the advice metric."""
    metric, target = _settings(result)
    if metric != curve_metric or result.trials_done < 2:
        return None, None
    return advice_marks(advice_frame(result, metric, target)), target


def ceiling_sentence(result: EvaluationResult, metric: str, stab: Stability | None, favoured: str | None) -> str:
    """When the favoured strategy's (and random's) mean curve enters the full benchmark's own stability band."""
    if stab is None or metric not in stab.bands:
        return ""
    b = stab.bands[metric]
    label = METRICS[metric].label
    band = f"{label} {_v(b.lo)}–{_v(b.hi)} over resamples of its datasets"
    keys = list(dict.fromkeys([k for k in (favoured, BASELINE) if k]))
    reach = {k: within_ceiling(result, k, metric, (b.lo, b.hi)) for k in keys}
    if all(v is None for v in reach.values()):
        return (f"No evaluated k reaches the full benchmark's own stability ({band}): up to k = "
                f"{int(result.ks[-1])}, a subset agrees less with the full ranking than the benchmark agrees with "
                "itself.")
    parts = [f"{k} from k = {v}" if v is not None else f"{k} not up to k = {int(result.ks[-1])}"
             for k, v in reach.items()]
    return (f"As stable as the full benchmark itself ({band}), on average: {'; '.join(parts)}. More datasets than "
            "that buy little.")


def helps_caveat(frame: pd.DataFrame, permutation: PermutationTest | None, metric: str, *,
                 pending: bool = False) -> str:
    """A warning when the advised strategy is not shown to help (so its k is random's, in expectation)."""
    best, _ = best_advice(frame)
    if best is None:
        return ""
    key = str(best["key"])
    if permutation is not None and permutation.complete and key in permutation.gain and \
            permutation.helps(key, metric):
        return ""
    if permutation is not None and permutation.complete:
        why = "the permutation test finds no evidence that it helps"
    else:
        why = "its permutation test is still running" if pending else "it has not been tested against shuffled descriptors"
    return (f"{key} is not shown to beat random ({why}): its advised k is no safer than random's, and the smaller "
            "number may be luck of these pools.")


def advice_section(result: EvaluationResult, curve_metric: str, stab: Stability | None = None,
                   favoured: str | None = None, permutation: PermutationTest | None = None, *,
                   pending: bool = False) -> None:
    """The "How many datasets?" part of the results panel (inside the polling fragment)."""
    metric, target = _settings(result)
    n_models = result.info.get("pool_models")
    st.markdown("#### How many datasets do I need?")
    c = st.columns([1.2, 1, 3])
    c[0].selectbox("Advice metric", list(result.config.metrics), key=K.EV_ADV_METRIC, persist_state=state.PERSIST,
                   format_func=lambda x: METRICS[x].label, on_change=_on_metric, args=(n_models,))
    lo, hi, step = target_bounds(metric, n_models)
    higher = METRICS[metric].higher_is_better
    label = METRICS[metric].label
    c[1].number_input("Target" + (" (at least)" if higher else " (at most)"), min_value=lo, max_value=hi, step=step,
                      key=K.EV_ADV_TARGET, persist_state=state.PERSIST, format=printf("agreement"),
                      help=("The whole 95 % band must be at or above the target: the lower 2.5 % end counts."
                            if higher else f"Lower {label} is better: the whole 95 % band must be at or below the "
                            "target, so the upper 97.5 % end counts."))
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
    st.markdown(f"**{widgets.md_escape(advice_sentence(result, frame, metric, target))}**")
    caveat = helps_caveat(frame, permutation, metric, pending=pending)
    if caveat:
        st.warning(widgets.md_escape(caveat), icon=widgets.ICONS["warning"])
    ceil = ceiling_sentence(result, metric, stab, favoured)
    if ceil:
        st.markdown(widgets.md_escape(ceil))
    st.dataframe(advice_display(frame, metric, int(result.ks[-1])), hide_index=True, width="stretch")
