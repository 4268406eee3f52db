"""Protocol benchmark on the TSC bake-off grid, side by side with a naive implementation.

Prints (nothing is asserted):

1. the grid — 112 datasets × 40 models × 30 folds, UCR-facts representation (``ucr_info``),
   all six strategies, T = 200, α = 0.8, k = 2…20 — wall time serially and with
   ``process_mapper(2)``, the median of ``--repeats`` runs each;
2. milliseconds and trials per second per strategy (kernel time inside a serial run),
   plus the metrics and the rest of the protocol;
3. random + both FAFI with T = 1000, serially and with two processes;
4. the naive loop of ``benchmarks/naive_protocol.py`` on the same pools for ``--naive-trials``
   trials, extrapolated to T = 200, and the speed-up;
5. agreement: identical subsets for FAFI and A/D-optimal (naive loop vs the protocol's
   batched kernels), metric values against the naive loop on exact rank sums (largest
   difference) and on float mean ranks (fraction of cells that differ: float ties), and
   for random / k-means the mean AUC of both runs with a z-score.

Usage::

    python benchmarks/bench_protocol.py [--repeats 3] [--naive-trials 10] [--skip-naive]

Other processes on the machine slow every figure down; the load average is printed at
the start and end of each section (``os.getloadavg``), run it again when it is high.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from naive_protocol import METRICS, naive_evaluate  # noqa: E402

from subsetsel_core.evaluation.parallel import process_mapper  # noqa: E402
from subsetsel_core.evaluation.protocol import evaluate, stream_key, trial_rng  # noqa: E402
from subsetsel_core.evaluation.result import EvaluationConfig  # noqa: E402
from subsetsel_core.evaluation.stats import auc_per_trial  # noqa: E402
from subsetsel_core.loading.folder import load_benchmark_folder  # noqa: E402
from subsetsel_core.strategies import REGISTRY, STRATEGIES, standardize  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DETERMINISTIC = ("fafi-euclidean", "fafi-cosine", "a-optimal", "d-optimal")


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, list[float]]:
    """Median and all wall times of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def per_strategy_ms(bench: Any, rep: Any, trials: int) -> dict[str, float]:
    """Milliseconds per trial of each strategy's kernel, the metrics and the rest, in one serial run."""
    from subsetsel_core.ranks.table import RankTable

    acc: dict[str, float] = {}

    def wrap(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def g(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                acc[name] = acc.get(name, 0.0) + time.perf_counter() - t
        return g

    saved = dict(REGISTRY)
    saved_agreement = RankTable.agreement
    try:
        for name, info in saved.items():
            REGISTRY[name] = dataclasses.replace(
                info, kernel=wrap(name, info.kernel), many=wrap(name, info.many) if info.many else None)
        RankTable.agreement = wrap("metrics", saved_agreement)  # type: ignore[method-assign]
        t0 = time.perf_counter()
        evaluate(bench, rep, EvaluationConfig(trials=trials))
        total = time.perf_counter() - t0
    finally:
        REGISTRY.clear()
        REGISTRY.update(saved)
        RankTable.agreement = saved_agreement  # type: ignore[method-assign]
    out = {k: v / trials * 1000 for k, v in acc.items()}
    out["rest"] = total / trials * 1000 - sum(out.values())
    out["total"] = total / trials * 1000
    return out


def protocol_subsets(X: np.ndarray, pool: np.ndarray, strategy: str, ks: list[int], seed: int, t: int) -> list[list[int]]:
    """The subsets (pool positions) the protocol's batched code path chooses for one trial."""
    info = REGISTRY[strategy]
    Z = standardize(X[pool])
    if info.nested:
        order = info.kernel(Z, max(ks), rng=None, include=np.empty(0, np.int64))
        return [sorted(int(i) for i in order[:k]) for k in ks]
    rng = trial_rng(seed, 1, stream_key(strategy), stream_key("ucr_info"), t) if info.uses_rng else None
    rngs = rng.spawn(len(ks)) if rng is not None else [None] * len(ks)
    assert info.many is not None
    return [sorted(int(i) for i in c) for c in info.many(Z, ks, rngs)]


def main(argv: list[str] | None = None) -> int:
    """Run every section and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--naive-trials", type=int, default=10)
    ap.add_argument("--skip-naive", action="store_true")
    args = ap.parse_args(argv)

    lb = load_benchmark_folder(ROOT / "sample_data" / "tsc_bakeoff")
    bench = lb.benchmark
    rep = lb.representation("ucr_info")
    n, f, m = bench.scores.shape
    print(f"# TSC bake-off: {n} datasets × {m} models × {f} folds; representation ucr_info "
          f"({rep.X.shape[1]} columns); {os.cpu_count()} CPUs; {_load()}")

    grid = EvaluationConfig(trials=200, alpha=0.8, k_min=2, k_max=20, seed=0)
    evaluate(bench, rep, EvaluationConfig(trials=2))  # warm-up (imports, caches)
    print("\n## 1. Grid: six strategies, T = 200, α = 0.8, k = 2…20")
    serial, s_all = timed(lambda: evaluate(bench, rep, grid), args.repeats)
    print(f"serial                 : median {serial:.2f} s  (runs {', '.join(f'{x:.2f}' for x in s_all)}); {_load()}")
    par, p_all = timed(lambda: evaluate(bench, rep, grid, mapper=process_mapper(2)), args.repeats)
    print(f"process_mapper(2)      : median {par:.2f} s  (runs {', '.join(f'{x:.2f}' for x in p_all)}; "
          f"includes starting the workers); {_load()}")

    print("\n## 2. Per strategy (kernel time inside one serial run of T = 200)")
    ms = per_strategy_ms(bench, rep, 200)
    for key in [*STRATEGIES, "metrics", "rest", "total"]:
        v = ms.get(key, 0.0)
        rate = f"{1000 / v:8.0f} trials/s" if v > 0 else ""
        print(f"  {key:<15} {v:7.2f} ms/trial {rate}")

    print("\n## 3. random + FAFI (Euclidean, cosine), T = 1000")
    cheap = EvaluationConfig(strategies=("random", "fafi-euclidean", "fafi-cosine"), trials=1000, seed=0)
    c_ser, c_all = timed(lambda: evaluate(bench, rep, cheap), args.repeats)
    c_par, cp_all = timed(lambda: evaluate(bench, rep, cheap, mapper=process_mapper(2)), args.repeats)
    print(f"serial                 : median {c_ser:.2f} s  (runs {', '.join(f'{x:.2f}' for x in c_all)}); "
          f"{1000 / c_ser:.0f} trials/s")
    print(f"process_mapper(2)      : median {c_par:.2f} s  (runs {', '.join(f'{x:.2f}' for x in cp_all)}); {_load()}")

    if args.skip_naive:
        return 0
    tn = args.naive_trials
    print(f"\n## 4. Naive loop (benchmarks/naive_protocol.py), {tn} trials on the same pools; {_load()}")
    t0 = time.perf_counter()
    naive = naive_evaluate(bench.scores, bench.higher_is_better, rep.X, STRATEGIES, trials=tn)
    naive_s = time.perf_counter() - t0
    per_trial = naive_s / tn
    print(f"naive                  : {naive_s:.1f} s for {tn} trials = {per_trial:.2f} s/trial "
          f"→ {per_trial * 200:.0f} s extrapolated to T = 200")
    print("  time per part (s/trial): " + ", ".join(f"{k} {v / tn:.2f}" for k, v in naive.seconds.items()))
    print(f"speed-up (naive extrapolated / ours): serial {per_trial * 200 / serial:.0f}×, "
          f"process_mapper(2) {per_trial * 200 / par:.0f}×")

    print("\n## 5. Agreement")
    ours = evaluate(bench, rep, grid)  # trials are independent of T: the first tn are the naive loop's pools
    ks = naive.ks
    same = total = 0
    for t in range(tn):
        rng = trial_rng(grid.seed, 0, t)
        pool = np.sort(rng.choice(n, int(np.floor(grid.alpha * n + 1e-9)), replace=False))
        for s in DETERMINISTIC:
            mine = protocol_subsets(rep.X, pool, s, ks, grid.seed, t)
            for ki in range(len(ks)):
                total += 1
                same += mine[ki] == sorted(naive.subsets[s][t][ki])
    print(f"subsets, FAFI (plain loop) and A/D-optimal (single-k kernel) vs the protocol: "
          f"{same}/{total} identical")
    exact = naive_evaluate(bench.scores, bench.higher_is_better, rep.X, DETERMINISTIC, trials=tn, rank_sums=True)
    worst = max(float(np.abs(ours.values[s][mt][:tn] - exact.values[s][mt]).max())
                for s in DETERMINISTIC for mt in METRICS)
    print(f"metrics vs the naive loop on integer rank sums (scipy / sklearn): largest |difference| {worst:.1e}")
    for s in DETERMINISTIC:
        cells = {mt: int((~np.isclose(ours.values[s][mt][:tn], naive.values[s][mt], rtol=0, atol=1e-9)).sum())
                 for mt in METRICS}
        size = tn * len(ks)
        print(f"  {s:<15} vs float mean ranks: cells differing (of {size}) " +
              ", ".join(f"{mt} {c}" for mt, c in cells.items()))
    print("  (float means of tied rank sums are not always equal to the last bit, so the naive loop "
          "breaks some ties; with integer sums it agrees)")
    for s in ("random", "kmeans"):
        parts = []
        for mt in ("spearman", "kendall", "mae"):
            a = auc_per_trial(ours.values[s][mt])
            b = auc_per_trial(naive.values[s][mt])
            z = (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
            parts.append(f"{mt} {a.mean():.3f} (T={len(a)}) vs {b.mean():.3f} (T={len(b)}), z = {z:+.2f}")
        print(f"  {s:<8} mean AUC ours vs naive: " + "; ".join(parts))
    print(f"# done; {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
