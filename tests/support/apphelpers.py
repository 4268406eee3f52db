"""Shared helpers of the dashboard tests (AppTest and browser).

Importing this module puts the repository root on ``sys.path`` (the app package
``subsetsel_app`` is not installed) and switches the background UMAP / t-SNE projections
off for in-process AppTests (``SUBSETSEL_PROJECTION=off``: maps use PCA), so AppTests
never start a worker process.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("SUBSETSEL_PROJECTION", "off")

from pages import PAGES as PAGE_SPECS  # noqa: E402 - after the path set-up
from pages import page as page_spec  # noqa: E402

APP = str(ROOT / "app.py")
#: Every page's name (``"select"`` for ``pages/select.py``), in navigation order.
PAGES = tuple(p.name for p in PAGE_SPECS)
SAMPLES = ("tsc_bakeoff", "mmlu", "synthetic")
TIMEOUT = 120


#: Shuffles of the permutation test in app tests (the dashboard's default is 199).
FEW_SHUFFLES = 19


def new_app() -> Any:
    """A fresh AppTest of the dashboard, run once (opens on the default sample)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.session_state["ev_permutations"] = FEW_SHUFFLES  # the permutation test after each run stays short
    return at


def goto(at: Any, page: str) -> Any:
    """Switch to a page (``"select"`` → ``pages/select.py``) and run."""
    at.switch_page(page_spec(page).file)
    at.run()
    return at


def upload_scores(name: str, content: bytes, desc: bytes | None = None) -> Any:
    """A fresh app on the Benchmark page with ``content`` uploaded as the score table ``name`` (and
    ``desc`` as a descriptor table), run once, with no exception."""
    at = goto(new_app(), "benchmark")
    at.file_uploader[0].set_value((name, content, "text/csv"))
    if desc is not None:
        at.file_uploader[1].set_value([("features_x.csv", desc, "text/csv")])
    at.run()
    assert not at.exception
    return at


def errors(at: Any) -> list[str]:
    """Texts of exception and error elements (an empty list means the page is clean)."""
    return [str(e.value) for e in at.exception] + [str(e.value) for e in at.error]


def load_sample(at: Any, sample: str) -> Any:
    """Make an embedded sample the active benchmark through the Benchmark page."""
    goto(at, "benchmark")
    box = at.selectbox(key="bench_choice")
    target = next(o for o in box.options if o.endswith(f"({sample})"))
    box.select(target)
    at.run()
    for b in at.button:
        if b.key == "load_folder_btn":
            if not b.disabled:
                b.click()
                at.run()
            break
    assert at.session_state["data"].name == sample, at.session_state["data"].name
    return at


def plotly_specs(at: Any) -> list[dict[str, Any]]:
    """The JSON specs of every plotly chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def markup(at: Any, css_class: str) -> str:
    """The HTML of the (first) ``st.markdown`` block whose markup has this class."""
    return next(m.value for m in at.markdown if f'class="{css_class}"' in m.value)


def svg_selection(svg: str) -> list[tuple[int, str]]:
    """(order, dataset) of the numbered markers of an SVG map (:func:`subsetsel_core.viz.svg.map_svg`), in drawing order."""
    import html
    import re

    return [(int(o), html.unescape(d)) for o, d in
            re.findall(r'<g class="ss-sel" data-order="(\d+)" data-dataset="([^"]*)">', svg)]


def size_tiles(at: Any) -> dict[str, str]:
    """Label → value of the benchmark's size tiles."""
    import html
    import re

    pairs = re.findall(r'<div style="font-size:0.875rem;[^"]*">([^<]*)</div><div style="font-size:2rem;[^"]*">([^<]*)</div>',
                       markup(at, "ss-tiles"))
    return {html.unescape(k): html.unescape(v) for k, v in pairs}


def trace_names(spec: dict[str, Any]) -> list[str]:
    """Names of a plotly spec's traces (``""`` for unnamed ones)."""
    return [str(t.get("name", "")) for t in spec.get("data", [])]


def run_of(at: Any) -> Any:
    """The job of the session's evaluation run (:mod:`subsetsel_app.jobs`), or None."""
    from subsetsel_app import jobs

    return jobs.get(at.session_state["ev_run"])


