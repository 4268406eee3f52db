"""The dashboard under load: one ``streamlit run`` server, real browsers (Debian's chromium + Playwright).

(a) **Evaluations in a row** — one browser session runs N short evaluations one after the
    other on the TSC sample (T alternates between 20 and 21 so that each run's
    "Finished: T trials" is told apart from the previous one). After each run: its wall
    time (click → finished on screen) and the server process's RSS (and with its child
    processes). Memory must level off: the caches are bounded (``max_entries``) and the
    run registry keeps at most ``runner._MAX_RUNS`` finished runs.
(b) **Concurrent sessions** — S browser contexts in parallel threads (each its own
    Playwright and chromium), each on a different benchmark (the three samples, then
    uploads of different sizes) with its own trial count, run one evaluation at the same
    time. Every run must finish, and every session must see only its own data: its own
    benchmark in the sidebar, its own "Finished: T trials", nobody else's title or T —
    checked when the run ends and again after every session finished. The server's RSS is
    sampled every 0.2 s for the peak.

Run from the repository root::

    /work/venv/bin/python benchmarks/load_test.py            # 20 runs in a row, 5 sessions at once
    /work/venv/bin/python benchmarks/load_test.py --runs 3 --sessions 2 --trials 6

Prints its figures (not a pass/fail test; ``tests/browser/test_load_small.py`` runs a reduced
version in CI). Timings depend on the machine's load: the script prints ``uptime``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
import apphelpers as H  # noqa: E402  (repository root on sys.path, browser helpers)

MB = 2**20
SAMPLE_TITLES = {
    "tsc_bakeoff": "Time series classification bake-off (112 UCR datasets)",
    "mmlu": "MMLU: 57 subjects × 82 open LLMs",
    "synthetic": "Synthetic oracle / broken ablation",
}


# --------------------------------------------------------------------------- memory

def rss(pid: int) -> tuple[int, int]:
    """Resident memory of a process and of it with all its descendants, in bytes."""
    import psutil

    try:
        p = psutil.Process(pid)
        own = p.memory_info().rss
        kids = 0
        for c in p.children(recursive=True):
            try:
                kids += c.memory_info().rss
            except psutil.Error:
                pass
        return own, own + kids
    except psutil.Error:
        return 0, 0


class PeakSampler:
    """Samples a process's RSS in a thread; ``peak`` and ``peak_tree`` hold the maxima (a context manager)."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.pid, self.every = pid, every
        self.peak = self.peak_tree = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            own, tree = rss(self.pid)
            self.peak, self.peak_tree = max(self.peak, own), max(self.peak_tree, tree)
            self._stop.wait(self.every)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


# --------------------------------------------------------------------------- browser steps

def open_app(page: Any, url: str) -> None:
    """Open the dashboard's start page and wait until it is drawn."""
    page.goto(url + "/", timeout=90000)
    H.wait_idle(page, 120)


def load_sample(page: Any, url: str, sample: str) -> None:
    """Make an embedded sample the session's benchmark through the Benchmark page."""
    H.goto_page(page, url, "benchmark")
    box = page.get_by_role("combobox", name="Benchmark")
    box.click()
    page.get_by_role("option").filter(has_text=f"({sample})").first.click()
    H.wait_idle(page)
    button = page.get_by_role("button", name="Load this benchmark")
    if button.count() and button.is_enabled():
        button.click()
        H.wait_idle(page)
    page.locator("[data-testid=stSidebar]").get_by_text(SAMPLE_TITLES[sample]).first.wait_for(timeout=90000)


def load_upload(page: Any, url: str, folder: Path, name: str, n_datasets: int, n_models: int, seed: int) -> str:
    """Upload a small generated benchmark (scores and descriptors) and use it; returns its title."""
    scores = folder / f"{name}.csv"
    scores.write_bytes(H.tiny_long_csv(n_datasets=n_datasets, n_models=n_models, seed=seed))
    desc = folder / f"features_{name}.csv"
    desc.write_bytes(H.tiny_descriptors_csv(n_datasets=n_datasets, seed=seed + 1))
    H.goto_page(page, url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    inputs = page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]")
    inputs.nth(0).set_input_files(str(scores))
    H.wait_idle(page)
    inputs.nth(1).set_input_files(str(desc))
    H.wait_idle(page)
    use = page.get_by_role("button", name=re.compile(  # the label, then any assumption the reading made
        "^" + re.escape(f"Use this benchmark ({n_datasets} datasets × {n_models} models × 2 folds") + r"(\)|; )"))
    use.wait_for(timeout=90000)
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=90000)
    return name


