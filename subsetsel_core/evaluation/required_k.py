"""How many datasets do I need? The smallest k whose band reaches a target.

One implementation for every face: :func:`advise` per grid entry, :func:`advice_frame` (the
entries in the order shown: reached first, by k, then by value), :func:`best_advice` and
:func:`advice_sentence` (the headline). ``subsetsel advise`` and the dashboard's Evaluate page
both print these. For a lower-is-better metric (rank MAE) the target is an upper bound: the
whole band must be at or below it (``≤``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text.rounding import text


def value_text(value: Any) -> str:
    """A metric's value (a mean, a band's end) as a person reads it (the rounding registry)."""
    return text(float(value), "agreement")


def comparison(metric: str) -> str:
    """``"≥"`` for a higher-is-better metric's target, ``"≤"`` for a lower-is-better one's."""
    return "≥" if METRICS[metric].higher_is_better else "≤"


@dataclass(frozen=True)
class Advice:
    """The advised k for one grid entry.

    Attributes
    ----------
    key : str
        Grid entry (strategy [representation]).
    metric : str
    target : float
    k : int or None
        Smallest k whose pessimistic band end (lower 2.5 % for correlations, upper 97.5 %
        for MAE) reaches the target; None when not reached up to k_max.
    mean, lo, hi : float or None
        The curve point and its band at that k.
    """

    key: str
    metric: str
    target: float
    k: int | None
    mean: float | None
    lo: float | None
    hi: float | None

    def sentence(self, k_max: int) -> str:
        """Plain-language advice."""
        label, cmp = METRICS[self.metric].label, comparison(self.metric)
        if self.k is None:
            return f"{self.key}: {label} {cmp} {self.target:g} is not reached with 95 % confidence up to k = {k_max}."
        return (f"{self.key}: k = {self.k} datasets give {label} {value_text(self.mean)} "
                f"[{value_text(self.lo)}, {value_text(self.hi)}] — the whole 95 % band meets {self.target:g}.")


def advise(result: EvaluationResult, *, metric: str = "spearman", target: float = 0.9) -> list[Advice]:
    """For each grid entry, the smallest k whose 95 % band meets ``target``.

    For metrics where higher is better the lower band end must be ≥ target; for MAE the
    upper band end must be ≤ target.

    Raises
    ------
    InputError
        Unknown metric or a metric that was not evaluated.
    """
    if metric not in METRICS or metric not in result.config.metrics:
        raise InputError(f"metric '{metric}' was not evaluated; choose one of {', '.join(result.config.metrics)}.")
    out = []
    higher = METRICS[metric].higher_is_better
    for e in result.entries:
        c = result.stats[e.key].curves[metric]
        ok = c.lo >= target if higher else c.hi <= target
        idx = next((i for i, v in enumerate(ok) if v), None)
        if idx is None:
            out.append(Advice(e.key, metric, target, None, None, None, None))
        else:
            out.append(Advice(e.key, metric, target, int(result.ks[idx]), float(c.mean[idx]),
                              float(c.lo[idx]), float(c.hi[idx])))
    return out


def within_ceiling(result: EvaluationResult, key: str, metric: str, ceiling: tuple[float, float]) -> int | None:
    """Smallest k whose mean curve of ``key`` is already inside the full benchmark's own stability band.

    ``ceiling`` is the band (lo, hi) of :class:`~subsetsel_core.evaluation.stability.Stability`
    for ``metric``: beyond that k a larger subset cannot be expected to agree better with the
    full ranking than the full benchmark agrees with itself under resampling. None when no
    evaluated k gets there.
    """
    mean = result.stats[key].curves[metric].mean
    inside = mean >= ceiling[0] if METRICS[metric].higher_is_better else mean <= ceiling[1]
    idx = next((i for i, v in enumerate(inside) if v), None)
    return None if idx is None else int(result.ks[idx])


def advice_frame(result: EvaluationResult, metric: str, target: float) -> pd.DataFrame:
    """One row per strategy × representation: the advised k, the curve value and band there.

    Columns ``key, strategy, representation, k`` (``<NA>`` when not reached up to k_max),
    ``mean, lo, hi, reached``; reached rows first, by k (then best value).
    """
    entries = {e.key: e for e in result.entries}
    rows = [{"key": a.key, "strategy": entries[a.key].strategy, "representation": entries[a.key].representation,
             "k": a.k, "mean": a.mean, "lo": a.lo, "hi": a.hi, "reached": a.k is not None}
            for a in advise(result, metric=metric, target=float(target))]
    df = pd.DataFrame(rows, columns=["key", "strategy", "representation", "k", "mean", "lo", "hi", "reached"])
    df["k"] = pd.array(df["k"], dtype="Int64")
    sign = -1.0 if METRICS[metric].higher_is_better else 1.0
    order = df.assign(_k=df["k"].astype("Float64").fillna(np.inf), _v=sign * df["mean"].astype(float).fillna(0.0))
    return df.loc[order.sort_values(["_k", "_v"], kind="stable").index].reset_index(drop=True)


def best_advice(frame: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None]:
    """The first reached row besides the baseline's (fewest datasets) and the baseline's row."""
    reached = frame[frame["reached"] & (frame["strategy"] != BASELINE)]
    base = frame[frame["strategy"] == BASELINE]
    return (reached.iloc[0] if len(reached) else None), (base.iloc[0] if len(base) else None)


def _who(strategy: str, rep: Any) -> str:
    return f"{strategy} on {rep}" if isinstance(rep, str) and rep else strategy


def advice_sentence(result: EvaluationResult, frame: pd.DataFrame, metric: str, target: float) -> str:
    """The headline: the fewest datasets that reach the target, and the baseline's need.

    E.g. "With fafi-cosine on ucr_info, 8 datasets give Spearman ρ 0.94 [0.91, 0.96]; random needs 17."
    """
    label = METRICS[metric].label
    k_max = int(result.ks[-1])
    cmp = comparison(metric)
    prefix = "" if result.complete else f"So far ({result.trials_done} of {result.config.trials} trials): "
    best, rand = best_advice(frame)
    if rand is None:
        rand_txt = ""
    elif bool(rand["reached"]):
        rand_txt = f"{BASELINE} needs {rand['k']}"
    else:
        rand_txt = f"{BASELINE} does not reach it up to k = {k_max}"
    if best is not None:
        return (prefix + f"With {_who(str(best['strategy']), best['representation'])}, {best['k']} datasets give "
                f"{label} {value_text(best['mean'])} [{value_text(best['lo'])}, {value_text(best['hi'])}]"
                + (f"; {rand_txt}." if rand_txt else "."))
    if rand is not None and bool(rand["reached"]):
        lead = (f"No strategy besides {BASELINE} was evaluated; " if (frame["strategy"] == BASELINE).all() else
                f"No strategy reaches {label} {cmp} {target:g} with its whole 95 % band up to k = {k_max}; ")
        return (prefix + lead + f"{BASELINE} needs {rand['k']} datasets ({label} {value_text(rand['mean'])} "
                f"[{value_text(rand['lo'])}, {value_text(rand['hi'])}]).")
    return prefix + (f"Nothing reaches {label} {cmp} {target:g} with its whole 95 % band up to k = {k_max}: "
                     "relax the target or evaluate larger k.")
