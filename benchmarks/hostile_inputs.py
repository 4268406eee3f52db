"""Run the hostile-input corpora and print one line per case with its outcome, and the pass rate.

* round two (``tests/support/hostile_corpus.py``): score files through ``subsetsel select`` in a subprocess;
* round three (``tests/support/hostile_round3.py``): links and races, exports, argument errors, messages
  and printed warnings, in this process;
* round four (``tests/support/hostile_round4.py``, ``hostile_round4b.py``): result folders, leaderboard
  options, recipes, exports, report folders, workspace files and the shared server, in this process; a
  case that fails in code owned elsewhere is marked ``(elsewhere)``.

usage (from the repository root): python benchmarks/hostile_inputs.py [--round 2|3|4]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "core"))

from hostile_corpus import build_cases  # noqa: E402
from hostile_round3 import Case, build_round3  # noqa: E402
from hostile_round4 import build_round4, known_elsewhere  # noqa: E402


def round2() -> tuple[int, int]:
    """Round two's table; returns (passed, cases)."""
    from test_hostile_inputs import run_case

    counts = {"correct result": 0, "clear message": 0, "FAILED": 0}
    for case in build_cases():
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.time()
            r = run_case(case, Path(tmp))
            secs = time.time() - t0
        if "Traceback" in r.stderr:
            outcome = "FAILED"
        elif case.expect == "ok":
            outcome = "correct result" if r.returncode == 0 and (case.check is None or case.check(r.stdout)) else "FAILED"
        else:
            outcome = "clear message" if r.returncode == 2 and case.needle in r.stderr else "FAILED"
        counts[outcome] += 1
        msg = r.stderr.strip().splitlines()[-1][:150] if r.stderr.strip() else ""
        print(f"{case.name:<45} {outcome:<15} {secs:5.1f} s  {msg}")
    total = sum(counts.values())
    print(f"\nround two: {total} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return total - counts["FAILED"], total


def round3() -> tuple[int, int]:
    """Round three's table, with the pass rate per class; returns (passed, cases)."""
    return table("three", build_round3(), set())


def round4() -> tuple[int, int]:
    """Round four's table, with the pass rate per class; returns (passed, cases)."""
    return table("four", build_round4(), known_elsewhere())


def table(name: str, cases: list[Case], elsewhere: set[str]) -> tuple[int, int]:
    """Run ``cases``, one line each, and the pass rate per class; returns (passed, cases)."""
    passed: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.time()
            try:
                problem = case.run(Path(tmp))
            except Exception as exc:  # noqa: BLE001 - a crash is a failed case, shown as such
                problem = f"crashed: {type(exc).__name__}: {exc}"
            secs = time.time() - t0
        seen[case.kind] += 1
        passed[case.kind] += problem is None
        mark = " (elsewhere)" if problem is not None and case.name in elsewhere else ""
        print(f"{case.kind:<10} {case.name:<58} {'pass' if problem is None else 'FAILED':<7} {secs:5.1f} s  "
              f"{(problem or '')[:160]}{mark}", flush=True)
    print(f"\nround {name}: " + ", ".join(f"{k} {passed[k]}/{n}" for k, n in seen.items()))
    return sum(passed.values()), sum(seen.values())


def main() -> None:
    """Print the tables and the pass rates."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round", type=int, choices=(2, 3, 4), help="run one round only")
    which = ap.parse_args().round
    results = {}
    if which in (None, 2):
        results["two"] = round2()
    if which in (None, 3):
        results["three"] = round3()
    if which in (None, 4):
        results["four"] = round4()
    for name, (ok, total) in results.items():
        print(f"round {name}: {ok}/{total} pass ({100 * ok / max(total, 1):.0f} %)")


if __name__ == "__main__":
    main()
