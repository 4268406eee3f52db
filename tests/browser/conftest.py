"""Fixtures of the real-browser tests: servers and browsers shared where that is safe.

* ``shared_server`` (one per test process, i.e. per xdist worker): ``streamlit run serve.py``
  with the test-wide settings (no score cache, no session store), started by the first
  browser test that asks for it and used by every test that needs no server settings of
  its own. Tests of special settings (the session store, a shared-server settings file,
  maps by PCA) still start their own :class:`apphelpers.Server`.
* ``chromium`` (one per test module): Debian's chromium through Playwright. Kept per
  module, not per process: while the sync API is open it marks the thread's asyncio loop
  as running, which other (non-browser) tests of the same process must not meet.
* ``browser``: the module's chromium for one test; every context the test opened is
  closed after it.
* ``fresh_page``: a page in a new browser context (a fresh Streamlit session: no cookies,
  no session id, no uploads), after the shared server has finished what an earlier test
  left running; a run the test leaves going is stopped after it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apphelpers as H
import pytest
import shared_browser as SB

# test_browser_partial reuses a table of tests/app/test_app_partial.py (importable by name also
# when only tests/browser is collected)
_APP_TESTS = str(Path(__file__).resolve().parents[1] / "app")
if _APP_TESTS not in sys.path:
    sys.path.append(_APP_TESTS)


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[H.Server]:
    """The test process's ``streamlit run`` server with the default settings."""
    SB.require_browser()
    with H.Server(log=tmp_path_factory.mktemp("shared-server") / "streamlit.log") as server:
        yield server


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's chromium (headless) for the tests of one module."""
    sync_api = SB.require_browser()
    with sync_api.sync_playwright() as p:
        browser = H.launch_chromium(p)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's chromium for one test; the contexts (and pages) it opens are closed after it."""
    before = set(chromium.contexts)
    yield chromium
    for ctx in chromium.contexts:
        if ctx not in before:
            ctx.close()


@pytest.fixture
def fresh_page(browser: Any, shared_server: H.Server) -> Iterator[Any]:
    """A page of a new browser context on the shared server, once the server is quiet."""
    SB.wait_quiet(shared_server)
    ctx = SB.new_context(browser)
    page = ctx.new_page()
    try:
        yield page
    finally:
        SB.stop_runs(page)
        ctx.close()
