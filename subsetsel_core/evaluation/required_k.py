"""How many datasets do I need? The smallest k whose band reaches a target."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import EvaluationResult
from subsetsel_core.ranks.metrics import METRICS


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
        if self.k is None:
            return f"{self.key}: {METRICS[self.metric].label} ≥ {self.target:g} is not reached with 95 % confidence up to k = {k_max}."
        return (f"{self.key}: k = {self.k} datasets give {METRICS[self.metric].label} {self.mean:.3f} "
                f"[{self.lo:.3f}, {self.hi:.3f}] — the whole 95 % band meets {self.target:g}.")


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


def advice_frame(advice: list[Advice]) -> pd.DataFrame:
    """Advice as a table (key, metric, target, k, mean, lo, hi)."""
    return pd.DataFrame([a.__dict__ for a in advice])
