"""The full benchmark's own stability: a yardstick for "faithful enough", not a bound (PROTOCOL.md).

A bootstrap resample holds about 63 % distinct datasets, so a large subset can agree with
the full ranking better than the band's mean: a subset curve inside the band is "within the
benchmark's own resampling noise", never "as faithful as it can be". B bootstrap resamples of the n datasets (with replacement, stream ``(3,)`` of the seed):
each resample's ranking (mean of r_d over the drawn datasets, with multiplicity) against the
full reference gives every metric — their mean and 2.5 / 97.5 % percentiles are the
**ceiling** band drawn on the curves. Per model, the percentile interval of its position
(1 = best, average ties) over the resamples is its **rank interval**; models whose interval
contains 1 "could be #1"; consecutive models of the reference whose strict order holds in
≥ 95 % of resamples are "decided".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.parallel import one_blas_thread
from subsetsel_core.evaluation.protocol import trial_rng
from subsetsel_core.ranks.metrics import HEADLINE, METRICS
from subsetsel_core.ranks.ranking import twice_average_ranks

if TYPE_CHECKING:
    import pandas as pd

#: Bootstrap resamples of the ceiling.
RESAMPLES = 1000
#: Share of resamples in which an adjacent pair's order must hold to count as decided.
DECIDED = 0.95
_STREAM = 3  # spawn key of the bootstrap stream (pools 0, entries 1, permutations 2)
_CELLS = 100_000  # resample × model cells scored in one metrics call (at least one resample)


@dataclass(frozen=True)
class Band:
    """Mean and 2.5 / 97.5 % percentiles of one metric over the resamples."""

    mean: float
    lo: float
    hi: float


@dataclass(frozen=True, eq=False)
class Stability:
    """How stable the full benchmark's ranking is under resampling its datasets.

    Attributes
    ----------
    models : tuple of str
        In reference order (best first; ties by name).
    mean_rank : ndarray (M,)
        Reference mean rank of each model (that order).
    position : ndarray (M,)
        Reference position (1 = best, average ties).
    rank_lo, rank_hi : ndarray (M,)
        2.5 / 97.5 % percentiles of each model's position over the resamples.
    pair_share : ndarray (M − 1,)
        Share of resamples in which model i is strictly ahead of model i + 1.
    bands : dict metric → Band
    resamples : int
    seed : int
    """

    models: tuple[str, ...]
    mean_rank: np.ndarray
    position: np.ndarray
    rank_lo: np.ndarray
    rank_hi: np.ndarray
    pair_share: np.ndarray
    bands: dict[str, Band]
    resamples: int
    seed: int

    @property
    def could_be_first(self) -> list[str]:
        """Models whose rank interval contains 1."""
        return [m for m, lo in zip(self.models, self.rank_lo, strict=True) if lo <= 1.0]

    @property
    def decided(self) -> np.ndarray:
        """Whether each adjacent pair's order holds in ≥ 95 % of resamples (M − 1 booleans)."""
        return self.pair_share >= DECIDED

    @property
    def tie_groups(self) -> np.ndarray:
        """Group number (1, 2, …) of each model: runs of models joined by undecided adjacent pairs."""
        return np.concatenate([[1], 1 + np.cumsum(self.decided)]).astype(int)

    def describe(self) -> str:
        """Settings, for labels."""
        return f"{self.resamples} bootstrap resamples of the datasets, seed {self.seed}"

    def band_text(self, metric: str) -> str:
        """``"0.972 [0.941, 0.990] (mean [2.5 %, 97.5 %])"``; a band that excludes its own mean (a skewed
        distribution, e.g. MRR [1, 1] with mean 0.997) says so rather than hiding the mean."""
        from subsetsel_core.text.rounding import text

        b = self.bands[metric]
        shown = f"{text(b.mean, 'agreement')} [{text(b.lo, 'agreement')}, {text(b.hi, 'agreement')}]"
        if not b.lo <= b.mean <= b.hi:
            return f"{shown} (mean {text(b.mean, 'agreement')} outside its 2.5–97.5 % band: a skewed distribution)"
        return f"{shown} (mean [2.5 %, 97.5 %])"

    def summary(self) -> str:
        """One sentence: decided pairs, candidates for #1, the Spearman ceiling."""
        n_pairs = self.pair_share.size
        first = self.could_be_first
        s = (f"{int(self.decided.sum())} of {n_pairs} adjacent pairs are decided (order holds in ≥ 95 % of "
             f"resamples); {len(first)} model{'s' if len(first) != 1 else ''} could be #1")
        if HEADLINE in self.bands:
            s += (f"; the full benchmark's own {METRICS[HEADLINE].label} under resampling is "
                  f"{self.band_text(HEADLINE)}, a yardstick (large subsets can exceed it)")
        return s + "."

    def frame(self) -> pd.DataFrame:
        """Per model (reference order): position, mean rank, rank interval, could be #1, tie group."""
        import pandas as pd

        return pd.DataFrame({
            "model": list(self.models), "position": self.position, "mean_rank": self.mean_rank,
            "rank_lo": self.rank_lo, "rank_hi": self.rank_hi,
            "could_be_first": self.rank_lo <= 1.0, "tie_group": self.tie_groups,
        })

    def annotate(self, board: pd.DataFrame) -> pd.DataFrame:
        """``Benchmark.leaderboard()`` with each model's ``rank_lo``, ``rank_hi``, ``could_be_first`` and ``tie_group``."""
        return board.merge(self.frame()[["model", "rank_lo", "rank_hi", "could_be_first", "tie_group"]],
                           on="model", how="left")

    def to_json_dict(self) -> dict[str, Any]:
        """``{"ceiling": {metric: {mean, lo, hi}}, "rank_intervals": [...], …}``."""
        return {
            "ceiling": {m: {"mean": b.mean, "lo": b.lo, "hi": b.hi} for m, b in self.bands.items()},
            "rank_intervals": [
                {"model": m, "position": float(p), "lo": float(lo), "hi": float(hi),
                 "could_be_first": bool(lo <= 1.0), "tie_group": int(g)}
                for m, p, lo, hi, g in zip(self.models, self.position, self.rank_lo, self.rank_hi,
                                           self.tie_groups, strict=True)
            ],
            "adjacent_pairs": [
                {"better": a, "worse": b, "share": float(s), "decided": bool(s >= DECIDED)}
                for a, b, s in zip(self.models[:-1], self.models[1:], self.pair_share, strict=True)
            ],
            "stability": {"resamples": self.resamples, "seed": self.seed},
        }


