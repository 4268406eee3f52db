"""The bootstrap protocol: trials, curves, bands, AUC and significance (PROTOCOL.md).

One evaluation runs a grid of strategies × representations on the same random pools
(paired design). Each trial's pool and each (strategy, representation)'s randomness come
from independent streams spawned from one seed with fixed keys
(``SeedSequence(seed, spawn_key=…)``), so adding a strategy, a representation or more
trials leaves every other number unchanged. The keys: trial t's pool ``(0, t)``; entry
(strategy s, representation r) in trial t ``(1, crc32(s), crc32(r), t)``, from which its
subsets for k = k_min … k_max are drawn one after the other.

:func:`iter_evaluate` yields a partial :class:`EvaluationResult` after every batch of
trials (callers redraw curves from it and may stop early); :func:`evaluate` runs to the
end.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.parallel import one_blas_thread
from subsetsel_core.evaluation.result import BASELINE, Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.ranks.table import RankTable
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import REGISTRY, a_priori, get_strategy, standardize

_METRIC_BLOCK = 2**22  # subset rank sums scored in one metrics call (memory bound, elements)


def stream_key(name: str) -> int:
    """A stable integer for a name in a stream's spawn key (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(name.encode("utf-8"))


def trial_rng(seed: int, *key: int) -> np.random.Generator:
    """Generator of an independent stream spawned from ``seed`` with a fixed key.

    ``Generator(PCG64(SeedSequence(seed, spawn_key=key)))``; ``trial_rng(seed, *key).spawn(n)``
    gives the streams of ``key + (i,)`` for i < n.
    """
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=tuple(key))))


def _entries(strategies: Sequence[str], reps: Sequence[str]) -> tuple[Entry, ...]:
    out = [Entry(BASELINE, BASELINE, None)]
    for s in strategies:
        if s == BASELINE:
            continue
        for r in reps:
            key = s if len(reps) == 1 else f"{s} [{r}]"
            out.append(Entry(key, s, r))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class _Context:
    """Everything a batch of trials needs (picklable, for process or cluster workers)."""

    scores: np.ndarray
    higher_is_better: bool
    table: RankTable
    X: dict[str, np.ndarray]
    entries: tuple[Entry, ...]
    config: EvaluationConfig
    n_pool: int
    m_pool: int
    ks: np.ndarray


