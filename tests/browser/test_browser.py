"""The main job in a real browser: Debian's chromium driven by Playwright against ``streamlit run``.

Loads the TSC sample, changes strategy and k on the Select page, downloads the subset CSV,
runs a short evaluation and sees the curves, uploads a small CSV benchmark (strategy and k
reset, and the page says so), and saves a
screenshot of every page under ``screenshots/`` (git-ignored). Skips cleanly without
``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser

SHOTS = H.ROOT / "screenshots"
# the Select page is drawn: k numbered markers on its (SVG) map and the k-profile chart
SELECT_DRAWN = ("(k) => document.querySelectorAll('.ss-map .ss-sel').length === k"
                " && document.querySelectorAll('.js-plotly-plot').length >= 1")


@pytest.fixture
def browser_page(shared_server, fresh_page):
    """The process's shared server and a page of a fresh browser context (a fresh session)."""
    SHOTS.mkdir(exist_ok=True)
    return shared_server, fresh_page


def _shot(page, name: str) -> None:
    h = page.evaluate("() => (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight")
    page.set_viewport_size({"width": 1400, "height": int(min(max(h, 1000), 5000))})
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def _no_exceptions(page) -> None:
    assert page.locator("[data-testid=stException]").count() == 0
    assert "Traceback" not in page.inner_text("body")


def test_main_job_in_a_real_browser(browser_page, tmp_path):
    server, page = browser_page
    t_start = time.time()

    # 1. start: the TSC sample with its size, leaderboard and map
    t0 = time.time()
    page.goto(server.url + "/", timeout=60000)
    H.wait_idle(page, 90)
    page.wait_for_function("() => document.body.innerText.includes('134,400')", timeout=60000)
    first_load = time.time() - t0
    body = page.inner_text("body")
    assert "Time series classification bake-off" in body and "134,400" in body
    # leaderboard and map are plain HTML/SVG: drawn with the page, the map's points have tooltips
    page.wait_for_function("() => document.querySelectorAll('.ss-leaderboard tbody tr').length === 15"
                           " && document.querySelectorAll('.ss-map circle > title').length >= 112", timeout=90000)
    assert page.locator(".ss-leaderboard tbody tr").first.inner_text().split()[:2] == ["1", "HC2"]
    _no_exceptions(page)
    _shot(page, "01-start")

    # 2. select: change strategy and k; the numbered markers follow
    H.goto_page(page, server.url, "select")
    page.wait_for_function(SELECT_DRAWN, arg=10, timeout=90000)
    assert H.selected_markers(page) == [str(i) for i in range(1, 11)]
    tips = page.evaluate("() => [...document.querySelectorAll('.ss-map .ss-sel > title')].map(t => t.textContent)")
    assert len(tips) == 10 and tips[0].endswith("selected #1") and tips[9].endswith("selected #10")
    before = H.selected_positions(page)
    H.choose(page, "Strategy", "kmeans")
    H.wait_idle(page)
    page.wait_for_function("(b) => { const c = [...document.querySelectorAll('.ss-map .ss-sel circle')];"
                           " return c.length > 0 && JSON.stringify([c.map(e => +e.getAttribute('cx')),"
                           " c.map(e => +e.getAttribute('cy'))]) !== b; }",
                           arg=__import__("json").dumps(before), timeout=60000)
    H.set_slider(page, "k — datasets in the subset", 6)
    H.wait_idle(page)
    page.wait_for_function(SELECT_DRAWN, arg=6, timeout=60000)
    assert H.selected_markers(page) == [str(i) for i in range(1, 7)]
    # the zoomable map (plotly) shows the same six, in the same order
    page.get_by_text("Zoomable map").click()
    H.wait_idle(page)
    page.wait_for_function("() => { for (const p of document.querySelectorAll('.js-plotly-plot')) {"
                           " const t = (p.data||[]).find(t => t.name === 'selected (in order)');"
                           " if (t) return t.text.length === 6 && p.querySelectorAll('g.textpoint').length === 6; }"
                           " return false; }", timeout=60000)
    assert H.selected_markers(page) == [str(i) for i in range(1, 7)]
    page.get_by_text("Zoomable map").click()
    H.wait_idle(page)
    page.wait_for_function(SELECT_DRAWN, arg=6, timeout=60000)
    _no_exceptions(page)

    # 3. download the subset CSV and check its rows
    with page.expect_download(timeout=90000) as dl:
        page.get_by_role("button", name="Subset CSV").click()
    path = tmp_path / "subset.csv"
    dl.value.save_as(path)
    import pandas as pd

    df = pd.read_csv(path, comment="#")  # the provenance block: '# key: value' lines
    assert list(df.columns[:2]) == ["order", "dataset"] and list(df["order"]) == [1, 2, 3, 4, 5, 6]
    assert {"type", "n_classes", "series_length"} <= set(df.columns)
    assert df["dataset"].is_unique
    assert dl.value.suggested_filename == "subset_tsc_bakeoff_kmeans_k6_seed0.csv"
    _shot(page, "04-select")

    # 4. evaluate: a short run; the curves appear (plotly traces in the DOM)
    H.goto_page(page, server.url, "evaluate")
    trials = page.get_by_label("Trials T", exact=True).and_(page.locator("input"))
    trials.fill("12")
    shuffles = page.get_by_label("Shuffles B", exact=True).and_(page.locator("input"))
    shuffles.fill("19")  # a short permutation test: the page is idle again soon after the run
    shuffles.press("Tab")
    page.get_by_role("button", name="Run evaluation").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].some(p => (p.data||[]).some(t => t.name === 'fafi-cosine'))",
        timeout=60000,
    )
    page.wait_for_selector("text=Finished: 12 trials", timeout=90000)
    H.wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=90000)
    traces = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace").count()
    assert traces >= 6 + 2 * 2  # a mean per strategy; the band edges of random and of the favoured strategy
    body = page.inner_text("body")
    assert "Area under the curve" in body and "Permutation test" in body and "vs random on these pools" in body
    _no_exceptions(page)
    _shot(page, "05-evaluate")

    # 5. the other pages of the sample
    for i, name in ((3, "representation"), (6, "report")):
        H.goto_page(page, server.url, name)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=90000)
        _no_exceptions(page)
        _shot(page, f"0{i}-{name}")

    # 5b. the self-contained HTML report (generated when the button is clicked)
    page.get_by_role("tab", name="Export").click()
    with page.expect_download(timeout=60000) as dl:
        page.get_by_role("button", name="Download the HTML report").click()
    report = tmp_path / "report.html"
    dl.value.save_as(report)
    text = report.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Plotly.newPlot" in text and "Rank agreement versus k" in text
    assert '<script src="http' not in text

    # 6. upload a small CSV benchmark with descriptors and use it
    scores = tmp_path / "tiny_scores.csv"
    scores.write_bytes(H.tiny_long_csv(n_datasets=10, n_models=5))
    desc = tmp_path / "features_tiny.csv"
    desc.write_bytes(H.tiny_descriptors_csv(n_datasets=10))
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    inputs = page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]")  # not the sidebar's workspace uploader
    inputs.nth(0).set_input_files(str(scores))
    H.wait_idle(page)
    inputs.nth(1).set_input_files(str(desc))
    H.wait_idle(page)
    use = H.use_button(page, "Use this benchmark (10 datasets × 5 models × 2 folds)")
    use.wait_for(timeout=90000)
    _shot(page, "02-benchmark-upload")
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=90000)
    sidebar = page.locator("[data-testid=stSidebar]").inner_text()
    assert "tiny_scores" in sidebar and "10 datasets" in sidebar
    # strategy and k of the sample do not carry over silently: they reset, and the page says so
    notice = page.locator("text=Reset for the new benchmark").first.inner_text()
    assert "strategy kmeans → fafi-cosine" in notice and "k 6 → 10" in notice, notice
    _no_exceptions(page)
    H.goto_page(page, server.url, "select")
    page.wait_for_function(SELECT_DRAWN, arg=10, timeout=90000)
    assert H.selected_markers(page) == [str(i) for i in range(1, 11)]
    _no_exceptions(page)

    elapsed = time.time() - t_start
    print(f"\nbrowser test: first load {first_load:.1f} s, whole job {elapsed:.1f} s")  # a figure, not a limit


