"""A shared dashboard server in a real browser (issue 19): two visitors at once.

One ``streamlit run`` configured by a settings file (``SUBSETSEL_SETTINGS``) as
``docs/deploy.md`` shows: one benchmark root holding a lab benchmark and a link to a
benchmark outside the root, an upload limit of 0.05 MB, at most 30 trials per run, the
session store on. Two browser sessions (two browser contexts, both connected at once):

* neither has a field for a server path; the Benchmark list is the root's benchmark only
  and the link out is named as refused, never read;
* A uploads a benchmark and uses it (its address gets a session id); a file over the
  upload limit gets a message naming it;
* B sees the lab benchmark, not A's upload, has no uploaded file and cannot open a session
  it does not have the id of; asking for 50 trials gives B the limit's message;
* meanwhile A's evaluation with 20 trials runs to the end.

Skips cleanly without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser

SECRET = "hunter2-top-secret"
LAB = "Lab benchmark"


def _bench(root: Path, name: str, title: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "scores.csv").write_bytes(H.tiny_long_csv(n_datasets=9, n_models=4, n_folds=1))
    (d / "features.csv").write_bytes(H.tiny_descriptors_csv(n_datasets=9))
    (d / "manifest.json").write_text(json.dumps({
        "name": name, "title": title, "higher_is_better": True, "scores": {"file": "scores.csv", "fold_column": None},
        "representations": [{"name": "facts", "kind": "tabular", "files": ["features.csv"]}]}), encoding="utf-8")
    return d


def _sid(url: str) -> str | None:
    return (parse_qs(urlparse(url).query).get("s") or [None])[0]


def _text(page: Any, where: str) -> str:
    return page.locator(f"[data-testid={where}]").inner_text()


def _goto(page: Any, name: str) -> None:
    """Open a page from the sidebar navigation (the address may carry ``?s=``)."""
    spec = H.page_spec(name)
    page.locator("[data-testid=stSidebarNav] a", has_text=spec.title).first.click()
    page.wait_for_url(f"**/{spec.url}*", timeout=30000)
    H.wait_idle(page, 90)


def _open(ctx: Any, url: str) -> Any:
    page = ctx.new_page()
    page.goto(url + "/", timeout=90000)
    H.wait_idle(page, 120)
    return page


def test_two_visitors_of_a_shared_server(browser, tmp_path: Path) -> None:
    root = tmp_path / "benchmarks"
    _bench(root, "lab_bench", LAB)
    (root / "linked").symlink_to(_bench(tmp_path / "elsewhere", "secret_bench", SECRET))
    settings = tmp_path / "subsetsel.toml"
    settings.write_text(f'benchmark_roots = ["{root}"]\nmax_upload_mb = 0.05\nmax_trials = 30\nmax_running = 1\n',
                        encoding="utf-8")
    small = tmp_path / "a_scores.csv"
    small.write_bytes(H.tiny_long_csv(n_datasets=10, n_models=5))
    big = tmp_path / "big_features.csv"
    big.write_bytes(H.tiny_descriptors_csv(n_datasets=10) + b"\n".join(b"pad_%05d,1,a" % i for i in range(6000)))
    assert big.stat().st_size > 0.05 * 2**20
    env = {"SUBSETSEL_SETTINGS": str(settings), "SUBSETSEL_NO_STATE": "0", "SUBSETSEL_PROJECTION": "off",
           "SUBSETSEL_STATE_DIR": str(tmp_path / "sessions")}
    with H.Server(log=tmp_path / "streamlit.log", env=env) as server:
        a = _open(browser.new_context(viewport={"width": 1400, "height": 1000}), server.url)
        b = _open(browser.new_context(viewport={"width": 1400, "height": 1000}), server.url)
        for page in (a, b):
            assert LAB in _text(page, "stSidebar")
            _goto(page, "benchmark")
            assert page.get_by_role("textbox", name="Benchmark directory").count() == 0
            main = _text(page, "stMain")
            assert "linked" in main and "outside the benchmark directory" in main and SECRET not in main
            page.get_by_role("combobox", name="Benchmark").click()
            options = page.get_by_role("option").all_inner_texts()
            assert [" ".join(o.split()) for o in options] == [f"{LAB} (lab_bench)"], options
            page.keyboard.press("Escape")

        # A uploads a benchmark and uses it; a file over the limit is named and not read
        a.get_by_role("tab", name="Upload your files").click()
        uploaders = a.locator("[data-testid=stMain] [data-testid=stFileUploader] input[type=file]")
        uploaders.nth(0).set_input_files(str(small))
        H.wait_idle(a)
        H.use_upload(a, "Use this benchmark (10 datasets × 5 models × 2 folds)")
        a.wait_for_function("() => new URLSearchParams(location.search).get('s')", timeout=30000)
        sid_a = _sid(a.url)
        assert sid_a and "a_scores" in _text(a, "stSidebar")
        uploaders.nth(1).set_input_files(str(big))
        H.wait_idle(a)
        a.get_by_role("tab", name="Upload your files").click()  # a rerun shows the first tab again
        H.wait_idle(a)
        a.wait_for_selector("text=over this server's upload limit of 0.05 MB", timeout=60000)
        assert "big_features.csv" in _text(a, "stMain")

        # B: the lab benchmark, not A's upload; no file of A's; no way into A's session without its id
        b.get_by_role("tab", name="Upload your files").click()
        H.wait_idle(b)
        assert "a_scores" not in _text(b, "stMain") and "a_scores" not in _text(b, "stSidebar")
        assert LAB in _text(b, "stSidebar") and _sid(b.url) != sid_a
        b.goto(server.url + "/?s=" + "B" * 22, timeout=60000)
        H.wait_idle(b, 90)
        b.wait_for_selector("text=unknown or has expired", timeout=60000)
        assert "a_scores" not in _text(b, "stSidebar")

        # B asks for too many trials: a message, no run; A's run is not affected
        _goto(b, "evaluate")
        b.get_by_label("Trials T", exact=True).and_(b.locator("input")).fill("50")
        b.get_by_role("button", name="Run evaluation").click()
        H.wait_idle(b)
        b.wait_for_selector("text=at most 30 trials per run", timeout=60000)
        assert "Finished:" not in _text(b, "stMain")

        _goto(a, "evaluate")
        a.get_by_label("Trials T", exact=True).and_(a.locator("input")).fill("20")
        toggle = a.locator("[data-testid=stCheckbox]").filter(has_text="Test against shuffled descriptors")
        if toggle.count() and toggle.locator("input").is_checked():
            toggle.locator("label").click()
        a.get_by_role("button", name="Run evaluation").click()
        a.wait_for_selector("text=Finished: 20 trials", timeout=300000)
        H.wait_idle(a, 120)
        assert "a_scores" in _text(a, "stSidebar")
        for page in (a, b):
            assert page.locator("[data-testid=stException]").count() == 0
