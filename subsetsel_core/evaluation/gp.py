"""A zero-mean Gaussian process with a squared-exponential kernel, shared by many targets.

κ(x, x') = σ²·exp(−‖x − x'‖² / (2ℓ²)), observation noise τ². :func:`fit_gp` maximises the
summed log marginal likelihood of every column of a target matrix (columns independent,
hyperparameters shared): one Cholesky factorisation of the n × n kernel per evaluation,
analytic gradient, L-BFGS-B on log parameters from several starts. :meth:`GPFit.variance_bound`
is the bound V(h) of PROTOCOL.md ("FAFI's coverage bound under a Gaussian-process model");
:func:`posterior` and :func:`draw` serve its checks (docs/theory.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import ndtr

from subsetsel_core.evaluation.parallel import one_blas_thread

_JITTER = 1e-8


@dataclass(frozen=True)
class GPFit:
    """Hyperparameters of the shared GP prior, fitted by maximum marginal likelihood.

    Attributes
    ----------
    lengthscale, signal_variance, noise_variance : float
        ℓ, σ², τ².
    log_likelihood : float
        The summed log marginal likelihood at the optimum (all models).
    """

    lengthscale: float
    signal_variance: float
    noise_variance: float
    log_likelihood: float

    def variance_bound(self, h: np.ndarray | float) -> np.ndarray:
        """V(h) = σ² − σ⁴·exp(−h²/ℓ²) / (σ² + τ²), in [τ²σ²/(σ²+τ²), σ²]."""
        s2, t2, ell = self.signal_variance, self.noise_variance, self.lengthscale
        h = np.asarray(h, dtype=float)
        return np.clip(s2 - s2 * s2 * np.exp(-(h * h) / (ell * ell)) / (s2 + t2), 0.0, s2)


def squared_distances(Z: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``Z`` (exact zeros on the diagonal)."""
    sq = (Z * Z).sum(axis=1)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)
    np.fill_diagonal(D2, 0.0)
    return D2


def nn_distance(D2: np.ndarray) -> float:
    """Typical nearest-neighbour distance: median over datasets of the distance to the nearest other one."""
    d = D2 + np.diag(np.full(D2.shape[0], np.inf))
    return float(np.median(np.sqrt(d.min(axis=1))))


def kernel(D2: np.ndarray, fit: GPFit) -> np.ndarray:
    """σ²·exp(−D²/(2ℓ²)) of squared distances (no noise term)."""
    return fit.signal_variance * np.exp(-np.asarray(D2, dtype=float) / (2.0 * fit.lengthscale ** 2))