def trial_pool(ctx: _Context, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Trial ``t``'s pool of an evaluation prepared by :func:`prepare`.

    Returns
    -------
    (datasets, models) : ndarray of int, sorted
        Row indices of the pool's datasets and of its models (all models when β = 1).
    """
    n, _, m = ctx.scores.shape
    rng = trial_rng(ctx.config.seed, 0, t)
    pool = np.sort(rng.choice(n, ctx.n_pool, replace=False)) if ctx.n_pool < n else np.arange(n)
    models = np.sort(rng.choice(m, ctx.m_pool, replace=False)) if ctx.m_pool < m else np.arange(m)
    return pool, models


Batch = dict[str, dict[str, np.ndarray]]
"""Metric values of a batch of trials: entry key → metric → ndarray (trials, K)."""


def trial_batches(trials: int, batch_size: int) -> list[list[int]]:
    """The trial indices 0 … trials − 1 in consecutive batches of ``batch_size`` (at least 1)."""
    bs = max(1, int(batch_size))
    return [list(range(lo, min(lo + bs, trials))) for lo in range(0, trials, bs)]


def join_batches(parts: Iterable[Batch]) -> Batch:
    """Batches of trials, in trial order, joined along the trial axis (key → metric → (trials, K))."""
    acc: dict[str, dict[str, list[np.ndarray]]] = {}
    for part in parts:
        for key, mv in part.items():
            for m, v in mv.items():
                acc.setdefault(key, {}).setdefault(m, []).append(v)
    return {k: {m: np.concatenate(v, axis=0) for m, v in mv.items()} for k, mv in acc.items()}


def run_batch(ctx: _Context, trials: Sequence[int]) -> Batch:
    """Metric values of every entry for the given trial indices.

    BLAS runs single-threaded here (:func:`~subsetsel_core.evaluation.parallel.one_blas_thread`):
    the matrices are small, threads only contend, and batches run in parallel anyway.

    Returns
    -------
    dict key → dict metric → ndarray (len(trials), K)
    """
    with one_blas_thread():
        return _run_batch(ctx, trials)[0]


def run_batch_covered(ctx: _Context, trials: Sequence[int]) -> tuple[Batch, dict[str, np.ndarray]]:
    """:func:`run_batch` and, per entry, the share of models both rankings cover, (trials, K)
    (all ones on a complete table; PROTOCOL.md, ``partial`` step 4)."""
    with one_blas_thread():
        return _run_batch(ctx, trials)


def pool_table(ctx: _Context, models: np.ndarray) -> RankTable:
    """The rank table of a trial's model pool: ranks recomputed among the sampled models."""
    if len(models) == ctx.table.n_models:
        return ctx.table
    return RankTable.of(ctx.scores[:, :, models], ctx.higher_is_better, partial=ctx.table.partial)


@dataclass(frozen=True, eq=False)
class Choice:
    """An entry's subsets in one trial, as positions in the trial's pool.

    Attributes
    ----------
    order : ndarray of int or None
        A nested strategy's selection order up to k_max (the k-subset is its prefix).
    idx, starts : ndarray of int
        Otherwise: the subsets of every k concatenated, and where each starts.
    """

    order: np.ndarray | None
    idx: np.ndarray
    starts: np.ndarray

    def sums(self, rows: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Per k, the sum of ``rows`` (pool rows of a rank table) over the subset, shape (K, W)."""
        if self.order is not None:
            out: np.ndarray = np.cumsum(rows[self.order], axis=0)[ks - 1]
            return out
        return np.add.reduceat(rows[self.idx], self.starts, axis=0)


def trial_choices(ctx: _Context, t: int, pool: np.ndarray, *, given: Mapping[str, Choice] | None = None,
                  zcache: dict[str, np.ndarray] | None = None) -> dict[str, Choice]:
    """Every entry's subsets in trial ``t`` (pool from :func:`trial_pool`), by entry key.

    The subsets depend on the descriptors of the pool and the entry's stream only, never on the
    scores or the models. ``given``: subsets computed already (:func:`batch_choices`); ``zcache``:
    the standardized pool per representation."""
    ks = ctx.ks
    kmax = int(ks[-1])
    nk = len(ks)
    zcache = {} if zcache is None else zcache
    out: dict[str, Choice] = {}
    none = np.empty(0, np.int64)
    for e in ctx.entries:
        if given is not None and e.key in given:
            out[e.key] = given[e.key]
            continue
        info = get_strategy(e.strategy)
        key = (1, stream_key(e.strategy), stream_key(e.representation or ""), t)
        rng = trial_rng(ctx.config.seed, *key) if info.uses_rng and info.nested else None
        if info.uses_features:
            assert e.representation is not None
            if e.representation not in zcache:
                zcache[e.representation] = standardize(ctx.X[e.representation][pool])
            X = zcache[e.representation]
        else:
            X = np.empty((len(pool), 0))
        if info.nested:
            out[e.key] = Choice(np.asarray(info.kernel(X, kmax, rng=rng, include=none)), none, none)
            continue
        # the subsets of every k drawn one after the other from the entry's stream
        # (independent draws; none for deterministic strategies)
        entry_rng = trial_rng(ctx.config.seed, *key) if info.uses_rng else None
        rngs: list[Any] = [entry_rng] * nk
        if info.many is not None:
            chosen = info.many(X, [int(k) for k in ks], rngs)
        else:
            chosen = [info.kernel(X, int(k), rng=g, include=none) for k, g in zip(ks, rngs, strict=True)]
        out[e.key] = _concatenated(chosen)
    return out


def _concatenated(chosen: Sequence[np.ndarray]) -> Choice:
    return Choice(None, np.concatenate(chosen), np.cumsum([0] + [len(c) for c in chosen[:-1]], dtype=np.int64))


def batch_choices(ctx: _Context, trials: Sequence[int], pools: Sequence[np.ndarray]) -> list[dict[str, Choice]]:
    """:func:`trial_choices` of several trials (``pools[i]`` of ``trials[i]``), with the same subsets;
    strategies with ``StrategyInfo.many_pools`` choose for all the trials in one call."""
    zcaches: list[dict[str, np.ndarray]] = [{} for _ in trials]
    given: list[dict[str, Choice]] = [{} for _ in trials]
    ks = [int(k) for k in ctx.ks]
    for e in ctx.entries:
        info = get_strategy(e.strategy)
        if info.many_pools is None or e.representation is None:
            continue
        rep = e.representation
        for z, pool in zip(zcaches, pools, strict=True):
            z[rep] = z[rep] if rep in z else standardize(ctx.X[rep][pool])
        for g, chosen in zip(given, info.many_pools([z[rep] for z in zcaches], ks), strict=True):
            g[e.key] = _concatenated(chosen)
    return [trial_choices(ctx, t, pool, given=g, zcache=z)
            for t, pool, g, z in zip(trials, pools, given, zcaches, strict=True)]


def _run_batch(ctx: _Context, trials: Sequence[int]) -> tuple[Batch, dict[str, np.ndarray]]:
    ks = ctx.ks
    nk = len(ks)
    b = len(trials)
    width = ctx.table.rows.shape[1] * ctx.m_pool // ctx.table.n_models
    ref = np.empty((b, width))
    # every entry's summed subset rows side by side (entry e: columns e·K … e·K + K − 1), so
    # that the metrics run once for the whole grid; on complete tables they are exact integers
    subs = np.empty((b, len(ctx.entries) * nk, width))
    table = ctx.table
    drawn = [trial_pool(ctx, t) for t in trials]
    choices = batch_choices(ctx, trials, [pool for pool, _ in drawn])
    for ti, (pool, models) in enumerate(drawn):
        table = pool_table(ctx, models)
        ref[ti] = table.reference()
        psums = table.rows[pool]
        for ei, choice in enumerate(choices[ti].values()):
            subs[ti, ei * nk:(ei + 1) * nk] = choice.sums(psums, ks)
    n = ctx.scores.shape[0]
    # metrics for as many entries at once as fit in _METRIC_BLOCK elements (every row is
    # computed on its own, so the grouping does not change any value)
    per = max(1, _METRIC_BLOCK // max(1, b * nk * width))
    out: Batch = {}
    covered: dict[str, np.ndarray] = {}
    for lo in range(0, len(ctx.entries), per):
        group = ctx.entries[lo:lo + per]
        values, cov = table.agreement(ref, subs[:, lo * nk:(lo + len(group)) * nk], ref_count=n,
                                      sub_count=np.tile(ks, len(group)), metrics=ctx.config.metrics)
        for gi, e in enumerate(group):
            out[e.key] = {m: np.ascontiguousarray(v[:, gi * nk:(gi + 1) * nk]) for m, v in values.items()}
            covered[e.key] = np.ascontiguousarray(cov[:, gi * nk:(gi + 1) * nk])
    return out, covered


BatchMapper = Callable[[Callable[..., Any], _Context, list[list[int]]], Iterator[Any]]
"""Runs a batch function over batches of trials, yielding each batch's result in order."""


def serial_mapper(fn: Callable[..., Any], ctx: _Context, batches: list[list[int]]) -> Iterator[Any]:
    """Run batches one after the other in this process."""
    for b in batches:
        yield fn(ctx, b)


def prepare(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig,
) -> _Context:
    """Validate an evaluation and build its context.

    Raises
    ------
    InputError
        Unknown or score-aware strategy, unknown metric, α / β / k / trials out of range, a
        representation not aligned to the benchmark.
    """
    if isinstance(representations, Representation):
        representations = {representations.name: representations}
    elif not isinstance(representations, Mapping):
        representations = {r.name: r for r in representations}
    for s in config.strategies:
        a_priori(s)  # score-aware strategies run in the held-out evaluation only
    bad = [m for m in config.metrics if m not in METRICS]
    if bad:
        raise InputError(f"unknown metric(s) {bad}; valid: {', '.join(METRICS)}.")
    needs_x = any(REGISTRY[s].uses_features for s in config.strategies)
    if needs_x and not representations:
        raise InputError("strategies other than random need a representation (descriptors).")
    n, m = benchmark.n_datasets, benchmark.n_models
    if not isinstance(config.trials, int) or config.trials < 1:
        raise InputError(f"trials must be a whole number ≥ 1, got {config.trials!r}.")
    if not 0 < config.alpha <= 1:
        raise InputError(f"alpha (dataset-pool fraction) must be in (0, 1], got {config.alpha}.")
    if not 0 < config.beta <= 1:
        raise InputError(f"beta (model-pool fraction) must be in (0, 1], got {config.beta}.")
    n_pool = int(np.floor(config.alpha * n + 1e-9))
    m_pool = int(np.floor(config.beta * m + 1e-9))
    if n_pool < 3:
        raise InputError(f"alpha = {config.alpha} leaves {n_pool} datasets per pool; at least 3 are needed.")
    if m_pool < 2:
        raise InputError(f"beta = {config.beta} leaves {m_pool} models per pool; at least 2 are needed.")
    if config.k_min < 1 or config.k_max < config.k_min:
        raise InputError(f"k range {config.k_min}…{config.k_max} is empty; use 1 ≤ k_min ≤ k_max.")
    if config.k_min > n_pool:
        raise InputError(f"k_min = {config.k_min} exceeds the pool size {n_pool}; lower k_min or raise alpha.")
    ks = np.arange(config.k_min, min(config.k_max, n_pool) + 1)
    X: dict[str, np.ndarray] = {}
    for name, rep in representations.items():
        if tuple(rep.datasets) != tuple(benchmark.datasets):
            raise InputError(
                f"representation '{name}' is not aligned to the benchmark's datasets; build it with "
                "build_representation(descriptors, benchmark.datasets)."
            )
        X[name] = np.asarray(rep.X, dtype=float)
    entries = _entries(config.strategies, list(X) if needs_x else [])
    return _Context(benchmark.scores, benchmark.higher_is_better, benchmark.rank_table, X, entries, config, n_pool,
                    m_pool, ks)


def iter_evaluate(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig | None = None,
    *,
    mapper: BatchMapper | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[EvaluationResult]:
    """Run the protocol, yielding a partial result after every batch of trials.

    Parameters
    ----------
    benchmark : Benchmark
    representations : Representation, sequence or mapping name → Representation
    config : EvaluationConfig, optional
    mapper : callable, optional
        Runs batches (serially by default; see :mod:`subsetsel_core.evaluation.parallel`).
    should_stop : callable, optional
        Polled between batches; when it returns True the last yielded result (marked
        incomplete) is final.

    Yields
    ------
    EvaluationResult
        With ``trials_done`` growing; the last one has ``complete=True`` unless stopped.
    """
    config = config or EvaluationConfig()
    ctx = prepare(benchmark, representations, config)
    info = {
        "benchmark": benchmark.name, "n_datasets": benchmark.n_datasets, "n_models": benchmark.n_models,
        "n_folds": benchmark.n_folds, "higher_is_better": benchmark.higher_is_better,
        "pool_datasets": ctx.n_pool, "pool_models": ctx.m_pool, "representations": list(ctx.X),
        "baseline": BASELINE, "partial": ctx.table.partial, "benchmark_sha256": benchmark.digest,
    }
    parts: list[Batch] = []
    covs: list[dict[str, np.ndarray]] = []
    done = 0
    for part, part_cov in (mapper or serial_mapper)(run_batch_covered, ctx, trial_batches(config.trials,
                                                                                           config.batch_size)):
        parts.append(part)
        covs.append(part_cov)
        done += next(iter(next(iter(part.values())).values())).shape[0]
        values = join_batches(parts)
        covered = {e.key: np.concatenate([c[e.key] for c in covs], axis=0) for e in ctx.entries} \
            if ctx.table.partial else {}
        finished = done >= config.trials
        yield EvaluationResult(config, ctx.ks, ctx.entries, values, done, finished, info, covered)
        if not finished and should_stop is not None and should_stop():
            return


def evaluate(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig | None = None,
    *,
    mapper: BatchMapper | None = None,
    callback: Callable[[EvaluationResult], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> EvaluationResult:
    """Run the protocol to the end (or until ``should_stop``) and return the result.

    ``callback`` receives every partial result. Raises :class:`Cancelled` if stopped
    before the first batch finished.
    """
    last: EvaluationResult | None = None
    for last in iter_evaluate(benchmark, representations, config, mapper=mapper, should_stop=should_stop):
        if callback is not None:
            callback(last)
    if last is None:
        raise Cancelled("the evaluation was stopped before any trial finished.")
    return last
