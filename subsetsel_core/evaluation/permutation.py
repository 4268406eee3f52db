"""Does a representation help? The permutation test of PROTOCOL.md.

The paired Wilcoxon test of per-trial AUCs against random is conditional on one fixed
representation (its trials share datasets, so they are not independent evidence). This test
asks instead whether the *descriptors* carry the information: the gain of an entry
(strategy s ≠ random on representation X) for a metric with direction σ is

    G = σ · mean over trials of (AUC_s,t − AUC_random,t),

and its null distribution comes from re-running the protocol, on the same pools and the same
strategy streams, with the descriptors shuffled between datasets (dataset i gets the row of
dataset π(i)). Permutation b uses ``π_b = trial_rng(seed, 2, b).permutation(n)``, a stream
of its own. The p-value is Besag & Clifford's (1991) sequential Monte-Carlo one: draw up to B
permutations, stop at the h-th null gain ≥ G with p = h / b, else p = (1 + #{G_π ≥ G}) / (B + 1).
Holm's correction runs across the entries, per metric; an entry **helps** when its
Holm-adjusted p < 0.05 and G > 0 on the verdict metric.

With m entries and B permutations the smallest Holm-adjusted p is m / (B + 1): five entries
need B ≥ 100 before any of them can be declared to help at 5 % (:func:`smallest_p`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.protocol import (
    BatchMapper,
    join_batches,
    prepare,
    run_batch,
    serial_mapper,
    trial_batches,
    trial_rng,
)
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.evaluation.stats import auc_per_trial, holm
from subsetsel_core.ranks.metrics import HEADLINE, METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.text.rounding import format_p, text

#: Largest number of permutations of one test (PROTOCOL.md's default B).
PERMUTATIONS = 99
#: Null gains at least as large as the observed one after which an entry stops (h).
STOP_AFTER = 10
#: Level of every "helps".
LEVEL = 0.05
#: The metric a verdict is read on unless another is chosen.
VERDICT_METRIC = HEADLINE


def verdict_metric(config: EvaluationConfig) -> str:
    """The metric a run's verdict is read on: :data:`VERDICT_METRIC` when evaluated, else its first metric."""
    return VERDICT_METRIC if VERDICT_METRIC in config.metrics else config.metrics[0]

#: What a result without the test says in place of a verdict.
NOT_TESTED_NOTE = ("not tested against shuffled descriptors: p_vs_random is conditional on one representation "
                   "(vs random on these pools) and is no evidence that the descriptors help")
#: Shuffles sent out per mapper call when running in parallel (one worker pool per round).
ROUND = 8
_STREAM = 2  # first spawn-key element of the permutation stream (pools use 0, entries 1)
_TOL = 1e-12  # relative slack of "G_π ≥ G" (the identity permutation reproduces G exactly)


def smallest_p(entries: int, permutations: int) -> float:
    """Smallest Holm-adjusted p-value ``entries`` entries can reach with ``permutations`` permutations."""
    return min(1.0, entries / (permutations + 1)) if entries else 1.0


def permutations_needed(entries: int, level: float = LEVEL) -> int:
    """Fewest shuffles B with which ``entries`` entries can reach a Holm-adjusted p below ``level``."""
    return int(np.floor(entries / level))


def p_phrase(p: float | None) -> str:
    """``"p < 1e-4"``, ``"p = 0.020"`` or ``"p —"`` (see :func:`format_p`)."""
    shown = format_p(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}" if shown != "—" else "p —"


def entry_gain(result: EvaluationResult, key: str, metric: str, trials: int | None = None) -> float:
    """G of one entry: direction × mean over (the first ``trials``) trials of its AUC minus random's."""
    t = result.trials_done if trials is None else trials
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    own = auc_per_trial(result.values[key][metric][:t])
    base = auc_per_trial(result.values[BASELINE][metric][:t])
    return float(sign * np.mean(own - base))


