"""What an evaluation is asked to do and what it returns: config, grid entries, result.

:class:`EvaluationResult` holds the per-trial metric values of every entry; its
statistics (curves, bands, AUC, tests) are computed on demand by
:mod:`subsetsel_core.evaluation.stats`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from subsetsel_core.evaluation.stats import EntryStats, compute_stats, friedman_p
from subsetsel_core.settings.table import PROTOCOL, defaults
from subsetsel_core.strategies import BASELINE
from subsetsel_core.text.rounding import text

__all__ = ["BASELINE", "Entry", "EvaluationConfig", "EvaluationResult"]

_DEFAULTS = defaults(PROTOCOL)


@dataclass(frozen=True)
class EvaluationConfig:
    """Parameters of one evaluation (defaults: :data:`~subsetsel_core.settings.table.PROTOCOL`).

    Attributes
    ----------
    strategies : tuple of str
        Registry names (default: every a-priori strategy); the baseline is added when absent.
    trials : int
        Number of trials T.
    alpha : float
        Dataset-pool fraction α (pool = ⌊α·n⌋ datasets).
    beta : float
        Model-pool fraction β (⌊β·M⌋ models when β < 1).
    k_min, k_max : int
        Range of subset sizes (k_max is capped at the pool size).
    seed : int
        The one seed of the run.
    metrics : tuple of str
    batch_size : int
        Trials per partial result.
    """

    strategies: tuple[str, ...] = _DEFAULTS["strategies"]
    trials: int = _DEFAULTS["trials"]
    alpha: float = _DEFAULTS["alpha"]
    beta: float = _DEFAULTS["beta"]
    k_min: int = _DEFAULTS["k_min"]
    k_max: int = _DEFAULTS["k_max"]
    seed: int = _DEFAULTS["seed"]
    metrics: tuple[str, ...] = _DEFAULTS["metrics"]
    batch_size: int = 20

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        d = asdict(self)
        d["strategies"] = list(self.strategies)
        d["metrics"] = list(self.metrics)
        return d


@dataclass(frozen=True)
class Entry:
    """One (strategy, representation) cell of the grid."""

    key: str
    strategy: str
    representation: str | None


@dataclass(frozen=True, eq=False)
class EvaluationResult:
    """Per-trial metric values of every grid entry, and their statistics.

    Attributes
    ----------
    config : EvaluationConfig
    ks : ndarray of int, shape (K,)
    entries : tuple of Entry
    values : dict key → dict metric → ndarray (trials_done, K)
    trials_done : int
    complete : bool
        False for a partial result (stopped early or still running).
    info : dict
        Benchmark name and sizes, pool sizes, representation names.
    covered : dict key → ndarray (trials_done, K)
        Under the ``partial`` policy on a table with gaps: the share of the pool's models
        that each (trial, k) cell's metrics cover (PROTOCOL.md, ``partial`` step 4); empty
        on complete tables, where every cell covers every model.
    """

    config: EvaluationConfig
    ks: np.ndarray
    entries: tuple[Entry, ...]
    values: dict[str, dict[str, np.ndarray]]
    trials_done: int
    complete: bool
    info: dict[str, Any] = field(default_factory=dict)
    covered: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        """Entry keys in grid order (baseline first)."""
        return tuple(e.key for e in self.entries)

    @property
    def stats(self) -> dict[str, EntryStats]:
        """Curves, bands, AUC and p-values of every entry (computed on demand)."""
        cache = self.__dict__.get("_stats")
        if cache is None:
            cache = compute_stats(self.values, self.entries, BASELINE, self.config.metrics)
            object.__setattr__(self, "_stats", cache)
        return cache

    def curves_frame(self) -> Any:
        """Long table: key, strategy, representation, metric, k, mean, lo, hi."""
        import pandas as pd

        rows = []
        for e in self.entries:
            for m, c in self.stats[e.key].curves.items():
                for i, k in enumerate(self.ks):
                    rows.append((e.key, e.strategy, e.representation, m, int(k), c.mean[i], c.lo[i], c.hi[i]))
        return pd.DataFrame(rows, columns=["key", "strategy", "representation", "metric", "k", "mean", "lo", "hi"])

    def to_frame(self) -> Any:
        """AUC table: one row per entry and metric with mean, std, interval and p-values."""
        import pandas as pd

        rows = []
        for e in self.entries:
            st = self.stats[e.key]
            for m in self.config.metrics:
                a = st.auc[m]
                rows.append({
                    "key": e.key, "strategy": e.strategy, "representation": e.representation,
                    "metric": m, "auc_mean": a.mean, "auc_std": a.std, "auc_lo": a.lo, "auc_hi": a.hi,
                    "auc_norm": a.mean / max(1, len(self.ks) - 1),
                    "p_vs_random": st.p_vs_random.get(m), "p_raw": st.p_raw.get(m),
                })
        return pd.DataFrame(rows)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON layout of ``subsetsel evaluate --out`` (NaN → null)."""
        out: dict[str, Any] = {
            "config": {**self.config.to_dict(), **self.info, "trials_done": self.trials_done,
                       "complete": self.complete},
            "ks": [int(k) for k in self.ks],
            "results": {},
        }
        for e in self.entries:
            st = self.stats[e.key]
            r: dict[str, Any] = {
                "strategy": e.strategy,
                "representation": e.representation,
                "curves": {m: {"mean": _fl(c.mean), "lo": _fl(c.lo), "hi": _fl(c.hi)} for m, c in st.curves.items()},
                "auc": {m: {"mean": _f(a.mean), "std": _f(a.std), "lo": _f(a.lo), "hi": _f(a.hi)} for m, a in st.auc.items()},
            }
            if e.strategy != BASELINE:
                r["p_vs_random"] = {m: _f(p) for m, p in st.p_vs_random.items()}
            if e.key in self.covered:
                r["models_covered"] = _fl(self.covered_share(e.key))
            out["results"][e.key] = r
        out["friedman"] = {m: _f(p) for m, p in self.friedman().items()}
        return out

    def covered_share(self, key: str) -> np.ndarray:
        """Mean share of the pool's models covered per k, shape (K,) (ones on complete tables)."""
        c = self.covered.get(key)
        if c is None or c.size == 0:
            return np.ones(len(self.ks))
        out: np.ndarray = c.mean(axis=0)
        return out

    def coverage_sentence(self) -> str | None:
        """One sentence on how many models the metrics cover under ``partial`` (None: complete table)."""
        if not self.covered:
            return None
        shares = np.vstack([self.covered_share(e.key) for e in self.entries])  # (entries, K)
        low = shares.min(axis=0)
        full = np.flatnonzero(low >= 1.0 - 1e-12)
        tail = f"; every model from k = {int(self.ks[full[0]])}" if full.size else ""
        return (f"Gaps (the 'partial' policy): each (trial, k) is scored on the models that both its subset and the "
                f"full benchmark rank — at least {text(low[0], 'percent')} of the pool's models on average at k = "
                f"{int(self.ks[0])}, {text(low[-1], 'percent')} at k = {int(self.ks[-1])}{tail}.")

    def friedman(self) -> dict[str, float | None]:
        """Friedman test p-value across all entries per metric (None with < 3 entries)."""
        return {m: friedman_p([self.values[e.key][m] for e in self.entries]) for m in self.config.metrics}


def _f(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _fl(a: np.ndarray) -> list[float | None]:
    return [_f(float(x)) for x in a]
