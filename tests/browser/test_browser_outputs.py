"""Outputs in a real browser (Debian's chromium through Playwright against ``streamlit run``).

* Air-gapped: every page is visited and no request goes to a host other than this machine
  (no favicon, font or script from the internet).
* The Evaluate page draws the critical-difference diagram and offers the LaTeX table and the
  settings as ``run.toml`` (read back by ``subsetsel report``'s reader).
* The meeting view: at 1280 × 720 with the sidebar collapsed, the Report's presentation shows
  the map with the subset and the curves with the ceiling band without scrolling; the map's
  numbered markers do not overlap and are inside the frame; nothing is wider than the window.

Screenshots go to ``screenshots/`` (git-ignored): ``outputs-meeting.png``, ``outputs-cd.png``.
"""

from __future__ import annotations

import time
from urllib.parse import urlparse

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser

SHOTS = H.ROOT / "screenshots"
LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture
def session(shared_server, fresh_page):  # type: ignore[no-untyped-def]
    """The process's shared server, a page of a fresh browser context and its requests to other hosts."""
    SHOTS.mkdir(exist_ok=True)
    outside: list[str] = []
    fresh_page.on("request", lambda r: outside.append(r.url)
                  if not r.url.startswith(("data:", "blob:")) and urlparse(r.url).hostname not in LOCAL else None)
    return shared_server, fresh_page, outside


def _idle(page, seconds: float = 240) -> None:  # type: ignore[no-untyped-def]
    """Wait until the app is idle (a run and its permutation test poll for a while)."""
    deadline = time.time() + seconds
    while True:
        try:
            H.wait_idle(page, 20)
            return
        except Exception:
            if time.time() > deadline:
                raise


def _nav(page, server, title: str, url: str) -> None:  # type: ignore[no-untyped-def]
    page.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
    page.wait_for_url(H.page_address(server.url, url), timeout=120000)
    _idle(page)


def test_no_page_asks_any_other_host(session) -> None:  # type: ignore[no-untyped-def]
    server, page, outside = session
    page.goto(server.url + "/", timeout=60000)
    _idle(page)
    links = page.locator("[data-testid=stSidebarNav] a")
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert len(hrefs) >= 5
    for h in hrefs:
        page.goto(h if h.startswith("http") else f"{server.url}/{h.lstrip('/')}", timeout=60000)
        _idle(page)
        assert page.locator("[data-testid=stException]").count() == 0
    assert outside == [], outside


def test_evaluate_outputs_and_the_meeting_view(session, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.outputs.run_config import read_run_config

    server, page, outside = session
    page.goto(server.url + "/", timeout=60000)
    _idle(page)
    _nav(page, server, "Evaluate", "evaluate")
    page.get_by_label("Trials T", exact=True).and_(page.locator("input")).fill("12")
    shuffles = page.get_by_label("Shuffles B", exact=True).and_(page.locator("input"))
    shuffles.fill("19")  # a short permutation test: the test's pages are not drawn beside 199 shuffles
    shuffles.press("Tab")
    H.wait_idle(page)
    page.get_by_role("button", name="Run evaluation").click()
    page.wait_for_selector("text=Finished: 12 trials", timeout=180000)
    page.wait_for_selector("text=critical-difference diagram", timeout=240000)
    _idle(page)
    # the critical-difference diagram: every strategy's mean rank, drawn as a plotly figure
    cd = page.locator(".js-plotly-plot", has_text="Critical difference").first
    cd.scroll_into_view_if_needed()
    time.sleep(0.5)
    cd.screenshot(path=str(SHOTS / "outputs-cd.png"))
    labels = cd.inner_text()
    for name in ("random", "kmeans", "fafi-cosine"):
        assert name in labels
    # the downloads: LaTeX and the settings as run.toml
    with page.expect_download(timeout=60000) as dl:
        page.get_by_role("button", name="AUC table (LaTeX)").click()
    tex = tmp_path / "auc.tex"
    dl.value.save_as(tex)
    body = tex.read_text(encoding="utf-8")
    assert r"\toprule" in body and r"\textbf{" in body and '% made_by: "dashboard"' in body
    with page.expect_download(timeout=60000) as dl:
        page.get_by_role("button", name="Settings as run.toml").click()
    toml = tmp_path / "run.toml"
    dl.value.save_as(toml)
    cfg = read_run_config(toml)
    assert cfg.trials == 12 and "random" in cfg.strategies

    # the meeting view
    _nav(page, server, "Report", "report")
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=120000)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.hover("[data-testid=stSidebar]")
    page.locator("[data-testid=stSidebarCollapseButton] button, [data-testid=stSidebarCollapseButton]").first.click()
    page.wait_for_function("() => { const s = document.querySelector('[data-testid=stSidebar]');"
                           " return !s || s.getAttribute('aria-expanded') === 'false'"
                           " || s.getBoundingClientRect().right <= 1; }", timeout=30000)
    time.sleep(1.5)
    _idle(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "outputs-meeting.png"))
    figs = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')].map(p => {
        const r = p.getBoundingClientRect();
        return {title: (p.layout.title || {}).text || '', top: r.top, bottom: r.bottom, left: r.left, right: r.right};
    })""")
    key = [f for f in figs if "chosen by" in f["title"] or " vs k" in f["title"]]
    assert len(key) == 2, figs
    for f in key:  # whole, without scrolling
        assert 0 <= f["top"] and f["bottom"] <= 720 and 0 <= f["left"] and f["right"] <= 1280, f
    # the map's numbered markers: apart, and inside the plot frame
    marks = page.evaluate("""() => {
        for (const p of document.querySelectorAll('.js-plotly-plot')) {
          const t = (p._fullData || []).find(t => t.name === 'selected (in order)');
          if (!t) continue;
          const xa = p._fullLayout.xaxis, ya = p._fullLayout.yaxis;
          return {pts: Array.from(t.x).map((x, i) => [xa.l2p(x), ya.l2p(t.y[i])]),
                  w: xa._length, h: ya._length, size: t.marker.size};
        }
        return null;
    }""")
    assert marks is not None and marks["pts"]
    r = marks["size"] / 2
    for x, y in marks["pts"]:
        assert r - 1 <= x <= marks["w"] - r + 1 and r - 1 <= y <= marks["h"] - r + 1, (x, y, marks["w"], marks["h"])
    pts = marks["pts"]
    gaps = [((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 for i, a in enumerate(pts) for b in pts[i + 1:]]
    assert min(gaps) >= marks["size"] - 1, min(gaps)
    # nothing is cut off at the right edge
    assert page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollWidth") <= 1280
    assert page.locator("[data-testid=stException]").count() == 0
    assert outside == [], outside
