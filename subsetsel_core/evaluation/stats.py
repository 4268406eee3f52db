"""Curves, percentile bands, AUC and significance tests over per-trial metric values."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from subsetsel_core.ranks.metrics import METRICS


@dataclass(frozen=True)
class Curve:
    """Mean over trials and 2.5 % / 97.5 % percentiles, per k (arrays of shape (K,))."""

    mean: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True)
class AUC:
    """Per-trial area under the curve summarised: mean, std (ddof = 1), percentile interval."""

    mean: float
    std: float
    lo: float
    hi: float
    per_trial: np.ndarray


@dataclass(frozen=True)
class EntryStats:
    """Statistics of one grid entry, per metric."""

    curves: dict[str, Curve]
    auc: dict[str, AUC]
    p_vs_random: dict[str, float | None]
    p_raw: dict[str, float | None]


def curve(values: np.ndarray) -> Curve:
    """Curve and 95 % percentile band of ``values`` (T, K)."""
    lo, hi = np.percentile(values, [2.5, 97.5], axis=0)
    return Curve(values.mean(axis=0), lo, hi)


def auc_per_trial(values: np.ndarray) -> np.ndarray:
    """Trapezoid rule over k with unit spacing, unnormalised; shape (T,)."""
    if values.shape[1] < 2:
        return np.zeros(values.shape[0])
    return np.trapezoid(values, dx=1.0, axis=1)


def auc_summary(values: np.ndarray) -> AUC:
    """AUC mean, std, 2.5 / 97.5 percentiles over trials."""
    a = auc_per_trial(values)
    lo, hi = np.percentile(a, [2.5, 97.5])
    std = float(a.std(ddof=1)) if a.size > 1 else 0.0
    return AUC(float(a.mean()), std, float(lo), float(hi), a)


def wilcoxon_greater(x: np.ndarray, y: np.ndarray, higher_is_better: bool) -> float | None:
    """One-sided Wilcoxon signed-rank p-value that ``x`` is better than ``y`` (paired).

    Returns 1.0 when every pair is equal and None with fewer than 2 pairs.
    """
    if x.size < 2:
        return None
    d = x - y
    if np.all(d == 0):
        return 1.0
    alt = "greater" if higher_is_better else "less"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from scipy import stats as sps  # imported here: scipy.stats costs ~1 s at start-up

        p = sps.wilcoxon(x, y, alternative=alt).pvalue
    return float(p) if np.isfinite(p) else None


def holm(pvalues: Mapping[Any, float | None]) -> dict[Any, float | None]:
    """Holm step-down adjusted p-values (None stays None)."""
    items = [(k, p) for k, p in pvalues.items() if p is not None]
    m = len(items)
    out: dict[Any, float | None] = {k: None for k in pvalues}
    running = 0.0
    for i, (k, p) in enumerate(sorted(items, key=lambda kv: kv[1])):
        running = max(running, min(1.0, (m - i) * p))
        out[k] = running
    return out


def friedman_p(per_entry: Sequence[np.ndarray]) -> float | None:
    """Friedman test across entries on per-trial AUCs; None with < 3 entries or < 2 trials."""
    if len(per_entry) < 3:
        return None
    aucs = [auc_per_trial(v) for v in per_entry]
    if aucs[0].size < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from scipy import stats as sps

            p = sps.friedmanchisquare(*aucs).pvalue
        except ValueError:
            return None
    return float(p) if np.isfinite(p) else None


def compute_stats(
    values: Mapping[str, Mapping[str, np.ndarray]],
    entries: Sequence[Any],
    baseline: str,
    metrics: Sequence[str],
) -> dict[str, EntryStats]:
    """Curves, AUC and Holm-corrected one-sided Wilcoxon p-values vs the baseline."""
    base = next((e.key for e in entries if e.strategy == baseline), None)
    aucs = {e.key: {m: auc_summary(values[e.key][m]) for m in metrics} for e in entries}
    raw: dict[str, dict[str, float | None]] = {e.key: {} for e in entries}
    adj: dict[str, dict[str, float | None]] = {e.key: {} for e in entries}
    for m in metrics:
        ps = {}
        for e in entries:
            if base is None or e.key == base:
                continue
            ps[e.key] = wilcoxon_greater(aucs[e.key][m].per_trial, aucs[base][m].per_trial, METRICS[m].higher_is_better)
        for k, p in ps.items():
            raw[k][m] = p
        for k, p in holm(ps).items():
            adj[k][m] = p
    return {
        e.key: EntryStats({m: curve(values[e.key][m]) for m in metrics}, aucs[e.key], adj[e.key], raw[e.key])
        for e in entries
    }
