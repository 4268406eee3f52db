"""Does V(h) bound what it claims? Benchmarks drawn from the GP model itself (docs/theory.md).

Each draw: n latent points ~ N(0, I_q), standardized as the strategies do; M functions
f_m from the zero-mean GP with known (ℓ, σ², τ²) and their noisy observations
y_m = f_m + N(0, τ²); FAFI (Euclidean, from the registry) orders the points. For every k
the GP posterior given y at FAFI's first k points estimates every f_m(x_d), and we record,
next to V(h_k):

- ``max_variance``: the largest posterior variance (≤ V(h_k) by algebra; a sanity check);
- ``pointwise``: the MSE of the posterior mean, over models and datasets;
- ``point_share``: the share of datasets whose MSE over the M models is ≤ V(h_k) (each
  such MSE is an average of M squared errors, so some exceed V by chance);
- ``mean_score``: the MSE over models of the estimate of the model's mean of f over the
  benchmark (the quantity PROTOCOL.md says V bounds);
- ``noisy_mean``: the same for the mean of the observed y (chosen points enter with their
  observations), whose MSE adds the noise of the unchosen points, about τ²/n;
- ``inverted`` and ``predicted``: the share of model pairs the estimated means order
  oppositely to the mean of y, and the pair bound's prediction for it.

With ``refit`` the hyperparameters are fitted on all n points' y (as the tool does) and
both the posterior and V use the fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from subsetsel_core.evaluation.gp import (
    GPFit,
    covering_radii,
    draw,
    fit_gp,
    pair_gaps,
    posterior,
    predicted_share,
    squared_distances,
)
from subsetsel_core.strategies import REGISTRY, standardize

FIELDS = ("bound", "max_variance", "pointwise", "point_share", "mean_score", "noisy_mean", "inverted", "predicted")
"""The arrays of a :class:`BoundCheck`, each (draws, K)."""


@dataclass(frozen=True, eq=False)
class BoundCheck:
    """Per draw and k: V(h_k) and what was observed (see the module docstring).

    Attributes
    ----------
    truth : GPFit
        The hyperparameters the draws come from.
    ks : ndarray of int (K,)
    values : dict of str to ndarray (draws, K)
        One array per name in :data:`FIELDS`.
    fits : list of GPFit
        The fitted hyperparameters per draw (empty without ``refit``).
    """

    truth: GPFit
    ks: np.ndarray
    values: dict[str, np.ndarray]
    fits: list[GPFit]

    def held(self, name: str) -> float:
        """Share of (draw, k) cells where ``values[name]`` ≤ the bound (the predicted share for
        ``inverted``); for ``point_share`` the mean share of datasets."""
        if name == "point_share":
            return float(self.values[name].mean())
        ref = self.values["predicted" if name == "inverted" else "bound"]
        return float((self.values[name] <= ref * (1 + 1e-9) + 1e-12).mean())


def check_bound(truth: GPFit, *, n: int = 100, latent_dim: int = 3, n_models: int = 30, ks: np.ndarray | None = None,
                draws: int = 50, refit: bool = False, seed: int = 0) -> BoundCheck:
    """Draw ``draws`` benchmarks from the GP model and compare the observed errors with V(h_k).

    Parameters
    ----------
    truth : GPFit
        Known (ℓ, σ², τ²) of the draws (``log_likelihood`` unused).
    n, latent_dim, n_models : int
        Datasets, latent dimension and models per draw.
    ks : ndarray of int, optional
        Subset sizes (default 2 … 20).
    draws : int
    refit : bool
        Fit the hyperparameters on each draw (as the tool does) instead of using the truth.
    seed : int

    Returns
    -------
    BoundCheck
    """
    ks = np.arange(2, 21) if ks is None else np.asarray(ks, dtype=np.int64)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(draws)]
    values = {name: np.empty((draws, len(ks))) for name in FIELDS}
    fits: list[GPFit] = []
    kernel = REGISTRY["fafi-euclidean"].kernel
    for r, rng in enumerate(rngs):
        Z = standardize(rng.standard_normal((n, latent_dim)))
        D2 = squared_distances(Z)
        f, y = draw(D2, truth, n_models, rng)
        use = truth
        if refit:
            use = fit_gp(Z, y)
            fits.append(use)
        order = kernel(Z, int(ks[-1]), rng=None, include=np.empty(0, np.int64))
        bound = use.variance_bound(covering_radii(Z, order, ks))
        gaps = pair_gaps(y.mean(axis=0))
        a, b = np.triu_indices(n_models, 1)
        ref_sign = np.sign(y.mean(axis=0)[a] - y.mean(axis=0)[b])
        for i, k in enumerate(ks):
            chosen = order[:k]
            mean, var = posterior(D2, use, chosen, y[chosen])
            err = mean - f
            noisy = mean.copy()
            noisy[chosen] = y[chosen]
            est = noisy.mean(axis=0)
            cell = {
                "bound": bound[i], "max_variance": var.max(), "pointwise": float((err ** 2).mean()),
                "point_share": float(((err ** 2).mean(axis=1) <= bound[i]).mean()),
                "mean_score": float((err.mean(axis=0) ** 2).mean()),
                "noisy_mean": float(((est - y.mean(axis=0)) ** 2).mean()),
                "inverted": float((np.sign(est[a] - est[b]) * ref_sign < 0).mean()),
                "predicted": float(predicted_share(gaps, np.array([bound[i]]))[0]),
            }
            for name, v in cell.items():
                values[name][r, i] = v
    return BoundCheck(truth, ks, values, fits)


@dataclass(frozen=True, eq=False)
class Calibration:
    """Predicted against observed inverted shares on benchmarks drawn from a known GP (see :func:`calibrate`).

    Attributes
    ----------
    truth : GPFit
        The hyperparameters the draws come from.
    ks : ndarray of int (K,)
    strategies : tuple of str
    predicted, observed : ndarray (draws, strategies, K)
        Per draw, the mean over the protocol's pools of the predicted and of the observed share.
    fits : list of GPFit
        The tool's fit on each draw.
    raw_fits : list of GPFit
        With ``raw_fit``: the same fit on each draw's scores before the per-dataset
        standardization (which the tool always applies); empty otherwise.
    """

    truth: GPFit
    ks: np.ndarray
    strategies: tuple[str, ...]
    predicted: np.ndarray
    observed: np.ndarray
    fits: list[GPFit]
    raw_fits: list[GPFit] = field(default_factory=list)

    def standard_error(self) -> np.ndarray:
        """Standard error over draws of the mean observed-minus-predicted share, (strategies, K)."""
        d = self.observed - self.predicted
        out: np.ndarray = d.std(axis=0, ddof=1) / np.sqrt(d.shape[0])
        return out

    def inside(self) -> np.ndarray:
        """Per (strategy, k): the mean observed share within the mean predicted share ± 2 s.e."""
        gap = np.abs((self.observed - self.predicted).mean(axis=0))
        out: np.ndarray = gap <= 2.0 * self.standard_error() + 1e-12
        return out

    def share_inside(self) -> float:
        """Share of (strategy, k) cells :meth:`inside`."""
        return float(self.inside().mean())


def calibrate(Z: np.ndarray, truth: GPFit, *, n_models: int = 20, strength_sd: float = 0.5, draws: int = 12,
              trials: int = 4, strategies: tuple[str, ...] = ("random", "fafi-euclidean", "d-optimal"),
              ks: tuple[int, int] = (2, 15), centre: bool = True, estimator: Literal["ranks", "scores"] = "ranks",
              known: bool = False, raw_fit: bool = False, pooled_fit: bool = False, seed: int = 0) -> Calibration:
    """Benchmarks drawn from a GP with known hyperparameters on a given geometry, predicted by the tool.

    Each draw: every model gets a strength μ_m ~ N(0, ``strength_sd``²) and a function f_m from
    the GP with ``truth`` on the standardized descriptors ``Z`` (a real sample's geometry),
    centred over the datasets with ``centre`` (so that the model's strength is its mean over the
    benchmark: the protocol's constant mean per model; without it, a long ℓ makes f_m's own mean
    a second, hidden strength that the subsets' errors are correlated with); its score on
    dataset d is μ_m + f_m(x_d) + N(0, τ²) (one fold, higher is better). The tool
    then does what it does on any benchmark: standardizes the scores per dataset, fits the GP
    and predicts every strategy's inverted share on the protocol's pools, next to the observed
    share of discordant pairs of the same subsets (:func:`~subsetsel_core.evaluation.prediction.predict`),
    measured on the protocol's mean ranks or, with ``estimator="scores"``, on the subset means of the
    standardized scores (the estimator the prediction is written for). With ``known`` the
    prediction uses the true hyperparameters instead of the fit, σ² and τ² divided by each draw's
    mean per-dataset variance over the models (the scale the standardization divides by). With
    ``raw_fit`` the GP is also fitted on each draw's unstandardized scores (a diagnostic: the
    standardization is what the draws' model does not describe). With ``pooled_fit`` (a diagnostic,
    not what the tool does) the prediction uses the fit on each draw's scores centred per dataset,
    σ² and τ² divided as with ``known``: one scale for the whole benchmark instead of each
    dataset's own spread.
    """
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.evaluation.prediction import predict
    from subsetsel_core.evaluation.result import EvaluationConfig
    from subsetsel_core.representations.descriptors import representation_from_matrix

    n = Z.shape[0]
    datasets = tuple(f"d{i:04d}" for i in range(n))
    models = tuple(f"m{j:03d}" for j in range(n_models))
    rep = representation_from_matrix(np.asarray(Z, dtype=float), datasets, name="geometry")
    D2 = squared_distances(standardize(np.asarray(Z, dtype=float)))
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(draws)]
    pred, obs, fits, raw = [], [], [], []
    ks_out = np.arange(ks[0], ks[1] + 1)
    for r, rng in enumerate(rngs):
        # every draw its own pools (the protocol's seed r), so the spread over draws covers them
        cfg = EvaluationConfig(strategies=strategies, trials=trials, k_min=ks[0], k_max=ks[1], seed=seed + r,
                               metrics=("kendall",))
        f, y = draw(D2, truth, n_models, rng)
        if centre:
            y = y - f.mean(axis=0, keepdims=True)
        y = y + strength_sd * rng.standard_normal(n_models)[None, :]
        b = Benchmark(y[:, None, :], datasets, models, ("0",), higher_is_better=True)
        use = None
        if known or pooled_fit:
            scale = float(y.var(axis=1).mean())
            base = truth if known else fit_gp(standardize(np.asarray(Z, dtype=float)), y - y.mean(axis=1, keepdims=True))
            use = GPFit(base.lengthscale, base.signal_variance / scale, base.noise_variance / scale, 0.0)
        p = predict(b, rep, cfg, estimator=estimator, fit=use)
        fits.append(p.fit)
        if raw_fit:
            raw.append(fit_gp(standardize(np.asarray(Z, dtype=float)), y))
        ks_out = p.ks
        pred.append([p.curve(s) for s in strategies])
        obs.append([p.observed[s].mean(axis=0) for s in strategies])
    return Calibration(truth, ks_out, tuple(strategies), np.asarray(pred), np.asarray(obs), fits, raw)
