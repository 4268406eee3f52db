"""Test-wide settings: the score-file cache is off (tests/core/io/test_score_cache.py turns it on in a
temporary folder), so that a test that changes a reading limit never meets an entry made
by another test; and the store of sessions kept across reloads is off
(tests/app/test_app_persistence.py turns it on in a temporary folder)."""

import os
import sys
from pathlib import Path

os.environ["SUBSETSEL_NO_CACHE"] = "1"
os.environ["SUBSETSEL_NO_STATE"] = "1"

# The shared test helpers (apphelpers, hostile_corpus) are imported by name from every folder.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
