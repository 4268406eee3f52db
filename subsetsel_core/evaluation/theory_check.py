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

from dataclasses import dataclass

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
