"""Command line: ``subsetsel evaluate | check | advise | generalise``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from subsetsel_core import cli_data as D
from subsetsel_core.cli_args import readable
from subsetsel_core.errors import InputError

if TYPE_CHECKING:
    from subsetsel_core.descriptors import Representation
    from subsetsel_core.evaluation.permutation import PermutationTest
    from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult
    from subsetsel_core.evaluation.stability import Stability


def _config(args: argparse.Namespace, **extra: Any) -> EvaluationConfig:
    from subsetsel_core.evaluation.result import EvaluationConfig

    return EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha, k_min=args.k_min,
                            k_max=args.k_max, seed=args.seed, **extra)


def _mapper(args: argparse.Namespace) -> Any:
    from subsetsel_core.evaluation.parallel import dask_mapper, process_mapper

    if getattr(args, "scheduler", None):
        return dask_mapper(args.scheduler)
    return process_mapper(args.jobs) if args.jobs != 1 else None


def _data(args: argparse.Namespace, *, tables: bool = True) -> tuple[D.Data, list[Representation]]:
    data = D.load(args, D.requested_tables(args) if tables else None)
    D.warn(data.benchmark.report)
    return data, [rep for _, rep in D.representations(args, data, args.seed)]


def _check_names(args: argparse.Namespace) -> None:
    from subsetsel_core.metrics import METRICS
    from subsetsel_core.strategies import REGISTRY

    bad = [s for s in args.strategies if s not in REGISTRY]
    if bad:
        raise InputError(f"unknown strategy '{bad[0]}'; the strategies are {', '.join(REGISTRY)}.", field="strategy")
    bad = [m for m in getattr(args, "metrics", ()) if m not in METRICS]
    if bad:
        raise InputError(f"unknown metric '{bad[0]}'; the metrics are {', '.join(METRICS)}.", field="metric")


def format_table(res: EvaluationResult, permutation: PermutationTest | None = None,
                 stability: Stability | None = None) -> str:
    """Readable AUC table (one block per metric), each metric's verdict and the ceiling."""
    from subsetsel_core.evaluation.permutation import p_phrase
    from subsetsel_core.evaluation.verdict import NOT_TESTED, evaluation_verdict, settings_label
    from subsetsel_core.metrics import METRICS

    lines = [
        f"benchmark {res.info.get('benchmark')}: {res.info.get('n_datasets')} datasets, "
        f"{res.info.get('n_models')} models; {settings_label(res)}, pools of {res.info.get('pool_datasets')} datasets",
        "AUC = trapezoid over k (mean ± std [2.5%, 97.5%]); p = one-sided Wilcoxon vs random on these pools, "
        "Holm-corrected" + ("" if permutation is not None else f" ({NOT_TESTED})"),
    ]
    if permutation is not None:
        lines.append(permutation.describe())
    width = max(len(k) for k in res.keys) + 2
    fr = res.friedman()
    for m in res.config.metrics:
        better = "higher" if METRICS[m].higher_is_better else "lower"
        fp = fr.get(m)
        lines.append("")
        lines.append(f"{METRICS[m].label} ({better} is better)" + (f"; Friedman {p_phrase(fp)}" if fp is not None else ""))
        for e in res.entries:
            a = res.stats[e.key].auc[m]
            p = res.stats[e.key].p_vs_random.get(m)
            ptxt = "" if e.strategy == "random" else f"  {p_phrase(p)} vs random on these pools"
            if permutation is not None and e.key in permutation.gain:
                ptxt += f"; permutation test {p_phrase(permutation.p_holm[e.key][m])}"
            lines.append(f"  {e.key:<{width}} {a.mean:9.3f} ± {a.std:7.3f}  [{a.lo:.3f}, {a.hi:.3f}]{ptxt}")
        if stability is not None and m in stability.bands:
            b = stability.bands[m]
            lines.append(f"  full benchmark's own stability: {b.mean:.3f} [{b.lo:.3f}, {b.hi:.3f}] per k")
        lines.append("  verdict: " + evaluation_verdict(res, permutation, m).text)
    if stability is not None:
        lines.append("")
        lines.append(f"ceiling ({stability.describe()}): {stability.summary()}")
    return "\n".join(lines) + "\n"


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``subsetsel evaluate``: curves, AUC, tests against random, the permutation test and the ceiling."""
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.stability import full_stability
    from subsetsel_core.evaluation.summary import evaluation_json

    _check_names(args)
    data, reps = _data(args, tables=args.budget is None)
    if not reps and any(s != "random" for s in args.strategies):
        raise InputError("evaluate needs descriptors for strategies other than random.", field="descriptor_file")
    cfg = _config(args, beta=args.model_fraction, metrics=tuple(args.metrics))
    if args.budget is not None:
        return _evaluate_budget(args, data, reps, cfg)
    if args.permutation_trials is not None and args.permutation_trials > cfg.trials:
        raise InputError(f"--permutation-trials {args.permutation_trials} exceeds --trials {cfg.trials}.",
                         field="permutations")
    mapper = _mapper(args)
    res = evaluate(data.benchmark, reps, cfg, mapper=mapper)
    permutation = _permutation(args, data, reps, res, mapper) if args.permutations else None
    stability = full_stability(data.benchmark, resamples=args.resamples, seed=cfg.seed, metrics=cfg.metrics)
    if args.out:
        D.write(json.dumps(evaluation_json(res, permutation, stability), indent=1) + "\n", args.out)
        D.say(f"wrote {args.out}", err=True)
    else:
        D.write(format_table(res, permutation, stability), None)
    return 0


def _permutation(args: argparse.Namespace, data: D.Data, reps: list[Representation], res: EvaluationResult,
                 mapper: Any) -> PermutationTest:
    from subsetsel_core.evaluation.permutation import (
        LEVEL,
        permutation_test,
        permutations_needed,
        smallest_p,
    )

    entries = len(res.entries) - 1
    low = smallest_p(entries, args.permutations)
    if low >= LEVEL:
        D.say(f"note: with {entries} entries and --permutations {args.permutations} the smallest possible Holm-"
              f"adjusted p is {low:.3f}, so no entry can be shown to help at 5 %; use --permutations "
              f"{permutations_needed(entries)} or more.", err=True)
    metric = "spearman" if "spearman" in res.config.metrics else res.config.metrics[0]
    return permutation_test(data.benchmark, reps, res.config, permutations=args.permutations,
                            trials=args.permutation_trials, observed=res, verdict_metric=metric, mapper=mapper,
                            progress=_progress("permutation test"))


def _progress(what: str) -> Any:
    """A progress callback writing ``what: 42 %`` to standard error when it is a terminal."""
    if not sys.stderr.isatty():
        return None
    last = [-1]

    def show(fraction: float) -> None:
        pct = int(100 * fraction)
        if pct != last[0]:
            last[0] = pct
            sys.stderr.write(f"\r{what}: {pct:3d} %" + ("\n" if pct >= 100 else ""))
            sys.stderr.flush()

    return show


def _evaluate_budget(args: argparse.Namespace, data: D.Data, reps: list[Representation],
                     cfg: EvaluationConfig) -> int:
    import numpy as np

    from subsetsel_core.costs import dataset_costs
    from subsetsel_core.evaluation.budget import evaluate_budget
    from subsetsel_core.metrics import METRICS
    from subsetsel_core.safe_csv import csv_text
    from subsetsel_core.strategies import BUDGET_STRATEGIES

    if len(reps) != 1:
        raise InputError("budget curves use one representation; name one.", field="representation")
    costs = dataset_costs(data.benchmark, data.descriptors, data.specs, args.cost_column)
    strategies = [s for s in cfg.strategies if s in BUDGET_STRATEGIES]
    levels = [float(b) for b in np.round(np.linspace(args.budget / 15, args.budget, 15), 4)]
    res = evaluate_budget(data.benchmark, reps[0], costs.values, budgets=levels, strategies=strategies,
                          trials=cfg.trials, alpha=cfg.alpha, seed=cfg.seed, metrics=cfg.metrics, how=costs.how)
    frame = res.to_frame()
    if args.out:
        D.write(csv_text(frame), args.out)
        D.say(f"wrote {args.out}", err=True)
        return 0
    m = cfg.metrics[0]
    piv = frame[frame["metric"] == m].pivot(index="budget", columns="key", values="mean")
    lines = [f"costs {costs.how}", f"{METRICS[m].label} (mean over trials) by budget share:",
             piv.to_string(float_format=lambda v: f"{v:.3f}")]
    for e in res.entries:
        p = res.stats[e.key].p_vs_random.get(m)
        tail = "" if e.strategy == "random" or p is None else f", p vs random = {p:.3g}"
        lines.append(f"  {e.key}: AUC {res.stats[e.key].auc[m].mean:.3f}{tail}")
    D.say("\n".join(lines))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``subsetsel check``: Mantel test, CKA, a quick protocol run and its permutation test per representation."""
    from subsetsel_core.evaluation.check import MANTEL_PERMUTATIONS
    from subsetsel_core.evaluation.permutation import p_phrase
    from subsetsel_core.evaluation.quick import CHECK_PERMUTATIONS, quick_check

    data, reps = _data(args)
    if not reps:
        raise InputError("check needs descriptors.", field="descriptor_file")
    perms = CHECK_PERMUTATIONS if args.permutations is None else args.permutations
    mantel = MANTEL_PERMUTATIONS if args.mantel_permutations is None else args.mantel_permutations
    for rep in reps:
        qc = quick_check(data.benchmark, rep, trials=args.trials, seed=args.seed, permutations=perms,
                         mantel_permutations=mantel, progress=_progress(f"checking {rep.name}"))
        chk, pt = qc.check, qc.permutation
        lines = [f"{rep.name}: Mantel r = {chk.mantel_r:.3f} ({p_phrase(chk.mantel_p)}), CKA = {chk.cka:.3f}",
                 f"  {pt.describe()}"]
        lines += [f"  {pt.verdict(k)}" for k in pt.keys]
        if pt.smallest_p() >= 0.05:
            lines.append(f"  note: the smallest possible Holm-adjusted p is {pt.smallest_p():.3f} with B = {perms}; "
                         "raise --permutations to be able to see a help.")
        lines.append(f"  {qc.verdict}")
        D.say("\n".join(lines))
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """``subsetsel advise``: smallest k whose 95 % band meets the target."""
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.required_k import advise, within_ceiling
    from subsetsel_core.evaluation.stability import full_stability
    from subsetsel_core.metrics import METRICS

    _check_names(args)
    data, reps = _data(args)
    lo, hi = METRICS[args.metric].bounds(data.benchmark.n_models)
    if not lo <= args.target <= hi:
        raise InputError(f"the target {args.target:g} is outside the range of {METRICS[args.metric].label} "
                         f"({lo:g} to {hi:g}); give a --target in that range.")
    res = evaluate(data.benchmark, reps, _config(args), mapper=_mapper(args))
    band = full_stability(data.benchmark, seed=args.seed, metrics=(args.metric,)).bands[args.metric]
    for a in advise(res, metric=args.metric, target=args.target):
        k = within_ceiling(res, a.key, args.metric, (band.lo, band.hi))
        D.say(a.sentence(int(res.ks[-1])) + (f" Its mean is within the full benchmark's own stability "
                                            f"({band.lo:.3f}–{band.hi:.3f}) from k = {k}." if k is not None else ""))
    return 0


def cmd_generalise(args: argparse.Namespace) -> int:
    """``subsetsel generalise``: the protocol on judging vs held-out models."""
    from pathlib import Path

    from subsetsel_core.evaluation.generalisation import evaluate_generalisation, read_release_dates

    _check_names(args)
    data, reps = _data(args)
    dates = None
    if args.model_dates:
        dates = read_release_dates(readable(args.model_dates), data.benchmark.models, date_column=args.date_column,
                                   label=Path(args.model_dates).name)
    res = evaluate_generalisation(data.benchmark, reps, _config(args), new_models=args.new_models,
                                  release_dates=dates, fraction=args.fraction, seed=args.seed)
    D.say(res.to_frame(args.metric).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    D.say(res.verdict(args.metric))
    return 0
