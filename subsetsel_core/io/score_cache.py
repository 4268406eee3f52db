"""A disk cache of validated score files: reading the same file again skips the parsing.

A score file is read, checked and turned into a :class:`~subsetsel_core.benchmark.Benchmark`
by :func:`~subsetsel_core.benchmark.load_scores` (about 0.1 s for the TSC sample's 134,400
scores). The result depends only on the file's bytes, the :class:`ScoreFormat`, the name and
label, the table-size limit and the code that reads scores, so it is stored under a key
that hashes all of them: a changed file, format or reader is a new key, never a stale
answer. Entries hold the score cube as a plain ``.npy`` array and the names and the
validation report as JSON text in one ``.npz`` file, read with ``allow_pickle=False`` (no
code runs when an entry is read).

Where: ``$SUBSETSEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/subsetsel/scores``, else
``~/.cache/subsetsel/scores``. ``SUBSETSEL_NO_CACHE=1`` turns the cache off. Any problem
reading or writing an entry (no permission, a damaged file) falls back to parsing. Entries
are written by :mod:`subsetsel_core.io.safe_write` (mode 0600, never through a link) and read
without following a link.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from subsetsel_core.errors import InputError
from subsetsel_core.io import safe_write
from subsetsel_core.io.validation import Finding, ValidationReport
from subsetsel_core.text import strict_json


class Entry(NamedTuple):
    """What a validated score file reads as: the fields of a ``Benchmark`` and its rank sums."""

    scores: np.ndarray
    datasets: tuple[str, ...]
    models: tuple[str, ...]
    folds: tuple[str, ...]
    higher_is_better: bool
    name: str
    report: ValidationReport
    flipped: tuple[str, ...]
    rank_sums: np.ndarray

#: Entries kept (the oldest are removed beyond it).
MAX_ENTRIES = 16
#: Largest score cube stored, in bytes.
MAX_CUBE_BYTES = 16 * 2**20
#: The modules whose code decides what a score file reads as (part of every key).
READER_MODULES = (
    "subsetsel_core.benchmark", "subsetsel_core.io.score_table", "subsetsel_core.io.score_format",
    "subsetsel_core.io.tables", "subsetsel_core.io.numeric_cells", "subsetsel_core.io.names",
    "subsetsel_core.io.validation", "subsetsel_core.io.score_cache", "subsetsel_core.io.guess.directions",
)
_FORMAT = 3


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is turned off."""
    if os.environ.get("SUBSETSEL_NO_CACHE", "") not in ("", "0"):
        return None
    if os.environ.get("SUBSETSEL_CACHE_DIR"):
        return Path(os.environ["SUBSETSEL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "subsetsel" / "scores"


def _reader_digest() -> bytes:
    h = hashlib.sha256()
    for name in READER_MODULES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        h.update(Path(path).read_bytes() if path else name.encode())
    return h.digest()


def entry_key(raw: bytes, parts: Sequence[str]) -> str:
    """The key of a file's bytes read with the settings ``parts`` (format, name, label, limit)."""
    h = hashlib.sha256(_reader_digest())
    h.update(hashlib.sha256(raw).digest())
    h.update(json.dumps([_FORMAT, *parts]).encode("utf-8"))
    return h.hexdigest()


def load(key: str) -> Entry | None:
    """The entry stored under ``key``, or None (no entry, or one that cannot be read)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with np.load(io.BytesIO(_read_entry(folder, f"{key}.npz")), allow_pickle=False) as z:
            scores = np.array(z["scores"], dtype=float)
            sums = np.array(z["rank_sums"], dtype=np.int64)
            meta = json.loads(str(z["meta"]))
        report = ValidationReport(tuple(Finding(*f) for f in meta["findings"]),
                                  tuple((str(k), str(v)) for k, v in meta["facts"]))
        entry = Entry(scores, tuple(map(str, meta["datasets"])), tuple(map(str, meta["models"])),
                      tuple(map(str, meta["folds"])), bool(meta["higher_is_better"]), str(meta["name"]), report,
                      tuple(map(str, meta["flipped"])), sums)
        if sums.shape != (len(entry.datasets), len(entry.models)):
            return None
        return entry
    except Exception:  # a missing or damaged entry: parse the file instead
        return None


def store(key: str, benchmark: Entry) -> None:
    """Keep ``benchmark`` under ``key`` (silently skipped when the folder is not writable)."""
    folder = cache_dir()
    if folder is None or benchmark.scores.nbytes > MAX_CUBE_BYTES:
        return
    meta = {
        "datasets": list(benchmark.datasets), "models": list(benchmark.models), "folds": list(benchmark.folds),
        "higher_is_better": benchmark.higher_is_better, "name": benchmark.name, "flipped": list(benchmark.flipped),
        "findings": [[f.level, f.topic, f.message] for f in benchmark.report.findings],
        "facts": [list(f) for f in benchmark.report.facts],
    }
    buf = io.BytesIO()
    np.savez(buf, scores=benchmark.scores, rank_sums=benchmark.rank_sums, meta=np.array(strict_json.dumps(meta)))
    try:
        fd = safe_write.open_folder(folder, create=True)
    except InputError:  # not writable, or a link planted in place of the folder: no cache
        return
    try:
        safe_write.write_and_prune(fd, f"{key}.npz", buf.getvalue(), suffix=".npz", keep=MAX_ENTRIES)
    except (OSError, InputError):
        return
    finally:
        os.close(fd)


def _read_entry(folder: Path, name: str) -> bytes:
    """The bytes of one entry, opened below the folder without following a link."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        entry = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    with os.fdopen(entry, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError("not a regular file")
        return fh.read()
