"""Hostile and messy inputs through the CLI: a correct result or a clear message, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from hostile_corpus import Case, build_cases, features_for  # noqa: E402

CASES = build_cases()


def run_case(case: Case, folder: Path) -> subprocess.CompletedProcess[str]:
    """Write the case's files and run ``subsetsel select`` on them."""
    case.write(folder)
    feats = features_for(case, folder)
    cmd = [sys.executable, "-m", "subsetsel_core", "select", "--scores", str(folder / case.scores_name),
           "--features", str(feats), "--strategy", "fafi-euclidean", "--k", "3", *case.args]
    env = {**os.environ, **case.env}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("case", [c for c in CASES if not c.slow], ids=lambda c: c.name)
def test_case(case: Case, tmp_path: Path) -> None:
    r = run_case(case, tmp_path)
    assert "Traceback" not in r.stderr
    if case.expect == "ok":
        assert r.returncode == 0, r.stderr
        assert case.check is None or case.check(r.stdout)
    else:
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert case.needle in r.stderr
        assert len(r.stderr) < 2000  # short, readable


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.slow], ids=lambda c: c.name)
def test_slow_case(case: Case, tmp_path: Path) -> None:
    test_case(case, tmp_path)


def test_decimal_comma_gives_the_same_ranking(tmp_path: Path) -> None:
    from hostile_corpus import clean_frame

    c = clean_frame()
    a = load_scores(c)
    text = c.assign(score=c["score"].map(lambda v: f"{v}".replace(".", ","))).to_csv(index=False, sep=";")
    b = load_scores(text.encode(), label="comma.csv")
    np.testing.assert_array_equal(a.rank_sums, b.rank_sums)
    assert any("decimal commas" in f.message for f in b.report.findings)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab,;\t\n\"'0123456789.-%eE xyzNA\r")), max_size=300))
def test_random_text_never_crashes(text: str) -> None:
    try:
        load_scores(text.encode("utf-8"), label="fuzz.csv")
    except InputError:
        pass


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_crash(data: bytes) -> None:
    for name in ("fuzz.csv", "fuzz.parquet"):
        try:
            load_scores(data, label=name)
        except InputError:
            pass


def test_messages_name_the_fix() -> None:
    df = pd.DataFrame({"dataset": ["a", "b", "c"], "model": ["x", "x", "x"], "score": [1, 2, 3]})
    with pytest.raises(InputError, match="at least 2 are needed"):
        load_scores(df)
