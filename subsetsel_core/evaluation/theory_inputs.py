"""What the GP model of PROTOCOL.md is fitted on: the geometry, the targets, the observed share.

Geometry: the representation standardized over all n datasets as the strategies do
(:func:`~subsetsel_core.strategies.standardize`), Euclidean distance. Targets: per model m
and dataset d, the mean score over folds, oriented so that higher is better, and
standardized over the models within each dataset (mean 0, population sd 1; a dataset on
which every model scores alike gives zeros). Standardizing each model's vector over the
datasets instead would give every model a mean of exactly 0, every reference gap Δ = 0;
see docs/theory.md. The observed share is that of discordant model pairs (ordered
oppositely by a subset's ranking and the reference ranking; a tie in either counts as not
discordant).
"""

from __future__ import annotations

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.gp import GPFit, fit_gp
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import standardize

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
        raise InputError("the Gaussian-process model needs a complete score table, and this one has gaps; load it with the "
                         "'complete-block' policy.", field="missing")
    Z = standardize(np.asarray(representation.X, dtype=float))
    if Z.shape[1] == 0:
        raise InputError(f"representation '{representation.name}' has no column that varies between datasets; "
                         "the Gaussian-process model needs a geometry.", field="representation")
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
        raise InputError(f"{benchmark.name}: the Gaussian-process fit is limited to {MAX_GP_DATASETS} datasets "
                         f"(this benchmark has {benchmark.n_datasets}); its cost grows with the cube of n.",
                         field="representation")
    return fit_gp(geometry(benchmark, representation), standardized_scores(benchmark))
