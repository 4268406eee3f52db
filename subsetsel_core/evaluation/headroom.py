"""The price of a-priori selection: score-aware strategies judged on models they never saw.

PROTOCOL.md, "Score-aware selection (headroom; clearly labelled, never the default)". The
models are split into judging (J) and held-out (H) models — random halves (``fraction`` of
the models held out, ``splits`` draws), or the newest by release date (one split). The
score-aware strategies (:mod:`subsetsel_core.strategies.score_aware`) see the judging
models' scores on the trial's pool only; every strategy, a-priori ones included, is scored
on the held-out models' ranking (reference: all datasets, ranks recomputed among H).

Batched: the a-priori subsets depend on neither the scores nor the models, so they are the
protocol's own (:func:`~subsetsel_core.evaluation.protocol.trial_choices`, same pools and
streams as ``evaluate``), computed once per trial and scored on each split's H. Streams:
trial t's pool and a-priori subsets are the protocol's (keys ``(0, t)``, ``(1, …, t)``);
split s's random halves come from ``(17, 0, s)``; random-regression's subsets in trial t
from ``(17, 1, crc32("random-regression"), t)``, the same in every split (only the fit
depends on the split).

``random-regression`` ranks H by predicted mean score, not by a subset's mean rank: the
held-out models' average-tie ranks by prediction are compared with the reference over H;
for MAE the rank positions are first mapped onto the reference's own sorted mean ranks
(so that a perfect ordering scores 0, as a subset ranking equal to the reference does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.generalisation import split_models
from subsetsel_core.evaluation.headroom_result import HeadroomEntry, HeadroomResult, Price, Split
from subsetsel_core.evaluation.parallel import one_blas_thread
from subsetsel_core.evaluation.protocol import (
    Choice,
    prepare,
    stream_key,
    trial_choices,
    trial_pool,
    trial_rng,
)
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.ranks.ranking import twice_average_ranks
from subsetsel_core.ranks.table import RankTable
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.strategies import REGISTRY, SCORE_AWARE
from subsetsel_core.strategies.score_aware import REGRESSION, ridge_predict, standardized_scores

#: The defaults of the command line's ``headroom`` (the settings table's).
SPLITS: int = SETTINGS["splits"].default
FRACTION: float = SETTINGS["held_out"].default
TRIALS: int = SETTINGS["headroom_trials"].default

HEADROOM_STREAM = 17
"""First spawn-key element of the headroom's own streams (pools 0, entries 1, permutations 2,
bootstrap 3)."""

_BLOCK = 2**22  # summed rows scored in one metrics call (elements)


def model_splits(benchmark: Benchmark, *, splits: int, fraction: float, seed: int,
                 release_dates: Mapping[str, object] | None = None) -> tuple[list[Split], str]:
    """The judging / held-out splits: ``splits`` random draws, or the newest models (one split).

    Raises
    ------
    InputError
        A split leaving fewer than 2 models on a side, models without a date.
    """
    if release_dates:
        judge, new, how = split_models(benchmark, release_dates=release_dates, fraction=fraction)
        return [Split(tuple(judge), tuple(new))], how
    out = []
    for s in range(splits):
        judge, new, _ = split_models(benchmark, fraction=fraction, rng=trial_rng(seed, HEADROOM_STREAM, 0, s))
        out.append(Split(tuple(judge), tuple(new)))
    n_new = len(out[0].held_out)
    return out, f"{splits} random draw{'s' if splits > 1 else ''} of {n_new} held-out models of {benchmark.n_models}"


def _fewer_judges(parts: Sequence[Split], judges: int, seed: int) -> list[Split]:
    """Each split with ``judges`` of its judging models (the held-out ones unchanged).

    Raises
    ------
    InputError
        ``judges`` below 2 or above the judging models of a split.
    """
    most = min(len(p.judge) for p in parts)
    if not 2 <= judges <= most:
        raise InputError(f"the number of judging models must be between 2 and {most} (the models not held out); "
                         f"got {judges}.")
    out = []
    for s, p in enumerate(parts):
        keep = np.sort(trial_rng(seed, HEADROOM_STREAM, 4, s).choice(len(p.judge), judges, replace=False))
        out.append(Split(tuple(p.judge[i] for i in keep), p.held_out))
    return out


def price_by_judges(benchmark: Benchmark,
                    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
                    config: EvaluationConfig | None = None, counts: Sequence[int] | None = None, *,
                    metric: str = "spearman", splits: int = SPLITS, fraction: float = FRACTION) -> list[tuple[int, Price]]:
    """The price of a-priori selection against the number of judging models, the held-out models fixed.

    ``counts`` default: 2, 3, 5, 8, … up to all the models not held out. One
    :func:`evaluate_headroom` per count, same seed, splits and held-out models.
    """
    parts, _ = model_splits(benchmark, splits=splits, fraction=fraction, seed=(config or EvaluationConfig()).seed)
    most = min(len(p.judge) for p in parts)
    if counts is None:
        counts = sorted({c for c in (2, 3, 5, 8, 12, 17, 25, 35, 50) if c < most} | {most})
    out = []
    for c in counts:
        res = evaluate_headroom(benchmark, representations, config, splits=splits, fraction=fraction, judges=int(c))
        out.append((int(c), res.price(metric)))
    return out


def _check(config: EvaluationConfig, splits: int, fraction: float, score_aware: Sequence[str]) -> None:
    if config.beta != 1.0:
        raise InputError("the headroom splits the models into judging and held-out ones; use β = 1 (no model pools).",
                         field="beta")
    if isinstance(splits, bool) or not isinstance(splits, int) or splits < 1:
        raise InputError(f"splits must be a whole number ≥ 1, got {splits!r}.", field="splits")
    if not 0 < fraction < 1:
        raise InputError(f"the share of models held out must be in (0, 1), got {fraction}.", field="fraction")
    if not score_aware:
        raise InputError(f"the headroom needs at least one score-aware strategy ({', '.join(SCORE_AWARE)}).",
                         field="strategy")
    bad = [s for s in score_aware if s not in REGISTRY or not REGISTRY[s].score_aware]
    if bad:
        raise InputError(f"'{bad[0]}' is not a score-aware strategy; they are {', '.join(SCORE_AWARE)}.",
                         field="strategy")


def _nested_sums(rows: np.ndarray, order: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Per trial and k, the sum of ``rows`` (T, n, W) over the first k of ``order`` (T, ≥k_max)."""
    picked = np.take_along_axis(rows, order[:, : int(ks[-1]), None], axis=1)
    return np.cumsum(picked, axis=1)[:, ks - 1]


