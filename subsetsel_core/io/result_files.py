"""The JSON files of a results folder, read with bounds: a folder, a zip archive or files.

:func:`collect_json` gathers every ``.json`` file of a results folder (at any depth), a
zip archive of one, a single JSON file, or uploaded ``(name, bytes)`` pairs, and parses
each one (:func:`collect_raw` then :func:`parse_files`; the raw bytes are what the
result cache hashes). Every file that cannot be read — not UTF-8, not JSON, unreadable —
is an error naming it, or, with ``skip_unreadable``, a file skipped and listed. Numbers
are parsed strictly: ``NaN``, ``Infinity``, ``1e999`` and integers of more than
:data:`~subsetsel_core.io.result_json.MAX_DIGITS` digits become :class:`~subsetsel_core.io.result_records.NotANumber`
values that the readers refuse as scores, naming the file and key. The reading is bounded: a size cap on each file
(``SUBSETSEL_MAX_JSON_MB``, default 32 MB), on their total (the table limit
``SUBSETSEL_MAX_TABLE_MB``) and on their number (``SUBSETSEL_MAX_RESULT_FILES``,
default 20 000). Symbolic links that lead out of the folder are never followed; hidden
files and folders, ``__MACOSX`` and non-JSON files (``samples_*.jsonl``, READMEs) are
skipped.
"""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeAlias

from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import open_confined
from subsetsel_core.io.result_json import parse_json
from subsetsel_core.io.tables import max_bytes
from subsetsel_core.text import rounding

ResultSource: TypeAlias = str | Path | bytes | Sequence[tuple[str, bytes]]
"""A results folder or zip archive (path), a JSON file (path), zip or JSON bytes, or
uploaded ``(file name, bytes)`` pairs."""

DEFAULT_MAX_JSON_MB = 32.0
DEFAULT_MAX_FILES = 20_000
MAX_ENTRIES_FACTOR = 10
"""A folder walk stops after this many times the file cap of entries (files of any kind)."""
ZIP_MAGIC = b"PK\x03\x04"
_SKIPPED_DIRS = ("__MACOSX",)
_HARNESS_RELATIVE = re.compile(r"^\.{1,2}__\S")  # the harness's sanitised "./x", "../x": ".__x", "..__x"


@dataclass(frozen=True)
class JsonFile:
    """One parsed JSON file of a results folder.

    Attributes
    ----------
    path : str
        Its path inside the folder or archive, with ``/`` separators
        (``model/revision/Task.json``).
    data : Any
        The parsed JSON value.
    """

    path: str
    data: Any

    @property
    def parts(self) -> tuple[str, ...]:
        """The folders and the file name of :attr:`path`."""
        return PurePosixPath(self.path).parts


@dataclass(frozen=True)
class Collected:
    """What :func:`collect_json` read.

    Attributes
    ----------
    files : tuple of JsonFile
        The parsed JSON files, sorted by path.
    notes : tuple of str
        What was skipped (links out of the folder, other files), in words.
    skipped : tuple of (str, str)
        Files that could not be read and were skipped (``skip_unreadable``), with why.
    """

    files: tuple[JsonFile, ...]
    notes: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class RawFiles:
    """The bytes of a results source's JSON files, before parsing.

    Attributes
    ----------
    items : tuple of (str, str, bytes)
        ``(path in the folder, path for messages, bytes)``, sorted by path.
    notes : tuple of str
        What was skipped (links out of the folder, archive entries), in words.
    skipped : tuple of (str, str)
        Files that could not be read (``skip_unreadable``), with why.
    """

    items: tuple[tuple[str, str, bytes], ...]
    notes: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def max_json_bytes() -> int:
    """Largest JSON file accepted, in bytes: ``SUBSETSEL_MAX_JSON_MB`` or 32 MB."""
    return int(_env_number("SUBSETSEL_MAX_JSON_MB", DEFAULT_MAX_JSON_MB) * 2**20)


