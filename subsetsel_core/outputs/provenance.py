"""Where an output came from: the product's version, what made it, the seed, the inputs' SHA-256.

:func:`provenance` is the one function that builds it; every face calls it and every file
the product writes carries it:

* the subset CSV, in its leading ``# key: value`` comment block
  (:func:`~subsetsel_core.text.safe_csv.comment_line`);
* the template of a new model's scores, in the same block (:func:`~subsetsel_core.outputs.export.template_csv`);
* a workspace file (and a kept session), under ``"provenance"`` in its ``workspace.json``;
* the JSON sidecar and the evaluation JSON, under ``"provenance"``;
* the HTML report (a section, and a ``<script type="application/json" id="provenance">``);
* figures (a PNG text chunk, an SVG ``<metadata>`` element, ``figures.json``) —
  :func:`png_with_text`, :func:`svg_with_metadata`;
* LaTeX, in ``%`` comment lines (:func:`latex_comments`).

:func:`read_provenance` reads the record back from any of them, and ``subsetsel select --recipe``
replays the subset a record describes (:func:`~subsetsel_core.outputs.export.recorded_subset`).

``made_by`` is ``"command line"`` (then ``command`` is the command as typed, ``settings``
every option with its value) or ``"dashboard"`` (``command`` is None, ``settings`` the
dashboard's settings that made the file). No time stamp: the same run gives the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from subsetsel_core.version import VERSION

__all__ = ["PNG_KEY", "PROVENANCE_KEYS", "benchmark_inputs", "command_text", "file_sha256", "input_hashes",
           "latex_comments", "png_with_text", "provenance", "read_provenance", "svg_with_metadata"]

#: The keys of a provenance record, in the order they are written.
PROVENANCE_KEYS = ("subsetsel_version", "made_by", "command", "settings", "seed", "input_sha256")
#: Most files hashed under one folder given as an input (a results folder).
MAX_FOLDER_FILES = 10_000
_CHUNK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex), read in chunks."""
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def bytes_sha256(data: bytes) -> str:
    """The SHA-256 of some bytes (hex): an upload's content, as ``sha256sum`` would print for its file."""
    return hashlib.sha256(data).hexdigest()


def input_hashes(paths: Iterable[str | Path | None]) -> dict[str, str]:
    """Path as given → SHA-256 of every input file; a folder stands for its files (sorted, recursive).

    Paths that are not regular files or folders (a pipe, a missing path) are recorded with
    an empty hash rather than read twice.
    """
    out: dict[str, str] = {}
    for raw in paths:
        if raw is None:
            continue
        p = Path(raw)
        if p.is_dir():
            # a link out of the folder is not its file: each file is opened below the folder by descriptor,
            # never through a link that leads out (a link swapped in meanwhile included)
            files = sorted(f for f in p.rglob("*") if f.is_file())[:MAX_FOLDER_FILES]
            for f in files:
                digest = confined_sha256(p, f.relative_to(p).as_posix())
                if digest is not None:
                    out[str(p / f.relative_to(p))] = digest
        elif p.is_file():
            out[str(raw)] = file_sha256(p)
        else:
            out[str(raw)] = ""
    return out


def benchmark_inputs(folder: str | Path) -> dict[str, str]:
    """The SHA-256 of a benchmark folder's manifest and of every file it names (scores, descriptor tables)."""
    from subsetsel_core.loading.manifest import read_manifest

    p = Path(folder)
    m = read_manifest(p)
    names = ["manifest.json", m.scores_file, *(f for r in m.representations for f in r.files)]
    return {str(p / n): confined_sha256(m.folder, n) or "" for n in dict.fromkeys(names)}


def confined_sha256(folder: Path, relative: str) -> str | None:
    """The SHA-256 of the regular file ``relative`` below ``folder``, opened without following a link out of
    it (:func:`~subsetsel_core.io.file_guard.open_confined`); None when it cannot be opened so."""
    from subsetsel_core.errors import InputError
    from subsetsel_core.io.file_guard import open_confined

    try:
        fd = open_confined(folder, relative, relative)
    except InputError:
        return None
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def command_text(argv: Sequence[str]) -> str:
    """The command as one could type it again: ``subsetsel select --benchmark x --k 5``."""
    return shlex.join(["subsetsel", *argv])


