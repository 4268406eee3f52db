"""Synthetic benchmarks with a known structure: the oracle / broken ablation.

Datasets and models live in one latent space. A model does well on a dataset when
their latent points are close, so datasets that are close in latent space rank the
models alike. The *oracle* representation is a noisy linear image of the datasets'
latent points (its geometry is the one that matters for rankings); the *broken*
representation is the same image shrunk and drowned in noise. A selection strategy
that works should beat random choice with the oracle and hardly with the broken one.

Model
-----
For dataset d, model m and fold f (all draws independent)::

    z_d ~ N(0, I_q)                       dataset latent, q = latent_dim
    p_m ~ N(0, I_q)                       model latent
    error(d, m, f) = ||z_d - p_m||^2      latent misfit (mean 2q, sd 2*sqrt(2q))
                     + e_dm               dataset noise, N(0, dataset_noise^2), one per (d, m)
                     + e_dmf              fold noise, N(0, fold_noise^2), one per (d, m, f)

Scores are errors: **lower is better**. The fold noise is drawn per cell (not once per
fold) because a shift shared by every model of a fold would not change any ranking.
With the defaults (q = 5, dataset_noise = 1, fold_noise = 0.5) the latent misfit of two
models on one dataset typically differs by several units, so the latent structure
dominates the rankings while the noise still creates realistic disagreements and
occasional changes of rank between folds.

Representations (p = n_features columns, A ~ N(0, 1/q) of shape (q, p), shared, so that
every column of z A has unit variance and ``broken_scale`` is the signal's share of the
noise's standard deviation)::

    oracle = z A + N(0, oracle_noise^2)              oracle_noise = 0.1
    broken = broken_scale * z A + N(0, broken_noise^2)   broken_scale = 0.15, broken_noise = 1

Randomness comes from one ``seed`` through independent streams
(:class:`numpy.random.SeedSequence` ``spawn``): the latents, each noise and the
projection have their own stream, so for example changing ``n_folds`` leaves the latent
points, the dataset noise and both representations unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError

__all__ = ["SyntheticBenchmark", "SyntheticParams", "make_synthetic"]


@dataclass(frozen=True)
class SyntheticParams:
    """Parameters of a synthetic benchmark (see the module docstring for the model).

    Attributes
    ----------
    n_datasets, n_models, n_folds : int
        Sizes of the score cube.
    latent_dim : int
        Dimension q of the latent space.
    n_features : int
        Number of columns p of both representations.
    dataset_noise : float
        Standard deviation of the per (dataset, model) noise.
    fold_noise : float
        Standard deviation of the per (dataset, model, fold) noise.
    oracle_noise : float
        Standard deviation of the noise added to the oracle representation.
    broken_scale : float
        Factor on the signal of the broken representation.
    broken_noise : float
        Standard deviation of the noise of the broken representation.
    seed : int
        Seed of every random draw.
    """

    n_datasets: int = 112
    n_models: int = 35
    n_folds: int = 30
    latent_dim: int = 5
    n_features: int = 64
    dataset_noise: float = 1.0
    fold_noise: float = 0.5
    oracle_noise: float = 0.1
    broken_scale: float = 0.15
    broken_noise: float = 1.0
    seed: int = 0

    def to_dict(self) -> dict[str, int | float]:
        """The parameters as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, eq=False)
class SyntheticBenchmark:
    """A generated benchmark with its two representations and the truth behind them.

    Attributes
    ----------
    scores : DataFrame
        Long table with columns ``dataset, model, fold, score`` (n_datasets * n_models *
        n_folds rows; ``fold`` is an int from 0; scores are errors, lower is better).
    oracle : DataFrame
        ``dataset`` plus ``x_00`` … columns, shape (n_datasets, 1 + n_features).
    broken : DataFrame
        Same layout as ``oracle``.
    params : SyntheticParams
        Everything needed to regenerate it.
    dataset_latent : ndarray of shape (n_datasets, latent_dim)
        The z_d, in dataset order.
    model_latent : ndarray of shape (n_models, latent_dim)
        The p_m, in model order.
    higher_is_better : bool
        Always ``False``.
    """

    scores: pd.DataFrame
    oracle: pd.DataFrame
    broken: pd.DataFrame
    params: SyntheticParams
    dataset_latent: np.ndarray = field(repr=False)
    model_latent: np.ndarray = field(repr=False)
    higher_is_better: bool = False

    @property
    def datasets(self) -> tuple[str, ...]:
        """Dataset names ``syn_000`` …, sorted."""
        return tuple(self.oracle["dataset"])

    @property
    def models(self) -> tuple[str, ...]:
        """Model names ``model_00`` …, sorted."""
        return tuple(_names("model_", self.params.n_models, 2))

    @property
    def metadata(self) -> dict[str, object]:
        """JSON-ready description: the parameters, the orientation and the model."""
        return {
            "generator": "subsetsel_core.synthetic.make_synthetic",
            "parameters": self.params.to_dict(),
            "higher_is_better": self.higher_is_better,
            "metric": "error = ||z_d - p_m||^2 + dataset noise + fold noise (lower is better)",
            "representations": {
                "oracle": "z A + N(0, oracle_noise^2)",
                "broken": "broken_scale * z A + N(0, broken_noise^2)",
            },
        }


