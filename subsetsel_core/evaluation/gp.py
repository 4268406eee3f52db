"""A Gaussian process with a squared-exponential kernel, shared by many targets.

κ(x, x') = σ²·exp(−‖x − x'‖² / (2ℓ²)), observation noise τ². :func:`fit_gp` centres every
column of a target matrix (a constant mean per target: each model's strength) and maximises
the summed log marginal likelihood of the centred columns (columns independent,
hyperparameters shared). The start comes from a grid over ℓ on which σ² and τ² are profiled
in closed form (one eigendecomposition per ℓ); L-BFGS-B on the log parameters then refines it
with one Cholesky factorisation of the n × n kernel per evaluation, solves for all columns at
once and the analytic gradient. Fits are cached by the SHA-256 of the inputs.
:meth:`GPFit.variance_bound` is the bound V(h) of PROTOCOL.md ("FAFI's coverage bound under a
Gaussian-process model"); :func:`posterior` and :func:`draw` serve its checks (docs/theory.md).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve, lapack
from scipy.optimize import minimize
from scipy.special import ndtr

from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.parallel import one_blas_thread

_JITTER = 1e-8
MIN_DATASETS = 5
"""Fewest datasets a GP is fitted on (three hyperparameters from fewer points say nothing)."""
_RATIOS = np.geomspace(1e-4, 1e3, 36)  # τ²/σ² of the starting grid


class GPNotFitted(InputError):
    """The GP cannot be fitted to these inputs (the message says why, in one sentence)."""


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


_CACHE: OrderedDict[str, GPFit] = OrderedDict()  # input_key → fit, least recently used first
_CACHE_SIZE = 128


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


def covariance(D2: np.ndarray, fit: GPFit) -> np.ndarray:
    """K + τ²I of squared distances: the covariance of the observed targets under the fit."""
    C = kernel(D2, fit)
    C[np.diag_indices(C.shape[0])] += fit.noise_variance + _JITTER
    return C


def _nll(theta: np.ndarray, D2: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """Negative summed log likelihood of the centred targets and its gradient in (log ℓ, log σ², log τ²).

    The likelihood of a column centred over the n rows is that of its n − 1 contrasts, i.e. the
    restricted likelihood of a GP with a constant mean (integrated out under a flat prior):
    −½ yᵀΠy − ½ log|C| − ½ log(1ᵀC⁻¹1) − ½ (n − 1) log 2π with C = K + τ²I and
    Π = C⁻¹ − C⁻¹11ᵀC⁻¹ / (1ᵀC⁻¹1); its gradient is ½ tr((m Π − ΠYYᵀΠ) ∂C).
    """
    ell, s2, t2 = np.exp(theta)
    n, m = Y.shape
    E = np.exp(-D2 / (2.0 * ell * ell))
    K = s2 * E
    K[np.diag_indices(n)] += t2 + _JITTER
    try:
        c = cho_factor(K, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return 1e300, np.zeros(3)
    low, info = lapack.dpotri(c[0], lower=1)  # C⁻¹ from the same factor (lower triangle)
    if info != 0:
        return 1e300, np.zeros(3)
    Kinv = np.tril(low) + np.tril(low, -1).T
    u = Kinv.sum(axis=1)  # C⁻¹1
    tot = float(u.sum())
    if not tot > 0:
        return 1e300, np.zeros(3)
    Pi = Kinv - np.outer(u, u) / tot
    A = Pi @ Y  # every model at once
    logdet = 2.0 * np.log(np.diag(c[0])).sum()
    nll = 0.5 * float((Y * A).sum()) + 0.5 * m * (logdet + np.log(tot)) + 0.5 * (n - 1) * m * np.log(2.0 * np.pi)
    W = m * Pi - A @ A.T  # d nll / dC = W / 2
    WK = W * K
    WK[np.diag_indices(n)] -= np.diag(W) * (t2 + _JITTER)  # W ∘ (σ²E): the signal part of C only
    grad = 0.5 * np.array([(WK * D2).sum() / (ell * ell), WK.sum(), t2 * np.trace(W)])
    return nll, grad


def input_key(Z: np.ndarray, Y: np.ndarray) -> str:
    """SHA-256 of the descriptors' and targets' shapes and bytes (the fit cache's key)."""
    h = hashlib.sha256()
    for a in (Z, Y):
        a = np.ascontiguousarray(a, dtype=float)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def fit_gp(Z: np.ndarray, Y: np.ndarray) -> GPFit:
    """Maximum marginal-likelihood (ℓ, σ², τ²) of one GP shared by the centred columns of ``Y``.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Standardized descriptors.
    Y : ndarray of shape (n, M)
        One column per target (the models: :func:`~subsetsel_core.evaluation.theory.standardized_scores`);
        each column is centred over the n rows first (its constant mean: the model's strength).

    Returns
    -------
    GPFit
        L-BFGS-B refined from the best point of a grid over ℓ (σ², τ² profiled on it);
        cached by :func:`input_key`.

    Raises
    ------
    GPNotFitted
        Fewer than :data:`MIN_DATASETS` rows, non-finite input, targets that do not vary, or
        a kernel that no factorisation accepts.
    """
    Z = np.asarray(Z, dtype=float)
    Y = np.asarray(Y, dtype=float)
    key = input_key(Z, Y)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    fit = _fit(Z, Y)
    _CACHE[key] = fit
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return fit


def _fit(Z: np.ndarray, Y: np.ndarray) -> GPFit:
    n = Z.shape[0]
    if n < MIN_DATASETS:
        raise GPNotFitted(f"the Gaussian-process model needs at least {MIN_DATASETS} datasets; this benchmark has "
                          f"{n}.", field="representation")
    if not (np.isfinite(Z).all() and np.isfinite(Y).all()):
        raise GPNotFitted("the Gaussian-process model needs finite descriptors and scores.", field="representation")
    Y = Y - Y.mean(axis=0, keepdims=True)
    var = float((Y * Y).mean()) if Y.size else 0.0
    if not var > 1e-12:
        raise GPNotFitted("the models' scores do not vary between datasets beyond each model's overall strength, "
                          "so there is nothing for the Gaussian-process model to explain.", field="representation")
    D2 = squared_distances(Z)
    off = np.sqrt(D2[np.triu_indices(n, 1)])
    pos = off[off > 1e-12]
    if pos.size == 0:
        raise GPNotFitted("every dataset has the same descriptors, so the Gaussian-process model has no geometry "
                          "to fit.", field="representation")
    lo, med = float(pos.min()), float(np.median(pos))
    bounds = [(np.log(lo / 20.0), np.log(med * 100.0)), (np.log(var * 1e-6), np.log(var * 1e3)),
              (np.log(var * 1e-4), np.log(var * 1e3))]
    with one_blas_thread():  # small matrices: BLAS threads only contend
        x0 = _grid_start(D2, Y, length_grid(D2))
        x0 = np.clip(x0, [b[0] for b in bounds], [b[1] for b in bounds])
        r = minimize(_nll, x0, args=(D2, Y), jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 60})
        best = min(((float(r.fun), np.asarray(r.x)), (_nll(x0, D2, Y)[0], x0)), key=lambda t: t[0])
    if not np.isfinite(best[0]) or best[0] >= 1e299:
        raise GPNotFitted("the Gaussian-process model's kernel matrix is singular for these descriptors at every "
                          "length-scale tried.", field="representation")
    ell, s2, t2 = np.exp(best[1])
    return GPFit(float(ell), float(s2), float(t2), -best[0])


