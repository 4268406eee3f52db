"""Fixed cost of ``subsetsel evaluate`` against importing numpy and pandas alone; and a whole run.

Runs, alternating, ``python -c "import numpy, pandas"`` and ``python -m subsetsel_core
evaluate`` on the TSC sample with one trial, N times each (all six strategies, and random +
both FAFI, which never load numba), and prints the median wall times and their ratio (the
target is at most 1.3), and the median CPU times (user + system) and their ratio, which a
machine loaded by other work disturbs less than the wall times. The command line asks for BLAS
on one thread before NumPy loads (``subsetsel_core.cli.entry``), which also spares it the start of
BLAS's threads; the numpy-and-pandas import is timed that way too, and the ratios against it printed. With ``--whole`` it also times ``evaluate`` random + FAFI cosine +
FAFI Euclidean, T = 200, as a whole CLI process (with its default permutation test and with
``--permutations 0``), against ``benchmarks/naive_protocol.py``'s straightforward loop on the
same strategies (``--naive-trials`` trials, extrapolated to 200), in the same run::

    .venv/bin/python benchmarks/bench_startup.py [-n 15] [--whole] [--naive-trials 20]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from subsetsel_core.evaluation.parallel import BLAS_THREAD_VARIABLES

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3


#: As a user's Python runs: compiled modules are cached (some sandboxes set PYTHONDONTWRITEBYTECODE,
#: which makes every run recompile the project's modules).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _seconds(cmd: list[str]) -> float:
    return _timed(cmd)[0]


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _whole(out: Path, naive_trials: int) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from naive_protocol import naive_evaluate

    from subsetsel_core.loading.folder import load_benchmark_folder

    three = "random,fafi-cosine,fafi-euclidean"
    cli = [sys.executable, "-m", "subsetsel_core", "evaluate", "--benchmark", "sample_data/tsc_bakeoff",
           "--representation", "ucr_info", "--strategies", three, "--trials", "200", "--out", str(out)]
    loaded = load_benchmark_folder(ROOT / "sample_data" / "tsc_bakeoff")
    bench, rep = loaded.benchmark, loaded.representation("ucr_info")
    t = time.perf_counter()
    naive_evaluate(bench.scores, bench.higher_is_better, rep.X, three.split(","), trials=naive_trials)
    naive = (time.perf_counter() - t) * 200 / naive_trials
    plain = _seconds([*cli, "--permutations", "0"])
    tested = _seconds(cli)
    print(f"straightforward loop, {three}: {naive / 200:.3f} s/trial → {naive:.1f} s for T = 200 "
          f"(from {naive_trials} trials); load {os.getloadavg()[0]:.2f}")
    print(f"subsetsel evaluate {three}, T = 200, whole process: {plain:.2f} s with --permutations 0 "
          f"({naive / plain:.1f}× faster), {tested:.2f} s with its default permutation test (B = 199, T′ = 50; "
          f"{naive / tested:.1f}×); load {os.getloadavg()[0]:.2f}")


def main() -> int:
    """Measure and print; exit code 1 when the ratio is above the target."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=15, help="runs of each command")
    ap.add_argument("--whole", action="store_true", help="also time a whole T = 200 run against the naive loop")
    ap.add_argument("--naive-trials", type=int, default=20)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp()) / "x.json"
    base = [sys.executable, "-c", "import numpy, pandas"]
    cli = [sys.executable, "-m", "subsetsel_core", "evaluate", "--benchmark", "sample_data/tsc_bakeoff",
           "--representation", "ucr_info", "--trials", "1", "--out", str(out)]
    light = [*cli, "--strategies", "random,fafi-cosine,fafi-euclidean"]
    _seconds(base), _seconds(cli), _seconds(light)  # warm the file cache
    load = os.getloadavg()[0]
    # the command line starts BLAS on one thread (subsetsel_core.cli.entry); the same for numpy alone
    one = {**ENV, **dict.fromkeys(BLAS_THREAD_VARIABLES, "1")}
    runs: dict[str, list[tuple[float, float]]] = {"base": [], "base1": [], "all": [], "light": []}
    for _ in range(args.n):
        for name, cmd, env in (("base", base, None), ("base1", base, one), ("all", cli, None), ("light", light, None)):
            runs[name].append(_timed(cmd, env))
    wall = {name: statistics.median(w for w, _ in r) for name, r in runs.items()}
    cpu = {name: statistics.median(c for _, c in r) for name, r in runs.items()}
    ma, mb, mc = wall["base"], wall["all"], wall["light"]
    print(f"import numpy, pandas: median {ma:.3f} s wall, {cpu['base']:.3f} s CPU over {args.n} runs; "
          f"load {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"subsetsel evaluate (TSC sample, T = 1, all six strategies): median {mb:.3f} s, ratio {mb / ma:.3f} "
          f"(CPU {cpu['all']:.3f} s, ratio {cpu['all'] / cpu['base']:.3f})")
    print(f"subsetsel evaluate (TSC sample, T = 1, random + both FAFI): median {mc:.3f} s, ratio {mc / ma:.3f} "
          f"(CPU {cpu['light']:.3f} s, ratio {cpu['light'] / cpu['base']:.3f}; target ≤ {TARGET})")
    m1 = wall["base1"]
    print(f"import numpy, pandas with BLAS on one thread from the start (as the command line starts it): "
          f"median {m1:.3f} s wall, {cpu['base1']:.3f} s CPU; against it, all six strategies {mb / m1:.3f} "
          f"(CPU {cpu['all'] / cpu['base1']:.3f}), random + both FAFI {mc / m1:.3f} (CPU {cpu['light'] / cpu['base1']:.3f})")
    if args.whole:
        _whole(out, args.naive_trials)
    return 0 if max(mb, mc) / ma <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