def _names(prefix: str, n: int, min_width: int) -> list[str]:
    width = max(min_width, len(str(n - 1)))
    return [f"{prefix}{i:0{width}d}" for i in range(n)]


def _check(params: SyntheticParams) -> None:
    for key in ("n_datasets", "n_models", "n_folds", "latent_dim", "n_features"):
        value = getattr(params, key)
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise InputError(
                f"synthetic benchmark: {key} must be a positive integer, got {value!r}."
            )
    if params.n_datasets < 3 or params.n_models < 2:
        raise InputError(
            "synthetic benchmark: needs at least 3 datasets and 2 models, got "
            f"n_datasets={params.n_datasets}, n_models={params.n_models}."
        )
    for key in ("dataset_noise", "fold_noise", "oracle_noise", "broken_scale", "broken_noise"):
        value = getattr(params, key)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not np.isfinite(value)
            or value < 0
        ):
            raise InputError(
                f"synthetic benchmark: {key} must be a finite number >= 0, got {value!r}."
            )
    if (
        isinstance(params.seed, bool)
        or not isinstance(params.seed, int | np.integer)
        or params.seed < 0
    ):
        raise InputError(f"synthetic benchmark: seed must be an integer >= 0, got {params.seed!r}.")


def make_synthetic(
    *,
    n_datasets: int = 112,
    n_models: int = 35,
    n_folds: int = 30,
    latent_dim: int = 5,
    n_features: int = 64,
    dataset_noise: float = 1.0,
    fold_noise: float = 0.5,
    oracle_noise: float = 0.1,
    broken_scale: float = 0.15,
    broken_noise: float = 1.0,
    seed: int = 0,
) -> SyntheticBenchmark:
    """Generate a synthetic benchmark with an oracle and a broken representation.

    Parameters
    ----------
    n_datasets, n_models, n_folds : int
        Sizes (defaults 112, 35, 30: the shape of the TSC bake-off protocol).
    latent_dim : int
        Dimension of the latent space (default 5).
    n_features : int
        Columns of each representation (default 64).
    dataset_noise : float
        Standard deviation of the (dataset, model) noise on the errors (default 1.0).
    fold_noise : float
        Standard deviation of the (dataset, model, fold) noise (default 0.5).
    oracle_noise : float
        Noise on the oracle representation (default 0.1).
    broken_scale, broken_noise : float
        Signal factor and noise of the broken representation (defaults 0.15 and 1.0).
    seed : int
        Seed; the same seed and parameters give the same benchmark.

    Returns
    -------
    SyntheticBenchmark
        Long scores (lower is better), the two representations and the latents.

    Raises
    ------
    InputError
        If a size is not a positive integer or a noise level is negative.

    Examples
    --------
    >>> syn = make_synthetic(n_datasets=10, n_models=4, n_folds=2, seed=1)
    >>> syn.scores.shape, syn.oracle.shape
    ((80, 4), (10, 65))
    """
    params = SyntheticParams(
        n_datasets=n_datasets,
        n_models=n_models,
        n_folds=n_folds,
        latent_dim=latent_dim,
        n_features=n_features,
        dataset_noise=dataset_noise,
        fold_noise=fold_noise,
        oracle_noise=oracle_noise,
        broken_scale=broken_scale,
        broken_noise=broken_noise,
        seed=seed,
    )
    _check(params)
    n, m, f, q, p = n_datasets, n_models, n_folds, latent_dim, n_features
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(7)]
    rng_z, rng_p, rng_dn, rng_fn, rng_a, rng_on, rng_bn = streams

    z = rng_z.standard_normal((n, q))
    pm = rng_p.standard_normal((m, q))
    misfit = ((z[:, None, :] - pm[None, :, :]) ** 2).sum(axis=2)  # (n, M)
    noise_dm = dataset_noise * rng_dn.standard_normal((n, m))
    noise_dmf = fold_noise * rng_fn.standard_normal((n, f, m))
    error = (misfit + noise_dm)[:, None, :] + noise_dmf  # (n, F, M)

    a = rng_a.standard_normal((q, p)) / np.sqrt(q)  # unit-variance columns of z A
    signal = z @ a
    oracle = signal + oracle_noise * rng_on.standard_normal((n, p))
    broken = broken_scale * signal + broken_noise * rng_bn.standard_normal((n, p))

    datasets = _names("syn_", n, 3)
    models = _names("model_", m, 2)
    dd, ff, mm = np.meshgrid(np.arange(n), np.arange(f), np.arange(m), indexing="ij")
    # Rows ordered dataset, model, fold.
    order = np.lexsort((ff.ravel(), mm.ravel(), dd.ravel()))
    scores = pd.DataFrame(
        {
            "dataset": np.asarray(datasets, dtype=object)[dd.ravel()[order]],
            "model": np.asarray(models, dtype=object)[mm.ravel()[order]],
            "fold": ff.ravel()[order].astype(np.int64),
            "score": error.ravel()[order],
        }
    )
    columns = _names("x_", p, 2)

    def frame(values: np.ndarray) -> pd.DataFrame:
        out = pd.DataFrame(values, columns=columns)
        out.insert(0, "dataset", datasets)
        return out

    z.setflags(write=False)
    pm.setflags(write=False)
    return SyntheticBenchmark(
        scores=scores,
        oracle=frame(oracle),
        broken=frame(broken),
        params=params,
        dataset_latent=z,
        model_latent=pm,
    )
