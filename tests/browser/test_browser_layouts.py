"""Uploads of every score-table layout in a real browser (Debian's chromium driven by Playwright).

Each fixture of ``tests/fixtures/leaderboards`` is uploaded on the Benchmark page: the page
says how it reads the table before anything runs, the validation report gives the right
numbers of datasets and models (after one confirming choice for the tables with gaps),
the HELM-style table flips in one click, and the last one is used. Screenshots go to
``screenshots/layout-*.png``. Skips cleanly without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_core.io.score_format import MISSING_TITLES

pytestmark = pytest.mark.browser

SHOTS = H.ROOT / "screenshots"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "leaderboards"
# file, what the page says it reads, the missing-score policy to confirm (None: no gap), the report's button
SHAPES = [
    ("bbh_style_leaderboard.csv",
     "I read this as: 12 models (rows) × 10 datasets (columns); set aside: Rank (a rank of the rows), Company "
     "(text), Release (dates → release dates), Parameters (sizes), Average (the row mean)",
     "drop-models", "Use this benchmark (10 datasets × 11 models × 1 folds)"),
    ("helm_style_leaderboard.csv",
     "I read this as: 9 models (rows) × 10 datasets (columns); set aside: Mean win rate (a win rate of the rows)",
     "drop-datasets", "Use this benchmark (7 datasets × 9 models × 1 folds)"),
    ("long_rmse.csv", "I read this as: a long table of 7 datasets × 5 models × 3 folds", None,
     "Use this benchmark (7 datasets × 5 models × 3 folds)"),
    ("tsc_accuracy_wide.csv", "I read this as: 10 datasets (rows) × 6 models (columns)", None,
     "Use this benchmark (10 datasets × 6 models × 1 folds)"),
]


@pytest.fixture
def browser_page(shared_server: H.Server, fresh_page: Any) -> tuple[H.Server, Any]:
    """The process's shared server and a page of a fresh browser context (a fresh session)."""
    SHOTS.mkdir(exist_ok=True)
    return shared_server, fresh_page


def _main_text(page: Any) -> str:
    return str(page.locator("[data-testid=stMain]").inner_text())


def _no_exceptions(page: Any) -> None:
    assert page.locator("[data-testid=stException]").count() == 0
    assert "Traceback" not in page.inner_text("body")


def _shot(page: Any, name: str) -> None:
    h = page.evaluate("() => (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight")
    page.set_viewport_size({"width": 1400, "height": int(min(max(h, 1000), 5000))})
    page.screenshot(path=str(SHOTS / f"layout-{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def _choose(page: Any, label: str, option: str) -> None:
    """Pick an option of a selectbox (a click may only focus it: open it until the option shows)."""
    box = page.get_by_role("combobox", name=label).first
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):
        box.click()
        try:
            wanted.wait_for(timeout=2000)
        except Exception:  # noqa: BLE001 - not open yet: click again
            continue
        wanted.click()
        return
    raise AssertionError(f"could not choose {option!r} in {label!r}")


def _upload(page: Any, server: Any, name: str) -> None:
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    clear = page.get_by_role("button", name="Clear the uploads")
    if clear.count():
        clear.click()
        H.wait_idle(page)
    inputs = page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]")
    inputs.nth(0).set_input_files(str(FIXTURES / name))
    H.wait_idle(page, 90)


def test_every_layout_uploads_with_its_validation_report(browser_page: Any) -> None:
    server, page = browser_page
    page.goto(server.url + "/", timeout=60000)
    H.wait_idle(page, 90)
    for name, said, missing, button in SHAPES:
        _upload(page, server, name)
        page.wait_for_selector("text=I read this as", timeout=60000)
        assert said in _main_text(page), (name, _main_text(page)[:3000])
        _no_exceptions(page)
        if missing is not None:
            assert "missing score(s)" in _main_text(page)  # the guess says so before anything runs
            _choose(page, "Missing scores", f"{missing}: {MISSING_TITLES[missing]}")
            H.wait_idle(page)
        H.use_button(page, button).wait_for(timeout=60000)
        assert "Validation report" in _main_text(page)
        _no_exceptions(page)
        _shot(page, name.split(".")[0])
        if name.startswith("helm"):
            page.get_by_role("button", name="Flip: the rows are datasets, not models").click()
            H.wait_idle(page)
            page.wait_for_selector("text=9 datasets (rows) × 10 models (columns)", timeout=60000)
            page.get_by_role("button", name="Flip: the rows are models, not datasets").click()
            H.wait_idle(page)
            page.wait_for_selector("text=9 models (rows) × 10 datasets (columns)", timeout=60000)
    H.use_button(page, SHAPES[-1][3]).click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=60000)
    assert "tsc_accuracy_wide" in page.locator("[data-testid=stSidebar]").inner_text()
    _no_exceptions(page)
