"""How large a Parquet table is once decoded, from its metadata, before it is read.

A Parquet file is small on disk when it compresses well, and smaller still when a column is
dictionary-encoded: ten million copies of one long string take a few bytes per row, but
become ten million strings once read. :func:`check_parquet` bounds the memory a table
takes by its **decoded** size, measured before the table is read:

* every column chunk's declared uncompressed size, summed, is at most the limit (what
  reading the pages costs);
* the decoded size, 8 bytes per number and the string's length plus 8 per text cell (a
  dictionary-encoded text column is measured by reading its dictionary and indices only,
  never the expanded strings), is at most the limit, the same limit as a CSV's text;
* nested columns (lists, maps, structs) are refused: a score or descriptor table is flat.
"""

from __future__ import annotations

import io

from subsetsel_core.errors import InputError
from subsetsel_core.text import rounding

__all__ = ["CELL_BYTES", "check_parquet", "decoded_size", "unreadable_parquet"]

CELL_BYTES = 8
"""Bytes counted per cell besides a string's own bytes."""


def _too_big(label: str, size: int, limit: int, what: str) -> InputError:
    return InputError(
        f"{label}: {what} it is {rounding.text(size / 2**20, 'megabytes')} MB, over the limit of "
        f"{rounding.text(limit / 2**20, 'megabytes')} MB. Split the file, drop unused columns, or raise the limit "
        "(environment variable SUBSETSEL_MAX_TABLE_MB).")


def decoded_size(raw: bytes, limit: int, label: str = "table") -> int:
    """The decoded size of a Parquet table, in bytes (see the module's description).

    Parameters
    ----------
    raw : bytes
        The Parquet file.
    limit : int
        Stop measuring (and raise) once the pages alone declare more than this.
    label : str
        The file's name in messages.

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not readable as Parquet, nested columns, or pages declaring more than ``limit``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def unreadable(exc: Exception) -> InputError:
        return unreadable_parquet(label, exc)

    try:
        pf = pq.ParquetFile(io.BytesIO(raw))
        meta, schema = pf.metadata, pf.schema_arrow
    except Exception as exc:  # noqa: BLE001 - any failure means: not a readable parquet file
        raise unreadable(exc) from None
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    if nested:
        raise InputError(f"{label}: column '{nested[0]}' is nested (a list, map or struct); save a flat table "
                         "of numbers and text.")
    pages = sum(meta.row_group(g).column(c).total_uncompressed_size
                for g in range(meta.num_row_groups) for c in range(meta.num_columns))
    if pages > limit:
        raise _too_big(label, pages, limit, "uncompressed,")
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type) or pa.types.is_dictionary(f.type)]
    size = meta.num_rows * len(schema) * CELL_BYTES
    if not text or size > limit:
        return size
    try:
        dict_file = pq.ParquetFile(io.BytesIO(raw), read_dictionary=text)
        for g in range(meta.num_row_groups):
            for name in text:
                col = dict_file.read_row_group(g, columns=[name]).column(0)
                for chunk in col.chunks:
                    if isinstance(chunk, pa.DictionaryArray):
                        lengths = pc.binary_length(chunk.dictionary).take(chunk.indices)
                    else:
                        lengths = pc.binary_length(chunk)
                    size += int(pc.sum(lengths).as_py() or 0)
                if size > limit:
                    return size
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise unreadable(exc) from None
    return size


def check_parquet(raw: bytes, label: str, limit: int) -> None:
    """Raise unless a Parquet table decodes to at most ``limit`` bytes (:func:`decoded_size`).

    Parameters
    ----------
    raw : bytes
        The Parquet file.
    label : str
        The file's name in messages.
    limit : int
        Largest decoded size accepted, in bytes.

    Raises
    ------
    InputError
        Not readable as Parquet, nested columns, or larger than ``limit`` once decoded.
    """
    size = decoded_size(raw, limit, label)
    if size > limit:
        raise _too_big(label, size, limit, "decoded,")


def unreadable_parquet(label: str, exc: BaseException) -> InputError:
    """Why a Parquet file cannot be read, in a reader's words (never the Arrow library's own message)."""
    said = str(exc).lower()
    if "magic bytes" in said or "footer" in said or "file size" in said:
        why = ("it does not end the way a Parquet file ends: it was cut short (copy or download it again), or it "
               "is not a Parquet file")
    elif "thrift" in said or "page header" in said or "deserializ" in said or "corrupt" in said:
        why = "a part of it is damaged (a page or its header cannot be decoded); it was probably changed or cut short"
    elif "codec" in said or "compression" in said or "decompress" in said:
        why = "it is compressed with a method this installation cannot decode"
    elif "memory" in said:
        why = "reading it needs more memory than is available"
    else:
        why = "its contents do not follow the Parquet format"
    return InputError(f"{label}: cannot be read as Parquet: {why}. Save it again as Parquet or as CSV.")
