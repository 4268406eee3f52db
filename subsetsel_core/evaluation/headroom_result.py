"""What the held-out evaluation returns: per-split values, AUC, ranks and the price of
a-priori selection (PROTOCOL.md, "Score-aware selection")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.stats import AUC, Curve, auc_per_trial, auc_summary, curve
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.strategies.score_aware import LABEL
from subsetsel_core.text.rounding import text


@dataclass(frozen=True)
class HeadroomEntry:
    """One row of the held-out evaluation: a-priori (strategy, representation) or score-aware."""

    key: str
    strategy: str
    representation: str | None
    score_aware: bool

    @property
    def label(self) -> str:
        """The key, with the score-aware label when it is one."""
        return f"{self.key} — {LABEL}" if self.score_aware else self.key


@dataclass(frozen=True)
class Split:
    """The models used to judge (the score-aware strategies see their scores) and those held out."""

    judge: tuple[str, ...]
    held_out: tuple[str, ...]


@dataclass(frozen=True)
class Price:
    """The price of a-priori selection on one metric.

    ``mean`` = σ·(AUC of the best score-aware entry − AUC of the best a-priori entry) on the
    held-out models (σ = +1 when higher is better, so a positive price is what choosing
    without scores costs), averaged over splits; ``lo`` / ``hi`` = the **spread** of the split
    means, their 2.5 / 97.5 % percentiles over splits (over trials when there is one split: the
    newest models) — how much one split's price varies, not the uncertainty of the mean;
    ``ci_lo`` / ``ci_hi`` = the 95 % t-interval of the mean over the splits (over trials with one
    split; NaN with fewer than two). The splits share the datasets and half their models, so
    even this interval is optimistic: it treats the splits as independent.
    """

    metric: str
    mean: float
    lo: float
    hi: float
    best_a_priori: str
    best_score_aware: str
    per_split: np.ndarray = field(repr=False)
    over: str = "splits"
    ci_lo: float = float("nan")
    ci_hi: float = float("nan")


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` t-interval of the mean of ``values`` (NaN, NaN with fewer than two values)."""
    from scipy.stats import t as student_t

    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float("nan"), float("nan")
    half = float(student_t.ppf(0.5 + level / 2, v.size - 1)) * float(v.std(ddof=1)) / np.sqrt(v.size)
    return float(v.mean()) - half, float(v.mean()) + half


