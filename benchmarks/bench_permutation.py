"""How long the six-strategy verdict takes, against one straightforward protocol run, in the same run.

On the TSC sample (112 datasets × 40 classifiers × 30 resamples, representation ``ucr_info``):

1. the reference: ``benchmarks/naive_protocol.py``'s straightforward loop (numpy / scipy /
   scikit-learn, one Python loop over trials and k), random only, T = 200;
2. the verdict as the dashboard and ``subsetsel evaluate`` compute it by default: all six
   strategies, T = 50, α = 0.8, k = 2…20, Spearman, then the permutation test (B = 199,
   T′ = 50, maxT over the family, sequential stop after 10) with its shuffles in two worker
   processes;
3. optionally (``--serial``) the same test in this process alone.

Prints the wall times, the ratio verdict / reference (the target is at most 2) and the
verdict lines. Nothing is asserted; other processes slow every figure down (the load average
is printed; the ratio is taken in one run, so both sides see the same machine).

Usage::

    python benchmarks/bench_permutation.py [--permutations 199] [--trials 50] [--jobs 2] [--serial]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from subsetsel_core.evaluation.permutation import permutation_test
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.loading.folder import load_benchmark_folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from naive_protocol import naive_evaluate  # noqa: E402


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Time the reference and the verdict and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--reference-trials", type=int, default=200)
    ap.add_argument("--representation", default="ucr_info")
    ap.add_argument("--sample", default="tsc_bakeoff")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes of the shuffles")
    ap.add_argument("--serial", action="store_true", help="also time the test in this process alone")
    args = ap.parse_args(argv)
    loaded = load_benchmark_folder(ROOT / "sample_data" / args.sample)
    bench, rep = loaded.benchmark, loaded.representation(args.representation)
    print(f"{args.sample}: {bench.n_datasets} datasets × {bench.n_models} models × {bench.n_folds} folds; "
          f"'{rep.name}' ({rep.X.shape[1]} columns); {_load()}")

    t0 = time.perf_counter()
    naive_evaluate(bench.scores, bench.higher_is_better, rep.X, ["random"], trials=args.reference_trials)
    ref = time.perf_counter() - t0
    print(f"reference: straightforward loop, random only, T = {args.reference_trials}: {ref:.1f} s; {_load()}")

    cfg = EvaluationConfig(trials=args.trials, metrics=("spearman",), batch_size=args.trials)
    t0 = time.perf_counter()
    res = evaluate(bench, rep, cfg)
    t1 = time.perf_counter()
    pt = permutation_test(bench, rep, cfg, permutations=args.permutations, observed=res, jobs=args.jobs)
    t2 = time.perf_counter()
    print(f"verdict: six strategies, T = {args.trials}, B ≤ {args.permutations}, {args.jobs} worker processes: "
          f"protocol {t1 - t0:.1f} s, permutation test {t2 - t1:.1f} s ({pt.drawn} shuffles"
          f"{', sequential stop' if pt.stopped.get('spearman') else ''}; {(t2 - t1) / max(1, pt.drawn):.2f} s per "
          f"shuffle), {t2 - t0:.1f} s in all; {_load()}")
    print(f"ratio verdict / reference: {(t2 - t0) / ref:.2f} (target ≤ 2)")
    for k in pt.keys:
        print(f"  {pt.verdict(k)}")
    if args.serial:
        c0, t3 = time.process_time(), time.perf_counter()
        one = permutation_test(bench, rep, cfg, permutations=args.permutations, observed=res, jobs=1)
        print(f"the same test serially: {time.perf_counter() - t3:.1f} s wall, {time.process_time() - c0:.1f} s CPU "
              f"({one.drawn} shuffles; identical p: {one.p_adjusted == pt.p_adjusted}); {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
