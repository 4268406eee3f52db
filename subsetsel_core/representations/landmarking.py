"""Landmarking: the errors of a few fast learners as dataset descriptors.

For every dataset, four simple scikit-learn classifiers are evaluated:

============  =================================================================
``stump``     decision stump, ``DecisionTreeClassifier(max_depth=1)``
``1nn``       1-nearest neighbour, Euclidean distance on the raw features
``logreg``    logistic regression on standardised features (``lbfgs``, C = 1)
``tree3``     decision tree of depth 3
============  =================================================================

Missing values (NaN, e.g. the padding of unequal-length series) are imputed with the
training column mean inside each fit. Without test data, each learner's error is the
misclassification rate of its out-of-fold predictions under stratified k-fold CV; with
test data, the error on the test set of a model fitted on the training set.

From the four errors the builder derives, for every pair ``(a, b)`` of learners, the gap
``e_a - e_b`` and the smoothed ratio ``(e_a + s) / (e_b + s)`` with ``s = 0.5 / n_eval``
(half a misclassification, so that error-free learners give finite ratios), and for every
learner the bootstrap variance of its error: the evaluated predictions are resampled with
replacement ``n_bootstrap`` times with a seeded generator and the variance (``ddof=1``) of
the resampled error rates is reported.
"""

from __future__ import annotations

import itertools
import warnings
import zlib
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from subsetsel_core.errors import InputError

__all__ = ["LEARNERS", "landmarking_columns", "landmarking_features"]

LEARNERS: tuple[str, ...] = ("stump", "1nn", "logreg", "tree3")


def _learner(name: str, seed: int) -> Pipeline:
    impute = SimpleImputer(strategy="mean", keep_empty_features=True)
    if name == "stump":
        return make_pipeline(impute, DecisionTreeClassifier(max_depth=1, random_state=seed))
    if name == "1nn":
        return make_pipeline(impute, KNeighborsClassifier(n_neighbors=1))
    if name == "logreg":
        return make_pipeline(impute, StandardScaler(), LogisticRegression(max_iter=500))
    if name == "tree3":
        return make_pipeline(impute, DecisionTreeClassifier(max_depth=3, random_state=seed))
    raise AssertionError(name)  # pragma: no cover


def landmarking_columns() -> list[str]:
    """Column names of :func:`landmarking_features`, in order.

    Returns
    -------
    list of str
        ``err_<l>`` (4), ``gap_<a>_<b>`` (6), ``ratio_<a>_<b>`` (6), ``bootvar_<l>`` (4).
    """
    pairs = list(itertools.combinations(LEARNERS, 2))
    return (
        [f"err_{a}" for a in LEARNERS]
        + [f"gap_{a}_{b}" for a, b in pairs]
        + [f"ratio_{a}_{b}" for a, b in pairs]
        + [f"bootvar_{a}" for a in LEARNERS]
    )


# --------------------------------------------------------------------------- input


