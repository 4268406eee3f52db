"""Does a representation help? Running the permutation test of PROTOCOL.md.

The paired Wilcoxon test of per-trial AUCs against random is conditional on one fixed
representation (its trials share datasets, so they are not independent evidence). This test
asks instead whether the *descriptors* carry the information: the gain of an entry
(strategy s ≠ random on representation X) for a metric with direction σ is

    G = σ · mean over trials of (AUC_s,t − AUC_random,t),

and its null distribution comes from re-running the protocol, on the same pools and the same
strategy streams, with the descriptors shuffled between datasets (dataset i gets the row of
dataset π(i)). Shuffle b uses ``π_b = trial_rng(seed, 2, b).permutation(n)``, a stream of
its own, and applies it to the rows of **every** descriptor table at once, so one shuffle
gives one null gain per entry and the entries' dependence is kept.

One family per metric holds every entry (every strategy ≠ random on every representation);
Westfall & Young's step-down maxT gives the family-wise p-values and Besag & Clifford's
sequential stop ends the family at the h-th shuffle whose largest null gain reaches the
largest observed gain (:mod:`subsetsel_core.evaluation.maxt`). An entry **helps** when its
adjusted p < 0.05 and G > 0 on the verdict metric. The smallest possible p is 1 / (B + 1).

The shuffles run in :data:`SHUFFLE_JOBS` worker processes by default, taken in shuffle
order, so the numbers equal a serial run's.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.maxt import Family
from subsetsel_core.evaluation.parallel import Mapper
from subsetsel_core.evaluation.permutation_result import (
    LEVEL,
    NOT_TESTED_NOTE,
    PERMUTATIONS,
    STOP_AFTER,
    VERDICT_METRIC,
    PermutationTest,
    gain_definition,
    null_phrase,
    p_phrase,
)
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
from subsetsel_core.evaluation.stats import auc_per_trial
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation

__all__ = [
    "LEVEL", "NOT_TESTED_NOTE", "PERMUTATIONS", "ROUND", "SHUFFLE_JOBS", "STOP_AFTER", "VERDICT_METRIC",
    "PermutationTest", "check_permutations", "entry_gain", "gain_definition", "iter_permutation_test",
    "null_gains", "null_phrase", "p_phrase", "permutation_test", "shuffle_jobs", "verdict_metric",
]


def verdict_metric(config: EvaluationConfig) -> str:
    """The metric a run's verdict is read on: :data:`VERDICT_METRIC` when evaluated, else its first metric."""
    return VERDICT_METRIC if VERDICT_METRIC in config.metrics else config.metrics[0]

#: Shuffles sent out per mapper call when a mapper (e.g. a Dask cluster) runs them.
ROUND = 8
#: Worker processes of the shuffles unless told otherwise (both cores of a small machine).
SHUFFLE_JOBS = 2
#: A test whose shuffles would take less than this (rough serial seconds, all B drawn) runs in this process:
#: starting the workers would cost more than they save.
POOL_AFTER_SECONDS = 3.0
_STREAM = 2  # first spawn-key element of the permutation stream (pools use 0, entries 1)


def shuffle_jobs(jobs: int | None = None) -> int:
    """Worker processes for the shuffles: ``jobs`` (0: every core), else :data:`SHUFFLE_JOBS` capped by the cores."""
    cores = os.cpu_count() or 1
    if jobs is None:
        return max(1, min(SHUFFLE_JOBS, cores))
    return cores if jobs == 0 else int(jobs)


def check_permutations(value: Any, *, flag: str = "--permutations") -> int:
    """B as asked: a whole number from 0 (an explicit opt-out: no test) to the server's ``max_permutations``.

    Raises
    ------
    InputError
        Naming ``flag``, the value and the limit (field ``permutations``).
    """
    from subsetsel_core.settings import server

    most = int(server.get("max_permutations"))
    whole = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not whole or not 0 <= int(value) <= most:
        raise InputError(f"{flag} must be a whole number from 0 (no permutation test) to {most:,} (this "
                         f"installation's max_permutations), got {value!r}.", field="permutations")
    return int(value)


def entry_gain(result: EvaluationResult, key: str, metric: str, trials: int | None = None) -> float:
    """G of one entry: direction × mean over (the first ``trials``) trials of its AUC minus random's."""
    t = result.trials_done if trials is None else trials
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    own = auc_per_trial(result.values[key][metric][:t])
    base = auc_per_trial(result.values[BASELINE][metric][:t])
    return float(sign * np.mean(own - base))


