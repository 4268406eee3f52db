"""Run the hostile-input corpus through the CLI and print one line per case with its outcome.

usage (from the repository root): python benchmarks/hostile_inputs.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from hostile_corpus import build_cases  # noqa: E402
from test_hostile_inputs import run_case  # noqa: E402


def main() -> None:
    """Print the outcome table and the totals."""
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
    print(f"\n{sum(counts.values())} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