def _as_rows(table: RankTable, values: np.ndarray) -> np.ndarray:
    """A ranking given as mean ranks (..., M), as one summed row of ``table`` (count 1)."""
    if table.partial:
        return np.concatenate([values, np.ones_like(values)], axis=-1)
    return values * (2.0 * table.n_folds)


class SplitData:
    """One split's data: the held-out models' rank table, and what the score-aware strategies
    see — the judging models' rank table and standardised scores (H's scores standardised
    with J's means and sds, used only to score and to predict H).

    Parameters
    ----------
    scores : ndarray of shape (n, F, M)
    higher_is_better, partial : bool
    judge, held : ndarray of int
        Model indices of J and H.
    """

    def __init__(self, scores: np.ndarray, higher_is_better: bool, partial: bool, judge: np.ndarray,
                 held: np.ndarray) -> None:
        self.held = RankTable.of(scores[:, :, held], higher_is_better, partial=partial)
        self.judge = RankTable.of(scores[:, :, judge], higher_is_better, partial=partial)
        self.z_judge, self.z_held = standardized_scores(scores, higher_is_better, judge, held)

    def orders(self, name: str, pools: np.ndarray, k_max: int) -> np.ndarray:
        """A nested score-aware strategy's selection orders (T, ≥ k_max) in each pool (T, n_pool),
        from the judging models' data only."""
        orders = REGISTRY[name].orders
        if orders is not None:
            return orders(self, pools, k_max)
        raise InputError(f"'{name}' has no selection order.", field="strategy")

    def predictions(self, pools: np.ndarray, subsets: Sequence[np.ndarray]) -> np.ndarray:
        """random-regression's predicted mean scores of H, (T, K, H): per k, a ridge fitted on J
        (their subset scores → their mean standardised score over the pool), applied to H's
        subset scores. ``subsets[i]``: (T, k_i) pool positions."""
        y = self.z_judge[pools].mean(axis=1)
        preds = []
        for sub in subsets:
            idx = np.take_along_axis(pools, sub, axis=1)
            preds.append(ridge_predict(self.z_judge[idx].transpose(0, 2, 1), y, self.z_held[idx].transpose(0, 2, 1)))
        return np.stack(preds, axis=1)