@dataclasses.dataclass(frozen=True, eq=False)
class _NullJob:
    """What a worker needs to turn shuffles into null gains (picklable)."""

    ctx: Any
    keys: tuple[str, ...]
    base: dict[str, np.ndarray]
    sign: dict[str, float]


def _shuffle_aucs(job: _NullJob, b: int, trials: Sequence[int]) -> dict[str, dict[str, np.ndarray]]:
    """Per tested entry and metric, the AUC of each of ``trials`` under shuffle b (one batch)."""
    ctx = job.ctx
    perm = trial_rng(ctx.config.seed, _STREAM, b).permutation(ctx.scores.shape[0])
    values = run_batch(dataclasses.replace(ctx, X={r: x[perm] for r, x in ctx.X.items()}), trials)
    return {k: {m: auc_per_trial(values[k][m]) for m in job.base} for k in job.keys}


def _gains(job: _NullJob, aucs: dict[str, dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {m: np.array([job.sign[m] * np.mean(aucs[k][m] - job.base[m]) for k in job.keys]) for m in job.base}


def null_gains(job: _NullJob, shuffles: Sequence[int]) -> list[dict[str, np.ndarray]]:
    """Null gains of every tested entry for each shuffle b: per shuffle, metric → ndarray (m,) in key order.

    A batch function for a mapper or worker pool (:mod:`subsetsel_core.evaluation.parallel`).
    All trials of a shuffle run as one batch; shuffle b permutes the rows of every descriptor
    table by ``trial_rng(seed, 2, b).permutation(n)``.
    """
    trials = list(range(job.ctx.config.trials))
    return [_gains(job, _shuffle_aucs(job, b, trials)) for b in shuffles]


def null_part(job: _NullJob, task: Sequence[int]) -> dict[str, dict[str, np.ndarray]]:
    """A worker's share of one shuffle: ``task = [b, lo, hi]`` → the AUCs of trials lo … hi − 1 under shuffle b.

    Every trial's values depend on its own pool and streams only, so the shares of a shuffle,
    joined in trial order, are what :func:`null_gains` computes in one batch.
    """
    b, lo, hi = (int(x) for x in task)
    return _shuffle_aucs(job, b, list(range(lo, hi)))


def _rows(job: _NullJob, permutations: int, mapper: Mapper | None, jobs: int) -> Iterator[dict[str, np.ndarray]]:
    """The null rows of shuffles 0, 1, … in order (lazily: closing the iterator stops the work).

    In worker processes each shuffle is split into ``jobs`` shares of its trials, taken in
    order: the workers share every shuffle, and when the test stops, what is still running
    is at most one shuffle's shares.
    """
    if mapper is not None:
        for lo in range(0, permutations, ROUND):
            chunk = [[b] for b in range(lo, min(lo + ROUND, permutations))]
            for part in mapper(null_gains, job, chunk):
                yield from part
        return
    if jobs <= 1 or permutations < 2:
        for b in range(permutations):
            yield null_gains(job, [b])[0]
        return
    from subsetsel_core.evaluation.parallel import submit_batch, worker_pool

    T = job.ctx.config.trials
    shares = trial_batches(T, -(-T // min(jobs, T)))
    tasks = ([b, share[0], share[-1] + 1] for b in range(permutations) for share in shares)
    pool = worker_pool(min(jobs, permutations * len(shares)), null_part, job)
    try:
        window = [submit_batch(pool, t) for t in itertools.islice(tasks, 2 * jobs)]
        while window:
            parts = []
            for _ in shares:
                parts.append(window.pop(0).result())
                window.extend(submit_batch(pool, t) for t in itertools.islice(tasks, 1))
            yield _gains(job, {k: {m: np.concatenate([p[k][m] for p in parts]) for m in job.base} for k in job.keys})
    finally:
        # waits for the shares already running (at most ``jobs``): no thread of the pool outlives the test, so
        # the next pool of this process can still be forked
        pool.shutdown(wait=True, cancel_futures=True)


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
    jobs: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[PermutationTest]:
    """Run the permutation test, yielding the state after every shuffle.

    Parameters
    ----------
    benchmark : Benchmark
    representations : Representation, sequence or mapping name → Representation
        As given to :func:`~subsetsel_core.evaluation.protocol.evaluate`; all of them form one
        family per metric, shuffled together.
    config : EvaluationConfig
        The evaluation's settings (strategies, pools, k range, seed, metrics).
    permutations : int
        B ≥ 1.
    stop_after : int or None
        h: a metric's family stops at its h-th shuffle whose largest null gain reaches the
        largest observed gain; None draws all B.
    trials : int, optional
        T' ≤ ``config.trials``: gain and null on the first T' trials (default: all).
    observed : EvaluationResult, optional
        A finished run of the same ``config`` (its first T' trials are reused for G).
    verdict_metric : str
        Metric that :meth:`PermutationTest.helps` reads by default.
    mapper : callable, optional
        Runs the observed run's batches and rounds of :data:`ROUND` shuffles (e.g. on a Dask
        cluster); without it the shuffles run in ``jobs`` local worker processes.
    jobs : int, optional
        Worker processes of the shuffles (0: every core; 1: in this process; default
        :func:`shuffle_jobs`, or this process alone when the whole test would take less than
        :data:`POOL_AFTER_SECONDS`). The numbers do not depend on it.
    should_stop : callable, optional
        Polled after every shuffle; the last state yielded (``complete=False``) is final.

    Yields
    ------
    PermutationTest
        The state after every shuffle; the last one has ``complete=True`` unless stopped.

    Raises
    ------
    InputError
        B < 1, h < 1, T' out of range, an unknown verdict metric, or no entry to test.
    """
    if isinstance(permutations, bool) or not isinstance(permutations, int) or permutations < 1:
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
    keys = tuple(e.key for e in tested)
    run = mapper or serial_mapper
    if observed is not None and observed.complete and observed.config == config:
        seen = {k: {m: auc_per_trial(observed.values[k][m][:t_used]) for m in cfg.metrics} for k in observed.keys}
    else:
        joined = join_batches(run(run_batch, ctx, trial_batches(t_used, cfg.batch_size)))
        seen = {k: {m: auc_per_trial(v) for m, v in mv.items()} for k, mv in joined.items()}
    sign = {m: 1.0 if METRICS[m].higher_is_better else -1.0 for m in cfg.metrics}
    base = {m: seen[BASELINE][m] for m in cfg.metrics}
    gain = {k: {m: float(sign[m] * np.mean(seen[k][m] - base[m])) for m in cfg.metrics} for k in keys}
    families = {m: Family.start(np.array([gain[k][m] for k in keys]), stop_after) for m in cfg.metrics}
    job = _NullJob(dataclasses.replace(ctx, entries=tested), keys, base, sign)

    def state(drawn: int, complete: bool) -> PermutationTest:
        null: dict[str, dict[str, np.ndarray]] = {k: {} for k in keys}
        p_raw: dict[str, dict[str, float]] = {k: {} for k in keys}
        p_adj: dict[str, dict[str, float]] = {k: {} for k in keys}
        for m, fam in families.items():
            mat, raw, adj = fam.null(), fam.raw(), fam.adjusted()
            for i, k in enumerate(keys):
                null[k][m], p_raw[k][m], p_adj[k][m] = mat[:, i].copy(), float(raw[i]), float(adj[i])
        return PermutationTest(keys, tuple(cfg.metrics), gain, null, p_raw, p_adj, permutations, stop_after, t_used,
                               ctx.ks, cfg.seed, drawn, complete, verdict_metric,
                               {m: f.stopped for m, f in families.items()},
                               {m: f.top_hits for m, f in families.items()})

    if jobs is None:
        from subsetsel_core.evaluation.timing import permutation_seconds

        small = permutation_seconds(cfg, len(ctx.X), ctx.scores.shape[0], permutations) < POOL_AFTER_SECONDS
        jobs = 1 if small else shuffle_jobs()
    rows = _rows(job, permutations, mapper, shuffle_jobs(jobs))
    b = 0
    try:
        for row in rows:
            b += 1
            for m, fam in families.items():
                fam.take(row[m])
            if b == permutations or all(f.stopped for f in families.values()):
                break
            yield state(b, False)
            if should_stop is not None and should_stop():
                return
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()
    yield state(b, True)


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
        Stopped (``should_stop``) before the first shuffle finished.
    """
    last: PermutationTest | None = None
    for last in iter_permutation_test(benchmark, representations, config, **options):
        if progress is not None:
            progress(1.0 if last.complete else last.drawn / last.permutations)
    if last is None:
        raise Cancelled("the permutation test was stopped before any shuffle finished.")
    return last