@dataclass(frozen=True, eq=False)
class PermutationTest:
    """Gains, their nulls and the sequential p-values of every entry.

    Attributes
    ----------
    keys : tuple of str
        Entries tested (every grid entry but random), in grid order.
    metrics : tuple of str
    gain : dict key → dict metric → float
        Observed G (direction-signed, AUC units: unnormalised, over the evaluation's k range).
    null : dict key → dict metric → ndarray
        The null gains G_π drawn for that (entry, metric) before it stopped.
    p_raw, p_holm : dict key → dict metric → float
        Sequential p-value and its Holm adjustment across entries (per metric).
    permutations : int
        B, the most permutations any entry may draw.
    stop_after : int or None
        h (None: no early stopping).
    trials : int
        T': the trials both the gain and the null were computed on.
    ks : ndarray of int
    seed : int
    drawn : int
        Permutations run so far (the most any entry drew).
    complete : bool
        False while running or when stopped before every entry finished.
    verdict_metric : str
    """

    keys: tuple[str, ...]
    metrics: tuple[str, ...]
    gain: dict[str, dict[str, float]]
    null: dict[str, dict[str, np.ndarray]]
    p_raw: dict[str, dict[str, float]]
    p_holm: dict[str, dict[str, float]]
    permutations: int
    stop_after: int | None
    trials: int
    ks: np.ndarray
    seed: int
    drawn: int
    complete: bool
    verdict_metric: str = VERDICT_METRIC

    def helps(self, key: str, metric: str | None = None) -> bool:
        """Holm-adjusted p < 0.05 and a positive gain (on the verdict metric by default)."""
        m = metric or self.verdict_metric
        return self.complete and self.p_holm[key][m] < LEVEL and self.gain[key][m] > 0

    def null_summary(self, key: str, metric: str | None = None) -> tuple[float, float]:
        """Mean and standard deviation (ddof = 1) of the null gains drawn."""
        v = self.null[key][metric or self.verdict_metric]
        if v.size == 0:
            return float("nan"), float("nan")
        return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0

    @property
    def k_range(self) -> str:
        """``"k = 2…20"``."""
        return f"k = {int(self.ks[0])}…{int(self.ks[-1])}"

    def unit(self, metric: str | None = None) -> str:
        """The gain's unit, e.g. ``"Spearman ρ-AUC over k = 2…20"``."""
        return f"{METRICS[metric or self.verdict_metric].label}-AUC over {self.k_range}"

    def evidence(self, key: str, metric: str | None = None) -> str:
        """``"gain over random +0.44 …; shuffled descriptors give +0.08 ± 0.65 (99 permutations); p = 0.32 (Holm)"``."""
        m = metric or self.verdict_metric
        mu, sd = self.null_summary(key, m)
        n = self.null[key][m].size
        return (f"gain over random {text(self.gain[key][m], 'gain')} {self.unit(m)}; shuffled descriptors give "
                f"{text(mu, 'gain')} ± {text(sd, 'gain_sd')} ({n} permutations); {p_phrase(self.p_holm[key][m])} "
                "(Holm)")

    def verdict(self, key: str, metric: str | None = None) -> str:
        """``"<key>: <evidence> → helps"`` (or ``→ no evidence that it helps``, ``→ test not finished``)."""
        m = metric or self.verdict_metric
        word = "helps" if self.helps(key, m) else "no evidence that it helps"
        if not self.complete:
            word = "test not finished"
        return f"{key}: {self.evidence(key, m)} → {word}"

    def smallest_p(self) -> float:
        """Smallest Holm-adjusted p these entries and B can reach."""
        return smallest_p(len(self.keys), self.permutations)

    def describe(self) -> str:
        """The settings the p-values were computed with, for labels."""
        stop = f", early stop after {self.stop_after} exceedances" if self.stop_after else ""
        return (f"permutation test: B ≤ {self.permutations} shuffles of the descriptors{stop}, "
                f"{self.trials} trials, seed {self.seed}, {self.k_range}, Holm across {len(self.keys)} entries")

    def to_json_dict(self) -> dict[str, Any]:
        """Per entry: ``p_permutation``, ``p_permutation_raw``, ``helps``, ``gain``, ``null_mean``, ``null_std``, ``permutations_drawn``."""
        out: dict[str, Any] = {}
        for k in self.keys:
            out[k] = {
                "p_permutation": {m: float(self.p_holm[k][m]) for m in self.metrics},
                "p_permutation_raw": {m: float(self.p_raw[k][m]) for m in self.metrics},
                "helps": {m: bool(self.helps(k, m)) for m in self.metrics},
                "gain": {m: float(self.gain[k][m]) for m in self.metrics},
                "null_mean": {m: _finite(self.null_summary(k, m)[0]) for m in self.metrics},
                "null_std": {m: _finite(self.null_summary(k, m)[1]) for m in self.metrics},
                "permutations_drawn": {m: int(self.null[k][m].size) for m in self.metrics},
            }
        return out


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def iter_permutation_test(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig,
    *,
    permutations: int = PERMUTATIONS,
    stop_after: int | None = STOP_AFTER,
    trials: int | None = None,
    observed: EvaluationResult | None = None,
    verdict_metric: str = VERDICT_METRIC,
    mapper: BatchMapper | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[PermutationTest]:
    """Run the permutation test, yielding the state after every permutation.

    Parameters
    ----------
    benchmark : Benchmark
    representations : Representation, sequence or mapping name → Representation
        As given to :func:`~subsetsel_core.evaluation.protocol.evaluate`.
    config : EvaluationConfig
        The evaluation's settings (strategies, pools, k range, seed, metrics).
    permutations : int
        B ≥ 1.
    stop_after : int or None
        h: an (entry, metric) stops at its h-th null gain ≥ G; None draws all B.
    trials : int, optional
        T' ≤ ``config.trials``: gain and null on the first T' trials (default: all).
    observed : EvaluationResult, optional
        A finished run of the same ``config`` (its first T' trials are reused for G).
    verdict_metric : str
        Metric that :meth:`PermutationTest.helps` reads by default.
    mapper : callable, optional
        Runs batches (see :mod:`subsetsel_core.evaluation.parallel`): the observed run's trials,
        then rounds of :data:`ROUND` shuffles, one shuffle per batch (:func:`null_aucs`). The
        numbers do not depend on it.
    should_stop : callable, optional
        Polled after every round (every shuffle when serial); the last state yielded
        (``complete=False``) is final.

    Yields
    ------
    PermutationTest
        The state after every round; the last one has ``complete=True`` unless stopped.

    Raises
    ------
    InputError
        B < 1, h < 1, T' out of range, an unknown verdict metric, or no entry to test.
    """
    if not isinstance(permutations, int) or permutations < 1:
        raise InputError(f"permutations must be a whole number ≥ 1, got {permutations!r}.", field="permutations")
    if stop_after is not None and (not isinstance(stop_after, int) or stop_after < 1):
        raise InputError(f"the early stop must be a whole number ≥ 1, got {stop_after!r}.", field="permutations")
    t_used = config.trials if trials is None else trials
    if not isinstance(t_used, int) or not 1 <= t_used <= config.trials:
        raise InputError(f"permutation trials must be between 1 and {config.trials}, got {trials!r}.",
                         field="permutations")
    if verdict_metric not in config.metrics:
        raise InputError(f"the verdict metric '{verdict_metric}' is not among the evaluated metrics "
                         f"{', '.join(config.metrics)}.", field="metric")
    cfg = dataclasses.replace(config, trials=t_used)
    ctx = prepare(benchmark, representations, cfg)
    tested = tuple(e for e in ctx.entries if e.strategy != BASELINE)
    if not tested:
        raise InputError("the permutation test needs a strategy other than random.", field="strategy")
    run = mapper or serial_mapper

    def aucs(c: Any) -> dict[str, dict[str, np.ndarray]]:
        joined = join_batches(run(run_batch, c, trial_batches(t_used, cfg.batch_size)))
        return {k: {m: auc_per_trial(v) for m, v in mv.items()} for k, mv in joined.items()}

    if observed is not None and observed.complete and observed.config == config:
        seen = {k: {m: auc_per_trial(observed.values[k][m][:t_used]) for m in cfg.metrics} for k in observed.keys}
    else:
        seen = aucs(ctx)
    sign = {m: 1.0 if METRICS[m].higher_is_better else -1.0 for m in cfg.metrics}
    base = seen[BASELINE]
    gain = {e.key: {m: float(sign[m] * np.mean(seen[e.key][m] - base[m])) for m in cfg.metrics} for e in tested}
    nulls: dict[str, dict[str, list[float]]] = {e.key: {m: [] for m in cfg.metrics} for e in tested}
    hits = {e.key: dict.fromkeys(cfg.metrics, 0) for e in tested}
    p_raw: dict[str, dict[str, float]] = {e.key: {} for e in tested}

    def state(drawn: int, complete: bool) -> PermutationTest:
        raw = {k: {m: p_raw[k].get(m, (1 + hits[k][m]) / (1 + len(nulls[k][m]))) for m in cfg.metrics}
               for k in gain}
        adj: dict[str, dict[str, float]] = {k: {} for k in gain}
        for m in cfg.metrics:
            for k, p in holm({k: raw[k][m] for k in gain}).items():
                adj[k][m] = float(p if p is not None else 1.0)
        return PermutationTest(
            tuple(gain), tuple(cfg.metrics), gain,
            {k: {m: np.asarray(v) for m, v in mv.items()} for k, mv in nulls.items()},
            raw, adj, permutations, stop_after, t_used, ctx.ks, cfg.seed, drawn, complete, verdict_metric)

    def record(key: str, m: str, g: float) -> None:
        nulls[key][m].append(g)
        obs = gain[key][m]
        if g >= obs - _TOL * max(1.0, abs(obs)):
            hits[key][m] += 1
            if stop_after is not None and hits[key][m] >= stop_after:
                p_raw[key][m] = hits[key][m] / len(nulls[key][m])

    # shuffles go out in rounds (one mapper call each: a worker pool or cluster round per
    # ROUND shuffles, not per shuffle); results are taken in shuffle order, and an entry's
    # results after its stop are ignored, so the numbers equal a one-by-one run's
    size = 1 if mapper is None else ROUND
    b = 0
    while True:
        active = tuple(e for e in tested if len(p_raw[e.key]) < len(cfg.metrics))
        chunk = list(range(b, min(b + size, permutations)))
        parts: Iterator[Any] = run(null_aucs, dataclasses.replace(ctx, entries=active), [[c] for c in chunk])
        for null in (r for part in parts for r in part):
            b += 1
            for e in active:
                for m in cfg.metrics:
                    if m not in p_raw[e.key]:
                        record(e.key, m, float(sign[m] * np.mean(null[e.key][m] - base[m])))
            if all(len(p_raw[e.key]) == len(cfg.metrics) for e in tested):
                break
        if b == permutations or all(len(p_raw[e.key]) == len(cfg.metrics) for e in tested):
            for k in gain:
                for m in cfg.metrics:
                    p_raw[k].setdefault(m, (1 + hits[k][m]) / (1 + permutations))
            yield state(b, True)
            return
        yield state(b, False)
        if should_stop is not None and should_stop():
            return


def null_aucs(ctx: Any, permutations: Sequence[int]) -> list[dict[str, dict[str, np.ndarray]]]:
    """Per-trial AUCs of the context's entries with the descriptors shuffled by each permutation.

    A batch function for a mapper (:mod:`subsetsel_core.evaluation.parallel`): ``ctx`` is the
    evaluation context of :func:`~subsetsel_core.evaluation.protocol.prepare` (its entries
    the ones still tested), ``permutations`` the shuffle indices b of this batch.
    """
    n, out = ctx.scores.shape[0], []
    for b in permutations:
        perm = trial_rng(ctx.config.seed, _STREAM, b).permutation(n)
        shuffled = dataclasses.replace(ctx, X={r: x[perm] for r, x in ctx.X.items()})
        joined = join_batches(run_batch(shuffled, batch)
                              for batch in trial_batches(ctx.config.trials, ctx.config.batch_size))
        out.append({k: {m: auc_per_trial(v) for m, v in mv.items()} for k, mv in joined.items()})
    return out


def permutation_test(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig,
    *,
    progress: Callable[[float], None] | None = None,
    **options: Any,
) -> PermutationTest:
    """Run :func:`iter_permutation_test` to the end; ``progress`` gets the share of B drawn.

    Raises
    ------
    Cancelled
        Stopped (``should_stop``) before the first permutation finished.
    """
    last: PermutationTest | None = None
    for last in iter_permutation_test(benchmark, representations, config, **options):
        if progress is not None:
            progress(1.0 if last.complete else last.drawn / last.permutations)
    if last is None:
        raise Cancelled("the permutation test was stopped before any permutation finished.")
    return last
