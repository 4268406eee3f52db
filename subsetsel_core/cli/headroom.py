"""Command line: ``subsetsel headroom`` — the price of a-priori selection.

Score-aware strategies (clearly labelled upper bounds, never offered for a selection) choose
from the judging models' scores; every strategy, a-priori ones included, is scored on models
that were held out (PROTOCOL.md, "Score-aware selection").
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import option, output_path, readable
from subsetsel_core.errors import InputError
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.strategies import REGISTRY, SCORE_AWARE, STRATEGIES
from subsetsel_core.text import strict_json
from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    from subsetsel_core.evaluation.headroom_result import HeadroomResult


def add_headroom_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel headroom`` (data, representation and protocol as for ``evaluate``)."""
    D.add_data_args(p)
    D.add_representation_args(p)
    option(p, "strategies", help=f"a-priori strategies, of {', '.join(STRATEGIES)} (default: all); the score-aware "
                                 f"ones ({', '.join(SCORE_AWARE)}) always run")
    option(p, "headroom_trials", dest="trials")
    for name in ("alpha", "k_min", "k_max", "seed"):
        option(p, name)
    g = p.add_argument_group("the models held out")
    option(g, "splits")
    option(g, "held_out", dest="fraction")
    g.add_argument("--newest", action="store_true",
                   help="hold out the newest models by release date (--model-dates, or the score table's release "
                        "column)")
    g.add_argument("--model-dates", metavar="FILE", help="table with model and release date columns")
    g.add_argument("--date-column", default=None, help="default: release_date, date, released or release")
    option(p, "metric", help="of the ranking, the table and the price (the JSON has every metric)")
    p.add_argument("--out", type=output_path, metavar="headroom.json", help="write JSON here")


def _dates(args: argparse.Namespace, data: D.Data) -> dict[str, Any] | None:
    if not args.newest:
        if args.model_dates:
            raise InputError("--model-dates is used with --newest (hold out the newest models).",
                             field="release_dates")
        return None
    if args.model_dates:
        from subsetsel_core.evaluation.generalisation import read_release_dates

        return dict(read_release_dates(readable(args.model_dates), data.benchmark.models,
                                       date_column=args.date_column, label=Path(args.model_dates).name))
    if data.model_dates:
        return dict(data.model_dates)
    raise InputError("--newest needs model release dates: this benchmark's files have none. Give a table of model "
                     "and release_date with --model-dates FILE, or drop --newest to hold out random halves.",
                     field="release_dates")


def format_headroom(res: HeadroomResult, metric: str) -> str:
    """The table (rank, strategy, score-aware, AUC on held-out models with its interval) and the price."""
    c = res.config
    better = "higher" if METRICS[metric].higher_is_better else "lower"
    lines = [
        f"benchmark {res.info.get('benchmark')}: {res.info.get('n_datasets')} datasets, {res.info.get('n_models')} "
        f"models; {c.trials} trials × {len(res.splits)} split(s), α = {c.alpha:g} (pools of "
        f"{res.info.get('pool_datasets')} datasets), k = {int(res.ks[0])}…{int(res.ks[-1])}, seed {c.seed}",
        f"held-out models: {res.how}. Score-aware strategies see the judging models' scores only; every strategy is "
        "scored on the held-out models' ranking (reference: all datasets).",
        "",
        f"{METRICS[metric].label} AUC on held-out models ({better} is better): mean [2.5 %, 97.5 %] over splits × trials",
    ]
    width = max(len(k) for k in res.keys) + 2
    lines.append(f"  {'rank':>4}  {'strategy':<{width}} {'score-aware':<38} {'AUC':>9}  interval")
    for key in res.ranking(metric):
        a = res.auc(key, metric)
        aware = "yes (fitted to today's models)" if res.entry(key).score_aware else "no"
        lines.append(f"  {res.rank(key, metric):>4}  {key:<{width}} {aware:<38} {text(a.mean, 'auc'):>9}  "
                     f"[{text(a.lo, 'auc')}, {text(a.hi, 'auc')}]")
    p = res.price(metric)
    ci = (f"95 % CI of the mean [{text(p.ci_lo, 'gain')}, {text(p.ci_hi, 'gain')}]" if np.isfinite(p.ci_lo)
          else "no CI from one value")
    lines += ["", f"price of a-priori selection ({METRICS[metric].label} AUC, {p.best_score_aware} − "
                  f"{p.best_a_priori}), {res.judging_models} judging models: {text(p.mean, 'gain')}; {ci}; spread of "
                  f"the {p.over}' prices (2.5–97.5 %) [{text(p.lo, 'gain')}, {text(p.hi, 'gain')}]",
              res.sentence(metric)]
    return "\n".join(lines) + "\n"


def cmd_headroom(args: argparse.Namespace) -> int:
    """``subsetsel headroom``: every strategy on held-out models, and the price of a-priori selection."""
    from subsetsel_core.evaluation.headroom import evaluate_headroom
    from subsetsel_core.evaluation.result import EvaluationConfig

    aware = [s for s in args.strategies if s in SCORE_AWARE]
    if aware:
        raise InputError(f"'{aware[0]}' is score-aware: the score-aware strategies always run here; list only "
                         f"a-priori strategies in --strategies ({', '.join(STRATEGIES)}).", field="strategy")
    bad = [s for s in args.strategies if s not in REGISTRY]
    if bad:
        raise InputError(f"unknown strategy '{bad[0]}'; the strategies are {', '.join(STRATEGIES)}.",
                         field="strategy")
    data = D.load(args, D.requested_tables(args))
    D.warn(data.benchmark.report)
    reps = [rep for _, rep in D.representations(args, data, args.seed)]
    if not reps and any(REGISTRY[s].uses_features for s in args.strategies):
        raise D.no_descriptors("headroom")
    dates = _dates(args, data)
    cfg = EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha,
                           k_min=args.k_min, k_max=args.k_max, seed=args.seed)
    res = evaluate_headroom(data.benchmark, reps, cfg, splits=args.splits, fraction=args.fraction,
                            release_dates=dates)
    if args.out:
        D.write(strict_json.dumps(res.to_json(args.metric), indent=1, ensure_ascii=True) + "\n", args.out)
        D.say(f"wrote {args.out}", err=True)
    else:
        D.write(format_headroom(res, args.metric), None)
    return 0
