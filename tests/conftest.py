"""Test-wide settings: the score-file cache is off (tests/core/io/test_score_cache.py turns it on in a
temporary folder), so that a test that changes a reading limit never meets an entry made
by another test; and the store of sessions kept across reloads is off
(tests/app/test_app_persistence.py turns it on in a temporary folder). The compiled kernels
are compiled once before the test processes start."""

import os
import sys
from pathlib import Path

os.environ["SUBSETSEL_NO_CACHE"] = "1"
os.environ["SUBSETSEL_NO_STATE"] = "1"

# The shared test helpers (apphelpers, hostile_corpus) are imported by name from every folder.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))


def pytest_configure(config: object) -> None:
    """In the controlling process, before any test process starts: compile the numba kernels once.

    On a fresh clone numba's on-disk cache is empty, and every test process and every
    forkserver a test starts would compile the same kernels (about 7 s of CPU each) at the same
    time; compiled here once, they all load the cached code.
    """
    if not hasattr(config, "workerinput"):  # pytest-xdist's test processes have it
        import subprocess  # a process of its own: this one's choice of kernels stays untouched

        subprocess.run([sys.executable, "-c", "import subsetsel_core.evaluation.worker_preload"], check=False,
                       timeout=600)
