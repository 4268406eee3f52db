"""Every file the product writes is created inside its folder, never through a link planted there.

An attacker who can write into a shared output folder plants symbolic links named like the
files the product writes (``report.html``, ``figures/``, ``out.csv``) pointing at a victim's
files. The product refuses with a message naming the link, and the victim files never change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.safe_write import UnsafeTarget, write_file, write_files

ROOT = Path(__file__).resolve().parents[3]
MMLU = ROOT / "sample_data" / "mmlu"
VICTIM = "the victim's own file\n"


@pytest.fixture()
def victim(tmp_path: Path) -> Path:
    v = tmp_path / "outside" / "victim.txt"
    v.parent.mkdir()
    v.write_text(VICTIM)
    return v


def _untouched(victim: Path) -> None:
    assert victim.read_text() == VICTIM
    assert sorted(p.name for p in victim.parent.iterdir()) == ["victim.txt"]


def test_a_link_at_a_file_name_is_refused_and_not_written_through(tmp_path: Path, victim: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "report.html")
    with pytest.raises(UnsafeTarget, match=r"report\.html: is a symbolic link"):
        write_files(out, {"a.txt": b"a", "report.html": b"<html>"})
    _untouched(victim)
    assert (out / "a.txt").read_bytes() == b"a"  # written before the link was met
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_a_dangling_link_creates_nothing_at_its_target(tmp_path: Path, victim: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim.parent / "new.txt", out / "auc.csv")
    with pytest.raises(UnsafeTarget, match="auc.csv"):
        write_files(out, {"auc.csv": b"x"})
    _untouched(victim)


def test_a_linked_sub_folder_is_refused(tmp_path: Path, victim: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim.parent, out / "figures")
    with pytest.raises(UnsafeTarget, match=r"figures: is a symbolic link \(to "):
        write_files(out, {"figures/figures.json": b"{}"})
    _untouched(victim)


def test_the_folder_itself_a_link_is_refused(tmp_path: Path, victim: Path) -> None:
    os.symlink(victim.parent, tmp_path / "out")
    with pytest.raises(UnsafeTarget, match="symbolic link"):
        write_files(tmp_path / "out", {"report.html": b"x"})
    _untouched(victim)


def test_a_hard_link_is_replaced_not_written_through(tmp_path: Path, victim: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.link(victim, out / "subset.csv")
    write_files(out, {"subset.csv": b"new"})
    assert (out / "subset.csv").read_bytes() == b"new"
    assert victim.read_text() == VICTIM


def test_sub_folders_are_created_and_names_checked(tmp_path: Path) -> None:
    write_files(tmp_path / "new" / "deeper", {"figures/a.svg": b"<svg/>", "b.txt": b"b"})
    assert (tmp_path / "new" / "deeper" / "figures" / "a.svg").read_bytes() == b"<svg/>"
    for bad in ("../x", "/etc/x", "a/../../x", ""):
        with pytest.raises(ValueError):
            write_files(tmp_path / "new", {bad: b""})


def test_write_file_refuses_a_link_and_a_folder(tmp_path: Path, victim: Path) -> None:
    os.symlink(victim, tmp_path / "out.csv")
    with pytest.raises(UnsafeTarget, match="out.csv"):
        write_file(tmp_path / "out.csv", b"x")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InputError, match="folder"):
        write_file(tmp_path / "dir.csv", b"x")
    write_file(tmp_path / "plain.csv", b"y")
    assert (tmp_path / "plain.csv").read_bytes() == b"y"
    _untouched(victim)


def test_select_out_refuses_a_planted_link(tmp_path: Path, victim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.symlink(victim, tmp_path / "subset.csv")
    code = main(["select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "3",
                 "--out", str(tmp_path / "subset.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "subset.csv: is a symbolic link" in err and "Traceback" not in err
    _untouched(victim)


def test_report_out_never_writes_through_links_inside_the_folder(tmp_path: Path, victim: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('seed = 1\n[evaluate]\nstrategies = ["random"]\ntrials = 3\nk_max = 3\nmetrics = ["spearman"]\n'
                   '[select]\nk = 3\n', encoding="utf-8")
    for planted in ("evaluation.json", "figures"):
        out = tmp_path / f"out-{planted}"
        out.mkdir()
        os.symlink(victim if planted != "figures" else victim.parent, out / planted)
        code = main(["report", "--benchmark", str(MMLU), "--config", str(cfg), "--out", str(out), "--no-images"])
        err = capsys.readouterr().err
        assert code == 2 and f"{planted}: is a symbolic link" in err, err
        _untouched(victim)
    os.symlink(victim.parent, tmp_path / "linked-out")
    code = main(["report", "--benchmark", str(MMLU), "--config", str(cfg), "--out", str(tmp_path / "linked-out")])
    assert code == 2 and "is a symbolic link" in capsys.readouterr().err
    _untouched(victim)


def test_session_store_never_reads_or_writes_through_a_link(tmp_path: Path, victim: Path) -> None:
    from subsetsel_app.session_store import SUFFIX, SessionStore, new_id

    store = SessionStore(tmp_path / "store")
    sid = new_id()
    assert store.put(sid, b"mine")
    assert store.get(sid) is not None and store.get(sid).data == b"mine"  # type: ignore[union-attr]
    other = new_id()
    os.symlink(victim, tmp_path / "store" / f"{other}{SUFFIX}")
    assert store.get(other) is None  # the victim is not read
    assert not store.put(other, b"overwrite")  # nor written through
    _untouched(victim)
    store.sweep()
    assert not (tmp_path / "store" / f"{other}{SUFFIX}").is_symlink()  # the planted link is removed
    _untouched(victim)


def test_score_cache_never_writes_through_a_link(tmp_path: Path, victim: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.io import score_cache

    cache = tmp_path / "cache"
    os.symlink(victim.parent, cache)  # the cache folder is a planted link: no cache, nothing written
    monkeypatch.setenv("SUBSETSEL_CACHE_DIR", str(cache))
    monkeypatch.delenv("SUBSETSEL_NO_CACHE", raising=False)
    load_scores(MMLU / "scores.csv")
    _untouched(victim)
    cache.unlink()
    cache.mkdir()
    load_scores(MMLU / "scores.csv")
    (entry,) = list(cache.glob("*.npz"))
    entry.unlink()
    os.symlink(victim, entry)
    assert score_cache.load(entry.stem) is None  # a link in the cache is not read
    load_scores(MMLU / "scores.csv")
    _untouched(victim)
    assert entry.is_symlink()  # refused, left alone (the cache is skipped)


def test_a_pipe_at_the_target_is_refused_not_replaced(tmp_path: Path) -> None:
    import stat

    os.mkfifo(tmp_path / "out.csv")
    with pytest.raises(UnsafeTarget, match=r"out\.csv: is a pipe, not a file"):
        write_file(tmp_path / "out.csv", b"x")
    with pytest.raises(UnsafeTarget, match="is a pipe"):
        write_files(tmp_path, {"out.csv": b"x"})
    assert stat.S_ISFIFO(os.lstat(tmp_path / "out.csv").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary file left behind
