"""The dashboard's CSV downloads in a real browser: formula-safe, and accepted back by the dashboard.

A benchmark whose dataset names start a formula (``+aug``, ``@risk``, ``-minus``,
``=HYPERLINK(…)``) or hide one after a separator (``a;=cmd()``) is uploaded and used. On
the Select page the subset CSV and the template of a new model's scores are downloaded
through chromium: no cell, for a reader guessing any usual separator and honouring quotes
or not, starts a live formula; the numbers are numbers; the names read back exactly. The
template, filled in, is uploaded again into the placement panel, which places the model
with no error. Skips cleanly without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.io.tables import read_table
from subsetsel_core.text.safe_csv import restore_frame, split_comments

pytestmark = pytest.mark.browser

NAMES = ["+aug", "@risk", "-minus", '=HYPERLINK("http://x")', "a;=cmd()", "plain_a", "plain_b", "plain_c"]


def live_cells(text: str) -> list[str]:
    return [c for c in H.cells_by_any_reader(text) if H.live_formula(c)]


@pytest.fixture
def served(shared_server: H.Server, fresh_page: Any) -> tuple[H.Server, Any]:
    """The process's shared server and a page of a fresh browser context (a fresh session)."""
    return shared_server, fresh_page


def test_downloads_are_safe_and_read_back(served: Any, tmp_path: Path) -> None:
    server, page = served
    rng = np.random.default_rng(5)
    rows = [(d, m, round(0.6 + 0.05 * j + rng.uniform(0, 0.03), 4)) for d in NAMES for j, m in enumerate("ABCDE")]
    (tmp_path / "exports.csv").write_text(pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(index=False))
    feats = pd.DataFrame({"dataset": NAMES, "size": rng.integers(10, 5000, len(NAMES)),
                          "delta": rng.normal(size=len(NAMES)).round(3) - 2})
    (tmp_path / "features_exports.csv").write_text(feats.to_csv(index=False))

    page.goto(server.url + "/", timeout=60000)
    H.wait_idle(page, 90)
    H.goto_page(page, server.url, "benchmark")
    page.get_by_role("tab", name="Upload your files").click()
    inputs = page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]")
    inputs.nth(0).set_input_files(str(tmp_path / "exports.csv"))
    H.wait_idle(page)
    inputs.nth(1).set_input_files(str(tmp_path / "features_exports.csv"))
    H.wait_idle(page)
    use = page.get_by_role("button", name=re.compile(r"Use this benchmark \(8 datasets"))
    use.wait_for(timeout=90000)
    use.click()
    H.wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=90000)

    H.goto_page(page, server.url, "select")
    page.wait_for_function("() => document.querySelectorAll('.ss-map .ss-sel').length >= 1", timeout=90000)
    H.set_slider(page, "k — datasets in the subset", 8)
    H.wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.ss-map .ss-sel').length === 8", timeout=60000)
    assert page.locator("[data-testid=stException]").count() == 0

    subset = tmp_path / "subset.csv"
    H.download(page, page.get_by_role("button", name="Subset CSV"), subset)
    text = subset.read_text(encoding="utf-8")
    assert live_cells(text) == [], live_cells(text)
    table = restore_frame(read_table(subset.read_bytes(), label="subset.csv"))
    assert sorted(table["dataset"]) == sorted(NAMES)
    assert pd.api.types.is_numeric_dtype(pd.read_csv(subset, comment="#")["delta"])  # negative numbers stay numbers
    assert (pd.read_csv(subset, comment="#")["delta"] < 0).all()

    template = tmp_path / "template.csv"
    H.download(page, page.get_by_role("button", name="Template CSV of the chosen datasets"), template)
    ttext = template.read_text(encoding="utf-8")
    assert live_cells(ttext) == []
    meta, _ = split_comments(ttext)  # the template carries the subset's provenance block
    assert meta["subsetsel_version"] and meta["made_by"] == "dashboard" and meta["settings"]["k"] == len(NAMES)
    assert sorted(restore_frame(read_table(template.read_bytes(), label="t.csv"))["dataset"]) == sorted(NAMES)

    filled = tmp_path / "filled.csv"
    filled.write_text(ttext.replace(",\n", ",0.9\n"), encoding="utf-8")
    uploader = page.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]").last
    uploader.set_input_files(str(filled))
    H.wait_idle(page)
    page.wait_for_selector("text=Estimated position", timeout=90000)
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("[data-testid=stAlertContentError]").count() == 0
