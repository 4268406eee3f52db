"""A summary row of an uploaded leaderboard, in a real browser (Debian's chromium driven by
Playwright): the page asks about it and keeps *Use this benchmark* disabled; the row picked in
*Rows set aside* leaves the benchmark, and the button and the sidebar count the models without
it. Screenshot: ``screenshots/rows-set-aside.png``. Skips cleanly without ``/usr/bin/chromium``
or Playwright.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import leaderboard_shapes as shapes
import pytest

pytestmark = pytest.mark.browser

SHOTS = H.ROOT / "screenshots"


def _main(page: object) -> str:
    return str(page.locator("[data-testid=stMain]").inner_text())  # type: ignore[attr-defined]


def test_a_summary_row_is_set_aside_in_the_browser(shared_server: H.Server, fresh_page: Any, tmp_path: Path) -> None:
    SHOTS.mkdir(exist_ok=True)
    board = tmp_path / "board.csv"
    board.write_text(shapes.with_average_row())
    server, page = shared_server, fresh_page
    page.goto(server.url + "/", timeout=60000)
    H.wait_idle(page, 90)
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").nth(0).set_input_files(
        str(board))
    H.wait_idle(page, 90)
    page.wait_for_selector("text=Preview of board.csv", timeout=60000)
    assert "summary row" in _main(page) and "Not usable yet" in _main(page)
    box = page.locator("[data-testid=stMultiSelect]", has_text="Rows set aside (not models)")
    box.click()
    page.keyboard.type("Average")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    H.wait_idle(page, 60)
    page.wait_for_function("() => !document.body.innerText.includes('Not usable yet')", timeout=60000)
    use = H.use_button(page, "Use this benchmark (5 datasets × 6 models × 1 folds)")
    assert use.is_enabled()
    page.screenshot(path=str(SHOTS / "rows-set-aside.png"), full_page=True)
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=60000)
    assert page.locator("[data-testid=stException]").count() == 0 and "Traceback" not in page.inner_text("body")