def max_files() -> int:
    """Most JSON files read from one folder: ``SUBSETSEL_MAX_RESULT_FILES`` or 20 000."""
    return int(_env_number("SUBSETSEL_MAX_RESULT_FILES", DEFAULT_MAX_FILES))


def _file_too_big(where: str, size: int) -> InputError:
    return InputError(
        f"{where}: {rounding.text(size / 2**20, 'megabytes')} MB is over the limit of "
        f"{rounding.text(max_json_bytes() / 2**20, 'megabytes')} MB for one result file. Remove the file from the "
        "folder, or raise the limit (environment variable SUBSETSEL_MAX_JSON_MB).",
        field="scores_file",
    )


def _too_many(label: str, what: str) -> InputError:
    return InputError(
        f"{label}: more than {max_files()} {what}. Give a folder with fewer result files (one "
        "benchmark's results), or raise the limit (environment variable SUBSETSEL_MAX_RESULT_FILES).",
        field="scores_file",
    )


class _Budget:
    """Counts files and bytes against the caps."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.files = 0
        self.bytes = 0

    def take(self, where: str, size: int) -> None:
        if size > max_json_bytes():
            raise _file_too_big(where, size)
        self.files += 1
        self.bytes += size
        if self.files > max_files():
            raise _too_many(self.label, "JSON files")
        if self.bytes > max_bytes():
            raise InputError(
                f"{self.label}: the JSON files hold more than {rounding.text(max_bytes() / 2**20, 'megabytes')} MB "
                "together. Give fewer result files, or raise the limit (environment variable SUBSETSEL_MAX_TABLE_MB).",
                field="scores_file",
            )


def _hidden(part: str) -> bool:
    """Whether a file or folder name is hidden (``.git``, ``.DS_Store``); not lm-eval's names of a model given by a
    relative path (``./outputs/final`` is written to the folder ``.__outputs__final``)."""
    return part.startswith(".") and _HARNESS_RELATIVE.match(part) is None


def _skipped(name: str) -> bool:
    return any(_hidden(part) or part in _SKIPPED_DIRS for part in PurePosixPath(name).parts)


def _walk(root: Path, label: str, notes: list[str], skipped: list[tuple[str, str]] | None = None,
          ) -> Iterator[tuple[str, Path]]:
    """``(relative path, path)`` of the JSON files under ``root``, links kept inside it; a
    folder that cannot be listed is an error (or, with ``skipped``, listed there)."""
    real_root = root.resolve()
    entries = 0
    outside = 0
    linked: list[str] = []

    def unlisted(exc: OSError) -> None:
        where = f"{label}/{Path(exc.filename or '').relative_to(root).as_posix()}" if exc.filename else label
        if skipped is None:
            raise InputError(f"{where}: the folder cannot be read ({exc.strerror}). Check its permissions, or pass "
                             "--skip-unreadable to skip it with a warning.", field="scores_file")
        skipped.append((where, f"the folder cannot be read ({exc.strerror})"))

    for folder, dirs, names in os.walk(root, followlinks=False, onerror=unlisted):
        dirs[:] = sorted(d for d in dirs if not _hidden(d) and d not in _SKIPPED_DIRS)
        base = Path(folder)
        for d in dirs:
            if (base / d).is_symlink() and not (base / d).resolve().is_relative_to(real_root):
                outside += 1
                linked.append((base / d).relative_to(root).as_posix() + "/")
        entries += len(names) + len(dirs)
        if entries > max_files() * MAX_ENTRIES_FACTOR:
            raise _too_many(label, "files and folders in all")
        for name in sorted(names):
            path = base / name
            if name.startswith(".") or not name.lower().endswith(".json"):
                continue
            if path.is_symlink() and not path.resolve().is_relative_to(real_root):
                outside += 1
                linked.append(path.relative_to(root).as_posix())
                continue
            yield path.relative_to(root).as_posix(), path
    if outside:
        shown = ", ".join(repr(n) for n in linked[:5]) + (f" and {len(linked) - 5} more" if len(linked) > 5 else "")
        notes.append(f"{label}: skipped {outside} symbolic link(s) that lead out of the folder"
                     + (f" ({shown})" if shown else "") + "; copy the files into the folder to read them.")


def _from_folder(root: Path, label: str, notes: list[str], skipped: list[tuple[str, str]] | None = None,
                 ) -> list[tuple[str, str, bytes]]:
    budget = _Budget(label)
    out = []
    for rel, _path in _walk(root, label, notes, skipped):
        where = f"{label}/{rel}"
        try:  # opened once, below the folder, never blocking on a pipe; its type checked on the descriptor
            fd = open_confined(root, rel, where, folder_kind="results folder")
        except InputError as exc:
            if skipped is None:
                raise InputError(f"{exc} Or pass --skip-unreadable to skip it with a warning.",
                                 field="scores_file") from None
            skipped.append((where, str(exc).removeprefix(f"{where}: ").split(";")[0].rstrip(".")))
            continue
        try:
            with os.fdopen(fd, "rb") as fh:
                budget.take(where, os.fstat(fh.fileno()).st_size)
                raw = fh.read(max_json_bytes() + 1)
            if len(raw) > max_json_bytes():
                raise _file_too_big(where, len(raw))
        except OSError as exc:
            if skipped is not None:
                skipped.append((where, f"cannot be read ({exc.strerror})"))
                continue
            raise InputError(f"{where}: cannot be read ({exc.strerror}). Check its permissions, or pass "
                             "--skip-unreadable to skip it with a warning.", field="scores_file") from None
        out.append((rel, where, raw))
    return out


def _from_zip(raw: bytes, label: str, notes: list[str], skipped: list[tuple[str, str]] | None = None,
              ) -> list[tuple[str, str, bytes]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError):
        raise InputError(f"{label}: is not a readable zip archive. Zip the results folder again.",
                         field="scores_file") from None
    budget = _Budget(label)
    out = []
    links = 0
    with archive:
        infos = sorted(archive.infolist(), key=lambda i: i.filename)
        if len(infos) > max_files() * MAX_ENTRIES_FACTOR:
            raise _too_many(label, "entries in the archive")
        for info in infos:
            name = info.filename.replace("\\", "/")
            parts = PurePosixPath(name).parts
            if info.is_dir() or _skipped(name) or not name.lower().endswith(".json"):
                continue
            if name.startswith("/") or ".." in parts:
                links += 1
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                links += 1
                continue
            where = f"{label}/{name}"
            budget.take(where, info.file_size)
            try:
                with archive.open(info) as fh:
                    data = fh.read(max_json_bytes() + 1)
            except (zipfile.BadZipFile, RuntimeError, OSError, EOFError, zlib.error) as exc:
                if skipped is not None:
                    skipped.append((where, f"cannot be read from the archive ({exc})"))
                    continue
                raise InputError(f"{where}: cannot be read from the archive ({exc}). Zip the folder again "
                                 "without a password, or pass --skip-unreadable to skip it with a warning.",
                                 field="scores_file") from None
            if len(data) > max_json_bytes():
                raise _file_too_big(where, len(data))
            out.append((name, where, data))
    if links:
        notes.append(f"{label}: skipped {links} archive entr{'y' if links == 1 else 'ies'} that are links or "
                     "lead out of the archive.")
    return out


def collect_raw(source: ResultSource, label: str, *, skip_unreadable: bool = False) -> RawFiles:
    """The bytes of a results source's JSON files (nothing parsed yet).

    Parameters
    ----------
    source : path, bytes or sequence of (str, bytes)
        A results folder, a zip archive or a JSON file (path or bytes), or uploaded
        files as ``(name, bytes)`` pairs (each a JSON file or a zip archive).
    label : str
        Name of the source in messages.
    skip_unreadable : bool
        Skip a file that cannot be read (listed in :attr:`RawFiles.skipped`) instead of
        stopping with an error.

    Raises
    ------
    InputError
        The path does not exist, a file cannot be read, a cap is exceeded, or there is
        no JSON file at all.
    """
    notes: list[str] = []
    skipped: list[tuple[str, str]] = []
    if isinstance(source, str | Path):
        p = Path(source)
        if not p.exists():
            raise InputError(f"{label}: not found ({p}). Check the path.", field="scores_file")
        if p.is_dir():
            items = _from_folder(p, label, notes, skipped if skip_unreadable else None)
        else:
            size = p.stat().st_size
            if size > max_bytes():
                raise InputError(f"{label}: {rounding.text(size / 2**20, 'megabytes')} MB is over the limit of "
                                 f"{rounding.text(max_bytes() / 2**20, 'megabytes')} MB. Give fewer result files, "
                                 "or raise the limit (environment variable SUBSETSEL_MAX_TABLE_MB).",
                                 field="scores_file")
            items = _from_bytes(p.read_bytes(), p.name, label, notes, skipped if skip_unreadable else None)
    elif isinstance(source, bytes):
        items = _from_bytes(source, label, label, notes, skipped if skip_unreadable else None)
    else:
        items = []
        for name, raw in source:
            items += _from_bytes(raw, name, name, notes, skipped if skip_unreadable else None)
        if len(items) > max_files():
            raise _too_many(label, "JSON files")
    if not items and not skipped:
        raise InputError(
            f"{label}: holds no JSON file. Give the folder the evaluation wrote its result files to "
            "(lm-evaluation-harness: results_*.json; MTEB: model/revision/Task.json; Every Eval Ever: "
            "one JSON record per model and evaluation).",
            field="scores_file",
        )
    return RawFiles(tuple(sorted(items, key=lambda f: f[0])), tuple(notes), tuple(skipped))


def parse_files(raw: RawFiles, label: str, *, skip_unreadable: bool = False) -> Collected:
    """Parse the files of :func:`collect_raw`.

    Raises
    ------
    InputError
        A file is empty, not UTF-8 or not JSON (unless ``skip_unreadable``: then it is
        listed in :attr:`Collected.skipped`), or no file is left.
    """
    files: list[JsonFile] = []
    skipped = list(raw.skipped)
    for path, where, data in raw.items:
        try:
            if not data.strip():
                raise InputError(f"{where}: the file is empty. Give a JSON result file.", field="scores_file")
            files.append(JsonFile(path, parse_json(data, where)))
        except InputError as exc:
            if not skip_unreadable:
                raise
            skipped.append((where, str(exc).removeprefix(f"{where}: ").split(". ")[0]))
    if not files:
        listed = "; ".join(f"{w}: {why}" for w, why in skipped[:3])
        raise InputError(f"{label}: no JSON file could be read ({listed}).", field="scores_file")
    return Collected(tuple(files), raw.notes, tuple(skipped))


def collect_json(source: ResultSource, label: str, *, skip_unreadable: bool = False) -> Collected:
    """Read and parse the JSON files of a results source
    (:func:`collect_raw`, then :func:`parse_files`)."""
    return parse_files(collect_raw(source, label, skip_unreadable=skip_unreadable), label,
                       skip_unreadable=skip_unreadable)


def _from_bytes(raw: bytes, name: str, where: str, notes: list[str],
                skipped: list[tuple[str, str]] | None = None) -> list[tuple[str, str, bytes]]:
    if raw[:4] == ZIP_MAGIC:
        return _from_zip(raw, where, notes, skipped)
    if len(raw) > max_json_bytes():
        raise _file_too_big(where, len(raw))
    if not raw.strip():
        raise InputError(f"{where}: the file is empty. Give a JSON result file.", field="scores_file")
    return [(PurePosixPath(name.replace("\\", "/")).name, where, raw)]