@dataclass(frozen=True, eq=False)
class HeadroomResult:
    """Metric values of every entry on the held-out models of every split.

    Attributes
    ----------
    config : EvaluationConfig
    ks : ndarray of int, shape (K,)
    entries : tuple of HeadroomEntry
        A-priori entries (random first), then the score-aware ones.
    values : dict key → dict metric → ndarray (splits, trials, K)
    splits : tuple of Split
    how : str
        How the models were split.
    info : dict
    """

    config: EvaluationConfig
    ks: np.ndarray
    entries: tuple[HeadroomEntry, ...]
    values: dict[str, dict[str, np.ndarray]]
    splits: tuple[Split, ...]
    how: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        """Entry keys in order."""
        return tuple(e.key for e in self.entries)

    def entry(self, key: str) -> HeadroomEntry:
        """The entry of a key."""
        return next(e for e in self.entries if e.key == key)

    def _flat(self, key: str, metric: str) -> np.ndarray:
        v = self.values[key][metric]
        return v.reshape(-1, v.shape[-1])

    def auc(self, key: str, metric: str) -> AUC:
        """AUC over every (split, trial): mean, std and 2.5 / 97.5 % percentiles."""
        return auc_summary(self._flat(key, metric))

    def curve(self, key: str, metric: str) -> Curve:
        """Mean and 95 % band over every (split, trial), per k."""
        return curve(self._flat(key, metric))

    def ranking(self, metric: str) -> list[str]:
        """Keys from best to worst mean AUC on the held-out models."""
        sign = METRICS[metric].sign
        means = {k: sign * self.auc(k, metric).mean for k in self.keys}
        return sorted(self.keys, key=lambda k: -means[k])

    def rank(self, key: str, metric: str) -> int:
        """1 = the best mean AUC among all entries."""
        return self.ranking(metric).index(key) + 1

    def best(self, metric: str, *, score_aware: bool) -> str:
        """The best entry of one kind."""
        return next(k for k in self.ranking(metric) if self.entry(k).score_aware == score_aware)

    def price(self, metric: str = "spearman") -> Price:
        """AUC of the best score-aware entry − AUC of the best a-priori entry, oriented, with its interval."""
        sa, ap = self.best(metric, score_aware=True), self.best(metric, score_aware=False)
        sign = METRICS[metric].sign
        diff = sign * (auc_per_trial(self._flat(sa, metric)) - auc_per_trial(self._flat(ap, metric)))
        diff = diff.reshape(len(self.splits), -1)
        if len(self.splits) > 1:
            per, over = diff.mean(axis=1), "splits"
        else:
            per, over = diff[0], "trials"
        lo, hi = np.percentile(per, [2.5, 97.5])
        ci_lo, ci_hi = t_interval(per)
        return Price(metric, float(per.mean()), float(lo), float(hi), ap, sa, per, over, ci_lo, ci_hi)

    @property
    def judging_models(self) -> int:
        """How many models the score-aware strategies see (the first split's; every split has as many)."""
        return len(self.splits[0].judge)

    def sentence(self, metric: str = "spearman") -> str:
        """The price in words: the AUCs, the price with its confidence interval and spread, and why."""
        p = self.price(metric)
        a, s = self.auc(p.best_a_priori, metric).mean, self.auc(p.best_score_aware, metric).mean
        span = max(1, len(self.ks) - 1)
        n_held, n_judge = len(self.splits[0].held_out), self.judging_models
        label = METRICS[metric].label
        head = (f"On {n_held} held-out models ({self.how}), the best score-aware strategy, {p.best_score_aware}, "
                f"chose from the scores of {n_judge} judging models and reaches a {label} AUC of {text(s, 'auc')}; "
                f"the best a-priori one, {p.best_a_priori}, {text(a, 'auc')}. ")
        ci = (f"95 % confidence interval of the mean [{text(p.ci_lo, 'gain')}, {text(p.ci_hi, 'gain')}]"
              if np.isfinite(p.ci_lo) else "no confidence interval from a single value")
        price = (f"{text(p.mean, 'gain')} ({ci}; single {p.over[:-1]}s spread over "
                 f"[{text(p.lo, 'gain')}, {text(p.hi, 'gain')}])")
        few = (f" Fitted to only {n_judge} judging models, score-aware selection overfits that small pool: the "
               "datasets that rank those models like the full benchmark do so partly by chance, and the choice "
               "carries over poorly to the held-out models.")
        upper = p.ci_hi if np.isfinite(p.ci_hi) else p.hi
        lower = p.ci_lo if np.isfinite(p.ci_lo) else p.lo
        if upper < 0:
            return head + f"Choosing without scores costs nothing here: the price is {price}, below zero." + few
        if upper <= 0 or lower <= 0:
            return head + f"The price of a-priori selection, {price}, is not distinguishable from zero." + (
                few if p.mean < 0 else "")
        return head + (f"The price of a-priori selection is {price}, about {text(p.mean / span, 'gain')} of "
                       f"{label} per k.")

    def to_json(self, metric: str = "spearman") -> dict[str, Any]:
        """``{"config", "ks", "entries": {key: {"score_aware", "title", "rank", "auc", "curves"}}, "price"}``."""
        entries = {}
        for e in self.entries:
            auc = {m: self.auc(e.key, m) for m in self.config.metrics}
            curves = {m: self.curve(e.key, m) for m in self.config.metrics}
            entries[e.key] = {
                "score_aware": e.score_aware,
                "label": e.label,
                "rank": {m: self.rank(e.key, m) for m in self.config.metrics},
                "auc": {m: {"mean": a.mean, "lo": a.lo, "hi": a.hi, "std": a.std} for m, a in auc.items()},
                "curves": {m: {"mean": c.mean.tolist(), "lo": c.lo.tolist(), "hi": c.hi.tolist()}
                           for m, c in curves.items()},
            }
        p = self.price(metric)
        config = {**self.config.to_dict(), "splits": len(self.splits), "how": self.how, **self.info}
        config.pop("beta", None)
        config.pop("batch_size", None)
        return {
            "config": config,
            "ks": [int(k) for k in self.ks],
            "entries": entries,
            "price": {"metric": p.metric, "mean": p.mean, "lo": p.lo, "hi": p.hi, "over": p.over,
                      "interval": f"lo, hi: the spread of the {p.over}' prices (2.5–97.5 %); ci_lo, ci_hi: the 95 % "
                                  f"t-interval of their mean", "ci_lo": _finite(p.ci_lo), "ci_hi": _finite(p.ci_hi),
                      "judging_models": self.judging_models, "held_out_models": len(self.splits[0].held_out),
                      "best_a_priori": p.best_a_priori, "best_score_aware": p.best_score_aware,
                      "sentence": self.sentence(metric)},
            "splits": [{"judge": list(s.judge), "held_out": list(s.held_out)} for s in self.splits],
        }

    def curves_frame(self) -> Any:
        """Long table: key, strategy, representation, score_aware, metric, k, mean, lo, hi."""
        import pandas as pd

        rows = []
        for e in self.entries:
            for m in self.config.metrics:
                c = self.curve(e.key, m)
                for i, k in enumerate(self.ks):
                    rows.append({"key": e.key, "strategy": e.strategy, "representation": e.representation,
                                 "score_aware": e.score_aware, "metric": m, "k": int(k), "mean": float(c.mean[i]),
                                 "lo": float(c.lo[i]), "hi": float(c.hi[i])})
        return pd.DataFrame(rows)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None
