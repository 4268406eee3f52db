"""FAFI's coverage bound under a Gaussian-process model (PROTOCOL.md), and what is observed.

Geometry: the representation standardized over all n datasets as the strategies do
(:func:`~subsetsel_core.strategies.standardize`), Euclidean distance. Targets: per model m
and dataset d, the mean score over folds, oriented so that higher is better, and
standardized over the models within each dataset (mean 0, population sd 1; a dataset on
which every model scores alike gives zeros). Standardizing each model's vector over the
datasets instead would give every model a mean of exactly 0, every reference gap Δ = 0
and the bound ½ for every k; see docs/theory.md.

One zero-mean GP prior serves every model: κ(x, x') = σ²·exp(−‖x − x'‖² / (2ℓ²)) plus
noise τ². (ℓ, σ², τ²) maximise the summed log marginal likelihood of all models (one
Cholesky factorisation of the shared n × n kernel per evaluation, analytic gradient,
L-BFGS-B on log parameters from several starts). The scores describe; they never choose.

For a subset S with covering radius h = max_d min_{s∈S} ‖x_d − x_s‖ the posterior variance
at any dataset is at most V(h) = σ² − σ⁴·exp(−h²/ℓ²) / (σ² + τ²), which also bounds the MSE
of the GP estimate of a model's mean standardized score over the benchmark. A pair of
models with reference gap Δ = |ȳ_a − ȳ_b| is inverted with probability at most
Φ(−Δ / √(2V)); the predicted inverted share is the mean over pairs. The observed share is
that of discordant model pairs (ordered oppositely by the subset's ranking and the
reference ranking; a tie in either counts as not discordant) of the protocol's subsets:
the same pools (:func:`~subsetsel_core.evaluation.protocol.trial_pool`) and the same
registry kernel as :func:`~subsetsel_core.evaluation.protocol.evaluate`.
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
    fit_gp,
    nn_distance,
    pair_gaps,
    predicted_share,
    squared_distances,
)
from subsetsel_core.evaluation.protocol import pool_table, prepare, trial_pool
from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import COVERING, REGISTRY, standardize

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
_BLOCK = 2**22  # elements of one block of pair comparisons


def standardized_scores(benchmark: Benchmark) -> np.ndarray:
    """Mean score over folds, higher is better, z-scored over the models within each dataset.

    Returns
    -------
    ndarray of shape (n_datasets, n_models)
        Rows with mean 0 and population sd 1 (zeros where every model scores alike).
    """
    y = benchmark.scores.mean(axis=1)
    if not benchmark.higher_is_better:
        y = -y
    y = y - y.mean(axis=1, keepdims=True)
    sd = y.std(axis=1, keepdims=True)
    return np.where(sd > 0, y / np.where(sd > 0, sd, 1.0), 0.0)


def discordant_share(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Share of model pairs ordered oppositely by ``sub`` and ``ref`` (ties: not discordant).

    Parameters
    ----------
    ref : ndarray (M,)
        Reference rank vector (or rank sums: only signs of differences matter).
    sub : ndarray (..., M)
        Subset rank vectors.

    Returns
    -------
    ndarray of shape ``sub.shape[:-1]``
    """
    m = ref.shape[-1]
    a, b = np.triu_indices(m, 1)
    sr = np.sign(ref[a] - ref[b])
    flat = sub.reshape(-1, m)
    out = np.empty(flat.shape[0])
    step = max(1, _BLOCK // max(1, a.size))
    for lo in range(0, flat.shape[0], step):
        s = flat[lo:lo + step]
        out[lo:lo + step] = ((np.sign(s[:, a] - s[:, b]) * sr) < 0).mean(axis=1)
    return out.reshape(sub.shape[:-1])


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
            return (f"the kernel is nearly flat — it correlates a dataset with its nearest neighbour ({near:.2f}) "
                    f"hardly more than with the farthest one ({far:.2f}) — so it only shares each model's overall "
                    "strength, whichever datasets are chosen")
        drop = float(self.predicted[0] - self.predicted[-1])
        if len(self.ks) > 1 and drop < FLAT_BOUND:
            return (f"the bound hardly falls from k = {int(self.ks[0])} to k = {int(self.ks[-1])} "
                    f"({100 * self.predicted[0]:.1f} % → {100 * self.predicted[-1]:.1f} %), so covering more of the "
                    "descriptor space buys little in this model")
        return None

    @property
    def informative(self) -> bool:
        """Whether the geometry may carry information (:meth:`weakness` is None)."""
        return self.weakness() is None

    def sentence(self) -> str:
        """What the model says, in one plain paragraph."""
        f, k0, k = self.fit, int(self.ks[0]), int(self.ks[-1])
        title = REGISTRY[self.strategy].title
        text = (f"Descriptor distances correlate with performance over a length of ℓ = {f.lengthscale:.3g} (typical "
                f"nearest-neighbour distance {self.nn_distance:.3g}; signal variance σ² = {f.signal_variance:.3g}, "
                f"noise τ² = {f.noise_variance:.3g}). {title}'s subsets cover every dataset within "
                f"h = {self.covering_radius[-1]:.3g} by k = {k}; the model predicts at most "
                f"{100 * self.predicted[-1]:.1f} % of model pairs inverted at k = {k} "
                f"({100 * self.predicted[0]:.1f} % at k = {k0}). Observed on the protocol's subsets: "
                f"{100 * self.observed_mean[-1]:.1f} % at k = {k} ({100 * self.observed_mean[0]:.1f} % at k = {k0}).")
        why = self.weakness()
        if why is not None:
            text += f" The geometry carries little information: {why}."
        return text

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
        }


