"""Reading user tables (CSV, gzip CSV, TSV, Parquet) with errors a user can act on."""

from __future__ import annotations

import io
import re
import zlib
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.encodings import (
    bomless_utf16,
    check_columns,
    is_utf8,
    legacy_text,
    utf16_text,
)
from subsetsel_core.io.file_guard import read_input_file
from subsetsel_core.io.json_records import is_json_lines, is_records, records_frame
from subsetsel_core.io.parquet_guard import check_parquet, unreadable_parquet
from subsetsel_core.io.pipe_tables import has_rule_line, markdown_table, tidy_pipe_table
from subsetsel_core.io.table_shape import (
    TRAILING,
    check_first_lines,
    check_unnamed_tail,
    drop_trailing,
    parser_problem,
)
from subsetsel_core.settings import server as server_settings
from subsetsel_core.text.rounding import text

TableSource: TypeAlias = str | Path | pd.DataFrame | bytes | io.IOBase

TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".parquet", ".pq")
"""File name endings of the tables :func:`read_table` reads."""
DEFAULT_MAX_MB = 200.0
FACTORIZE_HINT = 1024
"""Distinct cells a text column's hash table is first sized for (it grows as needed)."""


def max_bytes() -> int:
    """Largest table accepted, in bytes (uncompressed): the setting ``max_table_mb``
    (``SUBSETSEL_MAX_TABLE_MB``, see :mod:`subsetsel_core.settings.server`) or 200 MB."""
    return int(float(server_settings.get("max_table_mb")) * 1024 * 1024)


def _too_big(label: str, size: int, limit: int, what: str = "") -> InputError:
    return InputError(
        f"{label}: {what}{text(size / 2**20, 'megabytes')} MB is over the limit of {text(limit / 2**20, 'megabytes')} MB. Split the file, "
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
        return read_input_file(p, label, max_bytes())
    data = source.read(max_bytes() + 1)
    if isinstance(data, str):
        return data.encode("utf-8")
    return data


def _is_parquet(raw: bytes, label: str) -> bool:
    return raw[:4] == b"PAR1" or label.lower().endswith((".parquet", ".pq"))


def _decode(raw: bytes, label: str) -> tuple[str | None, str]:
    """The text of an uncompressed file (None when it is UTF-8: parse its bytes) and its encoding."""
    if raw[:4] == b"PK\x03\x04":
        raise InputError(
            f"{label}: is a zip archive (or an Excel workbook), not a table. Export the sheet as CSV "
            "or unzip it first."
        )
    text = utf16_text(raw, label)
    if text is not None:
        return text, "utf-16"
    order = bomless_utf16(raw)
    if order is not None:
        try:
            return raw.decode(order), order
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{label}: looks like UTF-16 without a byte-order mark ({order[-2:].upper()}) but is not valid "
                f"UTF-16 (byte {exc.start}). Save it again as UTF-8 CSV."
            ) from None
    if b"\x00" in raw[:4096]:
        raise InputError(
            f"{label}: is a binary file, not a text table. Save it as CSV (comma-separated) "
            "or Parquet."
        )
    if is_utf8(raw):
        return None, "utf-8"
    return legacy_text(raw, label)


def _gunzip(raw: bytes, label: str) -> bytes:
    """Decompress gzip with a cap on the output size (no decompression bombs)."""
    limit = max_bytes()
    d = zlib.decompressobj(wbits=31)
    out = []
    size = 0
    try:
        data = raw
        while data or not d.eof:
            chunk = d.decompress(data, 1 << 20)
            size += len(chunk)
            if size > limit:
                raise _too_big(label, size, limit, "uncompressed, more than ")
            out.append(chunk)
            data = d.unconsumed_tail
            if not data and d.eof and d.unused_data[:2] == b"\x1f\x8b":  # concatenated members
                data = d.unused_data
                d = zlib.decompressobj(wbits=31)
            elif not data and not chunk:
                break  # all input read and no output pending: the stream ended (or was cut)
    except zlib.error:
        raise InputError(f"{label}: starts like a gzip file but its compressed data is damaged (after {size} "
                         "bytes of text); it was changed or cut short. Copy or download it again, or give the "
                         "uncompressed table.") from None
    if not d.eof:
        raise InputError(
            f"{label}: the gzip file is truncated (it ends before the end of its compressed "
            f"stream, after {size} bytes of text). It was cut short: copy or download it again."
        )
    return b"".join(out)


