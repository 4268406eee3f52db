"""The GP prediction of the protocol's own estimator, per strategy and k (PROTOCOL.md).

Under the fitted GP (:func:`~subsetsel_core.evaluation.gp.fit_gp`, centred per model) the
subset mean of a model's standardized scores over S errs by e = wᵀy with w = 1_S/k − 1/n, and
Var(e) = wᵀ(K + τ²I)w is the same for every model. The predicted inverted share at S is the
mean over model pairs of Φ(−Δ_ab/√(2·Var(e)·M/(M − 1))): the factor M/(M − 1)
(:func:`pair_factor`) undoes what the per-dataset standardization over the M models does to the
fitted variance (it leaves the models' errors correlated by −1/(M − 1)). The subsets are the protocol's: the same
pools and strategy streams (:func:`~subsetsel_core.evaluation.protocol.prepare`,
:func:`~subsetsel_core.evaluation.protocol.trial_pool`,
:func:`~subsetsel_core.evaluation.protocol.trial_choices`), so each strategy's predicted
curve sits beside its observed share of discordant pairs on the very same subsets. The
quadratic forms are batched: a nested order's k-prefix sums come from one cumulative sum of
its kernel block, the other strategies' from one masked block per trial. :func:`staged` gives
the cheap strategies' prediction first (a preview that need not wait for k-means in hundreds of
dimensions), then the full one.

Results are cached in-process by the inputs' hash and the settings.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import ndtr

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.gp import (
    GPFit,
    covariance,
    input_key,
    nn_distance,
    pair_gaps,
    squared_distances,
)
from subsetsel_core.evaluation.protocol import Choice, prepare, trial_choices, trial_pool
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig
from subsetsel_core.evaluation.theory_inputs import (
    discordant_share,
    fit_representation,
    geometry,
    standardized_scores,
)
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import REGISTRY, STRATEGIES, a_priori

PREVIEW_TRIALS = 12
"""Trials of a prediction made before any evaluation (the Representation page, ``subsetsel theory``'s
default): enough for the mean curve; the band is over these trials."""
_PAIR_BLOCK = 2**22  # elements of one block of Φ evaluations
_EXACT = 512  # variances computed exactly before interpolating
_CACHE: OrderedDict[str, Prediction] = OrderedDict()
_CACHE_SIZE = 32


@dataclass(frozen=True, eq=False)
class Prediction:
    """Predicted (and, when asked, observed) inverted-pair shares of every strategy on one representation.

    Attributes
    ----------
    representation : str
    fit : GPFit
    nn_distance, diameter : float
        Median nearest-neighbour distance and largest distance of the standardized descriptors.
    ks : ndarray of int (K,)
    variance : dict of str to ndarray (trials, K)
        Var(e) of each strategy's subset in every trial and k.
    predicted : dict of str to ndarray (trials, K)
        The predicted inverted share at those subsets.
    observed : dict of str to ndarray (trials, K)
        The share of discordant pairs of the same subsets (empty when not observed).
    """

    representation: str
    fit: GPFit
    nn_distance: float
    diameter: float
    ks: np.ndarray
    variance: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]
    observed: dict[str, np.ndarray]

    @property
    def strategies(self) -> tuple[str, ...]:
        """The strategies predicted, random first."""
        return tuple(self.predicted)

    @property
    def trials(self) -> int:
        """Trials the curves average over."""
        return int(next(iter(self.predicted.values())).shape[0])

    def curve(self, strategy: str) -> np.ndarray:
        """Mean predicted share over trials, per k."""
        return self.predicted[strategy].mean(axis=0)

    def band(self, strategy: str) -> tuple[np.ndarray, np.ndarray]:
        """2.5 % and 97.5 % percentiles of the predicted share over trials, per k."""
        lo, hi = np.percentile(self.predicted[strategy], [2.5, 97.5], axis=0)
        return lo, hi

    def observed_curve(self, strategy: str) -> np.ndarray | None:
        """Mean observed share over trials, per k (None when not observed)."""
        obs = self.observed.get(strategy)
        return None if obs is None else obs.mean(axis=0)

    def to_frame(self, strategy: str) -> pd.DataFrame:
        """One row per k: ``k, predicted, predicted_lo, predicted_hi, observed`` (NaN when not observed)."""
        lo, hi = self.band(strategy)
        obs = self.observed_curve(strategy)
        return pd.DataFrame({"k": self.ks, "predicted": self.curve(strategy), "predicted_lo": lo,
                             "predicted_hi": hi, "observed": np.full(len(self.ks), np.nan) if obs is None else obs})

    def deterministic(self) -> tuple[str, ...]:
        """The predicted strategies that draw no random numbers (one subset per pool)."""
        return tuple(s for s in self.predicted if not REGISTRY[s].uses_rng)

    def best_deterministic(self) -> str | None:
        """The deterministic strategy with the lowest mean predicted share over k (None without one)."""
        det = self.deterministic()
        return min(det, key=lambda s: float(self.curve(s).mean())) if det else None


def _variances(C: np.ndarray, c1: np.ndarray, total: float, pool: np.ndarray, choice: Choice,
               ks: np.ndarray) -> np.ndarray:
    """wᵀCw of a trial's subsets for every k, C = K + τ²I over all n datasets (c1 = C·1, total = 1ᵀC1)."""
    n = C.shape[0]
    kf = ks.astype(float)
    if choice.order is not None:
        o = pool[choice.order]
        block = C[np.ix_(o, o)]
        Q = np.cumsum(np.cumsum(block, axis=0), axis=1)[ks - 1, ks - 1]
        L = np.cumsum(c1[o])[ks - 1]
    else:
        idx = pool[choice.idx]
        seg = np.repeat(np.arange(len(ks)), ks)
        block = np.where(seg[:, None] == seg[None, :], C[np.ix_(idx, idx)], 0.0)
        Q = np.add.reduceat(block.sum(axis=1), choice.starts)
        L = np.add.reduceat(c1[idx], choice.starts)
    out: np.ndarray = np.maximum(Q / (kf * kf) - 2.0 * L / (kf * n) + total / (n * n), 0.0)
    return out


