"""Test-wide settings: the score-file cache is off (tests/test_score_cache.py turns it on in a
temporary folder), so that a test that changes a reading limit never meets an entry made
by another test."""

import os

os.environ["SUBSETSEL_NO_CACHE"] = "1"