def _read_parquet(raw: bytes, label: str) -> pd.DataFrame:
    """Read Parquet after checking its declared uncompressed size (no decompression bombs)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    except Exception as exc:  # noqa: BLE001 - any failure means: not a readable parquet file
        raise unreadable_parquet(label, exc) from None
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if size > max_bytes():
        raise _too_big(label, size, max_bytes(), "uncompressed ")
    check_parquet(raw, label, max_bytes())
    try:
        return pq.read_table(io.BytesIO(raw)).to_pandas()
    except Exception as exc:  # noqa: BLE001
        raise unreadable_parquet(label, exc) from None


def read_table(
    source: TableSource,
    *,
    label: str | None = None,
    field: str | None = None,
    object_text: bool = False,
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
    object_text : bool
        Give the cells of a CSV table as Python ``str`` in ``object`` columns instead of
        pandas' string dtype: the same text, read about twice as fast and ready for
        :func:`text_codes`.

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
        return _read_table(source, label, object_text)
    except InputError as exc:
        if field is None or exc.field is not None:
            raise
        raise InputError(str(exc), field=field, rows=exc.rows) from None


_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3  # pandas 3: a shallow copy is as safe as a deep one


def _read_table(source: TableSource, label: str, object_text: bool) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        df = source.copy(deep=not _COPY_ON_WRITE)  # with copy-on-write no cell is copied, nor changed for the caller
    else:
        raw = _read_bytes(source, label)
        if not raw.strip():
            raise InputError(f"{label}: the file is empty. Give a table with a header row.")
        if len(raw) > max_bytes():
            raise _too_big(label, len(raw), max_bytes())
        if raw[:2] == b"\x1f\x8b":  # gzip: a compressed CSV, or a Parquet file compressed again
            raw = _gunzip(raw, label)
            if raw[:4] == b"PAR1":
                df = _read_parquet(raw, label)  # read as it is: Parquet inside gzip
            else:
                df = _read_csv(raw, label, object if object_text else str)
        elif _is_parquet(raw, label):
            if raw[:4] == b"PK\x03\x04":
                raise InputError(f"{label}: is a zip archive, not a Parquet file. Unzip it and give the table "
                                 "inside, or save the table again as Parquet or CSV.")
            df = _read_parquet(raw, label)
        elif (label.lower().endswith(".json") and is_records(raw)) or is_json_lines(label):  # a table as JSON records
            frame = records_frame(raw, label)
            df = frame if object_text else frame.astype(str)
        else:
            df = _read_csv(raw, label, object if object_text else str)
    df.columns = [str(c).strip() for c in df.columns]
    check_columns(list(df.columns), label)
    if df.shape[1] == 0:
        raise InputError(f"{label}: no columns found. Give a table with a header row.")
    if len(df) == 0:
        raise InputError(
            f"{label}: has a header but no rows. Add the rows below the header, or give the "
            "file that holds them."
        )
    return df


#: The leading comment block of the product's own CSVs (``# key: value`` lines; subsetsel_core.text.safe_csv),
#: also as a spreadsheet saves it again (a line whose first cell it quoted: ``"# key: ""value""",…``).
_COMMENT_BLOCK = re.compile(rb'\A(?:"?# [A-Za-z_][\w.]*: [^\n]*\n)+')


#: Excel's first line naming the delimiter of a CSV it saved (``sep=;``), quoted or not.
_EXCEL_SEP = re.compile(r'\A"?sep=([,;\t|])"?[ \t]*\r?\n')