def test_screenshots_exist():
    names = sorted(p.name for p in Path(SHOTS).glob("0*.png")) if SHOTS.exists() else []
    if not names:
        pytest.skip("the browser test did not run")
    assert {"01-start.png", "03-representation.png", "04-select.png", "05-evaluate.png", "06-report.png",
            "02-benchmark-upload.png"} <= set(names)
    assert io.BytesIO((SHOTS / "01-start.png").read_bytes()).read(8) == b"\x89PNG\r\n\x1a\n"


def test_a_page_opened_by_its_address_on_a_new_server(browser):
    """A bookmark of a page (or a tab reconnecting after a restart) as the first visit of a
    new server: the page comes up under app.py's navigation, with no error."""
    with H.Server() as server:  # the module's chromium; a server of its own (its first visit)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server.url + "/select", timeout=60000)
        H.wait_idle(page, 90)
        page.wait_for_function(SELECT_DRAWN, arg=10, timeout=90000)
        _no_exceptions(page)
        nav = page.locator("[data-testid=stSidebarNav]").inner_text()
        assert all(p.title in nav for p in H.PAGE_SPECS)  # app.py's pages, not the folder's file names
        assert "app" not in nav.split()
        assert page.url == f"{server.url}/{H.page_spec('select').url}"  # the address the browser asked for
        assert H.selected_markers(page) == [str(i) for i in range(1, 11)]
        page.close()