def run_evaluation(page: Any, trials: int, timeout: float = 600.0) -> float:
    """Set T on the Evaluate page (already open), run, wait for "Finished: T trials"; the wall time in s.

    The permutation test that follows an evaluation is switched off: this measures the protocol's
    runs side by side (the test is one more background job of the same kind).
    """
    box = page.get_by_label("Trials T", exact=True).and_(page.locator("input"))
    box.fill(str(trials))
    toggle = page.locator("[data-testid=stCheckbox]").filter(has_text="Test against shuffled descriptors")
    if toggle.count() and toggle.locator("input").is_checked():
        toggle.locator("label").click()
        if toggle.locator("input").is_checked():
            raise RuntimeError("could not switch off the permutation test")
    t0 = time.perf_counter()
    page.get_by_role("button", name="Run evaluation").click()
    page.wait_for_selector(f"text=Finished: {trials} trials", timeout=timeout * 1000)
    wall = time.perf_counter() - t0
    H.wait_idle(page, 120)
    return wall


def visible_text(page: Any) -> tuple[str, str]:
    """The sidebar's and the main area's text."""
    return (page.locator("[data-testid=stSidebar]").inner_text(),
            page.locator("[data-testid=stMain]").inner_text())


# --------------------------------------------------------------------------- (a) runs in a row

@dataclass
class SequentialRun:
    """One evaluation of the sequential part."""

    index: int
    trials: int
    wall: float
    rss: int
    rss_tree: int


def sequential(server: H.Server, runs: int = 20, trials: int = 20, sample: str = "tsc_bakeoff",
               log: Callable[[str], None] = print, folder: Path | None = None) -> list[SequentialRun]:
    """``runs`` evaluations in a row in one browser session (T alternates ``trials``, ``trials + 1``).

    ``sample`` is an embedded sample's name, or ``"upload"`` for a small generated upload
    (10 datasets × 4 models, written into ``folder``).
    """
    import tempfile

    from playwright.sync_api import sync_playwright

    out: list[SequentialRun] = []
    with sync_playwright() as p:
        browser = H.launch_chromium(p)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = ctx.new_page()
        try:
            open_app(page, server.url)
            if sample == "upload":
                load_upload(page, server.url, folder or Path(tempfile.mkdtemp(prefix="subsetsel-load-")),
                            "upload_seq", 10, 4, seed=7)
            elif sample != "tsc_bakeoff":
                load_sample(page, server.url, sample)
            H.goto_page(page, server.url, "evaluate")
            for i in range(runs):
                t = trials + (i % 2)
                wall = run_evaluation(page, t)
                own, tree = rss(server.proc.pid)
                out.append(SequentialRun(i + 1, t, wall, own, tree))
                log(f"  run {i + 1:2d}: T={t}  {wall:6.1f} s  server RSS {own / MB:7.1f} MB  "
                    f"(with children {tree / MB:7.1f} MB)")
        finally:
            ctx.close()
            browser.close()
    return out


# --------------------------------------------------------------------------- (b) sessions at once

@dataclass
class Plan:
    """What one concurrent session does."""

    label: str
    kind: str  # "sample" or "upload"
    name: str  # sample name or upload stem
    trials: int
    n_datasets: int = 10
    n_models: int = 5

    @property
    def title(self) -> str:
        """What the sidebar shows as the active benchmark."""
        return SAMPLE_TITLES[self.name] if self.kind == "sample" else self.name


@dataclass
class SessionResult:
    """What one concurrent session saw."""

    plan: Plan
    wall: float = 0.0
    walls: list[float] = field(default_factory=list)
    finished: bool = False
    own_seen: bool = False
    others_seen: list[str] = field(default_factory=list)
    recheck_ok: bool = False
    error: str = ""


