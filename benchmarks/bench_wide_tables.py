"""Wide score tables: how long reading them takes, and a 2,000 × 2,000 table evaluated end to end.

Builds the tables (``tests/support/leaderboard_shapes.py``) in a temporary folder, then runs,
each in a fresh process under ``/usr/bin/time -v`` (wall time and peak resident memory):

* ``inspect``: ``subsetsel inspect`` of the per-class ImageNet table (112 weights × 1,000 class
  columns + 8 other columns) — target ≤ 5 s;
* ``mapping``: in one process, the dashboard's work for one mapping change on that table
  (the guess with the page's options and the validation of the upload, both uncached, as a
  change of the model column or of the set-aside columns asks) — target ≤ 2 s per change;
* ``dashboard``: the Benchmark page itself (Streamlit's AppTest, no browser): the upload of that
  table, then the model column changed three times and a set-aside column kept — each page
  run timed (target ≤ 2 s);
* ``evaluate``: ``subsetsel evaluate`` of a 2,000-dataset × 2,000-model wide table with
  T = 50 trials (names as descriptors) — target ≤ 60 s and ≤ 1 GB on two cores.

Usage::

    python benchmarks/bench_wide_tables.py            # all four
    python benchmarks/bench_wide_tables.py --only inspect mapping
    python benchmarks/bench_wide_tables.py --size 1000   # a smaller square table for evaluate
    python benchmarks/bench_wide_tables.py --only evaluate --permutations 0   # the protocol without its test
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT))

import leaderboard_shapes as shapes  # noqa: E402

_MAPPING = """
import sys, time, warnings
sys.path.insert(0, {root!r})
from subsetsel_app import upload
path = {path!r}
table = upload.UploadedTable("imagenet.csv", open(path, "rb").read())
head = upload.read_header(table)
changes = [(("layout", "models-as-rows"), ("model_column", "Model")),
           (("layout", "models-as-rows"), ("model_column", "Weight")),
           (("layout", "models-as-rows"), ("model_column", "Weight"), ("keep_columns", ("GFLOPS",))),
           ()]
with warnings.catch_warnings():
    warnings.simplefilter("error")
    for opts in changes:
        t = time.perf_counter()
        g = upload.guess(head, "imagenet.csv", opts)
        check = upload.check_upload(table, g.to_format(), reading=g)
        print(f"change {{dict(opts) or 'auto'}}: {{time.perf_counter() - t:.2f}} s "
              f"({{'ok' if check.ok else 'refused: ' + (check.error or '')[:60]}})")
"""


_DASHBOARD = """
import sys, time
sys.path.insert(0, {support!r})
import apphelpers as H
at = H.goto(H.new_app(), "benchmark")
at.file_uploader[0].set_value(("imagenet.csv", open({path!r}, "rb").read(), "text/csv"))
t = time.perf_counter(); at.run(timeout=300)
print(f"page run after the upload: {{time.perf_counter() - t:.2f}} s")
for value in ("Model", "Weight", "Model"):
    at.selectbox(key="up_model_col").select(value)
    t = time.perf_counter(); at.run(timeout=300)
    print(f"page run, model column -> {{value}}: {{time.perf_counter() - t:.2f}} s")
at.multiselect(key="up_drop_cols").unselect("GFLOPS")
t = time.perf_counter(); at.run(timeout=300)
print(f"page run, GFLOPS kept as scores: {{time.perf_counter() - t:.2f}} s")
"""


CPU: dict[str, float] = {}
"""CPU seconds (user + system) of the last :func:`timed` command, under the key ``"cpu"``."""


def timed(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of a command under /usr/bin/time -v, and its stdout (its CPU seconds
    in ``CPU["cpu"]``)."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} … failed ({proc.returncode}): {proc.stderr[-800:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", proc.stderr)
    assert wall and rss and len(cpu) == 2
    CPU["cpu"] = sum(float(c) for c in cpu)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, int(rss.group(1)) / 1024, proc.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", nargs="+", choices=("inspect", "mapping", "dashboard", "evaluate"),
                   default=["inspect", "mapping", "dashboard", "evaluate"])
    p.add_argument("--size", type=int, default=2000, help="datasets = models of the square table (default 2000)")
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--permutations", type=int, default=None,
                   help="B of evaluate's permutation test (default: the product's own, 199; 0: the protocol alone)")
    args = p.parse_args()
    py = sys.executable
    env_path = f"PYTHONPATH={ROOT}"
    print(f"python {sys.version.split()[0]}; run with {env_path}")
    with tempfile.TemporaryDirectory() as tmp:
        imagenet = Path(tmp) / "imagenet.csv"
        t = time.perf_counter()
        imagenet.write_text(shapes.per_class_imagenet())
        print(f"built imagenet.csv (112 × 1008) in {time.perf_counter() - t:.1f} s")
        if "inspect" in args.only:
            s, mb, _ = timed([py, "-m", "subsetsel_core", "inspect", str(imagenet), "--out", str(Path(tmp) / "i.json")])
            print(f"inspect imagenet.csv: {s:.2f} s, peak {mb:.0f} MB (target ≤ 5 s)")
        if "mapping" in args.only:
            s, mb, out = timed([py, "-c", _MAPPING.format(root=str(ROOT), path=str(imagenet))])
            print(out.rstrip())
            print(f"mapping changes (4, one process incl. start-up): {s:.2f} s, peak {mb:.0f} MB (target ≤ 2 s each)")
        if "dashboard" in args.only:
            s, mb, out = timed([py, "-c", _DASHBOARD.format(support=str(ROOT / "tests" / "support"),
                                                            path=str(imagenet))])
            print(out.rstrip())
            print(f"dashboard (one process incl. start-up): {s:.2f} s, peak {mb:.0f} MB (target ≤ 2 s per change)")
        if "evaluate" in args.only:
            square = Path(tmp) / "square.csv"
            t = time.perf_counter()
            square.write_text(shapes.wide_square(args.size, args.size))
            print(f"built square.csv ({args.size} × {args.size}, {square.stat().st_size / 2**20:.0f} MB) "
                  f"in {time.perf_counter() - t:.1f} s")
            load0 = os.getloadavg()[0]
            perm = [] if args.permutations is None else ["--permutations", str(args.permutations)]
            s, mb, _ = timed([py, "-m", "subsetsel_core", "evaluate", "--scores", str(square), "--representation",
                              "names", "--trials", str(args.trials), *perm, "--out", str(Path(tmp) / "e.json")])
            print(f"evaluate {args.size} × {args.size}, T = {args.trials}, B = {'default' if args.permutations is None else args.permutations}: "
                  f"{s:.1f} s wall, {CPU['cpu']:.1f} s CPU, "
                  f"peak {mb:.0f} MB, load {load0:.1f} → {os.getloadavg()[0]:.1f} (target ≤ 60 s, ≤ 1024 MB)")


if __name__ == "__main__":
    main()
