"""A table with gaps in a real browser: upload, choose 'partial', see the gaps view, the
leaderboard's datasets per model and the share of models covered on the Evaluate page."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
from test_app_partial import _gappy_long_csv

SHOTS = Path(os.environ.get("SUBSETSEL_SHOTS", Path(__file__).resolve().parents[1] / "screenshots"))


def test_partial_upload_in_the_browser(shared_server: H.Server, fresh_page: Any, tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    scores = tmp_path / "gappy_accuracy.csv"
    scores.write_bytes(_gappy_long_csv())
    server, page = shared_server, fresh_page
    page.goto(server.url, timeout=90000)
    H.wait_idle(page, 120)
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").nth(0).set_input_files(
        str(scores))
    H.wait_idle(page)
    page.wait_for_selector("text=scores are missing", timeout=90000)  # the default policy stops
    box = page.get_by_role("combobox", name="Missing scores")
    box.click()
    box.press_sequentially("partial")
    page.keyboard.press("Enter")
    H.wait_idle(page)
    use = H.use_button(page, "Use this benchmark (16 datasets × 5 models × 2 folds)")
    use.wait_for(timeout=90000)
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("[data-testid=stPlotlyChart]", timeout=90000)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "2 of 5 models are ranked on fewer than all 16 datasets" in main, main[:3000]
    page.screenshot(path=str(SHOTS / "partial-benchmark.png"), full_page=True)
    assert page.locator("[data-testid=stException]").count() == 0

    H.goto_page(page, server.url, "home")
    board = page.locator("table.ss-leaderboard")
    board.wait_for(timeout=90000)
    assert "datasets" in board.locator("thead").inner_text()
    page.screenshot(path=str(SHOTS / "partial-start.png"), full_page=True)

    H.goto_page(page, server.url, "evaluate")
    page.get_by_role("button", name="Run evaluation").click()
    page.wait_for_selector("text=Gaps (the 'partial' policy)", timeout=180000)
    page.wait_for_timeout(3000)  # the run (and its permutation test) may still be going: no idle page
    page.screenshot(path=str(SHOTS / "partial-evaluate.png"), full_page=True)
    assert page.locator("[data-testid=stException]").count() == 0
