"""The score-file cache gives exactly what parsing gives, and never a stale answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.io import score_cache

LONG = "dataset,model,fold,score\n" + "".join(
    f"d{d},m{m},{f},{(d * 7 + m * 3 + f) % 11 / 10:.2f}\n" for d in range(5) for m in range(4) for f in range(2)
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.delenv("SUBSETSEL_NO_CACHE", raising=False)
    monkeypatch.setenv("SUBSETSEL_CACHE_DIR", str(folder))
    return folder


def _same(a: Benchmark, b: Benchmark) -> None:
    np.testing.assert_array_equal(a.scores, b.scores)
    assert (a.datasets, a.models, a.folds, a.higher_is_better, a.name) == (
        b.datasets, b.models, b.folds, b.higher_is_better, b.name)
    assert a.report == b.report
    np.testing.assert_array_equal(a.rank_sums, b.rank_sums)


def test_second_read_comes_from_the_cache_and_equals_parsing(cache: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.csv"
    f.write_text(LONG)
    first = load_scores(f)
    assert len(list(cache.glob("*.npz"))) == 1
    monkeypatch.setattr("subsetsel_core.benchmark.read_table", lambda *a, **k: pytest.fail("parsed again"))
    _same(load_scores(f), first)


def test_the_tsc_sample_reads_the_same_from_the_cache(cache: Path) -> None:
    path = Path(__file__).resolve().parents[3] / "sample_data" / "tsc_bakeoff" / "scores.csv.gz"
    a, b = load_scores(path), load_scores(path)
    _same(a, b)
    assert a.report.findings  # the ties finding is kept


def test_a_changed_file_or_format_is_a_new_entry(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "s.csv"
    f.write_text(LONG)
    a = load_scores(f)
    f.write_text(LONG.replace("d0,m0,0,0.00", "d0,m0,0,0.99"))
    b = load_scores(f)
    assert b.scores[0, 0, 0] == 0.99 and a.scores[0, 0, 0] == 0.0
    c = load_scores(f, higher_is_better=False)
    assert not c.higher_is_better and b.higher_is_better
    assert load_scores(f, name="other").name == "other"
    assert len(list(cache.glob("*.npz"))) == 4


def test_a_damaged_entry_or_an_unwritable_folder_falls_back_to_parsing(cache: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.csv"
    f.write_text(LONG)
    a = load_scores(f)
    for entry in cache.glob("*.npz"):
        entry.write_bytes(b"not an npz")
    _same(load_scores(f), a)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("SUBSETSEL_CACHE_DIR", str(blocker / "sub"))
    _same(load_scores(f), a)


def test_off_switch_and_entry_limit(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s.csv"
    f.write_text(LONG)
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")
    load_scores(f)
    assert not cache.exists()
    monkeypatch.delenv("SUBSETSEL_NO_CACHE")
    monkeypatch.setattr(score_cache, "MAX_ENTRIES", 3)
    for i in range(5):
        load_scores(f, name=f"n{i}")
    assert len(list(cache.glob("*.npz"))) == 3


def test_errors_are_not_cached(cache: Path, tmp_path: Path) -> None:
    from subsetsel_core.errors import InputError

    f = tmp_path / "s.csv"
    f.write_text("dataset,model,score\nd0,m0,1\n")
    for _ in range(2):
        with pytest.raises(InputError):
            load_scores(f)
    assert not cache.exists() or not list(cache.glob("*.npz"))
