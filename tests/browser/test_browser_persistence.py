"""A reload in a real browser keeps the session: upload a benchmark, change k, reload the page
(and open the address in a second tab), and the upload is still the active benchmark.

Runs ``streamlit run`` with the session store on, in a temporary folder; skips cleanly
without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser


def _sid(url: str) -> str | None:
    return (parse_qs(urlparse(url).query).get("s") or [None])[0]


def _sidebar(page) -> str:
    return page.locator("[data-testid=stSidebar]").inner_text()


def test_a_reload_keeps_the_uploaded_benchmark(browser, tmp_path):
    scores = tmp_path / "tiny_scores.csv"
    scores.write_bytes(H.tiny_long_csv(n_datasets=10, n_models=5))
    env = {"SUBSETSEL_NO_STATE": "0", "SUBSETSEL_STATE_DIR": str(tmp_path / "sessions")}
    with H.Server(log=tmp_path / "streamlit.log", env=env) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server.url + "/", timeout=60000)
        H.wait_idle(page, 90)
        assert _sid(page.url) is None  # a fresh visit keeps nothing yet
        H.goto_page(page, server.url, "benchmark")
        page.get_by_role("tab", name="Upload your files").click()
        page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").nth(0) \
            .set_input_files(str(scores))
        H.wait_idle(page)
        H.use_upload(page, "Use this benchmark (10 datasets × 5 models × 2 folds)")
        assert "tiny_scores" in _sidebar(page)
        page.wait_for_function("() => new URLSearchParams(location.search).get('s')", timeout=30000)
        sid = _sid(page.url)
        assert sid and len(sid) == 22

        # another page keeps the id in the address; k is changed there
        H.goto_page(page, server.url, "select")
        page.wait_for_function("() => new URLSearchParams(location.search).get('s')", timeout=30000)
        assert _sid(page.url) == sid
        H.set_slider(page, "k — datasets in the subset", 4)
        H.wait_idle(page)
        page.wait_for_function("() => document.querySelectorAll('.ss-map .ss-sel').length === 4", timeout=60000)

        page.reload()
        # the note of the session's first run, watched for as the page draws (as the unknown-id note below)
        page.wait_for_selector("text=Restored your session from", timeout=90000)
        H.wait_idle(page, 90)
        assert "tiny_scores" in _sidebar(page) and "10 datasets" in _sidebar(page)
        page.wait_for_function("() => document.querySelectorAll('.ss-map .ss-sel').length === 4", timeout=60000)
        assert page.locator("[data-testid=stException]").count() == 0

        # the address works in another tab (a shared link), and an unknown id is a note, not an error
        other = browser.new_page(viewport={"width": 1400, "height": 1000})
        other.goto(page.url, timeout=60000)
        H.wait_idle(other, 90)
        assert "tiny_scores" in _sidebar(other)
        other.goto(server.url + "/?s=" + "A" * 22, timeout=60000)
        # the note is shown on the session's first run: watched for as the page draws (a rerun the server
        # makes later, such as a reconnect on a loaded machine, would draw the page without it)
        other.wait_for_selector("text=unknown or has expired", timeout=90000)
        H.wait_idle(other, 90)
        assert "Time series classification" in _sidebar(other)
        assert other.locator("[data-testid=stException]").count() == 0


def _upload_and_use(page, server, path, button: str) -> None:
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").nth(0) \
        .set_input_files(str(path))
    H.wait_idle(page)
    H.use_upload(page, button)


def test_an_evaluation_then_a_switch_then_a_reload_restores_the_new_benchmark(browser, tmp_path):
    big, small = tmp_path / "big_scores.csv", tmp_path / "small_scores.csv"
    big.write_bytes(H.tiny_long_csv(n_datasets=24, n_models=30, n_folds=1))
    small.write_bytes(H.tiny_long_csv(n_datasets=8, n_models=5, n_folds=1, seed=3))
    env = {"SUBSETSEL_NO_STATE": "0", "SUBSETSEL_STATE_DIR": str(tmp_path / "sessions")}
    with H.Server(log=tmp_path / "streamlit.log", env=env) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server.url + "/", timeout=60000)
        H.wait_idle(page, 90)
        _upload_and_use(page, server, big, "Use this benchmark (24 datasets × 30 models × 1 folds)")

        # evaluate the larger benchmark (k up to 19 of its 24 datasets), with the permutation test after it
        H.goto_page(page, server.url, "evaluate")
        page.get_by_label("Trials T", exact=True).and_(page.locator("input")).fill("6")
        shuffles = page.get_by_label("Shuffles B", exact=True).and_(page.locator("input"))
        shuffles.fill("19")
        shuffles.press("Tab")
        H.wait_idle(page)
        page.get_by_role("button", name="Run evaluation").click()
        page.wait_for_selector("text=Finished: 6 trials", timeout=180000)
        page.wait_for_selector("text=Permutation test finished", timeout=240000)
        H.wait_idle(page)

        # switch to the smaller one, then reload: the session comes back with it, not an error
        _upload_and_use(page, server, small, "Use this benchmark (8 datasets × 5 models × 1 folds)")
        assert "small_scores" in _sidebar(page)
        page.wait_for_function("() => new URLSearchParams(location.search).get('s')", timeout=30000)
        page.wait_for_timeout(1500)  # the kept session is written in a background thread
        page.reload()
        # the note of the session's first run, watched for as the page draws (as the unknown-id note below)
        page.wait_for_selector("text=Restored your session from", timeout=90000)
        H.wait_idle(page, 90)
        body = page.locator("[data-testid=stMain]").inner_text()
        assert "could not be restored" not in body and "damaged" not in body, body[:500]
        assert "small_scores" in _sidebar(page) and "8 datasets" in _sidebar(page)
        H.goto_page(page, server.url, "evaluate")
        H.wait_idle(page, 90)
        assert page.locator("[data-testid=stException]").count() == 0
        assert "Finished: 6 trials" not in page.locator("[data-testid=stMain]").inner_text()
