"""Reading user tables (CSV, gzip CSV, TSV, Parquet) with errors a user can act on."""

from __future__ import annotations

import io
import os
import zlib
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd

from subsetsel_core.errors import InputError

TableSource: TypeAlias = str | Path | pd.DataFrame | bytes | io.IOBase

_DELIMS = [",", ";", "\t", "|"]
TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".parquet", ".pq")
"""File name endings of the tables :func:`read_table` reads."""
DEFAULT_MAX_MB = 200.0


def max_bytes() -> int:
    """Largest table accepted, in bytes (uncompressed): ``SUBSETSEL_MAX_TABLE_MB`` or 200 MB."""
    try:
        mb = float(os.environ.get("SUBSETSEL_MAX_TABLE_MB", DEFAULT_MAX_MB))
    except ValueError:
        mb = DEFAULT_MAX_MB
    return int(mb * 1024 * 1024)


def _too_big(label: str, size: int, limit: int, what: str = "") -> InputError:
    return InputError(
        f"{label}: {what}{size / 2**20:.0f} MB is over the limit of {limit / 2**20:.0f} MB. Split the file, "
        "drop unused columns, or raise the limit (environment variable SUBSETSEL_MAX_TABLE_MB)."
    )


def source_label(source: Any, label: str | None = None) -> str:
    """Name of a source for messages: the given label, a file name, or ``"table"``."""
    if label:
        return label
    if isinstance(source, str | Path):
        return Path(source).name
    name = getattr(source, "name", None)
    return str(name) if name else "table"


def _read_bytes(source: TableSource, label: str) -> bytes:
    if isinstance(source, bytes):
        return source
    if isinstance(source, str | Path):
        p = Path(source)
        if not p.exists():
            raise InputError(f"{label}: file not found ({p}). Check the path.")
        if p.is_dir():
            raise InputError(f"{label}: is a folder, not a file ({p}). Give the table's file.")
        if p.stat().st_size > max_bytes():
            raise _too_big(label, p.stat().st_size, max_bytes())
        return p.read_bytes()
    data = source.read(max_bytes() + 1)
    if isinstance(data, str):
        return data.encode("utf-8")
    return data


def _is_parquet(raw: bytes, label: str) -> bool:
    return raw[:4] == b"PAR1" or label.lower().endswith((".parquet", ".pq"))


def _decode(raw: bytes, label: str) -> str:
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, label)
    if raw[:4] == b"PK\x03\x04":
        raise InputError(
            f"{label}: is a zip archive (or an Excel workbook), not a table. Export the sheet as CSV "
            "or unzip it first."
        )
    if b"\x00" in raw[:4096]:
        raise InputError(
            f"{label}: is a binary file, not a text table. Save it as CSV (comma-separated) "
            "or Parquet."
        )
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            continue
    raise InputError(f"{label}: cannot decode the text; save it as UTF-8.")  # pragma: no cover


def _gunzip(raw: bytes, label: str) -> bytes:
    """Decompress gzip with a cap on the output size (no decompression bombs)."""
    limit = max_bytes()
    d = zlib.decompressobj(wbits=31)
    out = []
    size = 0
    try:
        data = raw
        while data:
            chunk = d.decompress(data, 1 << 20)
            size += len(chunk)
            if size > limit:
                raise _too_big(label, size, limit, "uncompressed, more than ")
            out.append(chunk)
            data = d.unconsumed_tail
            if not data and d.eof and d.unused_data[:2] == b"\x1f\x8b":  # concatenated members
                data = d.unused_data
                d = zlib.decompressobj(wbits=31)
    except zlib.error as exc:
        raise InputError(f"{label}: looks gzip-compressed but cannot be read ({exc}).") from None
    return b"".join(out)


def _read_parquet(raw: bytes, label: str) -> pd.DataFrame:
    """Read Parquet after checking its declared uncompressed size (no decompression bombs)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    except Exception as exc:  # noqa: BLE001 - any failure means: not a readable parquet file
        raise InputError(
            f"{label}: cannot be read as Parquet ({type(exc).__name__}: {exc}). Save it again as Parquet or CSV."
        ) from None
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if size > max_bytes():
        raise _too_big(label, size, max_bytes(), "uncompressed ")
    try:
        return pq.read_table(io.BytesIO(raw)).to_pandas()
    except Exception as exc:  # noqa: BLE001
        raise InputError(
            f"{label}: cannot be read as Parquet ({type(exc).__name__}: {exc}). Save it again as Parquet or CSV."
        ) from None


def _sniff_delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in _DELIMS}
    best = max(_DELIMS, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def read_table(
    source: TableSource, *, label: str | None = None, field: str | None = None
) -> pd.DataFrame:
    """Read a table from a path, bytes, a file object or a DataFrame.

    CSV (any of ``, ; tab |`` as delimiter, detected from the header), gzip CSV, and
    Parquet (detected by content or extension) are accepted. Column names are stripped
    of surrounding spaces.

    Parameters
    ----------
    source : path, bytes, file-like or DataFrame
        The table.
    label : str, optional
        Name used in messages (defaults to the file name).
    field : str, optional
        The setting that names this file (a key of :data:`~subsetsel_core.errors.FIELDS`,
        e.g. ``"scores_file"``); it becomes the ``field`` of every error raised here.

    Returns
    -------
    pandas.DataFrame
        The raw table; cells keep their text, nothing is converted yet.

    Raises
    ------
    InputError
        When the file is missing, empty, binary or not a table.
    """
    label = source_label(source, label)
    try:
        return _read_table(source, label)
    except InputError as exc:
        if field is None or exc.field is not None:
            raise
        raise InputError(str(exc), field=field, rows=exc.rows) from None


def _read_table(source: TableSource, label: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        df = source.copy()
    else:
        raw = _read_bytes(source, label)
        if not raw.strip():
            raise InputError(f"{label}: the file is empty. Give a table with a header row.")
        if len(raw) > max_bytes():
            raise _too_big(label, len(raw), max_bytes())
        if _is_parquet(raw, label):
            df = _read_parquet(raw, label)
        else:
            text = _decode(raw, label)
            sep = _sniff_delimiter(text)
            try:
                df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
            except pd.errors.ParserError as exc:
                raise InputError(
                    f"{label}: not a well-formed CSV table ({exc}). Check that every row has "
                    "as many cells as the header."
                ) from None
            except pd.errors.EmptyDataError:
                raise InputError(f"{label}: the file is empty. Give a table with a header row.") from None
    df.columns = [str(c).strip() for c in df.columns]
    if df.shape[1] == 0:
        raise InputError(f"{label}: no columns found. Give a table with a header row.")
    if len(df) == 0:
        raise InputError(
            f"{label}: has a header but no rows. Add the rows below the header, or give the "
            "file that holds them."
        )
    return df


def line_numbers(index: pd.Index) -> list[int]:
    """File line numbers (header = line 1) of table rows: row label ``i`` is line ``i + 2``."""
    return [int(i) + 2 for i in index]


def row_numbers(index: pd.Index, *, limit: int = 8) -> str:
    """File line numbers (header = line 1) of table rows, for messages."""
    lines = [str(n) for n in line_numbers(index[:limit])]
    more = f" … and {len(index) - limit} more" if len(index) > limit else ""
    return ", ".join(lines) + more
