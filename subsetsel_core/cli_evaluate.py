"""Command line: ``subsetsel evaluate | check | advise | generalise``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from subsetsel_core import cli_data as D
from subsetsel_core.errors import InputError

if TYPE_CHECKING:
    from subsetsel_core.descriptors import Representation
    from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult


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


def format_table(res: EvaluationResult) -> str:
    """Readable AUC table: one block per metric."""
    from subsetsel_core.metrics import METRICS

    lines = [
        f"benchmark {res.info.get('benchmark')}: {res.info.get('n_datasets')} datasets, "
        f"{res.info.get('n_models')} models; {res.trials_done} trials, pools of "
        f"{res.info.get('pool_datasets')} datasets, k = {res.ks[0]}…{res.ks[-1]}",
        "AUC = trapezoid over k (mean ± std [2.5%, 97.5%]); p = one-sided Wilcoxon vs random, Holm-corrected",
    ]
    width = max(len(k) for k in res.keys) + 2
    fr = res.friedman()
    for m in res.config.metrics:
        better = "higher" if METRICS[m].higher_is_better else "lower"
        fp = fr.get(m)
        lines.append("")
        lines.append(f"{METRICS[m].label} ({better} is better)" + (f"; Friedman p = {fp:.3g}" if fp is not None else ""))
        for e in res.entries:
            a = res.stats[e.key].auc[m]
            p = res.stats[e.key].p_vs_random.get(m)
            ptxt = "" if e.strategy == "random" else ("  p = n/a" if p is None else f"  p = {p:.3g}")
            lines.append(f"  {e.key:<{width}} {a.mean:9.3f} ± {a.std:7.3f}  [{a.lo:.3f}, {a.hi:.3f}]{ptxt}")
    return "\n".join(lines) + "\n"


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``subsetsel evaluate``: curves, AUC and tests against random (or budget curves)."""
    from subsetsel_core.evaluation.protocol import evaluate

    _check_names(args)
    data, reps = _data(args, tables=args.budget is None)
    if not reps and any(s != "random" for s in args.strategies):
        raise InputError("evaluate needs descriptors for strategies other than random.", field="descriptor_file")
    cfg = _config(args, beta=args.model_fraction, metrics=tuple(args.metrics))
    if args.budget is not None:
        return _evaluate_budget(args, data, reps, cfg)
    res = evaluate(data.benchmark, reps, cfg, mapper=_mapper(args))
    if args.out:
        D.write(json.dumps(res.to_json_dict(), indent=1) + "\n", args.out)
        sys.stderr.write(f"wrote {args.out}\n")
    else:
        D.write(format_table(res), None)
    return 0


def _evaluate_budget(args: argparse.Namespace, data: D.Data, reps: list[Representation],
                     cfg: EvaluationConfig) -> int:
    import numpy as np

    from subsetsel_core.costs import dataset_costs
    from subsetsel_core.evaluation.budget import evaluate_budget
    from subsetsel_core.metrics import METRICS
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
        D.write(frame.to_csv(index=False), args.out)
        sys.stderr.write(f"wrote {args.out}\n")
        return 0
    m = cfg.metrics[0]
    piv = frame[frame["metric"] == m].pivot(index="budget", columns="key", values="mean")
    lines = [f"costs {costs.how}", f"{METRICS[m].label} (mean over trials) by budget share:",
             piv.to_string(float_format=lambda v: f"{v:.3f}")]
    for e in res.entries:
        p = res.stats[e.key].p_vs_random.get(m)
        tail = "" if e.strategy == "random" or p is None else f", p vs random = {p:.3g}"
        lines.append(f"  {e.key}: AUC {res.stats[e.key].auc[m].mean:.3f}{tail}")
    D.write("\n".join(lines) + "\n", None)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``subsetsel check``: Mantel test, CKA and a quick protocol run per representation."""
    from subsetsel_core.evaluation.check import PERMUTATIONS, quick_check

    data, reps = _data(args)
    if not reps:
        raise InputError("check needs descriptors.", field="descriptor_file")
    perms = PERMUTATIONS if args.permutations is None else args.permutations
    for rep in reps:
        qc = quick_check(data.benchmark, rep, trials=args.trials, seed=args.seed, permutations=perms)
        chk = qc.check
        sys.stdout.write(
            f"{rep.name}: Mantel r = {chk.mantel_r:.3f} (p = {chk.mantel_p:.3g}), CKA = {chk.cka:.3f}; "
            f"quick run ({args.trials} trials): best {qc.best}, Spearman AUC {qc.gain:+.3f} vs random"
            f"{'' if qc.p is None else f' (p = {qc.p:.3g})'}\n  {qc.verdict}\n")
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """``subsetsel advise``: smallest k whose 95 % band meets the target."""
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.required_k import advise

    _check_names(args)
    data, reps = _data(args)
    res = evaluate(data.benchmark, reps, _config(args), mapper=_mapper(args))
    for a in advise(res, metric=args.metric, target=args.target):
        sys.stdout.write(a.sentence(int(res.ks[-1])) + "\n")
    return 0


def cmd_generalise(args: argparse.Namespace) -> int:
    """``subsetsel generalise``: the protocol on judging vs held-out models."""
    from pathlib import Path

    from subsetsel_core.evaluation.generalisation import evaluate_generalisation, read_release_dates

    _check_names(args)
    data, reps = _data(args)
    dates = None
    if args.model_dates:
        dates = read_release_dates(Path(args.model_dates), data.benchmark.models, date_column=args.date_column)
    res = evaluate_generalisation(data.benchmark, reps, _config(args), new_models=args.new_models,
                                  release_dates=dates, fraction=args.fraction, seed=args.seed)
    sys.stdout.write(res.to_frame(args.metric).to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n")
    sys.stdout.write(res.verdict(args.metric) + "\n")
    return 0
