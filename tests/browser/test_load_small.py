"""A reduced benchmarks/load_test.py in CI: two browser sessions at once, three runs each, isolated.

One ``streamlit run`` server; two browser sessions at the same time on different uploaded
benchmarks (12 × 5 and 9 × 6), each running three short evaluations in a row with its own
trial counts: every run finishes, and each session shows only its own benchmark and its
own trial count, also after both finished. No timing assertions; the waits are bounded by timeouts. Skips
cleanly without ``/usr/bin/chromium`` or Playwright.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

pytestmark = pytest.mark.browser


def _load_test_module() -> ModuleType:
    path = H.ROOT / "benchmarks" / "load_test.py"
    spec = importlib.util.spec_from_file_location("load_test", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["load_test"] = mod  # dataclasses look their module up while the module runs
    spec.loader.exec_module(mod)
    return mod


def test_two_sessions_at_once_three_runs_each(tmp_path: Path) -> None:
    if not os.path.exists(H.CHROMIUM):
        pytest.skip(f"{H.CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    lt = _load_test_module()
    # maps by PCA (no background UMAP worker process): the test is about sessions, not projections
    with H.Server(log=tmp_path / "streamlit.log", env={"SUBSETSEL_PROJECTION": "off"}) as server:
        results, peak, peak_tree, seconds = lt.concurrent(server, sessions=2, trials=3, folder=tmp_path, runs=3)
    lt.print_tables([], results, peak, peak_tree, seconds, (0, 0))
    assert peak > 0
    assert [r.plan.name for r in results] == ["upload_four", "upload_five"]
    for r in results:
        assert not r.error, (r.plan.label, r.error)
        assert r.finished and len(r.walls) == 3, r.plan.label
        assert r.own_seen, f"{r.plan.label} does not show its own benchmark and trial count"
        assert not r.others_seen, f"{r.plan.label} shows another session's data: {r.others_seen}"
        assert r.recheck_ok, f"{r.plan.label}: after both finished, the page no longer shows only its own run"