def _regression(sp: SplitData, pools: np.ndarray, subsets: Sequence[np.ndarray], metrics: Sequence[str]
                ) -> dict[str, np.ndarray]:
    """random-regression on one split: fit on J per (trial, k), rank H by the predictions."""
    t = pools.shape[0]
    table = sp.held
    pos = twice_average_ranks(-sp.predictions(pools, subsets)) / 2.0  # (T, K, H): 1 = best predicted
    ref = table.reference()
    ref_means = table.means(ref, table.n_datasets)
    known = np.sort(ref_means[~np.isnan(ref_means)])
    h = table.n_models
    refs = np.tile(ref, (t, 1))
    out: dict[str, np.ndarray] = {}
    order_metrics = [m for m in metrics if not METRICS[m].from_values]
    if order_metrics:
        out.update(table.agreement(refs, _as_rows(table, pos), ref_count=table.n_datasets, sub_count=1.0,
                                   metrics=order_metrics)[0])
    value_metrics = [m for m in metrics if METRICS[m].from_values]
    if value_metrics:
        mapped = np.interp(1.0 + (pos - 1.0) * (known.size - 1) / max(h - 1, 1), np.arange(1, known.size + 1),
                           known)
        out.update(table.agreement(refs, _as_rows(table, mapped), ref_count=table.n_datasets, sub_count=1.0,
                                   metrics=value_metrics)[0])
    return {m: out[m] for m in metrics}


