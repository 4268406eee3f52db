"""A disk cache of read results folders: reading the same files again skips the parsing.

Reading an MTEB folder of 18 models parses about a thousand JSON files; the
:class:`~subsetsel_core.io.result_folders.ResultTable` it gives depends only on the files'
paths and bytes, the reading options, the installed mteb (its task metadata) and the
code that reads results. :func:`key` hashes all of them — the mechanism of
:mod:`~subsetsel_core.io.score_cache`, whose folder, switch (``SUBSETSEL_NO_CACHE=1``) and
reader digest it shares — so a changed file, option or reader is a new key, never a stale
answer. An entry is plain JSON (no code runs when it is read); any problem reading or
writing one falls back to parsing.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from subsetsel_core.io import safe_write, score_cache
from subsetsel_core.io.mteb_tasks import mteb_version
from subsetsel_core.io.result_files import RawFiles

T = TypeVar("T")
#: The modules whose code decides what a results folder reads as (part of every key).
READER_MODULES = (
    "subsetsel_core.io.result_folders", "subsetsel_core.io.result_table", "subsetsel_core.io.result_records",
    "subsetsel_core.io.result_files", "subsetsel_core.io.result_json", "subsetsel_core.io.lm_eval_results",
    "subsetsel_core.io.mteb_results", "subsetsel_core.io.mteb_subsets", "subsetsel_core.io.mteb_tasks",
    "subsetsel_core.io.eee_results", "subsetsel_core.io.result_cache",
)
MAX_ENTRIES = 16
"""Result entries kept (the oldest are removed beyond it)."""
_FORMAT = 1
_SUFFIX = ".results.json"


def _folder() -> Path | None:
    return score_cache.cache_dir()


def _reader_digest() -> bytes:
    h = hashlib.sha256()
    for name in READER_MODULES:
        path = getattr(importlib.import_module(name), "__file__", None)
        h.update(Path(path).read_bytes() if path else name.encode())
    return h.digest()


def key(raw: RawFiles, options: list[Any]) -> str | None:
    """The key of a source's files read with ``options`` (None when the cache is off)."""
    if _folder() is None:
        return None
    h = hashlib.sha256(_reader_digest())
    for path, _, data in raw.items:
        h.update(path.encode("utf-8", "surrogatepass") + b"\0" + hashlib.sha256(data).digest())
    h.update(json.dumps([_FORMAT, mteb_version(), list(raw.notes), list(raw.skipped), options],
                        default=str).encode("utf-8"))
    return h.hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, pd.DataFrame):
        return {"columns": list(value.columns),
                "rows": [[None if isinstance(x, float) and math.isnan(x) else x for x in row]
                         for row in value.itertuples(index=False)]}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def load(key: str | None, cls: type[T]) -> T | None:
    """The table stored under ``key`` (None: no entry, or one that cannot be read)."""
    folder = _folder()
    if key is None or folder is None:
        return None
    try:
        data = json.loads((folder / f"{key}{_SUFFIX}").read_text("utf-8"))
        frame = pd.DataFrame(data["frame"]["rows"], columns=data["frame"]["columns"])
        frame["score"] = pd.to_numeric(frame["score"]).astype(float)
        values: dict[str, Any] = {"frame": frame}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name == "frame":
                continue
            v = data[f.name]
            if f.name == "available":
                v = {k: tuple(x) for k, x in v.items()}
            elif f.name in ("negated", "notes", "warnings", "set_aside"):
                v = _tuples(v)
            values[f.name] = v
        return cls(**values)
    except Exception:  # a missing or damaged entry: read the files instead
        return None


def store(key: str | None, table: Any) -> None:
    """Keep ``table`` under ``key`` (silently skipped when the folder is not writable)."""
    folder = _folder()
    if key is None or folder is None:
        return
    data = {f.name: _plain(getattr(table, f.name)) for f in fields(table)}
    try:
        text = json.dumps(data, allow_nan=False).encode("utf-8")
        fd = safe_write.open_folder(folder, create=True)  # never through a link planted as the folder
    except (OSError, ValueError, TypeError):  # not JSON, not writable, or a planted link (InputError): no cache
        return
    try:
        safe_write.write_and_prune(fd, f"{key}{_SUFFIX}", text, suffix=_SUFFIX, keep=MAX_ENTRIES)
    except (OSError, ValueError):
        return
    finally:
        os.close(fd)
