"""Decoding table text: UTF-8, UTF-16 (with a byte-order mark, or without one when its zero bytes say so), cp1252;
refusing mixed encodings."""

from __future__ import annotations

import codecs
import csv
import io

import pandas as pd

from subsetsel_core.errors import InputError

_BOMS: tuple[tuple[bytes, str], ...] = ((codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def is_utf8(raw: bytes, piece: int = 1 << 16) -> bool:
    """Whether the bytes decode as UTF-8, checked piece by piece (no copy of the whole text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    try:
        for start in range(0, len(raw), piece):
            decoder.decode(view[start : start + piece])
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


def utf16_text(raw: bytes, label: str) -> str | None:
    """The text of a UTF-16 file with a byte-order mark (as Excel's "Unicode text" writes it), else None.

    Raises
    ------
    InputError
        When the file starts with a UTF-16 byte-order mark but does not decode as UTF-16.
    """
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(enc)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{label}: starts as UTF-16 (byte-order mark) but is not valid UTF-16 "
                    f"(byte {exc.start}). Save it again as UTF-8 CSV."
                ) from None
    return None


def bomless_utf16(raw: bytes) -> str | None:
    """The byte order of UTF-16 text written without a byte-order mark (``"utf-16-le"`` or
    ``"utf-16-be"``), else None.

    A table's text is mostly ASCII, which UTF-16 writes as one zero byte and one printable byte:
    the evidence is the first 4,096 bytes' zero bytes, at least half of one parity's bytes and at
    most 5 % of the other's (names in Chinese write some there), with those bytes decoding to text
    without control characters (tab, line ends aside). Text of any 8-bit encoding has no zero
    bytes at all, so it never looks like this.
    """
    head = raw[: 4096 - 4096 % 2] if len(raw) >= 2 else b""
    if len(head) < 4 or len(raw) % 2:
        return None
    even, odd = head[0::2], head[1::2]
    for zeros, other, enc in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        # ASCII (delimiters, digits, line ends) writes a zero in one half; a name in Chinese (U+4E00 is 00 4E) may
        # write one in the other now and then
        if zeros.count(0) >= 0.5 * len(zeros) and other.count(0) <= 0.05 * len(other):
            try:
                text = head.decode(enc)
            except UnicodeDecodeError:
                return None
            if not any(ord(c) < 32 and c not in "\t\r\n" for c in text):
                return enc
    return None


def legacy_text(raw: bytes, label: str) -> tuple[str, str]:
    """The text of a file that is not UTF-8, and the encoding it was read with.

    A file whose lines are partly valid UTF-8 with non-ASCII characters and partly not
    mixes encodings (a UTF-8 file with cp1252 lines pasted in): decoding it either way
    would garble some names, so it is refused.

    Raises
    ------
    InputError
        Naming the first UTF-8 line and the first line that is not.
    """
    utf8_line = bad_line = 0
    for n, line in enumerate(raw.split(b"\n"), start=1):
        if line.isascii():
            continue
        try:
            line.decode("utf-8")
            utf8_line = utf8_line or n
        except UnicodeDecodeError:
            bad_line = bad_line or n
        if utf8_line and bad_line:
            raise InputError(
                f"{label}: mixes text encodings: line {utf8_line} is UTF-8 but line {bad_line} is not "
                "(it looks like cp1252/Windows-1252). Names would be garbled; save the whole file "
                "as UTF-8."
            )
    for enc in ("cp1252", "latin-1"):
        try:
            return raw.decode(enc), enc
        except UnicodeDecodeError:
            continue
    raise InputError(f"{label}: cannot decode the text; save it as UTF-8.")  # pragma: no cover


def check_header(text: str, sep: str, label: str) -> None:
    """Refuse a header row that names a column twice (pandas would rename the second ``x.1``).

    Parameters
    ----------
    text : str
        The start of the table's text (at least its header row).
    sep : str
        The delimiter.
    label : str
        File name for messages.

    Raises
    ------
    InputError
        Naming the repeated columns.
    """
    try:
        header = next(csv.reader(io.StringIO(text.removeprefix("\ufeff")), delimiter=sep), [])
    except csv.Error:
        return  # the parser words the error
    check_columns([h.strip() for h in header], label)


def check_columns(columns: list[str], label: str) -> None:
    """Refuse column names that repeat (after stripping surrounding spaces).

    Raises
    ------
    InputError
        Naming the repeated columns.
    """
    seen: set[str] = set()
    dup: list[str] = []
    for c in columns:
        if c and c in seen and c not in dup:
            dup.append(c)
        seen.add(c)
    if dup:
        from subsetsel_core.io.names import short

        shown = ", ".join(f"'{short(d)}'" for d in dup[:10])
        raise InputError(
            f"{label}: duplicate column names {shown} (a column header appears more than once). "
            "Rename them so each is unique, or delete the extra column."
        )


def encoding_note(df: pd.DataFrame, label: str) -> str | None:
    """What :func:`read_table` noted about a table's text encoding when it was not UTF-8, else None."""
    enc = df.attrs.get("encoding")
    if not enc:
        return None
    if enc == "utf-16":
        return f"{label}: read as UTF-16 (it starts with a UTF-16 byte-order mark, as Excel writes it)."
    if enc.startswith("utf-16-"):
        return (f"{label}: read as UTF-16 ({'little' if enc.endswith('le') else 'big'}-endian) without a "
                "byte-order mark: every other byte of its text is zero, as UTF-16 writes ASCII.")
    return (
        f"{label}: not UTF-8; read as {enc} (Windows Western European). Check that accented "
        "names look right, or save the file as UTF-8."
    )