def full_stability(benchmark: Benchmark, *, resamples: int = RESAMPLES, seed: int = 0,
                   metrics: Sequence[str] = tuple(METRICS)) -> Stability:
    """Bootstrap the datasets of ``benchmark`` and measure how its own ranking moves.

    Parameters
    ----------
    benchmark : Benchmark
    resamples : int
        B ≥ 2.
    seed : int
    metrics : sequence of str

    Raises
    ------
    InputError
        B < 2 or an unknown metric.
    """
    if not isinstance(resamples, int) or resamples < 2:
        raise InputError(f"resamples must be a whole number ≥ 2, got {resamples!r}.")
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise InputError(f"unknown metric(s) {unknown}; valid: {', '.join(METRICS)}.", field="metric")
    with one_blas_thread():  # small matrices: threaded BLAS only contends
        return _stability(benchmark, resamples, seed, metrics)


def _stability(benchmark: Benchmark, resamples: int, seed: int, metrics: Sequence[str]) -> Stability:
    table = benchmark.rank_table
    sums = table.rows.astype(float)  # exact integers on complete tables
    n = sums.shape[0]
    m = benchmark.n_models
    rng = trial_rng(seed, _STREAM)
    # One draw of B × n indices is the same stream as B draws of n; a row's counts are the
    # bincount of its draws, all rows in one bincount over offset indices.
    draws = rng.integers(0, n, size=(resamples, n)) + n * np.arange(resamples)[:, None]
    counts = np.bincount(draws.ravel(), minlength=resamples * n).reshape(resamples, n)
    boot = counts.astype(float) @ sums  # (B, W) summed rows of each resample, with multiplicity
    ref = table.reference()
    values: dict[str, list[np.ndarray]] = {name: [] for name in metrics}
    block = max(1, _CELLS // max(m, 1))
    for lo in range(0, resamples, block):
        part, _ = table.agreement(ref[None], boot[None, lo:lo + block], ref_count=n, sub_count=n, metrics=metrics)
        for name, v in part.items():
            values[name].append(v[0])
    bands = {}
    for name, chunks in values.items():
        v = np.concatenate(chunks)
        lo_, hi_ = np.percentile(v, [2.5, 97.5])
        bands[name] = Band(float(v.mean()), float(lo_), float(hi_))
    names = np.asarray(benchmark.models, dtype=object)
    ref_order, boot_order = table.comparable(ref), table.comparable(boot)
    order = np.lexsort((names, ref_order))  # best first; ties by name
    positions = twice_average_ranks(boot_order) / 2.0  # (B, M), 1 = best
    lo_r, hi_r = np.percentile(positions, [2.5, 97.5], axis=0)
    ordered = boot_order[:, order]
    share = (ordered[:, :-1] < ordered[:, 1:]).mean(axis=0) if m > 1 else np.zeros(0)
    return Stability(
        tuple(str(x) for x in names[order]), table.means(ref, n)[order], (twice_average_ranks(ref_order) / 2.0)[order],
        lo_r[order], hi_r[order], share, bands, resamples, seed)
