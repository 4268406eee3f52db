"""What a GP prediction says: whether it predicts a gain over random, why, in words, and its JSON.

:func:`gain_verdict` compares the best deterministic strategy's predicted curve with random's
(PROTOCOL.md: a representation whose ℓ is far above the typical nearest-neighbour distance, or
whose τ² ≥ σ², predicts no gain). Per k, the gain is random's mean predicted share minus the
strategy's, and the overlap is that of the bands between the two curves (random's lower half
band [2.5 %, mean] with the strategy's upper half [mean, 97.5 %]); the overlap is smaller than
the gain exactly when one curve lies outside the other's band. A gain is predicted when,
averaged over k, the gain exceeds the overlap and is at least :data:`MIN_RELATIVE` of random's
predicted share and :data:`MIN_GAIN` of the model pairs. The reason names ℓ against the typical nearest-neighbour distance and τ²
against σ². Every number in a sentence goes through :mod:`subsetsel_core.text.rounding`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from subsetsel_core.evaluation.prediction import Prediction
from subsetsel_core.evaluation.result import BASELINE
from subsetsel_core.strategies import REGISTRY
from subsetsel_core.text.rounding import text

MIN_RELATIVE = 0.1
"""Smallest gain that counts, as a share of random's predicted inverted share (a tenth fewer inversions)."""
MIN_GAIN = 0.001
"""Nor a gain under a tenth of a percent of model pairs (random's and the strategy's shares both about 0%)."""
SHORT = 0.5
"""ℓ below this many nearest-neighbour distances: no dataset informs its neighbours."""
FLAT = 0.1
"""The kernel's correlation at the nearest-neighbour distance less than this above its correlation at the
largest distance: the kernel is flat, every subset of a size estimates the models alike."""
TARGET = 0.10
"""The inverted share the summary says each strategy needs how many datasets to reach."""


@dataclass(frozen=True)
class GainVerdict:
    """Whether the geometry predicts a gain over random, and why.

    Attributes
    ----------
    predicts_gain : bool
    reason : str
        One sentence (``predicts_gain_reason``).
    best : str or None
        The best deterministic strategy (lowest mean predicted share).
    gain, overlap : float
        Mean over k of random's predicted share minus ``best``'s, and of the overlap of their bands.
    """

    predicts_gain: bool
    reason: str
    best: str | None
    gain: float
    overlap: float


def _ratio(x: float) -> str:
    return text(x, "ratio") + "×"


def percent(x: float) -> str:
    """A share of model pairs (0–1) as people read it: the registry's ``percent`` rule (``"12.3%"``)."""
    return text(float(x), "percent")