def provenance(*, seed: int | None, inputs: Mapping[str, str], command: Sequence[str] | None = None,
               settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance record of an output (plain JSON values; keys :data:`PROVENANCE_KEYS`).

    Parameters
    ----------
    seed : int or None
        The one seed of the run (None: nothing random made it).
    inputs : mapping of str to str
        Input file name → SHA-256 (:func:`input_hashes`, :func:`benchmark_inputs`, or an
        upload's :func:`bytes_sha256`).
    command : sequence of str, optional
        The command line's arguments after ``subsetsel`` (None: made by the dashboard).
    settings : mapping, optional
        The settings that made it: every option of the command, or the dashboard's settings.
    """
    return {
        "subsetsel_version": VERSION,
        "made_by": "dashboard" if command is None else "command line",
        "command": None if command is None else command_text(command),
        "settings": _plain(dict(settings or {})),
        "seed": None if seed is None else int(seed),
        "input_sha256": {str(k): str(v) for k, v in inputs.items()},
    }


def _plain(value: Any) -> Any:
    """``value`` as plain JSON values (tuples → lists, paths and other objects → text)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return _plain(value.item())
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return str(value)


def argument_settings(namespace: Any) -> dict[str, Any]:
    """Every option of a parsed command line with its value (private entries left out)."""
    return {k: _plain(v) for k, v in sorted(vars(namespace).items()) if not k.startswith("_")}


# --------------------------------------------------------------------------- carriers


def latex_comments(record: Mapping[str, Any]) -> str:
    """``% key: value`` lines (values as one-line JSON) for the top of a LaTeX file."""
    from subsetsel_core.text.safe_csv import json_line

    return "".join(f"% {' '.join(str(k).split())}: {json_line(v)}\n" for k, v in record.items())  # no line break


def png_with_text(png: bytes, key: str, text: str) -> bytes:
    """A PNG with an ``iTXt`` chunk ``key`` → ``text`` (UTF-8) after its header chunk."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n") or len(png) < 33:
        return png
    data = key.encode("latin-1")[:79] + b"\0\0\0\0\0" + text.encode("utf-8")
    chunk = struct.pack(">I", len(data)) + b"iTXt" + data + struct.pack(">I", zlib.crc32(b"iTXt" + data) & 0xFFFFFFFF)
    end_ihdr = 8 + 4 + 4 + 13 + 4
    return png[:end_ihdr] + chunk + png[end_ihdr:]


def png_text(png: bytes, key: str) -> str | None:
    """The ``iTXt`` text stored under ``key`` in a PNG (None when there is none)."""
    pos = 8
    while pos + 8 <= len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        name, _, rest = data.partition(b"\0")
        if kind == b"iTXt" and name == key.encode("latin-1") and len(rest) >= 2:
            _language, _, rest = rest[2:].partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            return text.decode("utf-8", errors="replace")
        pos += 12 + length
    return None


def svg_with_metadata(svg: bytes, text: str) -> bytes:
    """An SVG with ``<metadata>text</metadata>`` (XML-escaped) right after its opening ``<svg …>`` tag."""
    from xml.sax.saxutils import escape

    start = svg.find(b"<svg")
    close = svg.find(b">", start)
    if start < 0 or close < 0:
        return svg
    meta = f'<metadata id="subsetsel-provenance">{escape(text)}</metadata>'.encode()
    return svg[:close + 1] + meta + svg[close + 1:]


#: The key of the provenance text in a PNG figure.
PNG_KEY = "subsetsel-provenance"


def read_provenance(raw: bytes) -> dict[str, Any] | None:
    """The provenance record carried by a file the product wrote (None: none found).

    Reads every place :func:`provenance` is written to: a JSON file's ``"provenance"``, the
    HTML report's ``<script id="provenance">``, an SVG's ``<metadata>``, a PNG's text chunk,
    LaTeX ``%`` lines and a CSV's ``#`` block. Nothing in the file is run or trusted beyond
    being parsed as JSON.
    """
    import json
    import re
    from xml.sax.saxutils import unescape

    from subsetsel_core.text.safe_csv import split_comments

    body = raw.removeprefix(b"\xef\xbb\xbf")

    def obj(text: str | None) -> dict[str, Any] | None:
        try:
            value = json.loads(text) if text is not None else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    if body.startswith(b"\x89PNG\r\n\x1a\n"):
        return obj(png_text(body, PNG_KEY))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    head = text.lstrip()
    if head.startswith("{"):
        doc = obj(text)
        found = doc.get("provenance") if doc is not None else None
        return found if isinstance(found, dict) else None
    for pattern, undo in ((r'<script type="application/json" id="provenance">(.*?)</script>', str),
                          (r'<metadata id="subsetsel-provenance">(.*?)</metadata>', unescape)):
        m = re.search(pattern, text, flags=re.S)
        if m is not None:
            return obj(undo(m.group(1)))
    if head.startswith("%"):  # LaTeX: "% key: value" lines, values as one-line JSON
        record: dict[str, Any] = {}
        for line in head.splitlines():
            key, colon, value = line.removeprefix("% ").partition(": ")
            if not line.startswith("% ") or not colon:
                break
            parsed = obj('{"v": ' + value + "}")
            record[key] = parsed["v"] if parsed is not None else value
        return {k: record[k] for k in PROVENANCE_KEYS if k in record} or None
    if head.startswith("#"):
        meta, _ = split_comments(text)
        return {k: meta[k] for k in PROVENANCE_KEYS if k in meta} or None
    return None


#: Options of the command line that name input files, and whether they name a benchmark folder.
_INPUT_OPTIONS = (("benchmark", True), ("scores", False), ("features", False), ("recipe", False),
                  ("subset", False), ("new_scores", False), ("model_dates", False), ("config", False))


def from_arguments(args: Any, seed: int | None = None) -> dict[str, Any]:
    """The provenance of a command's output: its command line, every option, the seed, its input files.

    ``args`` is the parsed command line; :func:`subsetsel_core.cli.main.main` keeps the command
    line as typed in ``args._argv``. A benchmark folder stands for its manifest and the
    files it names. The reading of the score table (``args._reading``, a
    :class:`~subsetsel_core.io.score_format.ScoreFormat` noted by
    :func:`subsetsel_core.cli.data.load`) is recorded whole as ``settings["reading"]``.
    """
    inputs: dict[str, str] = {}
    for name, is_folder in _INPUT_OPTIONS:
        value = getattr(args, name, None)
        if not value:
            continue
        if is_folder:
            try:
                inputs.update(benchmark_inputs(value))
            except Exception:  # noqa: BLE001 - the loader reports a bad folder; here, hash what is there
                inputs.update(input_hashes([value]))
        else:
            inputs.update(input_hashes(value if isinstance(value, list) else [value]))
    argv = getattr(args, "_argv", None)
    settings = argument_settings(args)
    reading = getattr(args, "_reading", None)
    if reading is not None:
        settings["reading"] = reading.to_dict()
    return provenance(seed=seed if seed is not None else getattr(args, "seed", None), inputs=inputs,
                      command=list(argv) if argv is not None else [], settings=settings)
