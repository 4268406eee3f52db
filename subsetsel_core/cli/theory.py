"""Command line: ``subsetsel theory`` — FAFI's coverage bound under a GP model, next to what is observed."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import option, output_path
from subsetsel_core.errors import InputError
from subsetsel_core.strategies import COVERING

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
    option(p, "trials", help="trials of the protocol behind the observed share")
    option(p, "alpha", help="dataset-pool fraction α of the observed subsets")
    for name in ("k_min", "k_max", "seed"):
        option(p, name)
    p.add_argument("--out", type=output_path, metavar="theory.json", help="write JSON here")


def format_theory(th: Theory, benchmark: str) -> str:
    """The fit, the distances and one line per k: h_k, V(h_k), predicted and observed inverted share."""
    f = th.fit
    lo, hi = th.observed_band
    lines = [
        f"{th.strategy} on {th.representation} ({benchmark}); observed: the protocol's subsets over "
        f"{th.observed.shape[0]} trials",
        f"GP fit (all models, shared): lengthscale ℓ = {f.lengthscale:.4g}, signal variance σ² = "
        f"{f.signal_variance:.4g}, noise variance τ² = {f.noise_variance:.4g} (log marginal likelihood "
        f"{f.log_likelihood:.1f})",
        f"typical nearest-neighbour distance {th.nn_distance:.4g}; largest distance {th.diameter:.4g}",
        "",
        f"{'k':>4} {'h_k':>9} {'V(h_k)':>8} {'predicted':>10} {'observed':>9}  [2.5 %, 97.5 %]",
    ]
    for i, k in enumerate(th.ks):
        lines.append(f"{int(k):>4} {th.covering_radius[i]:>9.4g} {th.variance_bound[i]:>8.4f} "
                     f"{100 * th.predicted[i]:>9.1f}% {100 * th.observed_mean[i]:>8.1f}%  "
                     f"[{100 * lo[i]:.1f}, {100 * hi[i]:.1f}]")
    lines += ["", th.sentence()]
    return "\n".join(lines) + "\n"


def cmd_theory(args: argparse.Namespace) -> int:
    """``subsetsel theory``: ℓ, σ², τ², the nn distance and, per k, h_k, V(h_k), predicted and observed shares."""
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
    cfg = EvaluationConfig(strategies=(args.strategy,), trials=args.trials, alpha=args.alpha,
                           k_min=args.k_min, k_max=args.k_max, seed=args.seed)
    th = coverage_theory(data.benchmark, reps[0], cfg, strategy=args.strategy)
    if args.out:
        D.write(json.dumps({"benchmark": data.benchmark.name, **th.to_json_dict()}, indent=1) + "\n", args.out)
        D.say(f"wrote {args.out}", err=True)
    else:
        D.write(format_theory(th, data.benchmark.name), None)
    return 0