def length_grid(D2: np.ndarray) -> np.ndarray:
    """The length-scales of the starting grid: where the datasets' distances lie (quantiles of the
    nearest-neighbour and of all pairwise distances) and ten log-spaced from a tenth of the
    smallest distance to 30 times the median one."""
    n = D2.shape[0]
    d = np.sqrt(D2[np.triu_indices(n, 1)])
    d = d[d > 1e-12]
    near = np.sqrt((D2 + np.diag(np.full(n, np.inf))).min(axis=1))
    near = near[near > 1e-12]
    med = float(np.median(d))
    pts = [*np.quantile(near if near.size else d, [0.1, 0.5, 0.9]), *np.quantile(d, [0.05, 0.25]),
           *np.geomspace(float(d.min()) / 10.0, 30.0 * med, 10)]
    return np.unique(np.asarray(pts, dtype=float))


def _grid_start(D2: np.ndarray, Y: np.ndarray, ells: np.ndarray) -> np.ndarray:
    """Log (ℓ, σ², τ²) of the best grid point: per ℓ one eigendecomposition of exp(−D²/(2ℓ²)), then
    σ² profiled in closed form (the restricted likelihood of :func:`_nll`) for every ratio τ²/σ² of
    :data:`_RATIOS`."""
    n, m = Y.shape
    best = (np.inf, np.zeros(3))
    for ell in ells:
        try:
            lam, U = np.linalg.eigh(np.exp(-D2 / (2.0 * ell * ell)))
        except np.linalg.LinAlgError:
            continue
        B = U.T @ Y  # (n, m)
        a = U.sum(axis=0)  # Uᵀ1
        wgt = 1.0 / (np.maximum(lam, 0.0)[None, :] + _RATIOS[:, None])  # (ratios, n)
        one = wgt @ (a * a)  # 1ᵀ(E + rI)⁻¹1
        quad = wgt @ (B * B).sum(axis=1) - (((wgt * a) @ B) ** 2).sum(axis=1) / one
        s2 = np.maximum(quad, 1e-300) / ((n - 1) * m)
        nll = (0.5 * (n - 1) * m * (1.0 + np.log(2.0 * np.pi * s2)) - 0.5 * m * np.log(wgt).sum(axis=1)
               + 0.5 * m * np.log(one))
        i = int(np.argmin(nll))
        if nll[i] < best[0]:
            best = (float(nll[i]), np.log([ell, s2[i], s2[i] * _RATIOS[i]]))
    return best[1]


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