def wait_for_run(at: Any, timeout: float = 120.0) -> Any:
    """Wait until the session's evaluation run (and the permutation test after it) ends, then rerun the page."""
    from subsetsel_app import jobs

    run = run_of(at)
    assert run is not None
    assert run.wait(timeout), "evaluation did not finish in time"
    test = jobs.get(jobs.permutation_key(run.key))
    assert test is None or test.wait(timeout), "the permutation test did not finish in time"
    at.run()
    return at


def tiny_long_csv(n_datasets: int = 8, n_models: int = 4, n_folds: int = 2, seed: int = 0) -> bytes:
    """A small long-format score table (dataset, model, fold, score) as CSV bytes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    skill = rng.normal(size=n_models)
    lines = ["dataset,model,fold,score"]
    for d in range(n_datasets):
        for m in range(n_models):
            for f in range(n_folds):
                lines.append(f"ds_{d:02d},model_{m},{f},{0.7 + 0.05 * skill[m] + 0.02 * rng.normal():.4f}")
    return ("\n".join(lines) + "\n").encode()


def tiny_descriptors_csv(n_datasets: int = 8, seed: int = 1, rename: dict[str, str] | None = None) -> bytes:
    """Descriptors for :func:`tiny_long_csv` (dataset, size, kind) as CSV bytes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = ["dataset,size,kind"]
    for d in range(n_datasets):
        name = f"ds_{d:02d}"
        name = (rename or {}).get(name, name)
        lines.append(f"{name},{int(rng.integers(10, 1000))},{'ab'[d % 2]}")
    return ("\n".join(lines) + "\n").encode()


