"""Reading user tables (CSV, gzip CSV, TSV, Parquet) with errors a user can act on."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import InputError

TableSource = str | Path | pd.DataFrame | bytes | io.IOBase

_DELIMS = [",", ";", "\t", "|"]


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
        return p.read_bytes()
    data = source.read()
    if isinstance(data, str):
        return data.encode("utf-8")
    return data


def _is_parquet(raw: bytes, label: str) -> bool:
    return raw[:4] == b"PAR1" or label.lower().endswith((".parquet", ".pq"))


def _decode(raw: bytes, label: str) -> str:
    if raw[:2] == b"\x1f\x8b":
        import gzip

        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"{label}: looks gzip-compressed but cannot be read ({exc}).") from exc
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


def _sniff_delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in _DELIMS}
    best = max(_DELIMS, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def read_table(source: TableSource, *, label: str | None = None) -> pd.DataFrame:
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
    if isinstance(source, pd.DataFrame):
        df = source.copy()
    else:
        raw = _read_bytes(source, label)
        if not raw.strip():
            raise InputError(f"{label}: the file is empty. Give a table with a header row.")
        if _is_parquet(raw, label):
            try:
                df = pd.read_parquet(io.BytesIO(raw))
            except Exception as exc:  # noqa: BLE001 - any parquet failure is a bad file
                raise InputError(
                    f"{label}: cannot be read as Parquet ({type(exc).__name__}: {exc}). "
                    "Save it again as Parquet or CSV."
                ) from None
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
        raise InputError(f"{label}: has a header but no rows.")
    return df


def row_numbers(index: pd.Index, *, limit: int = 8) -> str:
    """File line numbers (header = line 1) of table rows, for messages."""
    lines = [str(int(i) + 2) for i in list(index)[:limit]]
    more = f" … and {len(index) - limit} more" if len(index) > limit else ""
    return ", ".join(lines) + more