def _fl(a: np.ndarray) -> list[float]:
    return [float(x) for x in a]


def geometry(benchmark: Benchmark, representation: Representation) -> np.ndarray:
    """The representation standardized over all datasets (as the strategies do).

    Raises
    ------
    InputError
        A representation not aligned to the benchmark or without a varying column, or a
        score table with gaps (the GP needs every model's score on every dataset).
    """
    if tuple(representation.datasets) != tuple(benchmark.datasets):
        raise InputError(f"representation '{representation.name}' is not aligned to the benchmark's datasets.",
                         field="representation")
    if benchmark.has_gaps:
        raise InputError("the coverage bound needs a complete score table, and this one has gaps; load it with the "
                         "'complete-block' policy.", field="missing")
    Z = standardize(np.asarray(representation.X, dtype=float))
    if Z.shape[1] == 0:
        raise InputError(f"representation '{representation.name}' has no column that varies between datasets; "
                         "the coverage bound needs a geometry.", field="representation")
    return Z


#: Largest benchmark the GP is fitted on: each likelihood evaluation factorises an n × n
#: kernel (O(n³)); at this size one fit takes seconds, far larger ones minutes.
MAX_GP_DATASETS = 1000


def fit_representation(benchmark: Benchmark, representation: Representation) -> GPFit:
    """:func:`fit_gp` on a representation's :func:`geometry` and the :func:`standardized_scores`.

    Raises
    ------
    InputError
        More than :data:`MAX_GP_DATASETS` datasets, or no varying descriptor column.
    """
    if benchmark.n_datasets > MAX_GP_DATASETS:
        raise InputError(f"{benchmark.name}: the coverage bound's GP fit is limited to {MAX_GP_DATASETS} datasets "
                         f"(this benchmark has {benchmark.n_datasets}); its cost grows with the cube of n.",
                         field="representation")
    return fit_gp(geometry(benchmark, representation), standardized_scores(benchmark))


def coverage_theory(benchmark: Benchmark, representation: Representation, config: EvaluationConfig | None = None,
                    *, strategy: str = FAFI, fit: GPFit | None = None) -> Theory:
    """The coverage bound of ``strategy`` per k next to its observed discordant share.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation
    config : EvaluationConfig, optional
        Trials, α, β, k range and seed of the observed subsets (the protocol's defaults).
    strategy : str
        One of :data:`THEORY_STRATEGIES`; its order on the full benchmark gives h_k.
    fit : GPFit, optional
        This representation's fit, if already made (:func:`fit_representation`).

    Raises
    ------
    InputError
        Bad configuration or representation, or a strategy without the bound.
    """
    config = config or EvaluationConfig()
    if config.beta < 1:
        raise InputError("the coverage bound is stated for all the benchmark's models; compare it with an "
                         "evaluation without model pools (β = 1).", field="beta")
    Z = geometry(benchmark, representation)
    observed = observed_shares(benchmark, representation, config, strategy)
    fit = fit or fit_gp(Z, standardized_scores(benchmark))
    ks = np.arange(config.k_min, config.k_min + observed.shape[1])
    order = REGISTRY[strategy].kernel(Z, int(ks[-1]), rng=None, include=np.empty(0, np.int64))
    h = covering_radii(Z, order, ks)
    V = fit.variance_bound(h)
    gaps = pair_gaps(standardized_scores(benchmark).mean(axis=0))
    D2 = squared_distances(Z)
    return Theory(strategy, representation.name, fit, nn_distance(D2), float(np.sqrt(D2.max())), ks, h, V,
                  predicted_share(gaps, V), observed)


def entry_theories(benchmark: Benchmark, representations: Mapping[str, Representation],
                   result: EvaluationResult) -> dict[str, Theory]:
    """The bound of every FAFI entry of an evaluation (its own strategy's subsets, Euclidean geometry).

    One GP fit per representation; the observed subsets are the evaluation's (same seed,
    trials done, α, β, k range). Entries the bound cannot be computed for (a score table
    with gaps, a representation without a varying column) are left out: the bound is an
    addition to an evaluation, never a reason for it to fail.
    """
    if benchmark.has_gaps:
        return {}
    c = result.config
    cfg = EvaluationConfig(strategies=c.strategies, trials=result.trials_done, alpha=c.alpha, beta=c.beta,
                           k_min=int(result.ks[0]), k_max=int(result.ks[-1]), seed=c.seed, metrics=c.metrics)
    fits: dict[str, GPFit] = {}
    out: dict[str, Theory] = {}
    for e in result.entries:
        name = e.representation
        if e.strategy not in THEORY_STRATEGIES or name is None or name not in representations or cfg.trials < 1:
            continue
        try:
            if name not in fits:
                fits[name] = fit_representation(benchmark, representations[name])
            out[e.key] = coverage_theory(benchmark, representations[name], cfg, strategy=e.strategy,
                                         fit=fits[name])
        except InputError:
            continue
    return out