def plans(sessions: int, trials: int) -> list[Plan]:
    """A different benchmark and trial count for each session."""
    base = [
        Plan("s1", "sample", "tsc_bakeoff", trials),
        Plan("s2", "sample", "mmlu", trials + 1),
        Plan("s3", "sample", "synthetic", trials + 2),
        Plan("s4", "upload", "upload_four", trials + 3, n_datasets=12, n_models=5),
        Plan("s5", "upload", "upload_five", trials + 4, n_datasets=9, n_models=6),
    ]
    extra = [Plan(f"s{i + 1}", "upload", f"upload_{i + 1}", trials + i, n_datasets=8 + i % 5, n_models=4)
             for i in range(len(base), sessions)]
    return (base + extra)[:sessions] if sessions > 2 else [base[3], base[4]][:sessions]


def _others(plan: Plan, every: list[Plan]) -> list[str]:
    return [o.title for o in every if o.title != plan.title]


def _check(page: Any, plan: Plan, every: list[Plan]) -> tuple[bool, list[str]]:
    side, main = visible_text(page)
    own = plan.title in side and f"Finished: {plan.trials} trials" in main
    seen = [t for t in _others(plan, every) if t in side or t in main]
    seen += [f"T={o.trials}" for o in every if o.trials != plan.trials and f"Finished: {o.trials} trials" in main]
    return own, seen


