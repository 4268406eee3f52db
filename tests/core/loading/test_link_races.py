"""Check-then-open races on a shared server: a link swapped in and out while a folder is loaded.

A second thread keeps replacing a file of a benchmark folder (or the folder itself, under a
benchmark root) by a symbolic link to a secret outside, and back, with atomic renames, while
the folder is loaded again and again. Whatever the timing, the secret is never read: each
load either reads the real file or is refused with the link message.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile_corpus import clean_frame, features_frame

from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import read_confined
from subsetsel_core.loading.folder import load_benchmark_folder, scan_benchmarks

LOADS = 300
SECRET = "SECRET-dataset"


def _bench(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({
        "name": d.name, "higher_is_better": True, "scores": {"file": "scores.csv"},
        "representations": [{"name": "f", "kind": "tabular", "files": ["features.csv"]}]}), encoding="utf-8")
    clean_frame().to_csv(d / "scores.csv", index=False)
    features_frame().to_csv(d / "features.csv", index=False)
    return d


def _secret(tmp: Path) -> Path:
    """A valid benchmark outside every root whose names say SECRET."""
    s = _bench(tmp / "outside" / "bench")
    frame = clean_frame().assign(dataset=lambda f: SECRET + f["dataset"])
    frame.to_csv(s / "scores.csv", index=False)
    features_frame().assign(dataset=lambda f: SECRET + f["dataset"]).to_csv(s / "features.csv", index=False)
    return s


@contextmanager
def swapping(target: Path, real: Path, link_to: Path) -> Iterator[list[int]]:
    """A thread swapping ``target`` between (a hard link or copy of) ``real`` and a symlink to ``link_to``."""
    stop = threading.Event()
    swaps = [0]

    def run() -> None:
        n = 0
        while not stop.is_set():
            tmp = target.with_name(f".swap{n % 2}")
            if n % 2:
                os.symlink(link_to, tmp)
            elif real.is_dir():
                os.symlink(real.name, tmp)  # the real folder, by a link inside the root
            else:
                os.link(real, tmp)
            os.replace(tmp, target)
            n += 1
            swaps[0] = n

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield swaps
    finally:
        stop.set()
        t.join(10)


def _loads(load: Callable[[], object]) -> tuple[int, int]:
    ok = refused = 0
    for _ in range(LOADS):
        try:
            result = load()
        except InputError as exc:
            assert SECRET not in str(exc)
            refused += 1
            continue
        assert SECRET not in repr(result)
        ok += 1
    return ok, refused


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")


@pytest.mark.parametrize("name", ["scores.csv", "features.csv", "manifest.json"])
def test_a_file_swapped_with_a_link_out_is_never_read(tmp_path: Path, name: str) -> None:
    d = _bench(tmp_path / "root" / "bench")
    secret = _secret(tmp_path)
    real = tmp_path / f"real-{name}"
    shutil.copy(d / name, real)

    def load() -> object:
        lb = load_benchmark_folder(d)
        return (lb.benchmark.datasets, lb.descriptors["f"].index.tolist())

    with swapping(d / name, real, secret / name) as swaps:
        ok, refused = _loads(load)
    assert swaps[0] > 0 and ok + refused == LOADS


def test_a_folder_swapped_with_a_link_out_of_its_root_is_never_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    real = _bench(root / "real")
    secret = _secret(tmp_path)

    def load() -> object:
        lb = load_benchmark_folder(root / "bench", within=root)
        return (lb.benchmark.datasets, lb.descriptors["f"].index.tolist())

    with swapping(root / "bench", real, secret) as swaps:
        ok, refused = _loads(load)
    assert swaps[0] > 0 and ok + refused == LOADS


def test_scanning_a_directory_while_a_folder_is_swapped(tmp_path: Path) -> None:
    root = tmp_path / "root"
    real = _bench(root / "real")
    secret = _secret(tmp_path)
    (secret / "manifest.json").write_text(json.dumps({"name": SECRET, "higher_is_better": True,
                                                      "scores": "scores.csv"}), encoding="utf-8")
    with swapping(root / "bench", real, secret):
        for _ in range(LOADS // 3):
            cat = scan_benchmarks(root)
            assert all(SECRET not in m.name for m in cat.manifests)
            assert all(SECRET not in msg for _, msg in cat.problems)


def test_read_confined_follows_links_inside_and_refuses_links_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.csv").write_text("a\n1\n")
    (tmp_path / "secret.csv").write_text(SECRET)
    os.symlink("sub/f.csv", root / "in.csv")
    os.symlink(root / "sub" / "f.csv", root / "abs_in.csv")
    os.symlink("../secret.csv", root / "out.csv")
    os.symlink(tmp_path / "secret.csv", root / "abs_out.csv")
    os.symlink("loop.csv", root / "loop.csv")
    os.symlink("..", root / "sub" / "up")
    for name in ("in.csv", "abs_in.csv", "sub/../in.csv", "sub/up/sub/f.csv"):
        assert read_confined(root, name, name, 100) == b"a\n1\n"
    for name, needle in (("out.csv", "outside"), ("abs_out.csv", "outside"), ("../secret.csv", "outside"),
                         ("sub/up/../secret.csv", "outside"), ("loop.csv", "loop"), ("sub", "folder"),
                         ("nope.csv", "not found")):
        with pytest.raises(InputError, match=needle):
            read_confined(root, name, name, 100)
