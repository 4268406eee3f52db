"""FAFI's coverage bound under a Gaussian-process model (PROTOCOL.md), the GP prediction, and what is observed.

Geometry and targets: :mod:`~subsetsel_core.evaluation.theory_inputs`. One GP prior with a
constant mean per model serves every model (fitted on each model's scores centred over the
datasets; :func:`~subsetsel_core.evaluation.gp.fit_gp`): κ(x, x') = σ²·exp(−‖x − x'‖² / (2ℓ²))
plus noise τ². The scores describe; they never choose.

For a subset S with covering radius h = max_d min_{s∈S} ‖x_d − x_s‖ the posterior variance
at any dataset is at most V(h) = σ² − σ⁴·exp(−h²/ℓ²) / (σ² + τ²). A pair of models with
reference gap Δ = |ȳ_a − ȳ_b| is inverted with probability at most Φ(−Δ / √(2V)); the mean
over pairs is the coverage **bound** (loose by design: the worst point, one neighbour). Next
to it, :class:`Theory` carries the representation's GP **prediction** of the protocol's own
estimator for every strategy (:mod:`~subsetsel_core.evaluation.prediction`). The observed
share is that of discordant model pairs of the protocol's subsets: the same pools
(:func:`~subsetsel_core.evaluation.protocol.trial_pool`) and the same registry kernels as
:func:`~subsetsel_core.evaluation.protocol.evaluate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.gp import (
    GPFit,
    covering_radii,
    nn_distance,
    pair_gaps,
    predicted_share,
    squared_distances,
)
from subsetsel_core.evaluation.prediction import Prediction, predict
from subsetsel_core.evaluation.prediction_text import gain_verdict, percent, prediction_json
from subsetsel_core.evaluation.protocol import pool_table, prepare, trial_pool
from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult
from subsetsel_core.evaluation.theory_inputs import (
    discordant_share,
    fit_representation,
    geometry,
    standardized_scores,
)
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import COVERING, REGISTRY, standardize
from subsetsel_core.text.rounding import text

FAFI = "fafi-euclidean"
"""The strategy the bound is written for."""
THEORY_STRATEGIES: tuple[str, ...] = COVERING
"""Strategies whose entries get the bound (nested and deterministic: one order per pool)."""
NOISE_RATIO = 10.0
"""τ² above this many times σ²: the geometry carries little information."""
SHORT_LENGTH = 0.5
"""ℓ below this share of the nearest-neighbour distance: the geometry carries little information."""
FLAT_KERNEL = 0.1
"""The kernel's correlation at the nearest-neighbour distance less than this above its correlation
at the largest distance: the kernel is flat (it shares each model's overall strength between all
datasets alike, not where they lie), little information."""
FLAT_BOUND = 0.02
"""The predicted share falling by less than this over the k range: covering more buys little."""


def observed_shares(benchmark: Benchmark, representation: Representation, config: EvaluationConfig,
                    strategy: str = FAFI) -> np.ndarray:
    """Discordant-pair share of the protocol's subsets of ``strategy`` in every trial and k.

    The pools, the preprocessing and the kernel are the protocol's (:func:`prepare`,
    :func:`trial_pool`); the reference is the full benchmark's ranking of the pool's models.

    Returns
    -------
    ndarray of shape (trials, K)
    """
    info = REGISTRY.get(strategy)
    if info is None or strategy not in THEORY_STRATEGIES:
        raise InputError(f"the coverage bound is computed for {', '.join(THEORY_STRATEGIES)}; got '{strategy}'.",
                         field="strategy")
    cfg = EvaluationConfig(strategies=(strategy,), trials=config.trials, alpha=config.alpha, beta=config.beta,
                           k_min=config.k_min, k_max=config.k_max, seed=config.seed, metrics=config.metrics[:1])
    ctx = prepare(benchmark, {representation.name: representation}, cfg)
    X = ctx.X[representation.name]
    ks = ctx.ks
    out = np.empty((cfg.trials, len(ks)))
    none = np.empty(0, np.int64)
    for t in range(cfg.trials):
        pool, models = trial_pool(ctx, t)
        table = pool_table(ctx, models)
        order = info.kernel(standardize(X[pool]), int(ks[-1]), rng=None, include=none)
        subs = np.cumsum(table.rows[pool][order], axis=0)[ks - 1]
        out[t] = discordant_share(table.comparable(table.reference()), table.comparable(subs))
    return out


@dataclass(frozen=True, eq=False)
class Theory:
    """The bound per k next to the observed discordant share of one strategy on one representation.

    Attributes
    ----------
    strategy, representation : str
    fit : GPFit
    nn_distance : float
        Median over datasets of the distance to the nearest other dataset.
    diameter : float
        The largest distance between two datasets.
    ks : ndarray of int (K,)
    covering_radius : ndarray (K,)
        h_k of the strategy's first k datasets on the full benchmark.
    variance_bound : ndarray (K,)
        V(h_k).
    predicted : ndarray (K,)
        Predicted inverted share (mean over model pairs of the pair bound).
    observed : ndarray (trials, K)
        Discordant share of the protocol's subsets.
    prediction : Prediction, optional
        The GP prediction of every strategy on this representation (same pools).
    """

    strategy: str
    representation: str
    fit: GPFit
    nn_distance: float
    diameter: float
    ks: np.ndarray
    covering_radius: np.ndarray
    variance_bound: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    prediction: Prediction | None = None

    @property
    def observed_mean(self) -> np.ndarray:
        """Mean observed share over trials, per k."""
        return self.observed.mean(axis=0)

    @property
    def observed_band(self) -> tuple[np.ndarray, np.ndarray]:
        """2.5 % and 97.5 % percentiles over trials, per k."""
        lo, hi = np.percentile(self.observed, [2.5, 97.5], axis=0)
        return lo, hi

    def weakness(self) -> str | None:
        """Why the geometry carries little information, or None when it may carry some.

        τ² > :data:`NOISE_RATIO` · σ², ℓ < :data:`SHORT_LENGTH` · nn distance, a flat
        kernel (:data:`FLAT_KERNEL`), or a bound that hardly falls over the k range
        (:data:`FLAT_BOUND`).
        """
        f = self.fit
        tail = ", so covering the descriptor space promises hardly more than any subset of the same size"
        if f.noise_variance > NOISE_RATIO * f.signal_variance:
            return "the noise variance τ² dwarfs the signal variance σ²" + tail
        if f.lengthscale < SHORT_LENGTH * self.nn_distance:
            return "the length-scale is far below the distance between neighbouring datasets" + tail
        near, far = np.exp(-np.array([self.nn_distance, self.diameter]) ** 2 / (2 * f.lengthscale ** 2))
        if near - far < FLAT_KERNEL:
            return (f"the kernel is nearly flat — it correlates a dataset with its nearest neighbour "
                    f"({text(near, 'correlation')}) hardly more than with the farthest one ({text(far, 'correlation')})"
                    " — so it only shares each model's overall strength, whichever datasets are chosen")
        drop = float(self.predicted[0] - self.predicted[-1])
        if len(self.ks) > 1 and drop < FLAT_BOUND:
            return (f"the bound hardly falls from k = {int(self.ks[0])} to k = {int(self.ks[-1])} "
                    f"({percent(self.predicted[0])} → {percent(self.predicted[-1])}), so covering more of the "
                    "descriptor space buys little in this model")
        return None

    @property
    def informative(self) -> bool:
        """Whether the geometry may carry information (:meth:`weakness` is None)."""
        return self.weakness() is None

    def sentence(self) -> str:
        """What the model says, in one plain paragraph: the prediction's verdict first, then the bound."""
        f, k0, k = self.fit, int(self.ks[0]), int(self.ks[-1])
        title = REGISTRY[self.strategy].title
        lead = ""
        if self.prediction is not None:
            reason = gain_verdict(self.prediction).reason
            lead = reason[0].upper() + reason[1:] + " "
        text_ = (lead + f"Descriptor distances correlate with performance over a length of ℓ = "
                 f"{text(f.lengthscale, 'parameter')} (typical nearest-neighbour distance "
                 f"{text(self.nn_distance, 'distance')}; signal variance σ² = {text(f.signal_variance, 'parameter')}, "
                 f"noise τ² = {text(f.noise_variance, 'parameter')}). {title}'s subsets cover every dataset within "
                 f"h = {text(self.covering_radius[-1], 'distance')} by k = {k}; the coverage bound allows at most "
                 f"{percent(self.predicted[-1])} of model pairs inverted at k = {k} ({percent(self.predicted[0])} at "
                 f"k = {k0}). Observed on the protocol's subsets: {percent(self.observed_mean[-1])} at k = {k} "
                 f"({percent(self.observed_mean[0])} at k = {k0}).")
        why = self.weakness()
        if why is not None:
            text_ += f" The geometry carries little information: {why}."
        return text_

    def to_frame(self) -> pd.DataFrame:
        """One row per k: k, covering_radius, variance_bound, predicted, observed, observed_lo, observed_hi."""
        lo, hi = self.observed_band
        return pd.DataFrame({"k": self.ks, "covering_radius": self.covering_radius,
                             "variance_bound": self.variance_bound, "predicted": self.predicted,
                             "observed": self.observed_mean, "observed_lo": lo, "observed_hi": hi})

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON of ``subsetsel theory --out`` (and of each FAFI entry's ``theory`` in ``evaluate --out``)."""
        lo, hi = self.observed_band
        return {
            "strategy": self.strategy, "representation": self.representation,
            "lengthscale": self.fit.lengthscale, "signal_variance": self.fit.signal_variance,
            "noise_variance": self.fit.noise_variance, "log_likelihood": self.fit.log_likelihood,
            "nn_distance": self.nn_distance, "diameter": self.diameter, "informative": self.informative,
            "ks": [int(k) for k in self.ks], "covering_radius": _fl(self.covering_radius),
            "variance_bound": _fl(self.variance_bound), "predicted_inverted_share": _fl(self.predicted),
            "observed_inverted_share": _fl(self.observed_mean), "observed_band": {"lo": _fl(lo), "hi": _fl(hi)},
            "trials": int(self.observed.shape[0]), "summary": self.sentence(),
            "predicted_inverted_share_is": "an upper bound (coverage bound at the covering radius)",
            **(prediction_json(self.prediction) if self.prediction is not None else {}),
        }



def _fl(a: np.ndarray) -> list[float]:
    return [float(x) for x in a]


def coverage_theory(benchmark: Benchmark, representation: Representation, config: EvaluationConfig | None = None,
                    *, strategy: str = FAFI, fit: GPFit | None = None, predict_all: bool = True) -> Theory:
    """The coverage bound of ``strategy`` per k next to its observed discordant share, with the GP prediction.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation
    config : EvaluationConfig, optional
        Strategies, trials, α, β, k range and seed of the protocol's subsets (its defaults).
    strategy : str
        One of :data:`THEORY_STRATEGIES`; its order on the full benchmark gives h_k.
    fit : GPFit, optional
        This representation's fit, if already made (:func:`fit_representation`).
    predict_all : bool
        Predict every strategy of ``config`` (and random), not only ``strategy``.

    Raises
    ------
    InputError
        Bad configuration or representation, a strategy without the bound, or a GP that
        cannot be fitted (:class:`~subsetsel_core.evaluation.gp.GPNotFitted`).
    """
    config = config or EvaluationConfig()
    if strategy not in THEORY_STRATEGIES:
        raise InputError(f"the coverage bound is computed for {', '.join(THEORY_STRATEGIES)}; got '{strategy}'.",
                         field="strategy")
    if config.beta < 1:
        raise InputError("the coverage bound is stated for all the benchmark's models; compare it with an "
                         "evaluation without model pools (β = 1).", field="beta")
    Z = geometry(benchmark, representation)
    fit = fit or fit_representation(benchmark, representation)
    wanted = (*config.strategies, strategy) if predict_all else ("random", strategy)
    cfg = EvaluationConfig(strategies=tuple(dict.fromkeys(wanted)), trials=config.trials, alpha=config.alpha,
                           k_min=config.k_min, k_max=config.k_max, seed=config.seed, metrics=config.metrics[:1])
    pred = predict(benchmark, representation, cfg, fit=fit)
    observed = pred.observed[strategy]
    ks = pred.ks
    order = REGISTRY[strategy].kernel(Z, int(ks[-1]), rng=None, include=np.empty(0, np.int64))
    h = covering_radii(Z, order, ks)
    V = fit.variance_bound(h)
    gaps = pair_gaps(standardized_scores(benchmark).mean(axis=0))
    D2 = squared_distances(Z)
    return Theory(strategy, representation.name, fit, nn_distance(D2), float(np.sqrt(D2.max())), ks, h, V,
                  predicted_share(gaps, V), observed, pred)


def entry_theories(benchmark: Benchmark, representations: Mapping[str, Representation],
                   result: EvaluationResult) -> dict[str, Theory]:
    """The bound of every FAFI entry of an evaluation, each with its representation's GP prediction.

    One GP fit and one prediction per representation (every strategy of the evaluation,
    random included; cached); the subsets are the evaluation's (same seed, trials done, α,
    β, k range). Entries the theory cannot be computed for (a score table with gaps, model
    pools, a representation without a varying column, a GP that cannot be fitted) are left
    out: the theory is an addition to an evaluation, never a reason for it to fail.
    """
    if benchmark.has_gaps:
        return {}
    c = result.config
    cfg = EvaluationConfig(strategies=c.strategies, trials=result.trials_done, alpha=c.alpha, beta=c.beta,
                           k_min=int(result.ks[0]), k_max=int(result.ks[-1]), seed=c.seed, metrics=c.metrics)
    out: dict[str, Theory] = {}
    for e in result.entries:
        name = e.representation
        if e.strategy not in THEORY_STRATEGIES or name is None or name not in representations or cfg.trials < 1:
            continue
        try:
            out[e.key] = coverage_theory(benchmark, representations[name], cfg, strategy=e.strategy)
        except InputError:
            continue
    return out