def concurrent(server: H.Server, sessions: int = 5, trials: int = 10, folder: Path | None = None,
               log: Callable[[str], None] = print, runs: int = 1) -> tuple[list[SessionResult], int, int, float]:
    """``sessions`` browser sessions at once, each on its own benchmark and T, each running ``runs`` evaluations.

    With several runs, a session alternates its T with T + 10 and ends on its own T (the
    value the isolation checks look for).

    Returns
    -------
    results : list of SessionResult
    peak_rss, peak_rss_tree : int
        The server's peak RSS (alone and with its children) while the sessions ran, bytes.
    seconds : float
        Wall time of the whole part.
    """
    import tempfile

    folder = folder or Path(tempfile.mkdtemp(prefix="subsetsel-load-"))
    every = plans(sessions, trials)
    results = [SessionResult(p) for p in every]
    start = threading.Barrier(len(every))  # everyone loads its benchmark, then all click "Run" together
    done = threading.Barrier(len(every))  # everyone finished before the re-checks

    def one(i: int) -> None:
        from playwright.sync_api import sync_playwright

        res, plan = results[i], every[i]
        with sync_playwright() as p:
            browser = H.launch_chromium(p)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = ctx.new_page()
            try:
                open_app(page, server.url)
                if plan.kind == "sample":
                    if plan.name != "tsc_bakeoff":
                        load_sample(page, server.url, plan.name)
                else:
                    load_upload(page, server.url, folder, plan.name, plan.n_datasets, plan.n_models, seed=i)
                H.goto_page(page, server.url, "evaluate")
                start.wait(timeout=600)
                for r in range(runs):
                    t = plan.trials if (runs - 1 - r) % 2 == 0 else plan.trials + 10
                    res.walls.append(run_evaluation(page, t))
                res.wall = res.walls[-1]
                res.finished = True
                res.own_seen, res.others_seen = _check(page, plan, every)
            except Exception as exc:  # noqa: BLE001 - reported in the table
                res.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                start.abort()
            try:
                done.wait(timeout=900)
                # a fresh look after everyone finished: away and back in the same session
                # (a browser reload would start a new session)
                H.goto_page(page, server.url, "benchmark")
                H.goto_page(page, server.url, "evaluate")
                own, seen = _check(page, plan, every)
                res.recheck_ok = own and not seen
                res.others_seen += [s for s in seen if s not in res.others_seen]
            except Exception as exc:  # noqa: BLE001
                res.error = res.error or f"recheck {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                done.abort()
            finally:
                ctx.close()
                browser.close()

    t0 = time.perf_counter()
    with PeakSampler(server.proc.pid) as peak:
        threads = [threading.Thread(target=one, args=(i,), name=f"session-{i + 1}") for i in range(len(every))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    seconds = time.perf_counter() - t0
    for r in results:
        log(f"  {r.plan.label}: {r.plan.title[:40]:40} T={r.plan.trials:3d}  "
            f"{' '.join(f'{w:.1f}' for w in r.walls) or '-'} s  "
            f"finished={r.finished} own={r.own_seen} others={r.others_seen or 'none'} recheck={r.recheck_ok}"
            + (f"  ERROR {r.error}" if r.error else ""))
    return results, peak.peak, peak.peak_tree, seconds


# --------------------------------------------------------------------------- report

def print_tables(seq: list[SequentialRun], conc: list[SessionResult], peak: int, peak_tree: int,
                 conc_seconds: float, idle_rss: tuple[int, int]) -> None:
    """The figures as Markdown tables."""
    if seq:
        print("\n### (a) evaluations in a row, one session, one server process\n")
        print(f"server RSS before the first run: {idle_rss[0] / MB:.1f} MB (with children {idle_rss[1] / MB:.1f} MB)\n")
        print("| run | T | wall s | server RSS MB | with children MB |")
        print("|---:|---:|---:|---:|---:|")
        for r in seq:
            print(f"| {r.index} | {r.trials} | {r.wall:.1f} | {r.rss / MB:.1f} | {r.rss_tree / MB:.1f} |")
        half = len(seq) // 2
        first, second = seq[:half] or seq, seq[half:]
        g1 = max(r.rss for r in first) - seq[0].rss
        g2 = max(r.rss for r in second) - max(r.rss for r in first)
        walls = sorted(r.wall for r in seq)
        print(f"\nRSS growth: first half of the runs +{g1 / MB:.1f} MB, second half +{g2 / MB:.1f} MB over the first "
              f"half's maximum; wall time median {walls[len(walls) // 2]:.1f} s, min {walls[0]:.1f} s, "
              f"max {walls[-1]:.1f} s")
    if conc:
        print(f"\n### (b) {len(conc)} sessions at once\n")
        print("| session | benchmark | T | wall s (each run) | finished | own data shown | other sessions' data seen | "
              "re-check after all finished |")
        print("|---|---|---:|---:|---|---|---|---|")
        for r in conc:
            walls = ", ".join(f"{w:.1f}" for w in r.walls) or "—"
            print(f"| {r.plan.label} | {r.plan.title} | {r.plan.trials} | {walls} | {r.finished} | {r.own_seen} | "
                  f"{', '.join(r.others_seen) or 'none'} | {r.recheck_ok} |" + (f" error: {r.error}" if r.error else ""))
        print(f"\npeak server RSS {peak / MB:.1f} MB (with children {peak_tree / MB:.1f} MB); "
              f"whole part {conc_seconds:.1f} s; all finished: {all(r.finished for r in conc)}; "
              f"isolation held: {all(r.own_seen and not r.others_seen and r.recheck_ok for r in conc)}")


def main(argv: list[str] | None = None) -> int:
    """Run both parts against one fresh server and print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="evaluations in a row (part a; 0 skips it)")
    ap.add_argument("--trials", type=int, default=20, help="T of part a (alternates T, T + 1)")
    ap.add_argument("--sample", default="tsc_bakeoff", choices=[*sorted(SAMPLE_TITLES), "upload"],
                    help="benchmark of part a (upload: a generated 10 × 4 one)")
    ap.add_argument("--sessions", type=int, default=5, help="concurrent sessions (part b; 0 skips it)")
    ap.add_argument("--session-trials", type=int, default=10, help="T of the first session (the others add 1, 2, …)")
    ap.add_argument("--log", type=Path, default=None, help="the server's output (default: discarded)")
    args = ap.parse_args(argv)
    if not os.path.exists(H.CHROMIUM):
        print(f"{H.CHROMIUM} is missing (apt-get install chromium)")
        return 2
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    t0 = time.perf_counter()
    with H.Server(log=args.log) as server:
        idle = rss(server.proc.pid)
        seq: list[SequentialRun] = []
        conc: list[SessionResult] = []
        peak = peak_tree = 0
        conc_seconds = 0.0
        if args.runs:
            print(f"(a) {args.runs} evaluations in a row on the {args.sample} sample")
            seq = sequential(server, args.runs, args.trials, args.sample)
        if args.sessions:
            print(f"(b) {args.sessions} sessions at once")
            conc, peak, peak_tree, conc_seconds = concurrent(server, args.sessions, args.session_trials)
        final = rss(server.proc.pid)
    print_tables(seq, conc, peak, peak_tree, conc_seconds, idle)
    print(f"\nserver RSS at the end {final[0] / MB:.1f} MB; total {time.perf_counter() - t0:.0f} s")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    ok = all(r.finished and r.own_seen and not r.others_seen and r.recheck_ok for r in conc)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
