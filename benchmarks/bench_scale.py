"""Scale benchmark: ``select`` and ``evaluate`` on large synthetic benchmarks.

Every cell runs in a fresh Python process (``--cell``) so that its peak resident memory
(``resource.getrusage(...).ru_maxrss``) is its own; the parent prints one table row per
cell and can write the table as markdown.

Data: the model of :func:`subsetsel_core.synthetic.make_synthetic` (datasets and models in
a 5-d latent space, error = squared latent distance + noise, lower is better; oracle
descriptors = a noisy linear image of the dataset latents, p = 64), generated directly as
arrays (``make_synthetic`` builds a long table with one row per score, which is slow and
memory-hungry at n × M = 10⁷; the numbers differ, the structure is the same).

Cells (defaults, the targets of docs/performance.md):

* ``select`` with every strategy at k = 50, n = 1,000 and 10,000 (M does not matter);
* ``evaluate`` random + FAFI (Euclidean, cosine), T = 100, k = 2…50, α = 0.8, for
  n ∈ {1,000, 10,000} × M ∈ {100, 1,000}, F = 1.

Usage::

    python benchmarks/bench_scale.py                    # every cell, table on stdout
    python benchmarks/bench_scale.py --markdown out.md  # also write the markdown table
    python benchmarks/bench_scale.py --quick            # n = 1,000 only
    python benchmarks/bench_scale.py --only select --strategy kmeans   # the k-means select cells

Timing includes everything ``select`` / ``evaluate`` does (standardisation, rank sums of
the whole score cube, metrics) but not generating the data. BLAS runs on one thread
(``evaluate`` limits it itself; ``select`` is wrapped in ``threadpool_limits(1)`` here so
that the figures do not depend on how busy the other core is).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from subsetsel_core.strategies import STRATEGIES

EVAL_STRATEGIES = ("random", "fafi-euclidean", "fafi-cosine")


def fast_synthetic(n: int, m: int, *, p: int = 64, folds: int = 1, latent: int = 5, seed: int = 0) -> tuple[Any, Any]:
    """A synthetic benchmark and its oracle representation, built directly as arrays.

    Parameters
    ----------
    n, m : int
        Datasets and models.
    p : int
        Descriptor columns.
    folds : int
        Folds F.
    latent : int
        Latent dimension.
    seed : int

    Returns
    -------
    (Benchmark, Representation)
    """
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.representations.descriptors import representation_from_matrix

    rz, rp, rn, rf, ra, ro = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(6))
    z = rz.standard_normal((n, latent))
    pm = rp.standard_normal((m, latent))
    misfit = (z * z).sum(axis=1)[:, None] - 2.0 * z @ pm.T + (pm * pm).sum(axis=1)[None, :]
    misfit += rn.standard_normal((n, m))
    scores = misfit[:, None, :] + 0.5 * rf.standard_normal((n, folds, m))
    del misfit
    X = z @ ra.standard_normal((latent, p)) + 0.1 * ro.standard_normal((n, p))
    dw, mw = len(str(n - 1)), len(str(m - 1))
    datasets = tuple(f"syn_{i:0{dw}d}" for i in range(n))
    models = tuple(f"model_{i:0{mw}d}" for i in range(m))
    bench = Benchmark(scores, datasets, models, tuple(str(f) for f in range(folds)), higher_is_better=False,
                      name=f"synthetic n={n} M={m}")
    return bench, representation_from_matrix(X, datasets, name="oracle")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """Run one cell in this process; returns seconds and peak memory."""
    from threadpoolctl import threadpool_limits

    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.result import EvaluationConfig
    from subsetsel_core.strategies import select

    bench, rep = fast_synthetic(cell["n"], cell["m"], seed=cell.get("seed", 0))
    base = _peak_mb()
    t0 = time.perf_counter()
    if cell["kind"] == "select":
        with threadpool_limits(limits=1, user_api="blas"):
            idx = select(rep.X, cell["k"], cell["strategy"], rng=1)
        extra = {"chosen": len(idx)}
    else:
        cfg = EvaluationConfig(strategies=tuple(cell["strategies"]), trials=cell["trials"], k_min=2,
                               k_max=cell["k"], alpha=0.8, seed=cell.get("seed", 0))
        res = evaluate(bench, rep, cfg)
        extra = {"auc_spearman": {k: round(res.stats[k].auc["spearman"].mean, 3) for k in res.keys}}
    seconds = time.perf_counter() - t0
    return {**cell, "seconds": seconds, "peak_mb": _peak_mb(), "data_mb": base, **extra}


def _cells(quick: bool) -> list[dict[str, Any]]:
    ns = (1000,) if quick else (1000, 10000)
    cells: list[dict[str, Any]] = []
    for n in ns:
        for s in STRATEGIES:
            cells.append({"kind": "select", "n": n, "m": 100, "k": 50, "strategy": s})
    for n in ns:
        for m in (100, 1000):
            cells.append({"kind": "evaluate", "n": n, "m": m, "k": 50, "trials": 100,
                          "strategies": list(EVAL_STRATEGIES)})
    return cells


def _run_in_subprocess(cell: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--cell", json.dumps(cell)], capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        return {**cell, "seconds": float("nan"), "peak_mb": float("nan"), "error": out.stderr.strip()[-400:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(r: dict[str, Any]) -> str:
    what = r["strategy"] if r["kind"] == "select" else "+".join(
        {"random": "random", "fafi-euclidean": "fafi-euc", "fafi-cosine": "fafi-cos"}.get(s, s) for s in r["strategies"])
    t = r.get("trials", "")
    ks = "50" if r["kind"] == "select" else "2…50"
    return (f"| {r['kind']} | {r['n']:,} | {r['m']:,} | {t} | {ks} | {what} | {r['seconds']:.2f} | "
            f"{r['peak_mb']:.0f} |")


HEADER = ("| call | n | M | T | k | strategy | seconds | peak MB |\n"
          "|---|---:|---:|---:|---|---|---:|---:|")


def main(argv: list[str] | None = None) -> int:
    """Run the cells (each in its own process) and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cell", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="n = 1,000 only")
    ap.add_argument("--only", choices=("select", "evaluate"), help="only the select or the evaluate cells")
    ap.add_argument("--strategy", help="select cells of this strategy only")
    ap.add_argument("--markdown", metavar="PATH", help="also write the table as markdown")
    args = ap.parse_args(argv)
    if args.cell:
        print(json.dumps(run_cell(json.loads(args.cell))))
        return 0
    print(f"# bench_scale: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; "
          "each cell in a fresh process; BLAS single-threaded")
    print(HEADER, flush=True)
    rows = []
    cells = [c for c in _cells(args.quick) if args.only in (None, c["kind"])
             and (args.strategy is None or c.get("strategy") == args.strategy)]
    for cell in cells:
        r = _run_in_subprocess(cell)
        rows.append(r)
        print(_row(r) + (f"  ERROR {r['error']}" if "error" in r else ""), flush=True)
    print(f"# load average at end {os.getloadavg()[0]:.2f}")
    if args.markdown:
        Path(args.markdown).write_text(HEADER + "\n" + "\n".join(_row(r) for r in rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
