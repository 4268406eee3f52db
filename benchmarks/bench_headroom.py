"""How long the headroom takes: every strategy on held-out models, as ``subsetsel headroom`` runs it.

On the TSC sample (112 datasets × 40 classifiers × 30 resamples, the default representation
``ucr_info``): the six a-priori strategies and the three score-aware ones, 10 random halves of
the models × T = 50 trials, α = 0.8, k = 2…20, every metric, serially in one process. Prints
the wall time of the two phases (choosing the a-priori subsets once per trial; fitting the
score-aware strategies and scoring everything on each split's held-out models), the CPU time
and the price. Nothing is asserted; other processes slow every figure down (the load average
is printed).

Usage::

    python benchmarks/bench_headroom.py [--trials 50] [--splits 10] [--sample tsc_bakeoff]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from subsetsel_core.evaluation.headroom import evaluate_headroom
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.loading.folder import load_benchmark_folder

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    """Time the headroom run and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--sample", default="tsc_bakeoff")
    args = ap.parse_args(argv)
    loaded = load_benchmark_folder(ROOT / "sample_data" / args.sample)
    bench = loaded.benchmark
    rep = loaded.representation(loaded.manifest.representation_names[0])
    cfg = EvaluationConfig(trials=args.trials)
    print(f"{args.sample}: {bench.n_datasets} datasets × {bench.n_models} models × {bench.n_folds} folds; "
          f"'{rep.name}' ({rep.X.shape[1]} columns); {args.splits} splits × T = {args.trials}; "
          f"load {os.getloadavg()[0]:.2f}")
    marks: dict[str, float] = {}

    def progress(done: int, total: int, what: str) -> None:
        if done == args.trials:
            marks["chosen"] = time.perf_counter()

    c0, t0 = time.process_time(), time.perf_counter()
    res = evaluate_headroom(bench, rep, cfg, splits=args.splits, progress=progress)
    c1, t1 = time.process_time(), time.perf_counter()
    chosen = marks.get("chosen", t0) - t0
    print(f"headroom {t1 - t0:.1f} s: a-priori subsets {chosen:.1f} s, score-aware fits and scoring on "
          f"{len(res.splits)} splits {t1 - t0 - chosen:.1f} s; CPU time {c1 - c0:.1f} s; load {os.getloadavg()[0]:.2f}")
    print(res.sentence("spearman"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
