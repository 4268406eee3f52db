"""Test-wide settings: the score-file cache is off (tests/test_score_cache.py turns it on in a
temporary folder), so that a test that changes a reading limit never meets an entry made
by another test; and the store of sessions kept across reloads is off
(tests/test_app_persistence.py turns it on in a temporary folder)."""

import os

os.environ["SUBSETSEL_NO_CACHE"] = "1"
os.environ["SUBSETSEL_NO_STATE"] = "1"
