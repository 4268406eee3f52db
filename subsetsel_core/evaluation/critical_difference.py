"""Critical-difference diagrams: which strategies are told apart by their mean rank over trials.

Each trial is a block (Demšar 2006): the entries are ranked by their AUC on that trial's
pool (1 = best; ties share the mean rank), and the mean rank over trials places each
entry on the diagram's axis. The Friedman test asks whether any entry differs; the
post-hoc test decides which pairs do not:

* ``"wilcoxon-holm"`` (the default, as the time-series community draws them, e.g. aeon's
  ``plot_critical_difference``): two-sided Wilcoxon signed-rank test on the paired
  per-trial AUCs of every pair, Holm-corrected across the pairs; a pair differs when its
  adjusted p is below α;
* ``"nemenyi"`` (Demšar 2006): a pair differs when its mean ranks differ by at least the
  critical difference ``CD = q_α √(k(k+1) / 6N)``, ``q_α`` the studentised range quantile
  over √2.

A diagram ranks at most :data:`MAX_ENTRIES` entries; above it none is drawn and its note
says so.

A **clique** is a maximal run of entries, adjacent in rank order, no two of which differ;
the diagram joins each by a bar. When the Friedman test does not reject (p ≥ α) no pair
is declared different and all entries form one clique.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from subsetsel_core.evaluation.result import EvaluationResult

__all__ = ["CriticalDifference", "MAX_ENTRIES", "TESTS", "block_ranks", "cliques", "critical_difference", "friedman_statistics",
           "nemenyi_cd", "nemenyi_q", "from_scores"]

TESTS = ("wilcoxon-holm", "nemenyi")
"""The post-hoc tests."""
MAX_ENTRIES = 100
"""The most entries a diagram ranks. Above it no diagram is drawn and its note says why: the
Wilcoxon–Holm test runs one signed-rank test per pair (4,950 pairs at 100 entries, some
seconds; 50 million at 10,000) and a hundred labels are already the most an axis can show."""


@dataclass(frozen=True)
class CriticalDifference:
    """A critical-difference diagram's numbers.

    Attributes
    ----------
    labels : tuple of str
        The entries, best mean rank first.
    mean_ranks : tuple of float
        Their mean ranks (1 = best), same order.
    n_blocks : int
        Trials (blocks) ranked.
    test : {"wilcoxon-holm", "nemenyi"}
    alpha : float
    friedman_p : float or None
        The Friedman test's p-value (None with fewer than 2 entries or blocks).
    cd : float or None
        Nemenyi's critical difference (given for both tests, drawn for ``nemenyi``).
    p_pairs : dict of (str, str) to float
        Holm-adjusted Wilcoxon p of every pair (``wilcoxon-holm`` only).
    cliques : tuple of tuple of str
        The groups joined by a bar (two or more entries each), in rank order.
    metric : str
        The agreement metric whose AUC was ranked.
    dropped : tuple of str
        Entries left out of the diagram because their AUC is not a number (NaN or infinite)
        on some trial that others have: a diagram ranks complete blocks only.
    note : str
        What was left out and why (empty when nothing was): trials on which no entry has a
        number, and the entries of :attr:`dropped`.
    """

    labels: tuple[str, ...]
    mean_ranks: tuple[float, ...]
    n_blocks: int
    test: str
    alpha: float
    friedman_p: float | None
    cd: float | None
    p_pairs: dict[tuple[str, str], float] = field(default_factory=dict)
    cliques: tuple[tuple[str, ...], ...] = ()
    metric: str = ""
    dropped: tuple[str, ...] = ()
    note: str = ""

    def describe(self) -> str:
        """One sentence on how the diagram was made."""
        from subsetsel_core.evaluation.permutation import p_phrase
        from subsetsel_core.text.rounding import text

        how = (f"two-sided Wilcoxon signed-rank tests on the paired per-trial AUCs, Holm-corrected over the "
               f"{len(self.labels) * (len(self.labels) - 1) // 2} pairs" if self.test == "wilcoxon-holm"
               else f"Nemenyi: critical difference {text(self.cd, 'statistic')}")
        fr = f"Friedman {p_phrase(self.friedman_p)}"
        if self.friedman_p is None or self.friedman_p >= self.alpha:
            fr += " — no entry is shown to differ, so all are joined"
        return (f"Mean rank of each entry's AUC over {self.n_blocks} trials (1 = best). Bars join entries not "
                f"told apart at α = {self.alpha:g} ({how}); {fr}." + (f" {self.note}" if self.note else ""))

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON (full precision)."""
        return {"labels": list(self.labels), "mean_ranks": list(self.mean_ranks), "n_blocks": self.n_blocks,
                "test": self.test, "alpha": self.alpha, "friedman_p": self.friedman_p, "cd": self.cd,
                "cliques": [list(c) for c in self.cliques], "metric": self.metric,
                "p_pairs": [{"a": a, "b": b, "p_holm": p} for (a, b), p in self.p_pairs.items()],
                "dropped": list(self.dropped), "note": self.note}