def pair_factor(n_models: int) -> float:
    """M/(M − 1): Var(e_a − e_b) = 2·Var(e)·M/(M − 1) for scores standardized per dataset over M models.

    The standardization subtracts each dataset's mean over the models, so the fitted variance
    of one model's error is (M − 1)/M of the independent models' one while the difference of
    two models' errors keeps the full 2·Var: without the factor the prediction falls short of
    the observed share by about 1/M of it (docs/theory.md, calibration).
    """
    return float(n_models) / float(n_models - 1) if n_models > 1 else 1.0


def inverted_share(gaps: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Mean over model pairs of Φ(−Δ/√(2V)) for every variance in ``V`` (any shape); ½ for Δ = 0 or V = ∞,
    0 for Δ > 0 and V = 0.

    More than :data:`_EXACT` values: computed exactly at as many log-spaced variances over
    their range and interpolated in log V (the share is smooth and monotone in V; the
    interpolation error is below 1e-5).
    """
    V = np.asarray(V, dtype=float)
    flat = V.reshape(-1)
    pos = flat[(flat > 0) & np.isfinite(flat)]
    if flat.size > _EXACT and pos.size and pos.max() > pos.min():
        grid = np.geomspace(pos.min(), pos.max(), _EXACT)
        at = _exact_share(gaps, grid)
        out = np.interp(np.log(np.where(flat > 0, flat, pos.min())), np.log(grid), at)
        rest = ~((flat > 0) & np.isfinite(flat))
        if rest.any():
            out[rest] = _exact_share(gaps, flat[rest])
        return out.reshape(V.shape)
    return _exact_share(gaps, flat).reshape(V.shape)


def _exact_share(gaps: np.ndarray, flat: np.ndarray) -> np.ndarray:
    out = np.empty(flat.shape[0])
    step = max(1, _PAIR_BLOCK // max(1, gaps.size))
    for lo in range(0, flat.size, step):
        sd = np.sqrt(2.0 * flat[lo:lo + step])[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(gaps[None, :] > 0, -gaps[None, :] / sd, 0.0)
        out[lo:lo + step] = ndtr(np.nan_to_num(z, nan=0.0, neginf=-np.inf)).mean(axis=1)
    return out


def _key(Z: np.ndarray, Y: np.ndarray, cfg: EvaluationConfig, name: str, observe: bool) -> str:
    h = hashlib.sha256(input_key(Z, Y).encode())
    h.update(repr((cfg.strategies, cfg.trials, cfg.alpha, cfg.k_min, cfg.k_max, cfg.seed, name, observe)).encode())
    return h.hexdigest()


def _settings(config: EvaluationConfig | None, trials: int | None) -> EvaluationConfig:
    """The prediction's configuration: random first, then the a-priori strategies of ``config``; β = 1."""
    config = config or EvaluationConfig()
    if config.beta < 1:
        raise InputError("the GP prediction is stated for all the benchmark's models; compare it with an "
                         "evaluation without model pools (β = 1).", field="beta")
    strategies = (BASELINE, *[s for s in config.strategies if s != BASELINE and s in STRATEGIES])
    for s in strategies:
        a_priori(s)
    return EvaluationConfig(strategies=strategies, trials=int(trials or config.trials), alpha=config.alpha, beta=1.0,
                            k_min=config.k_min, k_max=config.k_max, seed=config.seed, metrics=config.metrics[:1])


def predict(benchmark: Benchmark, representation: Representation, config: EvaluationConfig | None = None, *,
            trials: int | None = None, observe: bool = True, fit: GPFit | None = None,
            estimator: Literal["ranks", "scores"] = "ranks") -> Prediction:
    """The predicted inverted share of every a-priori strategy of ``config`` (random always) per k.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation
    config : EvaluationConfig, optional
        Strategies, α, k range and seed of the protocol's subsets (its defaults; β must be 1).
    trials : int, optional
        Overrides ``config.trials`` (the protocol's first ``trials`` pools).
    observe : bool
        Also measure the discordant share of the same subsets.
    fit : GPFit, optional
        This representation's fit, if already made.
    estimator : {"ranks", "scores"}
        What the observed share is measured on: the protocol's ranking (mean rank over the subset;
        the default) or the subset mean of the standardized scores, the estimator the prediction
        is written for (the calibration check's second reading).

    Raises
    ------
    InputError
        The GP cannot be fitted (:class:`~subsetsel_core.evaluation.gp.GPNotFitted`), fewer than
        two models, β < 1, or a configuration the protocol refuses.
    """
    cfg = _settings(config, trials)
    key, hit, (Z, Y, fit) = _lookup(benchmark, representation, cfg, observe, fit, estimator)
    if hit is not None:
        return hit
    return _store(key, _predict(benchmark, representation, cfg, Z, Y, fit, observe, estimator == "scores"))


def _lookup(benchmark: Benchmark, representation: Representation, cfg: EvaluationConfig, observe: bool,
            fit: GPFit | None, estimator: str) -> tuple[str, Prediction | None, tuple[np.ndarray, np.ndarray, GPFit]]:
    """The cache key of a prediction, the cached prediction (or None) and its inputs (Z, Y, the fit)."""
    if benchmark.n_models < 2:
        raise InputError("the GP prediction compares pairs of models; this benchmark has one.")
    Z = geometry(benchmark, representation)
    Y = standardized_scores(benchmark)
    fit = fit or fit_representation(benchmark, representation)  # cached by its inputs
    key = _key(Z, Y, cfg, representation.name, observe) + estimator + repr(fit)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
    return key, hit, (Z, Y, fit)


def _store(key: str, pred: Prediction) -> Prediction:
    _CACHE[key] = pred
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return pred


def staged(benchmark: Benchmark, representation: Representation, config: EvaluationConfig | None = None, *,
           trials: int | None = None) -> Iterator[Prediction]:
    """The prediction (not observed) in two steps: the strategies about as cheap as random first, then all.

    The first step holds random and every strategy whose
    :attr:`~subsetsel_core.strategies.base.StrategyInfo.seconds_per_trial` is at most twice
    random's (the farthest-first traversals); the second adds the others (k-means, the optimal
    designs: in hundreds of dimensions their selections cost seconds) and is the same
    :class:`Prediction` as :func:`predict` with every strategy — each strategy's subsets come from
    its own streams, so a curve never depends on which others are predicted with it. Already
    cached: the full prediction only.

    Raises
    ------
    InputError
        As :func:`predict`.
    """
    cfg = _settings(config, trials)
    key, hit, (_, Y, _) = _lookup(benchmark, representation, cfg, False, None, "ranks")
    if hit is not None:
        yield hit
        return
    cheap = 2.0 * REGISTRY[BASELINE].seconds_per_trial
    quick = tuple(s for s in cfg.strategies if REGISTRY[s].seconds_per_trial <= cheap)
    slow = tuple(s for s in cfg.strategies if s not in quick)
    first = predict(benchmark, representation, replace(cfg, strategies=quick), observe=False)
    if not slow:
        yield _store(key, first)
        return
    yield first
    rest = predict(benchmark, representation, replace(cfg, strategies=slow), observe=False)
    var = {**first.variance, **rest.variance}
    var = {s: var[s] for s in cfg.strategies}
    yield _store(key, Prediction(first.representation, first.fit, first.nn_distance, first.diameter, first.ks, var,
                                 _shares(Y, var), {}))


def _predict(benchmark: Benchmark, representation: Representation, cfg: EvaluationConfig, Z: np.ndarray,
             Y: np.ndarray, fit: GPFit, observe: bool, on_scores: bool = False) -> Prediction:
    D2 = squared_distances(Z)
    C = covariance(D2, fit)
    c1 = C.sum(axis=1)
    total = float(c1.sum())
    ctx = prepare(benchmark, {representation.name: representation}, cfg)
    ks = ctx.ks
    by_key = {e.key: e.strategy for e in ctx.entries}
    var = {s: np.empty((cfg.trials, len(ks))) for s in by_key.values()}
    obs = {s: np.empty((cfg.trials, len(ks))) for s in by_key.values()} if observe else {}
    table = ctx.table
    ref = Y.mean(axis=0) if on_scores else table.comparable(table.reference())
    for t in range(cfg.trials):
        pool, _ = trial_pool(ctx, t)
        rows = Y[pool] if on_scores else table.rows[pool]
        for key, choice in trial_choices(ctx, t, pool).items():
            s = by_key[key]
            var[s][t] = _variances(C, c1, total, pool, choice, ks)
            if observe:
                sums = choice.sums(rows, ks)
                obs[s][t] = discordant_share(ref, sums if on_scores else table.comparable(sums))
    return Prediction(representation.name, fit, nn_distance(D2), float(np.sqrt(D2.max())), ks, var, _shares(Y, var),
                      obs)


def _shares(Y: np.ndarray, var: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The predicted inverted share at every variance of ``var`` (one call: one interpolation grid)."""
    names = list(var)
    pred = inverted_share(pair_gaps(Y.mean(axis=0)), pair_factor(Y.shape[1]) * np.stack([var[s] for s in names]))
    return {s: pred[i] for i, s in enumerate(names)}