def gain_verdict(pred: Prediction) -> GainVerdict:
    """:class:`GainVerdict` of a prediction (random must be among its strategies)."""
    f = pred.fit
    ell_r = f.lengthscale / pred.nn_distance if pred.nn_distance > 0 else float("inf")
    noise_r = f.noise_variance / f.signal_variance if f.signal_variance > 0 else float("inf")
    facts = (f"ℓ is {_ratio(ell_r)} the typical distance between neighbouring datasets and τ² is "
             f"{_ratio(noise_r)} σ²")
    best = pred.best_deterministic()
    if best is None or BASELINE not in pred.predicted:
        return GainVerdict(False, "no deterministic strategy was predicted, so there is nothing to compare with "
                                  f"random; {facts}.", best, 0.0, 0.0)
    lo_r, _ = pred.band(BASELINE)
    _, hi_b = pred.band(best)
    gain = float((pred.curve(BASELINE) - pred.curve(best)).mean())
    c_r, c_b = pred.curve(BASELINE), pred.curve(best)
    overlap = float(np.maximum(0.0, np.minimum(c_r, hi_b) - np.maximum(lo_r, c_b)).mean())
    title = REGISTRY[best].title
    k0, k1 = int(pred.ks[0]), int(pred.ks[-1])
    if gain > overlap and gain >= max(MIN_RELATIVE * float(c_r.mean()), MIN_GAIN):
        return GainVerdict(True, f"the geometry predicts a gain over random: {title} is predicted to invert "
                                 f"{percent(float(pred.curve(best).mean()))} of model pairs on average over "
                                 f"k = {k0}…{k1}, random {percent(float(pred.curve(BASELINE).mean()))}; {facts}.",
                           best, gain, overlap)
    near, far = np.exp(-np.array([pred.nn_distance, pred.diameter]) ** 2 / (2.0 * f.lengthscale ** 2))
    if ell_r < SHORT:
        why = (f"ℓ is only {_ratio(ell_r)} the typical distance between neighbouring datasets, so no dataset "
               f"informs another (τ² is {_ratio(noise_r)} σ²)")
    elif near - far < FLAT:
        why = (f"ℓ is {_ratio(ell_r)} the typical distance between neighbouring datasets, so the kernel is flat "
               f"and every subset of a size estimates the models alike (τ² is {_ratio(noise_r)} σ²)")
    elif noise_r >= 1.0:
        why = (f"τ² is {_ratio(noise_r)} σ², so the noise drowns what the geometry carries (ℓ is "
               f"{_ratio(ell_r)} the typical distance between neighbouring datasets)")
    else:
        why = (f"{facts}, yet {title}'s predicted share stays within the spread of random's "
               f"({percent(float(pred.curve(best).mean()))} against {percent(float(pred.curve(BASELINE).mean()))} "
               f"on average over k = {k0}…{k1})")
    return GainVerdict(False, f"the geometry predicts no gain over random: {why}.", best, gain, overlap)


def needed_k(pred: Prediction, strategy: str, target: float = TARGET) -> int | None:
    """The smallest k whose predicted share is at most ``target`` (None if none in the range)."""
    hit = np.flatnonzero(pred.curve(strategy) <= target)
    return int(pred.ks[hit[0]]) if hit.size else None


def summary(pred: Prediction) -> str:
    """The verdict and, per strategy, how many datasets the prediction needs for :data:`TARGET`."""
    v = gain_verdict(pred)
    text_ = v.reason[0].upper() + v.reason[1:]
    need = {s: needed_k(pred, s) for s in pred.strategies}
    tail = f" (mean over {pred.trials} of the protocol's pools)."
    if all(k is None for k in need.values()):
        return (text_ + f" No strategy is predicted to invert at most {percent(TARGET)} of model pairs by "
                f"k = {int(pred.ks[-1])}" + tail)
    parts = [f"{REGISTRY[s].title} k = {k}" if k is not None else f"{REGISTRY[s].title} not by k = {int(pred.ks[-1])}"
             for s, k in need.items()]
    return text_ + f" Predicted to invert at most {percent(TARGET)} of model pairs from: " + "; ".join(parts) + tail


def _fl(a: np.ndarray) -> list[float]:
    return [float(x) for x in a]


def prediction_json(pred: Prediction) -> dict[str, Any]:
    """``prediction`` (per strategy: ``ks``, ``predicted_inverted_share``, ``predicted_band``,
    ``observed_inverted_share``), ``predicts_gain``, ``predicts_gain_reason`` and the trials."""
    v = gain_verdict(pred)
    per: dict[str, Any] = {}
    for s in pred.strategies:
        lo, hi = pred.band(s)
        obs = pred.observed_curve(s)
        per[s] = {"ks": [int(k) for k in pred.ks], "predicted_inverted_share": _fl(pred.curve(s)),
                  "predicted_band": {"lo": _fl(lo), "hi": _fl(hi)},
                  "observed_inverted_share": None if obs is None else _fl(obs)}
    return {"prediction": per, "predicts_gain": v.predicts_gain, "predicts_gain_reason": v.reason,
            "prediction_best_deterministic": v.best, "prediction_trials": pred.trials,
            "prediction_summary": summary(pred)}