def _read_csv(raw: bytes, label: str, dtype: type) -> pd.DataFrame:
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, label)
    block = _COMMENT_BLOCK.match(raw.removeprefix(b"\xef\xbb\xbf"))
    skipped = 0  # lines above the header left out: messages count the file's lines
    if block is not None:  # one of the product's exports (a subset CSV, a template): its provenance block is no row
        skipped = block.group(0).count(b"\n")
        raw = raw.removeprefix(b"\xef\xbb\xbf")[block.end():]
    text, encoding = _decode(raw, label)
    if text is None:  # UTF-8: the parser reads these bytes, as it would the text's
        raw = raw.removeprefix(b"\xef\xbb\xbf")
        excel = _EXCEL_SEP.match(raw[:16].decode("utf-8", errors="ignore"))
        if excel:
            raw = raw[raw.find(b"\n") + 1:]
        head = raw[: 1 << 16].decode("utf-8", errors="ignore")
    else:
        text = text.removeprefix("\ufeff")
        excel = _EXCEL_SEP.match(text)
        if excel:
            text = text[excel.end():]
        head = text[: 1 << 16]
    readme = label.lower().endswith((".md", ".markdown"))  # a README: its table may follow pages of prose
    full = (raw.decode("utf-8") if text is None else text) if readme or has_rule_line(head) else ""  # decoded once
    if has_rule_line(full if readme else head) and (md := markdown_table(full, label)) is not None:
        md = md if dtype is object else md.astype(str)  # a README's table, prose around it or not
        if encoding != "utf-8":
            md.attrs["encoding"] = encoding
        return md
    skipped += 1 if excel else 0
    if readme:
        raise InputError(f"{label}: holds no markdown table: a header line of cells between bars, a '---' delimiter "
                         "line under it and rows (a table inside a code block or an HTML comment is not read). Give "
                         "the README with its table, or the table as CSV.")
    sep, trailing = check_first_lines(head, excel.group(1) if excel else None, label)
    buffer: io.IOBase = io.BytesIO(raw) if text is None else io.StringIO(text)
    try:
        # a delimiter at the end of every row is one more, empty, cell per row, not a shift of every column
        names = None if trailing is None else [*trailing, TRAILING]
        df = pd.read_csv(buffer, sep=sep, dtype=dtype, keep_default_na=False, header=0, names=names)
    except pd.errors.ParserError as exc:
        raise InputError(f"{label}: not a well-formed CSV table: {parser_problem(str(exc), sep, skipped)}") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{label}: the file is empty. Give a table with a header row.") from None
    if skipped:  # a row's index is its line in the file less 2, as for a file that starts with its header
        df.index = pd.RangeIndex(skipped, skipped + len(df))
    if trailing is not None:
        df = drop_trailing(df, label)
    check_unnamed_tail(df, label)
    if encoding != "utf-8":
        df.attrs["encoding"] = encoding
    return tidy_pipe_table(df) if sep == "|" else df


def text_codes(values: pd.Series) -> tuple[np.ndarray, pd.Series] | None:
    """The distinct cells of a text column and where each row's cell is among them.

    Whatever is computed cell by cell from the text (with checks over all cells, such
    as "any" or "every") can be computed on the distinct cells and spread back with the
    codes.

    Parameters
    ----------
    values : Series
        A column: string dtype, or ``object`` holding ``str`` and missing values.

    Returns
    -------
    codes : ndarray of int
        For each row, the position of its cell in ``distinct``.
    distinct : Series of object
        The distinct cells in order of first appearance; missing cells (None, NaN)
        share one entry, NaN, placed last.

    None when the column holds anything else (numbers, booleans, mixed objects):
    factorising them would merge cells whose text differs (``1``, ``1.0`` and
    ``True``). Factorising merges only equal cells, and no built-in type other than
    ``str`` equals a ``str``, so the distinct cells tell whether every cell is text.
    """
    if isinstance(values.dtype, pd.StringDtype):
        codes, uniques = values.factorize()
        distinct = uniques.to_numpy(dtype=object)
    elif values.dtype == object:
        try:
            codes, distinct = _factorize_runs(values.to_numpy())
        except TypeError:  # unhashable cells (lists, dicts)
            return None
        if pd.api.types.infer_dtype(distinct, skipna=False) not in ("string", "empty"):
            return None
    else:
        return None
    codes = np.asarray(codes, dtype=np.intp)
    missing = codes < 0
    if missing.any():
        codes = np.where(missing, len(distinct), codes)
        distinct = np.append(distinct, np.array([np.nan], dtype=object))
    return codes, pd.Series(distinct, dtype=object)


def _factorize_runs(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize`` of an object array, one lookup per run of equal neighbours when
    the cells come in runs (a long table sorted by dataset).

    The hash table starts small and grows with the distinct cells (a table sized for
    every row costs more to allocate than to fill when few cells are distinct).
    """
    n = len(cells)
    probe = min(n - 1, 256)
    try:
        runs = probe >= 64 and np.count_nonzero(cells[1 : probe + 1] != cells[:probe]) <= probe // 4
        starts = np.flatnonzero(np.concatenate(([True], cells[1:] != cells[:-1]))) if runs else None
    except (TypeError, ValueError):  # cells that do not compare one to one
        starts = None
    if starts is None or len(starts) > n // 4:
        return pd.factorize(cells, size_hint=FACTORIZE_HINT)
    codes, distinct = pd.factorize(cells[starts], size_hint=FACTORIZE_HINT)
    return np.repeat(codes, np.diff(np.append(starts, n))), distinct


def line_numbers(index: pd.Index) -> list[int]:
    """File line numbers (header = line 1) of table rows: row label ``i`` is line ``i + 2``."""
    return [int(i) + 2 for i in index]


def row_numbers(index: pd.Index, *, limit: int = 8) -> str:
    """File line numbers (header = line 1) of table rows, for messages."""
    more = f" … and {len(index) - limit} more" if len(index) > limit else ""
    return ", ".join(str(n) for n in line_numbers(index[:limit])) + more
