"""How long the six-strategy verdict takes: the protocol plus its permutation test, serially.

On the TSC sample (112 datasets × 40 classifiers × 30 resamples, representation ``ucr_info``):
all six strategies, T = 50 trials, α = 0.8, k = 2…20, Spearman, then the permutation test
with up to B shuffles (early stop after 10 exceedances), serially in one process. Prints
the wall time of each part, how many shuffles each entry drew, and the verdict lines.
Nothing is asserted; other processes slow every figure down (the load average is printed).

Usage::

    python benchmarks/bench_permutation.py [--permutations 99] [--trials 50] [--representation ucr_info]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from subsetsel_core.evaluation.parallel import process_mapper
from subsetsel_core.evaluation.permutation import permutation_test
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.loading.folder import load_benchmark_folder

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    """Time the verdict and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=99)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--representation", default="ucr_info")
    ap.add_argument("--sample", default="tsc_bakeoff")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (1: serial, the figure asked for)")
    args = ap.parse_args(argv)
    loaded = load_benchmark_folder(ROOT / "sample_data" / args.sample)
    bench, rep = loaded.benchmark, loaded.representation(args.representation)
    mapper = process_mapper(args.jobs) if args.jobs > 1 else None
    cfg = EvaluationConfig(trials=args.trials, metrics=("spearman",),
                           batch_size=args.trials if mapper is None else max(1, args.trials // (2 * args.jobs)))
    print(f"{args.sample}: {bench.n_datasets} datasets × {bench.n_models} models × {bench.n_folds} folds; "
          f"'{rep.name}' ({rep.X.shape[1]} columns); six strategies, T = {args.trials}, B ≤ {args.permutations}, "
          f"early stop after 10, {'serial' if mapper is None else f'{args.jobs} processes'}; load {os.getloadavg()[0]:.2f}")
    c0, t0 = time.process_time(), time.perf_counter()
    res = evaluate(bench, rep, cfg, mapper=mapper)
    t1 = time.perf_counter()
    pt = permutation_test(bench, rep, cfg, permutations=args.permutations, observed=res, mapper=mapper)
    c2, t2 = time.process_time(), time.perf_counter()
    print(f"protocol {t1 - t0:.1f} s; permutation test {t2 - t1:.1f} s ({pt.drawn} shuffles at most, "
          f"{(t2 - t1) / max(1, pt.drawn):.2f} s per shuffle); verdict in {t2 - t0:.1f} s in all; "
          f"load {os.getloadavg()[0]:.2f}")
    if mapper is None:
        print(f"CPU time of this process: {c2 - c0:.1f} s (what the wall time is on an idle machine)")
    for k in pt.keys:
        print(f"  {pt.verdict(k)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