def _nll(theta: np.ndarray, D2: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """Negative summed log marginal likelihood and its gradient in (log ℓ, log σ², log τ²)."""
    ell, s2, t2 = np.exp(theta)
    n, m = Y.shape
    E = np.exp(-D2 / (2.0 * ell * ell))
    K = s2 * E
    K[np.diag_indices(n)] += t2 + _JITTER
    try:
        c = cho_factor(K, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return 1e300, np.zeros(3)
    A = cho_solve(c, Y, check_finite=False)
    Kinv = cho_solve(c, np.eye(n), check_finite=False)
    logdet = 2.0 * np.log(np.diag(c[0])).sum()
    nll = 0.5 * float((Y * A).sum()) + 0.5 * m * logdet + 0.5 * n * m * np.log(2.0 * np.pi)
    W = m * Kinv - A @ A.T  # d nll / dK = W / 2
    dK_s2 = s2 * E
    grad = 0.5 * np.array([(W * dK_s2 * D2).sum() / (ell * ell), (W * dK_s2).sum(), t2 * np.trace(W)])
    return nll, grad


def fit_gp(Z: np.ndarray, Y: np.ndarray) -> GPFit:
    """Maximum marginal-likelihood (ℓ, σ², τ²) of one zero-mean GP shared by every column of ``Y``.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Standardized descriptors.
    Y : ndarray of shape (n, M)
        One column per target (the models: :func:`~subsetsel_core.evaluation.theory.standardized_scores`).

    Returns
    -------
    GPFit
        The best of L-BFGS-B runs from six starts (ℓ at ½, 1 and 2 × the median distance,
        σ² : τ² at 4 : 1 and 1 : 4 of the targets' variance).
    """
    D2 = squared_distances(Z)
    off = np.sqrt(D2[np.triu_indices(D2.shape[0], 1)])
    pos = off[off > 0]
    med = float(np.median(pos)) if pos.size else 1.0
    lo = float(pos.min()) if pos.size else 1.0
    var = max(float((Y * Y).mean()), 1e-12)
    bounds = [(np.log(lo / 20.0), np.log(med * 100.0)), (np.log(var * 1e-6), np.log(var * 1e3)),
              (np.log(var * 1e-6), np.log(var * 1e3))]
    best: tuple[float, np.ndarray] | None = None
    with one_blas_thread():  # small matrices: BLAS threads only contend
        for f_ell in (0.5, 1.0, 2.0):
            for share in (0.8, 0.2):
                x0 = np.log([med * f_ell, var * share, var * (1.0 - share)])
                r = minimize(_nll, x0, args=(D2, Y), jac=True, method="L-BFGS-B", bounds=bounds)
                if np.isfinite(r.fun) and (best is None or r.fun < best[0]):
                    best = (float(r.fun), np.asarray(r.x))
    assert best is not None
    ell, s2, t2 = np.exp(best[1])
    return GPFit(float(ell), float(s2), float(t2), -best[0])


def covering_radii(Z: np.ndarray, order: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """h_k = max over datasets of the distance to the nearest of ``order[:k]``, for every k in ``ks``."""
    D = np.sqrt(squared_distances(Z)[:, np.asarray(order, dtype=np.int64)])
    near = np.minimum.accumulate(D, axis=1)  # (n, len(order)): nearest among the first j + 1
    return near.max(axis=0)[np.asarray(ks, dtype=np.int64) - 1]


def predicted_share(gaps: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Mean over model pairs of Φ(−Δ_ab / √(2V)) for every V (½ for a pair with Δ = 0 or V = ∞)."""
    V = np.asarray(V, dtype=float)
    with np.errstate(divide="ignore"):
        z = -gaps[None, :] / np.sqrt(2.0 * np.maximum(V, 0.0))[:, None]
    return ndtr(np.nan_to_num(z, nan=0.0, neginf=-np.inf)).mean(axis=1)


def pair_gaps(y_mean: np.ndarray) -> np.ndarray:
    """|ȳ_a − ȳ_b| over every pair a < b."""
    a, b = np.triu_indices(len(y_mean), 1)
    return np.abs(y_mean[a] - y_mean[b])


def posterior(D2: np.ndarray, fit: GPFit, chosen: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance of the noise-free function at every point, given noisy ``y`` at ``chosen``.

    Parameters
    ----------
    D2 : ndarray (n, n)
        Squared distances.
    fit : GPFit
    chosen : ndarray of int (k,)
    y : ndarray (k, M)
        Observations at the chosen points, one column per target.

    Returns
    -------
    mean : ndarray (n, M)
    variance : ndarray (n,)
    """
    chosen = np.asarray(chosen, dtype=np.int64)
    Ks = kernel(D2[:, chosen], fit)
    Kss = Ks[chosen] + (fit.noise_variance + _JITTER) * np.eye(len(chosen))
    c = cho_factor(Kss, lower=True, check_finite=False)
    mean = Ks @ cho_solve(c, y, check_finite=False)
    var = fit.signal_variance - (Ks * cho_solve(c, Ks.T, check_finite=False).T).sum(axis=1)
    return mean, np.maximum(var, 0.0)


def draw(D2: np.ndarray, fit: GPFit, n_targets: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Functions drawn from the prior and their noisy observations at every point.

    Returns
    -------
    f, y : ndarray (n, n_targets)
        ``y = f + N(0, τ²)``.
    """
    n = D2.shape[0]
    L = np.linalg.cholesky(kernel(D2, fit) + 1e-9 * fit.signal_variance * np.eye(n))
    f = L @ rng.standard_normal((n, n_targets))
    return f, f + np.sqrt(fit.noise_variance) * rng.standard_normal((n, n_targets))