def block_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Ranks within each block (row) of ``scores`` (N, k): 1 = best, ties get their mean rank."""
    from scipy.stats import rankdata

    values = -scores if higher_is_better else scores
    return np.asarray(rankdata(values, axis=1), dtype=float)


def friedman_statistics(mean_ranks: Sequence[float] | np.ndarray, n_blocks: int) -> tuple[float, float, float]:
    """Friedman's χ²_F, Iman–Davenport's F_F and the p-value of χ²_F, from mean ranks (Demšar 2006, eq. 1–2).

    ``χ²_F = 12N / (k(k+1)) · (Σ R_j² − k(k+1)² / 4)``; ``F_F = (N−1) χ²_F / (N(k−1) − χ²_F)``.
    """
    from scipy.stats import chi2

    r = np.asarray(mean_ranks, dtype=float)
    k, n = r.size, int(n_blocks)
    chi = 12.0 * n / (k * (k + 1)) * (float(np.sum(r ** 2)) - k * (k + 1) ** 2 / 4.0)
    denom = n * (k - 1) - chi
    ff = (n - 1) * chi / denom if denom > 0 else math.inf
    return chi, ff, float(chi2.sf(chi, k - 1))


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """The Nemenyi test's ``q_α`` for ``k`` entries: the studentised range quantile (infinite df) over √2."""
    from scipy.stats import studentized_range

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def nemenyi_cd(k: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference ``q_α √(k(k+1) / 6N)``."""
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n_blocks))


def cliques(mean_ranks: Sequence[float], differ: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """The maximal runs ``(first, last)`` of positions in rank order no two of which differ (two or more each).

    Parameters
    ----------
    mean_ranks : sequence of float
        Sorted ascending (best first).
    differ : callable (i, j) → bool
        Whether positions ``i`` and ``j`` are told apart.
    """
    k = len(mean_ranks)
    runs: list[tuple[int, int]] = []
    for i in range(k):
        j = i
        while j + 1 < k and not any(differ(a, j + 1) for a in range(i, j + 1)):
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def _holm(pairs: Mapping[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    from subsetsel_core.evaluation.stats import holm

    adjusted = holm(dict(pairs))
    return {k: float(v) for k, v in adjusted.items() if v is not None}


def from_scores(scores: np.ndarray, labels: Sequence[str], *, higher_is_better: bool = True,
                test: str = "wilcoxon-holm", alpha: float = 0.05, metric: str = "") -> CriticalDifference:
    """The diagram of ``scores`` (N blocks × k entries); none (no labels, a note naming the
    count and the cap) above :data:`MAX_ENTRIES` entries with a number.

    Raises
    ------
    ValueError
        An unknown test, or labels that do not match the columns.
    """
    if test not in TESTS:
        raise ValueError(f"unknown test '{test}'; the tests are {', '.join(TESTS)}.")
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(labels):
        raise ValueError("scores must have one column per label.")
    x, labels, dropped, note = _complete(x, list(labels))
    n, k = x.shape
    if k > MAX_ENTRIES:
        return CriticalDifference((), (), n, test, alpha, None, None, metric=metric, dropped=tuple(labels),
                                  note=f"Not drawn: {k:,} entries, more than the {MAX_ENTRIES} a critical-difference "
                                       f"diagram ranks ({k * (k - 1) // 2:,} pairwise tests, and more labels than "
                                       f"an axis can show). Compare at most {MAX_ENTRIES} entries.")
    ranks = block_ranks(x, higher_is_better).mean(axis=0) if n else np.full(k, np.nan)
    order = [int(i) for i in np.argsort(ranks, kind="stable")]
    sorted_ranks = [float(ranks[i]) for i in order]
    fr = friedman_statistics(ranks, n)[2] if k >= 2 and n >= 2 and np.ptp(x) > 0 else None
    cd = nemenyi_cd(k, n, alpha) if k >= 2 and n >= 1 else None
    reject = fr is not None and fr < alpha
    p_pairs: dict[tuple[str, str], float] = {}
    if test == "wilcoxon-holm":
        raw = {(a, b): _wilcoxon(x[:, order[a]], x[:, order[b]]) for a in range(k) for b in range(a + 1, k)}
        adj = _holm(raw)
        p_pairs = {(labels[order[a]], labels[order[b]]): p for (a, b), p in adj.items()}

        def differ(a: int, b: int) -> bool:
            return reject and adj.get((min(a, b), max(a, b)), 1.0) < alpha
    else:
        def differ(a: int, b: int) -> bool:
            return reject and cd is not None and abs(sorted_ranks[a] - sorted_ranks[b]) >= cd

    runs = cliques(sorted_ranks, differ)
    return CriticalDifference(tuple(labels[i] for i in order), tuple(sorted_ranks), n, test, alpha, fr, cd, p_pairs,
                              tuple(tuple(labels[order[i]] for i in range(a, b + 1)) for a, b in runs), metric,
                              dropped, note)


def _complete(x: np.ndarray, labels: list[str]) -> tuple[np.ndarray, list[str], tuple[str, ...], str]:
    """The blocks and entries a diagram can rank: every value a finite number.

    Trials on which no entry has a number are left out first; then every entry without a
    number on some remaining trial (ranking it there would be a guess). Returns the scores,
    labels, the entries left out and a sentence saying what was left out.
    """
    finite = np.isfinite(x)
    if finite.all():
        return x, labels, (), ""
    keep_rows = finite.any(axis=1)
    if not keep_rows.any():
        return (np.zeros((0, 0)), [], tuple(labels),
                f"Not in the diagram: no entry has a number (the AUC is not a number on all {len(x)} trial(s)).")
    x, finite = x[keep_rows], finite[keep_rows]
    keep_cols = finite.all(axis=0)
    dropped = tuple(label for label, keep in zip(labels, keep_cols, strict=True) if not keep)
    parts = []
    if not keep_rows.all():
        parts.append(f"{int((~keep_rows).sum())} trial(s) where no entry has a number are left out")
    if dropped:
        shown = ", ".join(dropped[:6]) + (f" and {len(dropped) - 6} more" if len(dropped) > 6 else "")
        parts.append(f"left out (AUC not a number on {int((~finite[:, ~keep_cols]).any(axis=1).sum())} "
                     f"trial(s)): {shown}")
    note = "Not in the diagram: " + "; ".join(parts) + "." if parts else ""
    return x[:, keep_cols], [label for label, keep in zip(labels, keep_cols, strict=True) if keep], dropped, note


def _wilcoxon(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of a pair (1.0 when every pair is equal)."""
    from scipy.stats import wilcoxon

    if a.size < 2 or np.all(a == b):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(wilcoxon(a, b).pvalue)
    return p if np.isfinite(p) else 1.0


def critical_difference(result: EvaluationResult, metric: str, *, test: str = "wilcoxon-holm",
                        alpha: float = 0.05) -> CriticalDifference:
    """The diagram of an evaluation's entries on one metric: per-trial AUCs, trials as blocks."""
    from subsetsel_core.ranks.metrics import METRICS

    keys = list(result.keys)
    scores = np.column_stack([result.stats[k].auc[metric].per_trial for k in keys]) if keys else np.zeros((0, 0))
    return from_scores(scores, keys, higher_is_better=METRICS[metric].higher_is_better, test=test, alpha=alpha,
                       metric=metric)
