"""Which kind of source a score path or upload is: a results folder, archive or JSON file of an evaluation framework,
or a table (CSV, TSV, Parquet, or JSON records — a list of objects, one per row)."""

from __future__ import annotations

import json
from pathlib import Path

from subsetsel_core.io.result_files import ZIP_MAGIC, max_json_bytes


def is_result_source(source: object) -> bool:
    """Whether a source is a results folder, a JSON or zip file, or JSON/zip bytes.

    A CSV, TSV or Parquet table (or a DataFrame) is not, nor a table as JSON records (a list of
    objects at the top that are not Every Eval Ever records, the one result format that can be a list).
    """
    if isinstance(source, str | Path):
        p = Path(source)
        if p.suffix.lower() == ".json" and p.is_file():  # a table as JSON records is no result file
            return not _table_records(_head(p))
        return p.is_dir() or p.suffix.lower() in (".json", ".zip")
    if isinstance(source, bytes):
        head = source.lstrip()[:1]
        return source[:4] == ZIP_MAGIC or head == b"{" or head == b"[" and not _table_records(source)
    if isinstance(source, list | tuple):
        return all(isinstance(x, tuple) and len(x) == 2 for x in source) and bool(source)
    return False


def _head(path: Path) -> bytes:
    """The bytes of a JSON file up to the result files' limit, to tell its kind (only its start when it is larger
    or is not a list; empty when it cannot be read: the reader words that)."""
    try:
        with open(path, "rb") as fh:
            start = fh.read(4096)
            if start.lstrip()[:1] != b"[":
                return start
            return start + fh.read(max_json_bytes())
    except OSError:
        return b""


def _table_records(raw: bytes) -> bool:
    """Whether JSON bytes are a table as records: a list of objects, none of them an Every Eval Ever record."""
    from subsetsel_core.io.json_records import is_records

    if not is_records(raw):
        return False
    if len(raw) > max_json_bytes() or b'"evaluation_results"' not in raw:
        return True  # too big for a result file (the table's limit then speaks), or no Every Eval Ever record
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return True  # the table reader words what is wrong with the JSON
    from subsetsel_core.io.eee_results import looks_like

    return not (isinstance(data, list) and any(looks_like(x) for x in data))
