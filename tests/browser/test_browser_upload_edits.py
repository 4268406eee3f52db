"""The Benchmark page's text follows every edit of an upload in a real browser (Debian's chromium driven by
Playwright): unticking a dataset's own direction in the *Direction per dataset* table changes the
sentence, the table's title and the validation report's warning at once, and the benchmark used is read
that way; an upload whose layout the guess is not sure of keeps *Use this benchmark* disabled, with the
reason beside it, until the reading is confirmed. Screenshots go to ``screenshots/edits-*.png``. Skips
cleanly without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser

SHOTS = H.ROOT / "screenshots"
MIXED = (b"Model,MMLU - EM,GSM8K - EM,ARC - EM,Calibration - ECE\nm1,0.6,0.7,0.5,0.30\nm2,0.5,0.6,0.4,0.20\n"
         b"m3,0.4,0.3,0.45,0.10\nm4,0.3,0.2,0.2,0.25\n")
PLAIN = b"name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\nx4,0.3,0.3,0.3\n"
ROW = 35  # the height of a header and of a row of Streamlit's data grid, in CSS pixels


def _main(page: Any) -> str:
    return str(page.locator("[data-testid=stMain]").inner_text())


def _upload(page: Any, server: Any, path: Path) -> None:
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    clear = page.get_by_role("button", name="Clear the uploads")
    if clear.count():
        clear.click()
        H.wait_idle(page)
    page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").nth(0).set_input_files(str(path))
    H.wait_idle(page, 90)
    page.wait_for_selector(f"text=Preview of {path.name}", timeout=60000)


def _toggle(page: Any, table: Any, row: int) -> None:
    """Toggle the checkbox in the second column of a data-grid row (row 1 = the first below the header):
    select the row's first cell, step right, press space."""
    table.scroll_into_view_if_needed()
    time.sleep(0.3)
    box = table.bounding_box()
    page.mouse.click(box["x"] + 30, box["y"] + ROW * row + ROW // 2)
    time.sleep(0.3)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    time.sleep(0.3)
    page.keyboard.press("Escape")
    H.wait_idle(page, 60)


def _shot(page: Any, name: str) -> None:
    h = page.evaluate("() => (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight")
    page.set_viewport_size({"width": 1400, "height": int(min(max(h, 1000), 5000))})
    page.screenshot(path=str(SHOTS / f"edits-{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_the_page_follows_a_direction_unticked_and_asks_an_unsure_layout(shared_server: H.Server, fresh_page: Any,
                                                                         tmp_path: Path) -> None:
    SHOTS.mkdir(exist_ok=True)
    mixed, plain = tmp_path / "mixed.csv", tmp_path / "plain.csv"
    mixed.write_bytes(MIXED)
    plain.write_bytes(PLAIN)
    server, page = shared_server, fresh_page
    page.goto(server.url + "/", timeout=60000)
    H.wait_idle(page, 90)
    _upload(page, server, mixed)
    text = _main(page)
    assert "except on 1 dataset(s): Calibration - ECE" in text
    assert "Direction per dataset (4 datasets; 1 lower-is-better)" in text
    assert "lower is better on 1 dataset(s) (Calibration - ECE); their scores are negated" in text
    table = page.locator("[data-testid=stExpander]", has_text="Direction per dataset").locator(
        "[data-testid=stDataFrame]").first
    _toggle(page, table, 2)  # the rows are sorted: ARC - EM, Calibration - ECE, …
    page.wait_for_selector("text=Direction per dataset (4 datasets)", timeout=60000)
    text = _main(page)
    assert "except on" not in text and "negated" not in text, text[:3000]  # every text follows the untick
    assert "the datasets' own directions as ticked" in text
    assert table.is_visible()  # the table stays open under the user's hand (its title changed)
    _shot(page, "direction-unticked")
    use = H.use_button(page, "Use this benchmark (4 datasets × 4 models × 1 folds)")
    assert use.is_enabled()
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=60000)
    side = str(page.locator("[data-testid=stSidebar]").inner_text())
    assert "mixed" in side and "higher is better" in side and "change(s) against its files" not in side
    assert "negated" not in _main(page)  # the benchmark in use was read with the untick

    _upload(page, server, plain)
    assert "I am not sure about this reading" in _main(page)
    use = H.use_button(page, "Use this benchmark (4 datasets × 3 models × 1 folds; higher is better, assumed)")
    assert use.is_disabled()
    assert "Not usable yet: not sure about the layout (said above)" in _main(page)
    _shot(page, "layout-unsure")
    page.get_by_text("Read it as shown", exact=True).click()
    H.wait_idle(page)
    page.wait_for_function("() => !document.body.innerText.includes('Not usable yet')", timeout=60000)
    assert use.is_enabled()
    assert page.locator("[data-testid=stException]").count() == 0 and "Traceback" not in page.inner_text("body")