def _as_xy(X: Any, y: Any, name: str, part: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        Xa = np.asarray(X.to_numpy() if isinstance(X, pd.DataFrame) else X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"dataset '{name}': {part} features are not numeric ({exc}); encode categorical "
            "columns as numbers first."
        ) from exc
    if Xa.ndim == 3 and Xa.shape[1] == 1:
        Xa = Xa[:, 0, :]
    if Xa.ndim == 1:
        Xa = Xa[:, None]
    if Xa.ndim != 2:
        raise InputError(
            f"dataset '{name}': {part} features must be 2-D (n_samples, n_features), got "
            f"shape {Xa.shape}."
        )
    ya = np.asarray(y)
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise InputError(
            f"dataset '{name}': {part} labels have shape {ya.shape} but the features have "
            f"{Xa.shape[0]} rows; pass one label per row."
        )
    if np.isinf(Xa).any():
        raise InputError(
            f"dataset '{name}': {part} features contain infinite values; replace them with "
            "NaN (they are then imputed) or finite numbers."
        )
    if pd.isna(ya).any():
        raise InputError(
            f"dataset '{name}': {int(pd.isna(ya).sum())} {part} labels are missing; drop "
            "those rows."
        )
    return Xa, ya


def _stratified_subsample(y: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Indices (sorted) of a class-proportional random subsample of size ``n``.

    Systematic sampling: every member gets the key ``(rank + u) / class_size``, where
    ``rank`` is its position in a random order of its class and ``u ~ U(0, 1)``; the ``n``
    smallest keys are kept, so each class keeps ``n * class_size / len(y)`` members up to
    rounding.
    """
    order = rng.permutation(y.shape[0])
    _, inverse, counts = np.unique(y[order], return_inverse=True, return_counts=True)
    by_class = np.argsort(inverse, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(y.shape[0], dtype=np.int64)
    rank[by_class] = np.arange(y.shape[0]) - np.repeat(starts, counts)
    key = (rank + rng.random(y.shape[0])) / counts[inverse]
    return np.sort(order[np.argsort(key, kind="stable")[:n]])


def _subsample(
    X: np.ndarray, y: np.ndarray, max_samples: int | None, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    if max_samples is None or X.shape[0] <= max_samples:
        return X, y
    keep = _stratified_subsample(y, max_samples, rng)
    return X[keep], y[keep]


# ---------------------------------------------------------------------- evaluation


def _fit_predict(
    model: ClassifierMixin, X: np.ndarray, y: np.ndarray, Xt: np.ndarray
) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clone(model).fit(X, y).predict(Xt)


def _cv_wrong(X: np.ndarray, y: np.ndarray, n_splits: int, seed: int) -> np.ndarray:
    """Out-of-fold misclassification indicators, shape ``(n_learners, n_samples)``."""
    _, counts = np.unique(y, return_counts=True)
    k = int(min(n_splits, max(2, counts.min())))
    k = min(k, X.shape[0])
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    wrong = np.zeros((len(LEARNERS), X.shape[0]), dtype=bool)
    models = [_learner(name, seed) for name in LEARNERS]
    with warnings.catch_warnings():
        # Singleton classes: "The least populated class in y has only 1 members".
        warnings.simplefilter("ignore", UserWarning)
        splits = list(cv.split(X, y))
    for train, test in splits:
        if np.unique(y[train]).size < 2:
            wrong[:, test] = True  # nothing to learn from: every prediction counts as wrong
            continue
        for j, model in enumerate(models):
            wrong[j, test] = _fit_predict(model, X[train], y[train], X[test]) != y[test]
    return wrong


def _holdout_wrong(
    X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray, seed: int
) -> np.ndarray:
    wrong = np.zeros((len(LEARNERS), Xt.shape[0]), dtype=bool)
    for j, name in enumerate(LEARNERS):
        wrong[j] = _fit_predict(_learner(name, seed), X, y, Xt) != yt
    return wrong


def _derive(wrong: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """Errors, gaps, ratios and bootstrap variances from misclassification indicators.

    Parameters
    ----------
    wrong : ndarray of bool, shape (n_learners, n_eval)

    Returns
    -------
    ndarray, shape (20,)
        In the order of :func:`landmarking_columns`.
    """
    n_eval = wrong.shape[1]
    err = wrong.mean(axis=1)
    pairs = list(itertools.combinations(range(len(LEARNERS)), 2))
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    smooth = 0.5 / n_eval
    gaps = err[a] - err[b]
    ratios = (err[a] + smooth) / (err[b] + smooth)
    idx = rng.integers(0, n_eval, size=(n_bootstrap, n_eval))
    boot = wrong[:, idx].mean(axis=2)  # (n_learners, n_bootstrap)
    bootvar = boot.var(axis=1, ddof=1)
    return np.concatenate([err, gaps, ratios, bootvar])


def _prepare(
    name: str,
    value: Any,
    singleton_classes: str,
    max_samples: int | None,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None, np.random.Generator]:
    """Validate one dataset, apply the singleton policy and subsample it."""
    if not isinstance(value, tuple | list) or len(value) not in (2, 4):
        raise InputError(
            f"dataset '{name}': expected a tuple (X, y) or (X, y, X_test, y_test), got "
            f"{type(value).__name__}"
            + (f" of length {len(value)}" if isinstance(value, tuple | list) else "")
            + "."
        )
    rng = np.random.default_rng([seed, zlib.crc32(str(name).encode("utf-8"))])
    X, y = _as_xy(value[0], value[1], name, "training")
    classes, counts = np.unique(y, return_counts=True)
    singles = classes[counts == 1]
    if singles.size and singleton_classes == "error":
        raise InputError(
            f"dataset '{name}': {singles.size} class(es) have a single example "
            f"({', '.join(map(str, singles[:10]))}); pass singleton_classes='keep' to "
            "count them as unlearnable or 'drop' to remove them."
        )
    if singles.size and singleton_classes == "drop":
        keep = ~np.isin(y, singles)
        X, y = X[keep], y[keep]
        classes = np.unique(y)
    if classes.size < 2:
        raise InputError(
            f"dataset '{name}' has {classes.size} class(es)"
            + (" after dropping single-example classes" if singles.size else "")
            + "; landmarking needs at least 2 classes."
        )
    X, y = _subsample(X, y, max_samples, rng)
    test = None
    if len(value) == 4:
        Xt, yt = _as_xy(value[2], value[3], name, "test")
        if Xt.shape[1] != X.shape[1]:
            raise InputError(
                f"dataset '{name}': test features have {Xt.shape[1]} columns, training "
                f"features {X.shape[1]}; pad both to the same width (NaN is allowed)."
            )
        if Xt.shape[0] == 0:
            raise InputError(f"dataset '{name}': the test set is empty.")
        test = _subsample(Xt, yt, max_samples, rng)
    elif X.shape[0] < 4:
        raise InputError(
            f"dataset '{name}' has {X.shape[0]} rows; cross-validated landmarking needs at "
            "least 4 (or pass a test set)."
        )
    return X, y, test, rng


def landmarking_features(
    data: Mapping[str, tuple[Any, ...]],
    *,
    n_splits: int = 5,
    max_samples: int | None = 1000,
    n_bootstrap: int = 200,
    singleton_classes: Literal["keep", "drop", "error"] = "keep",
    seed: int = 0,
) -> pd.DataFrame:
    """Landmarking descriptors of classification datasets.

    Parameters
    ----------
    data : Mapping[str, tuple]
        ``{dataset_name: (X, y)}`` or ``{dataset_name: (X, y, X_test, y_test)}``. ``X`` is
        ``(n_samples, n_features)`` (or ``(n, 1, length)`` for univariate series), ``y`` is
        ``(n_samples,)`` with any hashable labels. With a test set, errors are holdout test
        errors; without, stratified k-fold CV errors on ``(X, y)``.
    n_splits : int, default 5
        Largest number of CV folds. The number used is ``min(n_splits, c)`` where ``c`` is
        the size of the smallest class, but at least 2.
    max_samples : int or None, default 1000
        Class-proportional subsample of at most this many rows of ``X`` (and, separately, of
        ``X_test``) for speed; ``None`` uses every row.
    n_bootstrap : int, default 200
        Bootstrap resamples of the evaluated predictions for the error variances (>= 2).
    singleton_classes : {"keep", "drop", "error"}, default "keep"
        What to do with classes that have a single training example. ``"keep"``: in CV it
        falls in one test fold, where the learner has never seen its class, so it counts as
        an error, the honest estimate for a class that cannot be learned. ``"drop"``:
        remove those rows first. ``"error"``: raise :class:`InputError` naming them.
    seed : int, default 0
        Seeds the subsample, the folds, the trees and the bootstrap; each dataset's stream
        depends only on ``(seed, dataset name)``.

    Returns
    -------
    pandas.DataFrame, shape (n_datasets, 20)
        Index ``dataset``; columns :func:`landmarking_columns`: ``err_<learner>`` in [0, 1],
        ``gap_<a>_<b>``, ``ratio_<a>_<b>`` and ``bootvar_<learner>`` for learners
        ``stump``, ``1nn``, ``logreg``, ``tree3``.

    Raises
    ------
    InputError
        Bad input: not a mapping, wrong tuple length, non-numeric features, labels not
        matching rows, fewer than 2 classes, too few rows, singleton classes with
        ``singleton_classes="error"``, or bad parameters.
    """
    if not isinstance(data, Mapping) or len(data) == 0:
        raise InputError(
            "data must be a non-empty mapping {dataset_name: (X, y)} or "
            "{dataset_name: (X, y, X_test, y_test)}."
        )
    if not isinstance(n_splits, int | np.integer) or n_splits < 2:
        raise InputError(f"n_splits must be an integer >= 2, got {n_splits!r}.")
    if max_samples is not None and (
        not isinstance(max_samples, int | np.integer) or max_samples < 4
    ):
        raise InputError(f"max_samples must be an integer >= 4 or None, got {max_samples!r}.")
    if not isinstance(n_bootstrap, int | np.integer) or n_bootstrap < 2:
        raise InputError(f"n_bootstrap must be an integer >= 2, got {n_bootstrap!r}.")
    if singleton_classes not in ("keep", "drop", "error"):
        raise InputError(
            f"singleton_classes must be 'keep', 'drop' or 'error', got {singleton_classes!r}."
        )

    # Validate every dataset before the (slower) fitting starts.
    prepared = [
        _prepare(name, value, singleton_classes, max_samples, seed) for name, value in data.items()
    ]
    rows = []
    # The models are small: multi-threaded BLAS costs more in overhead than it saves
    # (logistic regression ran about 10x slower with it on a 2-core machine).
    with threadpool_limits(limits=1, user_api="blas"):
        for X, y, test, rng in prepared:
            fold_seed = int(rng.integers(2**31 - 1))
            if test is not None:
                wrong = _holdout_wrong(X, y, test[0], test[1], fold_seed)
            else:
                wrong = _cv_wrong(X, y, int(n_splits), fold_seed)
            rows.append(_derive(wrong, int(n_bootstrap), rng))
    return pd.DataFrame(
        np.vstack(rows),
        index=pd.Index(list(data), name="dataset"),
        columns=landmarking_columns(),
    )
