"""The state of a permutation test (PROTOCOL.md) and how every face words it.

:class:`PermutationTest` holds, per metric, the family's observed gains, the null gains of
the shuffles drawn (one row per shuffle, the same shuffle for every entry), the unadjusted
per-entry p and the step-down maxT adjusted p (:mod:`subsetsel_core.evaluation.maxt`). An
entry **helps** when its adjusted p < 0.05 and its gain is positive on the verdict metric;
a test that was stopped before its end gives no verdict at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from subsetsel_core.ranks.metrics import HEADLINE, METRICS
from subsetsel_core.text.rounding import format_p, text

#: Shuffles B of the test unless told otherwise.
PERMUTATIONS = 199
#: h: a family stops at its h-th shuffle whose largest null gain reaches the largest observed one.
STOP_AFTER = 10
#: Level of every "helps".
LEVEL = 0.05
#: The metric a verdict is read on unless another is chosen.
VERDICT_METRIC = HEADLINE
#: What a result without the test says in place of a verdict.
NOT_TESTED_NOTE = ("not tested against shuffled descriptors (--permutations 0): the Wilcoxon p_vs_random is "
                   "conditional on one representation (vs random on these pools) and is no evidence that the "
                   "descriptors help")


def p_phrase(p: float | None) -> str:
    """``"p < 1e-4"``, ``"p = 0.020"`` or ``"p —"`` (see :func:`format_p`)."""
    shown = format_p(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}" if shown != "—" else "p —"


def null_phrase(values: np.ndarray) -> str:
    """The null gains drawn, for people: ``"-0.04 ± 0.28 (mean ± sd over 57 shuffles)"``.

    One shuffle has no spread (``"+0.02 (one shuffle)"``); none gives ``"— (no shuffle yet)"``.
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return "— (no shuffle yet)"
    if v.size == 1:
        return f"{text(float(v[0]), 'gain')} (one shuffle)"
    return f"{text(float(v.mean()), 'gain')} ± {text(float(v.std(ddof=1)), 'gain_sd')} (mean ± sd over {v.size} shuffles)"


def gain_definition(trials: int, total: int) -> str:
    """How the gain is computed, for labels: over all trials or the first T′ the test used."""
    over = f"all {total} trials" if trials >= total else f"the first {trials} of {total} trials (as tested)"
    return f"gain = mean over {over} of the entry's AUC minus random's"


