"""Score-aware strategies: they choose from the judging models' scores (PROTOCOL.md,
"Score-aware selection").

They are the upper bound that a-priori selection is measured against, never a way to choose:
a subset fitted to today's models' scores can only be judged on models it never saw. They
are registered like every strategy (so they have one name, title and colour everywhere),
marked ``score_aware``; their registry ``kernel`` refuses to run, and only the held-out
evaluation (:mod:`subsetsel_core.evaluation.headroom`, ``subsetsel headroom``) calls the
functions below, each on the judging models' data alone:

- :func:`greedy_scores`: forward selection maximising the Spearman correlation between the
  subset ranking and the reference ranking, both over the judging models;
- :func:`elimination_scores`: from all datasets, repeatedly remove the dataset whose scores
  are best predicted (leave-one-out R² of a ridge regression, α = 1, from the remaining
  datasets' scores), in closed form through the hat matrix;
- :func:`ridge_predict`: a ridge regression (α = 1) of each model's mean score on its
  scores on a random subset (``random-regression``).

Scores enter as per-dataset standardised scores (:func:`standardized_scores`): each
dataset's fold-mean scores, oriented so that higher is better, minus the judging models'
mean and divided by their population standard deviation, so that datasets on different
scales weigh alike. All functions are batched over trials (leading axis T).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from subsetsel_core.errors import InputError
from subsetsel_core.ranks.ranking import twice_average_ranks
from subsetsel_core.ranks.table import RankTable
from subsetsel_core.ranks.ties import pearson
from subsetsel_core.strategies.base import Kernel, StrategyInfo

RIDGE_ALPHA = 1.0
"""The ridge penalty of ``elimination-scores`` and ``random-regression``."""

LABEL = "score-aware (fitted to today's models)"
"""The label every face shows next to a score-aware strategy."""


def refusal(name: str) -> InputError:
    """The error of running a score-aware strategy outside a held-out evaluation."""
    return InputError(
        f"'{name}' is a score-aware strategy: it chooses from today's models' scores, so it is only judged on "
        "models it never saw. It is not offered for a selection or an evaluation; run 'subsetsel headroom' "
        "(or the Evaluate page's \"How much do the scores know?\" panel) to see it as an upper bound.",
        field="strategy")


def _refuse(name: str) -> Kernel:
    def kernel(X: np.ndarray, k: int, *, rng: object = None, include: object = ()) -> NoReturn:
        raise refusal(name)

    return kernel


def standardized_scores(scores: np.ndarray, higher_is_better: bool, judge: np.ndarray,
                        others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-dataset standardised scores of the judging models and of other models.

    Parameters
    ----------
    scores : ndarray of shape (n, F, M)
        NaN where missing (``partial``).
    higher_is_better : bool
    judge, others : ndarray of int
        Model indices.

    Returns
    -------
    (Z_judge, Z_others) : ndarrays of shape (n, len(judge)) and (n, len(others))
        ``(s − mean_J) / sd_J`` per dataset, s the fold mean oriented so that higher is
        better, mean and population sd over the judging models present (sd 0 → 1); a
        missing score is 0 (the judging models' mean on that dataset).
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        present = ~np.isnan(scores)
        s = np.where(present, scores, 0.0).sum(axis=1) / present.sum(axis=1)
    if not higher_is_better:
        s = -s
    sj = s[:, judge]
    ok = ~np.isnan(sj)
    cnt = np.maximum(ok.sum(axis=1, keepdims=True), 1)
    mean = np.where(ok, sj, 0.0).sum(axis=1, keepdims=True) / cnt
    sd = np.sqrt((np.where(ok, sj - mean, 0.0) ** 2).sum(axis=1, keepdims=True) / cnt)
    sd = np.where(sd > 0, sd, 1.0)
    return np.nan_to_num((sj - mean) / sd, nan=0.0), np.nan_to_num((s[:, others] - mean) / sd, nan=0.0)


def greedy_scores(rows: np.ndarray, table: RankTable, k_max: int) -> np.ndarray:
    """``greedy-scores``: forward selection maximising Spearman against the pool's reference.

    Parameters
    ----------
    rows : ndarray of shape (T, n, W)
        Each trial's pool rows of the judging models' rank table (pool in dataset order).
    table : RankTable
        That table (complete or partial), for the metric.
    k_max : int

    Returns
    -------
    ndarray of int, shape (T, k_max)
        Selection order (pool positions); ties go to the first dataset in pool order.
    """
    t, n, _ = rows.shape
    ref = rows.sum(axis=1)
    cur = np.zeros_like(ref)
    taken = np.zeros((t, n), dtype=bool)
    order = np.empty((t, k_max), dtype=np.int64)
    trials = np.arange(t)
    # complete tables: Spearman = Pearson of exact average-tie ranks of the rank sums (as
    # metrics.spearman), with the reference ranked once
    ref_ranks = None if table.partial else twice_average_ranks(ref)[:, None, :]
    for step in range(k_max):
        cand = cur[:, None, :] + rows
        if ref_ranks is not None:
            rho = pearson(ref_ranks.astype(float), twice_average_ranks(cand).astype(float))
        else:
            rho = table.agreement(ref, cand, ref_count=n, sub_count=step + 1, metrics=("spearman",))[0]["spearman"]
        pick = np.where(taken, -np.inf, rho).argmax(axis=1)
        order[:, step] = pick
        taken[trials, pick] = True
        cur = cur + rows[trials, pick]
    return order


def _loo_r2(Zr: np.ndarray, B: np.ndarray, alpha: float) -> np.ndarray:
    """Leave-one-model-out R² of each remaining dataset from the others, (T, r).

    ``Zr`` (T, r, J): the remaining datasets' standardised scores (rows centred over the J
    models); ``B = (Σ_rows z zᵀ + αI)⁻¹`` (T, J, J). For dataset d the features are the
    other rows, so the ridge's inverse is B's rank-one update (Sherman–Morrison) and, with
    an unpenalised intercept, the hat matrix is 11ᵀ/J + I − α·A_d: the leave-one-out residual
    is α(A_d y)_i / (α(A_d)_ii − 1/J) with y = z_d.
    """
    j = Zr.shape[2]
    V = Zr @ B
    d = 1.0 - (Zr * V).sum(axis=2)
    Ay = V / d[..., None]
    diag = np.diagonal(B, axis1=1, axis2=2)[:, None, :] + V**2 / d[..., None]
    res = alpha * Ay / np.maximum(alpha * diag - 1.0 / j, 1e-12)
    tss = (Zr**2).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = 1.0 - (res**2).sum(axis=2) / tss
    return np.where(tss > 1e-12, r2, 1.0)  # a dataset that ties every model: fully predicted


def loo_r2(Z: np.ndarray, alpha: float = RIDGE_ALPHA) -> np.ndarray:
    """Leave-one-out R² of each dataset's standardised scores (rows of ``Z``, (n, J)) from
    the other rows, by ridge regression with intercept and penalty ``alpha``; shape (n,)."""
    Z = np.asarray(Z, dtype=float)[None]
    B = np.linalg.inv(np.einsum("tnj,tnk->tjk", Z, Z) + alpha * np.eye(Z.shape[2]))
    out: np.ndarray = _loo_r2(Z, B, alpha)[0]
    return out


def elimination_scores(Z: np.ndarray, alpha: float = RIDGE_ALPHA) -> np.ndarray:
    """``elimination-scores``: remove the best-predicted dataset until one remains.

    Parameters
    ----------
    Z : ndarray of shape (T, n, J)
        Each trial's pool rows of the judging models' standardised scores.
    alpha : float

    Returns
    -------
    ndarray of int, shape (T, n)
        Selection order = reverse removal order (pool positions); among equal R² the
        first dataset in pool order is removed.
    """
    t, n, j = Z.shape
    K = np.einsum("tnj,tnk->tjk", Z, Z)
    eye = alpha * np.eye(j)
    remaining = np.tile(np.arange(n), (t, 1))
    removed = []
    trials = np.arange(t)
    while remaining.shape[1] > 1:
        Zr = Z[trials[:, None], remaining]
        pick = _loo_r2(Zr, np.linalg.inv(K + eye), alpha).argmax(axis=1)
        gone = remaining[trials, pick]
        z = Z[trials, gone]
        K = K - z[:, :, None] * z[:, None, :]
        keep = np.ones(remaining.shape, dtype=bool)
        keep[trials, pick] = False
        remaining = remaining[keep].reshape(t, -1)
        removed.append(gone)
    return np.column_stack([remaining[:, 0], *removed[::-1]]) if removed else remaining


def ridge_predict(X: np.ndarray, y: np.ndarray, X_new: np.ndarray, alpha: float = RIDGE_ALPHA) -> np.ndarray:
    """Ridge regression with an unpenalised intercept, fitted per trial, then predicted.

    Parameters
    ----------
    X : ndarray of shape (T, J, k)
        Training features (the judging models' scores on the subset).
    y : ndarray of shape (T, J)
        Targets (their mean standardised score over the pool).
    X_new : ndarray of shape (T, H, k)
        Features of the models to predict.
    alpha : float

    Returns
    -------
    ndarray of shape (T, H)
    """
    xm = X.mean(axis=1, keepdims=True)
    ym = y.mean(axis=1, keepdims=True)
    Xc = X - xm
    A = np.einsum("tjk,tjl->tkl", Xc, Xc) + alpha * np.eye(X.shape[2])
    b = np.einsum("tjk,tj->tk", Xc, y - ym)
    beta = np.linalg.solve(A, b[..., None])[..., 0]
    out: np.ndarray = ym + np.einsum("thk,tk->th", X_new - xm, beta)
    return out


def _info(name: str, title: str, description: str, *, nested: bool, uses_rng: bool, colour: str,
          orders: Callable[..., np.ndarray] | None = None, predicts: bool = False) -> StrategyInfo:
    return StrategyInfo(name, _refuse(name), nested=nested, uses_features=False,
                        title=f"{title} — {LABEL}", description=description, uses_rng=uses_rng, colour=colour,
                        score_aware=True, orders=orders, predicts=predicts)


def _greedy_orders(split: Any, pools: np.ndarray, k_max: int) -> np.ndarray:
    return greedy_scores(split.judge.rows[pools], split.judge, k_max)


def _elimination_orders(split: Any, pools: np.ndarray, k_max: int) -> np.ndarray:
    return elimination_scores(split.z_judge[pools])


GREEDY = _info("greedy-scores", "Greedy on scores",
               "Forward selection maximising the Spearman correlation with the full ranking of the judging "
               "models (score-aware: judged on held-out models only).", nested=True, uses_rng=False,
               colour="#5b3a29", orders=_greedy_orders)
ELIMINATION = _info("elimination-scores", "Elimination on scores",
                    "Removes the dataset best predicted (leave-one-out R², ridge α = 1) from the others' scores "
                    "until k remain, as MTEB built its lite benchmarks (score-aware: judged on held-out models "
                    "only).", nested=True, uses_rng=False, colour="#b8860b",
                    orders=_elimination_orders)
REGRESSION = _info("random-regression", "Random subset + regression",
                   "A random subset, and each model's mean score predicted from its subset scores by a ridge "
                   "regression fitted on the judging models (Zhang, Dorner & Hardt 2025; score-aware: judged on "
                   "held-out models only).", nested=False, uses_rng=True, colour="#17becf",
                   predicts=True)
