"""Fixed cost of ``subsetsel evaluate`` against importing numpy and pandas alone.

Runs, alternating, ``python -c "import numpy, pandas"`` and ``python -m subsetsel_core
evaluate`` on the TSC sample with one trial, N times each, and prints the median wall
times and their ratio (the target is at most 1.3)::

    .venv/bin/python benchmarks/bench_startup.py [-n 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3


#: As a user's Python runs: compiled modules are cached (some sandboxes set PYTHONDONTWRITEBYTECODE,
#: which makes every run recompile the project's modules).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _seconds(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - t


def main() -> int:
    """Measure and print; exit code 1 when the ratio is above the target."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=15, help="runs of each command")
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp()) / "x.json"
    base = [sys.executable, "-c", "import numpy, pandas"]
    cli = [sys.executable, "-m", "subsetsel_core", "evaluate", "--benchmark", "sample_data/tsc_bakeoff",
           "--representation", "ucr_info", "--trials", "1", "--out", str(out)]
    _seconds(base), _seconds(cli)  # warm the file cache
    a: list[float] = []
    b: list[float] = []
    for _ in range(args.n):
        a.append(_seconds(base))
        b.append(_seconds(cli))
    ma, mb = statistics.median(a), statistics.median(b)
    ratio = mb / ma
    print(f"import numpy, pandas: median {ma:.3f} s over {args.n} runs")
    print(f"subsetsel evaluate (TSC sample, T = 1): median {mb:.3f} s over {args.n} runs")
    print(f"ratio {ratio:.3f} (target ≤ {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
