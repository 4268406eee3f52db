"""Seconds from pressing *Run evaluation* on the Evaluate page to the verdict on screen.

Drives the dashboard with Streamlit's AppTest (in this process, no browser) on the TSC
sample with the page's defaults (six strategies, ``ucr_info``, T = 50, every metric, the
permutation test with B = 199 and T′ = 50 computed on this server in its worker processes):
clicks *Run evaluation*, waits until the curves are complete (the evaluation job ends) and
reruns the page, then waits until the permutation test has ended and reruns it again, and
prints both times, the shuffles drawn and the verdict shown. Nothing is asserted; the load
average is printed with each figure.

AppTest reruns the whole page where a browser's page reruns only the live fragment, so by
default the page is not rerun while the test runs; ``--poll S`` reruns it every S seconds.

Usage::

    python benchmarks/bench_dashboard_verdict.py [--timeout 300] [--poll 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SUBSETSEL_PROJECTION", "off")  # maps by PCA: no projection process beside the test
os.environ.setdefault("SUBSETSEL_NO_STATE", "1")  # no session files


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Run the Evaluate page once with its defaults and print the times."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the verdict at most")
    ap.add_argument("--poll", type=float, default=0.0, help="seconds between reruns of the page while the test "
                    "runs (0: none)")
    args = ap.parse_args(argv)

    from streamlit.testing.v1 import AppTest

    from pages import page
    from subsetsel_app import jobs

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=args.timeout)
    at.run()
    at.switch_page(page("evaluate").file)
    at.run()
    print(f"Evaluate page open on '{at.session_state['data'].name}'; {_load()}", flush=True)
    t0 = time.perf_counter()
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    run = jobs.get(at.session_state["ev_run"])
    if run is None:
        print("no evaluation started")
        return 1
    run.wait(args.timeout)
    at.run()
    curves = time.perf_counter() - t0
    print(f"curves complete after {curves:.1f} s ({run.done} trials); {_load()}", flush=True)
    test = jobs.get(jobs.permutation_key(run.key))
    while test is not None and not test.wait(args.poll or args.timeout):
        if time.perf_counter() - t0 > args.timeout:
            print(f"no verdict after {args.timeout:.0f} s")
            return 1
        at.run()  # the page as a user sees it meanwhile (its live progress)
    at.run()
    verdict = time.perf_counter() - t0
    shown = [str(x.value) for x in (*at.success, *at.info, *at.warning) if "shuffle" in str(x.value)]
    result = test.result if test is not None else None
    drawn = getattr(result, "drawn", 0)
    print(f"verdict on screen after {verdict:.1f} s ({drawn} shuffles); {_load()}", flush=True)
    for line in shown[:2]:
        print(f"  {line[:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
