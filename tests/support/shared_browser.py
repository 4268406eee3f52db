"""Helpers of the real-browser tests' shared fixtures (``tests/browser/conftest.py``).

One ``streamlit run`` server per test process serves every browser test that needs no
server settings of its own; each test gets a fresh browser context (a fresh Streamlit
session). Before a test starts, :func:`wait_quiet` waits until the server has finished
what an earlier test left running (an evaluation's permutation test, a background
projection), so that no test shares the machine with another test's leftovers.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import apphelpers as H

#: The window of a browser context: the size every browser test was written for.
VIEWPORT = {"width": 1400, "height": 1000}


def require_browser() -> Any:
    """Playwright's sync API; skips the calling test without Debian's chromium or Playwright."""
    import pytest

    if not os.path.exists(H.CHROMIUM):
        pytest.skip(f"{H.CHROMIUM} is missing (apt-get install chromium)")
    return pytest.importorskip("playwright.sync_api")


def new_context(browser: Any) -> Any:
    """A fresh browser context (no cookies, no storage; downloads on) of ``VIEWPORT``."""
    return browser.new_context(viewport=dict(VIEWPORT), accept_downloads=True)


def stop_runs(page: Any) -> None:
    """Click the page's *Stop* / *Stop test* buttons (a run the test left going), best effort.

    Used after a test on the shared server: a closed session's background jobs would
    otherwise go on using the machine while the next test runs.
    """
    for _ in range(2):  # the permutation test may start as the evaluation ends
        clicked = False
        for name in ("Stop", "Stop test"):
            try:
                button = page.get_by_role("button", name=name, exact=True)
                if button.count():
                    button.first.click(timeout=5000)
                    clicked = True
            except Exception:  # noqa: BLE001 - the page changed under us: nothing to stop there
                continue
        if not clicked:
            return
        time.sleep(1.0)


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        child = int(entry.name)
        children.setdefault(int(fields[1]), []).append(child)
        cpu[child] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += cpu.get(p, 0.0)
        todo += children.get(p, [])
    return total


def wait_quiet(server: H.Server, timeout: float = 120.0, window: float = 0.5, busy: float = 0.1) -> float:
    """Wait until the server's process tree is idle: under ``busy`` of a core over ``window`` seconds.

    Returns the seconds waited; gives up (and returns) after ``timeout`` seconds. Raises
    RuntimeError when the server is no longer running.
    """
    t0 = time.time()
    while True:
        if server.proc is None or server.proc.poll() is not None:
            raise RuntimeError(f"the shared streamlit server has exited (log: {server.log})")
        before = _tree_cpu(server.proc.pid)
        time.sleep(window)
        if _tree_cpu(server.proc.pid) - before < busy * window or time.time() - t0 > timeout:
            return time.time() - t0
