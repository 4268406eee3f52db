"""Command line: ``subsetsel theory`` — the GP prediction of every strategy's curve and FAFI's coverage bound,
next to what is observed on the protocol's subsets."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import names, option, output_path
from subsetsel_core.errors import InputError
from subsetsel_core.strategies import COVERING
from subsetsel_core.strategies import STRATEGIES as ALL_STRATEGIES
from subsetsel_core.text import strict_json
from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    from subsetsel_core.evaluation.theory import Theory

#: Strategies the bound is computed for (as :data:`subsetsel_core.evaluation.theory.THEORY_STRATEGIES`).
STRATEGIES = COVERING


def add_theory_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel theory`` (data and representation as for ``evaluate``)."""
    D.add_data_args(p)
    D.add_representation_args(p)
    p.add_argument("--strategy", choices=STRATEGIES, default=STRATEGIES[0],
                   help="whose first k datasets give the covering radius h_k (default: %(default)s)")
    p.add_argument("--strategies", type=names, default=list(ALL_STRATEGIES), metavar="S1,S2",
                   help=f"strategies to predict, of {', '.join(ALL_STRATEGIES)} (default: all; random always)")
    option(p, "trials", help="trials of the protocol behind the observed share")
    option(p, "alpha", help="dataset-pool fraction α of the observed subsets")
    for name in ("k_min", "k_max", "seed"):
        option(p, name)
    p.add_argument("--out", type=output_path, metavar="theory.json", help="write JSON here")



def format_theory(th: Theory, benchmark: str) -> str:
    """The fit, the GP prediction per strategy and k next to the observed share, then FAFI's coverage bound."""
    from subsetsel_core.evaluation.prediction_text import percent

    f = th.fit
    lines = [
        f"{th.representation} ({benchmark}): the GP model of the standardized scores over the descriptors, "
        f"{th.observed.shape[0]} of the protocol's pools",
        f"GP fit (every model centred, hyperparameters shared): lengthscale ℓ = {text(f.lengthscale, 'parameter')}, "
        f"signal variance σ² = {text(f.signal_variance, 'parameter')}, noise variance τ² = "
        f"{text(f.noise_variance, 'parameter')} (log marginal likelihood {text(f.log_likelihood, 'statistic')})",
        f"typical nearest-neighbour distance {text(th.nn_distance, 'distance')}; largest distance "
        f"{text(th.diameter, 'distance')}",
    ]
    pred = th.prediction
    if pred is not None:
        from subsetsel_core.evaluation.prediction_text import summary

        names = list(pred.strategies)
        lines += ["", "GP prediction of the protocol's estimator: model pairs inverted (%), predicted / observed "
                      "(mean over pools)", f"{'k':>4} " + " ".join(f"{s:>15}" for s in names)]
        obs = {s: pred.observed_curve(s) for s in names}
        for i, k in enumerate(pred.ks):
            cells = []
            for s in names:
                o = obs[s]
                cells.append(f"{percent(pred.curve(s)[i]) + ' / ' + ('—' if o is None else percent(o[i])):>15}")
            lines.append(f"{int(k):>4} " + " ".join(cells))
        lines += ["predicted band (2.5–97.5 % over pools) at k = " + str(int(pred.ks[-1])) + ": " + "; ".join(
            f"{s} [{percent(pred.band(s)[0][-1])}, {percent(pred.band(s)[1][-1])}]" for s in names), "", summary(pred)]
    lo, hi = th.observed_band
    lines += ["", f"Coverage bound for {th.strategy} (an upper bound under the same model: the worst dataset, its "
                  "nearest chosen one)",
              f"{'k':>4} {'h_k':>9} {'V(h_k)':>8} {'bound':>8} {'observed':>9}  [2.5 %, 97.5 %]"]
    for i, k in enumerate(th.ks):
        lines.append(f"{int(k):>4} {text(th.covering_radius[i], 'distance'):>9} "
                     f"{text(th.variance_bound[i], 'parameter'):>8} {percent(th.predicted[i]):>8} "
                     f"{percent(th.observed_mean[i]):>9}  [{percent(lo[i])}, {percent(hi[i])}]")
    lines += ["", th.sentence()]
    return "\n".join(lines) + "\n"


def cmd_theory(args: argparse.Namespace) -> int:
    """``subsetsel theory``: ℓ, σ², τ², the nn distance, per strategy and k the predicted and observed shares, and
    FAFI's coverage bound (h_k, V(h_k), bound)."""
    from subsetsel_core.evaluation.result import EvaluationConfig
    from subsetsel_core.evaluation.theory import coverage_theory

    data = D.load(args, D.requested_tables(args))
    D.warn(data.benchmark.report)
    reps = [rep for _, rep in D.representations(args, data, args.seed)]
    if not reps:
        raise InputError("theory needs descriptors: the bound is written in their geometry.", field="descriptor_file")
    if len(reps) > 1:
        raise InputError("theory takes one representation; run it once per representation.",
                         field="representation")
    cfg = EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha,
                           k_min=args.k_min, k_max=args.k_max, seed=args.seed)
    th = coverage_theory(data.benchmark, reps[0], cfg, strategy=args.strategy)
    if args.out:
        D.write(strict_json.dumps({"benchmark": data.benchmark.name, **th.to_json_dict()}, indent=1, ensure_ascii=True)
                + "\n", args.out)
        D.say(f"wrote {args.out}", err=True)
    else:
        D.write(format_theory(th, data.benchmark.name), None)
    return 0