def _split_values(sp: SplitData, pools: np.ndarray, choices: Sequence[Mapping[str, Choice]], a_priori: Sequence[str],
                  score_aware: Sequence[str], reg_subsets: Sequence[np.ndarray], ks: np.ndarray,
                  metrics: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """Every entry's metric values (T, K) on one split's held-out models."""
    table = sp.held
    rows = table.rows[pools]  # (T, n_pool, W)
    t, nk = pools.shape[0], len(ks)
    keys: list[str] = []
    sums: list[np.ndarray] = []
    for key in a_priori:
        keys.append(key)
        sums.append(np.stack([choices[i][key].sums(rows[i], ks) for i in range(t)]))
    for name in score_aware:
        if REGISTRY[name].nested:
            keys.append(name)
            sums.append(_nested_sums(rows, sp.orders(name, pools, int(ks[-1])), ks))
    out: dict[str, dict[str, np.ndarray]] = {}
    ref = np.tile(table.reference(), (t, 1))
    per = max(1, _BLOCK // max(1, t * nk * rows.shape[2]))
    for lo in range(0, len(keys), per):
        group = keys[lo:lo + per]
        values, _ = table.agreement(ref, np.concatenate(sums[lo:lo + per], axis=1), ref_count=table.n_datasets,
                                    sub_count=np.tile(ks, len(group)), metrics=metrics)
        for gi, key in enumerate(group):
            out[key] = {m: np.ascontiguousarray(v[:, gi * nk:(gi + 1) * nk]) for m, v in values.items()}
    for name in score_aware:
        if REGISTRY[name].predicts:
            out[name] = _regression(sp, pools, reg_subsets, metrics)
    return out


def evaluate_headroom(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig | None = None,
    *,
    splits: int = SPLITS,
    fraction: float = FRACTION,
    release_dates: Mapping[str, object] | None = None,
    score_aware: Sequence[str] = SCORE_AWARE,
    judges: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> HeadroomResult:
    """Every strategy on held-out models: the a-priori ones of ``config`` and the score-aware ones.

    Parameters
    ----------
    benchmark : Benchmark
    representations : Representation, sequence or mapping name → Representation
        Of the a-priori strategies.
    config : EvaluationConfig, optional
        A-priori strategies, trials per split, α, k range, seed, metrics (β must be 1).
        Default: the protocol's defaults with :data:`TRIALS` trials.
    splits : int
        Random splits (ignored with ``release_dates``: the newest models make one split).
    fraction : float
        Share of the models held out.
    release_dates : mapping model → date, optional
        Hold out the newest ``fraction`` of the models.
    score_aware : sequence of str
        The score-aware strategies to run (default: all).
    judges : int, optional
        Keep only this many of each split's judging models (drawn from the split's own stream,
        ``(17, 4, s)``); the held-out models stay the same, so the price can be read against the
        number of judging models alone (:func:`price_by_judges`).
    progress : callable, optional
        ``progress(done, total, what)``: trials selected, then splits scored.
    should_stop : callable, optional
        Polled between steps; a stopped run raises :class:`~subsetsel_core.errors.Cancelled`.

    Raises
    ------
    InputError
        Bad settings (as :func:`~subsetsel_core.evaluation.protocol.prepare`, plus β ≠ 1, the
        split), or a score-aware strategy among the a-priori ones.
    """
    cfg = config or EvaluationConfig(trials=TRIALS)
    score_aware = tuple(score_aware)
    _check(cfg, splits, fraction, score_aware)
    ctx = prepare(benchmark, representations, cfg)
    parts, how = model_splits(benchmark, splits=splits, fraction=fraction, seed=cfg.seed, release_dates=release_dates)
    if judges is not None:
        parts, how = _fewer_judges(parts, judges, cfg.seed), f"{how}, {judges} of the other models judging"
    t_count, ks = cfg.trials, ctx.ks
    total = t_count + len(parts)

    def step(done: int, what: str) -> None:
        if progress is not None:
            progress(done, total, what)
        if should_stop is not None and done < total and should_stop():
            raise Cancelled("the headroom run was stopped before it finished.")

    with one_blas_thread():
        pools = np.stack([trial_pool(ctx, t)[0] for t in range(t_count)])
        choices = []
        for t in range(t_count):
            choices.append(trial_choices(ctx, t, pools[t]))
            step(t + 1, "choosing the a-priori subsets")
        gens = [trial_rng(cfg.seed, HEADROOM_STREAM, 1, stream_key(REGRESSION.name), t) for t in range(t_count)]
        reg_subsets = [np.stack([g.choice(ctx.n_pool, int(k), replace=False) for g in gens]) for k in ks]
        a_priori = [e.key for e in ctx.entries]
        index = {m: i for i, m in enumerate(benchmark.models)}
        values: dict[str, dict[str, list[np.ndarray]]] = {}
        for s, part in enumerate(parts):
            judge = np.array([index[m] for m in part.judge])
            held = np.array([index[m] for m in part.held_out])
            sp = SplitData(benchmark.scores, benchmark.higher_is_better, ctx.table.partial, judge, held)
            for key, mv in _split_values(sp, pools, choices, a_priori, score_aware, reg_subsets, ks,
                                         cfg.metrics).items():
                for m, v in mv.items():
                    values.setdefault(key, {}).setdefault(m, []).append(v)
            step(t_count + s + 1, f"scoring on held-out models, split {s + 1} of {len(parts)}")
    entries = tuple([HeadroomEntry(e.key, e.strategy, e.representation, False) for e in ctx.entries]
                    + [HeadroomEntry(s, s, None, True) for s in score_aware])
    stacked = {e.key: {m: np.stack(values[e.key][m]) for m in cfg.metrics} for e in entries}
    info = {"benchmark": benchmark.name, "n_datasets": benchmark.n_datasets, "n_models": benchmark.n_models,
            "pool_datasets": ctx.n_pool, "representations": list(ctx.X), "split": "newest" if release_dates else
            "random", "fraction": fraction, "partial": ctx.table.partial}
    return HeadroomResult(cfg, ks, entries, stacked, tuple(parts), how, info)