@dataclass(frozen=True, eq=False)
class PermutationTest:
    """Gains, their joint null and the family-wise p-values of every entry, per metric.

    Attributes
    ----------
    keys : tuple of str
        Entries tested (every grid entry but random, on every representation), in grid order.
    metrics : tuple of str
    gain : dict key → dict metric → float
        Observed G (direction-signed, AUC units: unnormalised, over the evaluation's k range).
    null : dict key → dict metric → ndarray
        The null gains G^b of the shuffles the metric's family took (the same b for every key).
    p_raw, p_adjusted : dict key → dict metric → float
        Unadjusted per-entry p and the family's step-down maxT adjusted p.
    permutations : int
        B, the most shuffles the test may draw.
    stop_after : int or None
        h (None: no early stopping).
    trials : int
        T': the trials both the gain and the null were computed on.
    ks : ndarray of int
    seed : int
    drawn : int
        Shuffles drawn so far (the most any family took).
    complete : bool
        False while running or when stopped before the end.
    verdict_metric : str
    stopped : dict metric → bool
        The family stopped early by the sequential rule (its p is Besag & Clifford's h / b).
    top_hits : dict metric → int
        Shuffles so far whose largest null gain reached the largest observed gain.
    """

    keys: tuple[str, ...]
    metrics: tuple[str, ...]
    gain: dict[str, dict[str, float]]
    null: dict[str, dict[str, np.ndarray]]
    p_raw: dict[str, dict[str, float]]
    p_adjusted: dict[str, dict[str, float]]
    permutations: int
    stop_after: int | None
    trials: int
    ks: np.ndarray
    seed: int
    drawn: int
    complete: bool
    verdict_metric: str = VERDICT_METRIC
    stopped: dict[str, bool] = field(default_factory=dict)
    top_hits: dict[str, int] = field(default_factory=dict)

    def helps(self, key: str, metric: str | None = None) -> bool:
        """Adjusted p < 0.05 and a positive gain (on the verdict metric by default), on a finished test."""
        m = metric or self.verdict_metric
        return self.complete and self.p_adjusted[key][m] < LEVEL and self.gain[key][m] > 0

    def shuffles(self, metric: str | None = None) -> int:
        """Shuffles the metric's family took."""
        m = metric or self.verdict_metric
        return int(self.null[self.keys[0]][m].size) if self.keys else 0

    def null_summary(self, key: str, metric: str | None = None) -> tuple[float, float]:
        """Mean and standard deviation (ddof = 1) of the null gains drawn (NaN sd from fewer than two)."""
        v = self.null[key][metric or self.verdict_metric]
        if v.size == 0:
            return float("nan"), float("nan")
        return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else float("nan")

    def smallest_reachable(self, metric: str | None = None) -> float:
        """The smallest adjusted p the family can still end with (its final smallest p once finished)."""
        m = metric or self.verdict_metric
        if self.complete or self.stopped.get(m, False):
            return float(min(self.p_adjusted[k][m] for k in self.keys)) if self.keys else 1.0
        return (1.0 + self.top_hits.get(m, 0)) / (1.0 + self.permutations)

    @property
    def k_range(self) -> str:
        """``"k = 2…20"``."""
        return f"k = {int(self.ks[0])}…{int(self.ks[-1])}"

    def unit(self, metric: str | None = None) -> str:
        """The gain's unit, e.g. ``"Spearman ρ-AUC over k = 2…20"``."""
        return f"{METRICS[metric or self.verdict_metric].label}-AUC over {self.k_range}"

    def evidence(self, key: str, metric: str | None = None) -> str:
        """``"gain over random +0.44 …; shuffled descriptors give +0.08 ± 0.65 (mean ± sd over 57 shuffles); p = 0.32 (maxT)"``.

        Unfinished: ``"…; stopped after 12 shuffles: no verdict"`` or the live state, never a p.
        """
        m = metric or self.verdict_metric
        head = (f"gain over random {text(self.gain[key][m], 'gain')} {self.unit(m)}; shuffled descriptors give "
                f"{null_phrase(self.null[key][m])}")
        if not self.complete:
            return f"{head}; {self.progress(m)}"
        early = " (sequential stop)" if self.stopped.get(m) else ""
        return f"{head}; {p_phrase(self.p_adjusted[key][m])} (maxT, family of {len(self.keys)}){early}"

    def progress(self, metric: str | None = None) -> str:
        """The live state of an unfinished test: shuffles so far and the smallest p still reachable."""
        m = metric or self.verdict_metric
        return (f"running: {self.shuffles(m)} of at most {self.permutations} shuffles so far, smallest p still "
                f"reachable {format_p(self.smallest_reachable(m))}")

    def stopped_phrase(self) -> str:
        """``"stopped after 12 shuffles: no verdict"``."""
        return f"stopped after {self.drawn} shuffles: no verdict"

    def verdict(self, key: str, metric: str | None = None, *, running: bool = False) -> str:
        """``"<key>: <evidence> → helps"`` (or ``→ no evidence that it helps``; unfinished: no verdict)."""
        m = metric or self.verdict_metric
        if not self.complete:
            tail = self.progress(m) if running else self.stopped_phrase()
            return (f"{key}: gain over random {text(self.gain[key][m], 'gain')} {self.unit(m)}; shuffled descriptors "
                    f"give {null_phrase(self.null[key][m])}; {tail}")
        word = "helps" if self.helps(key, m) else "no evidence that it helps"
        return f"{key}: {self.evidence(key, m)} → {word}"

    def smallest_p(self) -> float:
        """Smallest adjusted p any entry can reach with B shuffles: 1 / (B + 1), whatever the entries."""
        return 1.0 / (self.permutations + 1)

    def describe(self) -> str:
        """The settings the p-values were computed with, for labels."""
        stop = f", sequential stop after {self.stop_after} shuffles reaching the top gain" if self.stop_after else ""
        return (f"permutation test: B ≤ {self.permutations} shuffles of the descriptors (one shuffle for every "
                f"representation){stop}, {self.trials} trials, seed {self.seed}, {self.k_range}; "
                f"Westfall–Young step-down maxT over the family of {len(self.keys)} entries per metric")

    def to_json_dict(self) -> dict[str, Any]:
        """Per entry: ``p_permutation`` (adjusted), ``p_permutation_raw``, ``helps``, ``gain``, ``null_mean``,
        ``null_std``, ``permutations_drawn`` (per metric; p-values None while unfinished)."""
        out: dict[str, Any] = {}
        done = self.complete
        for k in self.keys:
            out[k] = {
                "p_permutation": {m: float(self.p_adjusted[k][m]) if done else None for m in self.metrics},
                "p_permutation_raw": {m: float(self.p_raw[k][m]) if done else None for m in self.metrics},
                "helps": {m: bool(self.helps(k, m)) for m in self.metrics},
                "gain": {m: float(self.gain[k][m]) for m in self.metrics},
                "null_mean": {m: _finite(self.null_summary(k, m)[0]) for m in self.metrics},
                "null_std": {m: _finite(self.null_summary(k, m)[1]) for m in self.metrics},
                "permutations_drawn": {m: int(self.null[k][m].size) for m in self.metrics},
            }
        return out


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None