# --------------------------------------------------------------------------- real browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning][data-test-connection-state=CONNECTED]"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``streamlit run serve.py`` (the README's command: ``app.py`` behind the origin guard) on 127.0.0.1 in a subprocess (a context manager).

    Parameters
    ----------
    log : path, optional
        Where the server's output goes (default: discarded).
    env : dict, optional
        Extra environment variables (e.g. ``SUBSETSEL_PROJECTION``).
    """

    def __init__(self, log: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = env or {}
        self.proc: Any = None

    def __enter__(self) -> Server:
        import subprocess
        import urllib.request

        env = {k: v for k, v in os.environ.items() if k != "SUBSETSEL_PROJECTION"}
        env.update(self.env)
        out = open(self.log, "w") if self.log else subprocess.DEVNULL  # noqa: SIM115 - closed in __exit__
        self._out = out
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "serve.py", "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1",
             "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env,
        )
        t0 = time.time()
        while time.time() - t0 < 60:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}")
            try:
                urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1)
                return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("streamlit did not start within 60 s")

    def __exit__(self, *exc: object) -> None:
        import subprocess

        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._out not in (None, subprocess.DEVNULL):
            self._out.close()


def wait_idle(page: Any, timeout: float = 60.0, settle: float = 0.25) -> None:
    """Wait until the app's script is not running and the page has finished drawing.

    The script state turns ``notRunning`` as soon as the server has sent its last delta; a
    busy browser may still be drawing earlier ones (plotly charts take a while), so also
    wait until the main area's text has stayed the same for three looks 0.25 s apart.
    """
    time.sleep(settle)
    deadline = time.time() + timeout
    page.wait_for_selector(IDLE, timeout=timeout * 1000)
    last, same = None, 0
    while same < 3 and time.time() < deadline:
        text = page.evaluate("() => { const m = document.querySelector('[data-testid=stMain]');"
                             " return m ? m.innerText : ''; }")
        idle = page.locator(IDLE).count() > 0
        same = same + 1 if (idle and text == last) else 0
        last = text
        time.sleep(0.25)
    page.wait_for_selector(IDLE, timeout=max(1.0, deadline - time.time()) * 1000)


#: The separators a spreadsheet or a reader may guess for a CSV.
SEPARATORS = (",", ";", "\t", "|")


def cells_by_any_reader(text: str) -> list[str]:
    """Every cell a reader guessing any of the usual separators would see, honouring quotes or not."""
    import csv
    import io

    out: list[str] = []
    for sep in SEPARATORS:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep):
            out += row
        for line in re.split(r"\r\n|\r|\n", text):  # a reader that ignores quotes
            out += [piece.lstrip('"') for piece in line.split(sep)]
    return out


def live_formula(cell: str) -> bool:
    """Whether a spreadsheet would run the cell: it starts with a formula trigger and is no number."""
    from subsetsel_core.text.safe_csv import TRIGGERS

    if not cell or cell[0] not in TRIGGERS:
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


def download(page: Any, button: Any, path: Path, attempts: int = 3) -> None:
    """Click a download button and save the file (a download cancelled by a rerun is retried)."""
    for i in range(attempts):
        with page.expect_download(timeout=90000) as dl:
            button.click()
        if dl.value.failure() is None:
            dl.value.save_as(path)
            return
        print(f"download {i + 1} failed: {dl.value.failure()}")
        wait_idle(page)
    raise AssertionError(f"the download failed {attempts} times")


def use_button(page: Any, label: str) -> Any:
    """The upload's *Use this benchmark (…)* button by its label; when the reading assumed the
    direction, the button says so after the sizes (``…; higher is better, assumed)``)."""
    prefix = label[:-1] if label.endswith(")") else label
    return page.get_by_role("button", name=re.compile("^" + re.escape(prefix) + r"(\)|; )"))


def use_upload(page: Any, label: str) -> None:
    """Press the upload's *Use this benchmark (…)* button (:func:`use_button`) once it is there, and
    wait until the page says the uploaded benchmark is in use."""
    use = use_button(page, label)
    use.wait_for(timeout=90000)
    use.click()
    wait_idle(page)
    page.wait_for_selector("text=Using the uploaded benchmark", timeout=90000)


def page_address(server_url: str, path: str) -> re.Pattern[str]:
    """A page's address, with or without the session's ``?s=…`` id (:mod:`subsetsel_app.persist`)."""
    return re.compile(re.escape(f"{server_url}/{path}") + r"(\?.*)?$")


def goto_page(page: Any, server_url: str, name: str) -> None:
    """Open a page by clicking its link in the sidebar navigation."""
    spec = page_spec(name)
    page.locator("[data-testid=stSidebarNav] a", has_text=spec.title).first.click()
    page.wait_for_url(page_address(server_url, spec.url), timeout=30000)
    wait_idle(page, 90)


def choose(page: Any, label: str, option: str) -> None:
    """Pick an option of a selectbox by its label."""
    box = page.get_by_role("combobox", name=label)
    box.click()
    page.get_by_role("option", name=option, exact=True).click()


def set_slider(page: Any, label: str, value: int) -> None:
    """Move a single-value slider to ``value`` with the keyboard."""
    thumb = page.get_by_role("slider", name=label)
    cur = int(thumb.get_attribute("value") or thumb.get_attribute("aria-valuetext"))
    thumb.focus()
    key = "ArrowRight" if value > cur else "ArrowLeft"
    for _ in range(abs(value - cur)):
        thumb.press(key)


def selected_markers(page: Any) -> list[str]:
    """Numbers drawn on the select map's chosen datasets, in DOM order (SVG map or plotly map)."""
    return page.evaluate(
        """() => {
            const svg = [...document.querySelectorAll('.ss-map .ss-sel text')];
            if (svg.length) return svg.map(t => t.textContent);
            const plots = [...document.querySelectorAll('.js-plotly-plot')];
            for (const p of plots) {
              const d = p.data || [];
              const i = d.findIndex(t => t.name === 'selected (in order)');
              if (i >= 0) return (d[i].text || []).map(String);
            }
            return [];
        }"""
    )


def selected_positions(page: Any) -> list[list[float]]:
    """x / y of the chosen datasets on the select map (changes when the subset changes)."""
    return page.evaluate(
        """() => {
            const svg = [...document.querySelectorAll('.ss-map .ss-sel circle')];
            if (svg.length) return [svg.map(c => +c.getAttribute('cx')), svg.map(c => +c.getAttribute('cy'))];
            for (const p of document.querySelectorAll('.js-plotly-plot')) {
              const d = p.data || [];
              const t = d.find(t => t.name === 'selected (in order)');
              if (t) return [Array.from(t.x), Array.from(t.y)];
            }
            return [];
        }"""
    )


def launch_chromium(playwright: Any) -> Any:
    """Debian's chromium, headless, driven by Playwright (never ``playwright install``)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def browser_session(log: Path | None = None) -> Iterator[tuple[Server, Any]]:
    """A ``streamlit run`` server and one page of Debian's chromium (1400 × 1000, downloads on).

    Skips the calling test when chromium or Playwright is missing.
    """
    import pytest

    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with Server(log=log) as server, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        try:
            yield server, ctx.new_page()
        finally:
            ctx.close()
            browser.close()
