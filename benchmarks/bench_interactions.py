"""Time from a changed widget to the redrawn chart, in a real browser.

Starts ``streamlit run app.py`` on a free port, opens the Select page of the TSC sample in
Debian's chromium (Playwright) and measures, for k and for the strategy, the time from
the key press / click to the moment the map holds the new subset and its numbered markers
are drawn in the DOM. By default the page's quick SVG map; with ``--zoomable`` the plotly
map (Streamlit mounts a new plotly chart whenever its figure changes, so that includes
plotly's full redraw). Prints the times; nothing is asserted.

usage (from the repository root)::

    python benchmarks/bench_interactions.py [--rounds 8] [--no-wait-umap] [--zoomable]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

import apphelpers as H  # noqa: E402 - after the path set-up
from playwright.sync_api import Page  # noqa: E402

SELECTED = """(args) => {
  const svg = [...document.querySelectorAll('.ss-map .ss-sel circle')];
  if (svg.length) {  // the quick SVG map: the new subset's k numbered markers are in the page
    const sig = JSON.stringify([svg.map(c => +c.getAttribute('cx')), svg.map(c => +c.getAttribute('cy'))]);
    return svg.length === args.k && sig !== args.before;
  }
  for (const p of document.querySelectorAll('.js-plotly-plot')) {
    const t = (p.data || []).find(t => t.name === 'selected (in order)');
    if (t) {
      const sig = JSON.stringify([Array.from(t.x), Array.from(t.y)]);
      // the new subset is in the chart's data and its k numbered markers are drawn
      return t.text.length === args.k && sig !== args.before
        && p.querySelectorAll('g.textpoint').length === args.k;
    }
  }
  return false;
}"""
SIZES_SHOWN = "() => document.body.innerText.includes('134,400')"
START_DRAWN = ("() => document.querySelectorAll('.ss-leaderboard tbody tr').length > 0"
               " && document.querySelectorAll('.ss-map circle').length > 0"
               " && document.body.innerText.includes('Test against random')")
UMAP_SHOWN = "() => [...document.querySelectorAll('.ss-map text')].some(t => t.textContent === 'UMAP 1')"


def _signature(page: Page) -> str:
    return json.dumps(H.selected_positions(page))


def _timed(page: Page, action: Callable[[], object], k: int, before: str) -> float:
    """Seconds from the widget change to the map drawn with the new subset."""
    t0 = time.perf_counter()
    action()
    page.wait_for_function(SELECTED, arg={"k": k, "before": before}, timeout=30000, polling="raf")
    return time.perf_counter() - t0


def _summary(name: str, times: list[float]) -> str:
    ms = sorted(1000 * t for t in times)
    p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
    return (f"{name:<28} n={len(ms):2d}  median {statistics.median(ms):6.0f} ms  p90 {p90:6.0f} ms  "
            f"min {ms[0]:6.0f} ms  max {ms[-1]:6.0f} ms")


def main() -> None:
    """Run the measurements and print them."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=8, help="changes per kind of interaction")
    ap.add_argument("--no-wait-umap", action="store_true", help="measure while the map may still be PCA")
    ap.add_argument("--zoomable", action="store_true", help="measure the Select page's plotly map instead")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with H.Server() as server, sync_playwright() as p:
        browser = H.launch_chromium(p)
        for label in ("first session of a new server", "another session"):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t0 = time.perf_counter()
            page.goto(server.url + "/", timeout=60000)
            page.wait_for_function(SIZES_SHOWN, timeout=90000, polling=50)
            t_sizes = time.perf_counter() - t0
            page.wait_for_function(START_DRAWN, timeout=90000, polling=50)
            print(f"start page, {label}: title and sizes {t_sizes:5.1f} s, leaderboard + map drawn "
                  f"{time.perf_counter() - t0:5.1f} s")
            if label == "another session":
                break
            page.close()
        t0 = time.perf_counter()
        if not args.no_wait_umap:
            page.wait_for_function(UMAP_SHOWN, timeout=240000)
            print(f"UMAP swapped in on the start page      {time.perf_counter() - t0:6.1f} s after opening it")
        H.goto_page(page, server.url, "select")
        if args.zoomable:
            page.get_by_text("Zoomable map").click()
            H.wait_idle(page)
        page.wait_for_function(SELECTED.replace("sig !== args.before", "true"),
                               arg={"k": 10, "before": ""}, timeout=60000)
        method = page.evaluate("() => [...document.querySelectorAll('.ss-map text, .js-plotly-plot .xtitle')]"
                               ".map(t => t.textContent).filter(t => / 1$/.test(t))")
        print(f"select page map: {'plotly' if args.zoomable else 'SVG'}, axes {method}")
        thumb = page.get_by_role("slider", name="k — datasets in the subset")

        k_new, k_seen = [], []
        k = 10
        for _i in range(args.rounds):  # new k values: nothing cached yet
            before = _signature(page)
            thumb.focus()
            k += 1
            k_new.append(_timed(page, lambda: thumb.press("ArrowRight"), k, before))
            H.wait_idle(page, settle=0.05)
        for _i in range(args.rounds):  # back down: cached selections
            before = _signature(page)
            thumb.focus()
            k -= 1
            k_seen.append(_timed(page, lambda: thumb.press("ArrowLeft"), k, before))
            H.wait_idle(page, settle=0.05)

        strat_new, strat_seen = [], []
        order = ["fafi-euclidean", "a-optimal", "d-optimal", "kmeans", "random", "fafi-cosine"]
        titles = {"fafi-euclidean": "FAFI (Euclidean)", "a-optimal": "A-optimal design",
                  "d-optimal": "D-optimal design", "kmeans": "k-means", "random": "Random",
                  "fafi-cosine": "FAFI (cosine)"}
        from subsetsel_core.strategies import REGISTRY

        titles = {s: REGISTRY[s].title for s in order}
        for rnd in range(2):
            for s in order:
                before = _signature(page)
                page.get_by_role("combobox", name="Strategy").click()
                option = page.get_by_role("option", name=titles[s], exact=True)
                option.wait_for()
                t = _timed(page, option.click, k, before)
                (strat_new if rnd == 0 else strat_seen).append(t)
                H.wait_idle(page, settle=0.05)
        print(_summary("k, first time", k_new))
        print(_summary("k, seen before (cached)", k_seen))
        print(_summary("strategy, first time", strat_new))
        print(_summary("strategy, seen before", strat_seen))
        browser.close()


if __name__ == "__main__":
    main()
