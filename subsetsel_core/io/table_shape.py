"""The shape of a CSV's first lines: a title above the header, a header one name short, trailing delimiters;
JSON or LaTeX given as CSV; the parser's complaints in a reader's words.

pandas reads each of these without a word and gets the table wrong: a title line becomes the
header (one column of names, the real header a row), a header one name short — R's
``write.table`` leaves out the name of its row-name column — makes the first column the index
(the row names lost, every column shifted by one), and so does a delimiter at the end of every
row. The first two are refused with the line to fix; the third is read with the empty last cell
left out, which is what it means.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.cell_tokens import MISSING_TOKENS
from subsetsel_core.io.encodings import check_header

#: How many lines are looked at; a title or a short header shows in the first few.
_LINES = 40

_SHOWN = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "bars"}
_DELIMS = list(_SHOWN)


def _records(text: str, sep: str) -> list[list[str]]:
    """The first lines of the text as cell lists (a line cut at the end of ``text`` left out)."""
    cut = not text.endswith("\n")
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")), delimiter=sep)
    rows: list[list[str]] = []
    try:
        for row in reader:
            rows.append(row)
            if len(rows) > _LINES:
                break
    except csv.Error:
        pass  # the parser words a broken quote; the lines read so far still tell the shape
    if cut and len(rows) <= _LINES and rows:
        rows.pop()
    return rows[: _LINES + 1]


def _blank(row: list[str]) -> bool:
    return not any(c.strip() for c in row)


def _header_line(rows: list[list[str]], width: int) -> int | None:
    """The first line (1-based) with ``width`` cells, all filled, none a number or a gap (``-``): the row of column
    names."""
    for n, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if len(cells) == width and all(cells) and not any(is_number(c) or c.lower() in MISSING_TOKENS for c in cells):
            return n
    return None


def _count(row: list[str]) -> int:
    return sum(is_number(c.strip()) for c in row if c.strip())


def _numbers_below(rows: list[list[str]]) -> float:
    """How many numbers the rows below a header hold (the median row; 0 without rows)."""
    return float(np.median([_count(r) for r in rows])) if rows else 0.0


def is_number(cell: str) -> bool:
    """Whether a cell reads as a number (``85.2``, ``85.2%``)."""
    try:
        float(cell.rstrip("%"))
    except ValueError:
        return False
    return True


_LATEX_ROW = re.compile(r"[^&\n]*(?:&[^&\n]*){1,}\\\\\s*(?:\\hline\s*)?$")
_LATEX_START = re.compile(r"\\(?:begin\{(?:tabular|table|longtable|array)|toprule|hline|documentclass)")


def check_not_latex(text: str, label: str) -> None:
    """Refuse a LaTeX table (a paper's ``tabular``) given as CSV, saying what it is and how to save it.

    Raises
    ------
    InputError
        When the text starts a LaTeX table environment or its lines are ``a & b \\\\`` rows.
    """
    lines = [line.strip() for line in text.splitlines()[:_LINES] if line.strip() and not line.lstrip().startswith("%")]
    rows = sum(1 for line in lines if _LATEX_ROW.match(line))
    if not lines or not (_LATEX_START.match(lines[0]) or rows >= 2 and rows >= len(lines) / 2):
        return
    raise InputError(
        f"{label}: is a LaTeX table (cells separated by '&', rows ended by '\\\\'), not a CSV. Save the table as CSV "
        "with one header row of column names and one line per row, cells separated by commas (the "
        "\\begin, \\toprule and \\midrule lines left out).")


def check_shape(text: str, sep: str, label: str) -> list[str] | None:
    """Refuse a title line above the header and a header one name short; tell a trailing delimiter.

    Parameters
    ----------
    text : str
        The start of the table's text (its first lines are enough).
    sep : str
        The delimiter.
    label : str
        File name for messages.

    Returns
    -------
    list of str or None
        The header's names when every row ends with one empty cell more than the header has
        names (a delimiter at the end of each row): the table is to be read with one more
        column, which :func:`drop_trailing` checks and drops. None otherwise.

    Raises
    ------
    InputError
        Naming the line that is not the header, or the header that is one name short, and the fix.
    """
    rows = _records(text, sep)
    if len(rows) < 3:
        return None
    header, body = rows[0], [r for r in rows[1:] if not _blank(r)]
    if len(body) < 2:
        return None
    width, count = Counter(len(r) for r in body).most_common(1)[0]
    if count < 0.8 * len(body) or width < 2:
        return None  # ragged lines: the parser names the first that breaks the pattern
    shown = _SHOWN.get(sep, repr(sep))
    h = len(header)
    first = sep.join(header).strip(sep + " ")
    quoted = f"'{first[:60]}{'…' if len(first) > 60 else ''}'"
    second = _header_line(rows[1:2], width) == 1  # line 2 reads as a row of column names
    if second and h > width:
        raise InputError(
            f"{label}: line 1 ({quoted}) has {h} cells but line 2 and the lines below it have {width} (separated by "
            f"{shown}), and line 2 reads as the row of column names: line 1 looks like a title above the table. "
            "Delete the lines above the header so that the file starts with the row of column names.")
    if second and h == width and sum(bool(c.strip()) for c in header) * 2 >= h \
            and _count(header) < _numbers_below(body[1:]):
        raise InputError(
            f"{label}: lines 1 ({quoted}) and 2 both read as rows of column names (fewer numbers than in the rows "
            "below): a title above the table, or a header in two rows (groups above the column names). "
            "Keep one row of column names at the top: delete the line above it, or join a group's name into each "
            "of its column names ('Reasoning - GSM8K').")
    if h < width:
        at = _header_line(rows[1:], width)
        if h == width - 1 and all(len(r) == width and not r[-1].strip() for r in body if len(r) == width):
            return header  # each row ends with a delimiter: its last cell is empty
        if h == width - 1 and h >= 2 and at != 1:  # line 2 is a row of values, not a second header
            raise InputError(
                f"{label}: line 1 (the header) names {h} columns but the rows below it have {width} cells "
                f"(separated by {shown}): the first column has no name, as R's write.table saves its row names. "
                "Add a name for it at the start of line 1 (e.g. 'model' followed by the delimiter), or save "
                "the table with write.csv, which writes an empty name for it.")
        where = f"line {at + 1} looks like the header" if at is not None else "the header is further down"
        raise InputError(
            f"{label}: line 1 ({quoted}) has {h} cell{'s' * (h != 1)} but the lines below it have {width} "
            f"(separated by {shown}): line 1 looks like a title above the table, and {where}. Delete the lines "
            "above the header so that the file starts with the row of column names.")
    named = [bool(c.strip()) for c in header]
    filled = [any(len(r) > j and r[j].strip() for r in body) for j in range(h)]
    unnamed = sum(1 for j in range(1, h) if not named[j] and filled[j])
    if h >= 3 and unnamed >= max(2, (h - 1) / 2):  # a title or a group row leaves several named cells empty
        at = _header_line(rows[1:], width)
        where = f"line {at + 1} looks like the header" if at is not None else "the header is further down"
        raise InputError(
            f"{label}: line 1 ({quoted}) names only {sum(named)} of its {h} columns, which hold values: it looks "
            f"like a title above the table ({where}) or the upper row of a header in two rows (groups above the "
            "column names). Keep one row of column names at the top: delete the lines above it, or join a "
            "group's name into each of its column names ('Reasoning - GSM8K').")
    return None


#: The name given to the empty cell after each row's last delimiter while the table is read.
TRAILING = "\x00after the last delimiter"


def file_line(df: pd.DataFrame, row: int) -> int:
    """The file line of the table's row at position ``row``: its index (lines above the header left out counted,
    :func:`~subsetsel_core.io.tables.read_table`) less 2, or its position when the index holds no line numbers."""
    label = df.index[row]
    return int(label) + 2 if isinstance(label, int | np.integer) else row + 2


def drop_trailing(df: pd.DataFrame, label: str) -> pd.DataFrame:
    """Drop the column of cells after each row's last delimiter, refusing a row whose cell there is filled.

    Raises
    ------
    InputError
        Naming the first line with a value beyond the header's columns.
    """
    extra = df.pop(TRAILING)
    filled = extra.notna() & (extra.astype(str).str.strip() != "")
    if filled.any():
        row = int(filled.to_numpy().argmax())
        raise InputError(
            f"{label}: line {file_line(df, row)} has a value ('{str(extra.iloc[row])[:40]}') after the last of the "
            f"{df.shape[1]} columns the header names, where the other lines end with an empty cell (a "
            "delimiter at the end of each line). Remove it, or name its column in the header.")
    return df


def check_not_json(text: str, label: str) -> None:
    """Refuse a JSON file given as a table (a ``.json`` renamed ``.csv``), saying that it is JSON."""
    head = text.lstrip(" \t\r\n")
    if head[:1] not in ("{", "[") or not re.match(r'[{\[]\s*(?:"|\{|\[|\]|\}|-?\d|true|false|null)', head):
        return
    if label.lower().endswith(".json") and re.match(r"\{[^\n]*\}[ \t]*\r?\n\s*\{", head):
        raise InputError(f"{label}: holds a JSON object on each line (JSON Lines), not one JSON list. Give it a "
                         ".jsonl name, so that it is read one object per line.")
    if label.lower().endswith(".json"):
        raise InputError(
            f"{label}: is JSON that is not a table (a table as JSON is a list of objects, one per row). If it holds "
            "lm-eval, MTEB or Every Eval Ever results, read it as results: on the dashboard, the results upload "
            "('Or a results folder'); on the command line, --scores-format auto (or lm-eval, mteb, eee).")
    raise InputError(
        f"{label}: is a JSON file (it starts with '{head[0]}'), not a table of values separated by commas. Give the "
        "score table as CSV, TSV or Parquet; if the file holds lm-eval, MTEB or Every Eval Ever results, or a "
        "table as JSON records (a list of objects, one per row), give it back its .json name (.jsonl for one "
        "object per line) so that it is read as what it holds.")


def parser_problem(said: str, sep: str, skipped: int = 0) -> str:
    """The CSV parser's complaint in a reader's words: which line has how many cells (``skipped``: lines above
    the header the parser was not given, so that the line named is the file's)."""
    shown = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "bars"}.get(sep, repr(sep))
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", said)
    if m:
        return (f"line {int(m.group(2)) + skipped} has {m.group(3)} cells but the lines before it have {m.group(1)} (cells "
                f"separated by {shown}). Check that line for an extra delimiter or a quote left open.")
    if "EOF inside string" in said or "EOF while" in said:
        m = re.search(r"(line|row) (\d+)", said)  # pandas counts rows from 0 with the header as row 0
        line = None if m is None else int(m.group(2)) + (m.group(1) == "row") + skipped
        return (f"a quote opened{f' on line {line}' if line else ''} is never closed. Close the quote or remove "
                "it.")
    return f"the cells could not be split (separated by {shown}). Check that every row has as many cells as the header."


def sniff_delimiter(text: str) -> str:
    """The delimiter the header uses most; when the first line has none (a title), the one the next lines use."""
    lines = text.split("\n", 12)[:12]
    for line in lines if len(lines) > 1 else lines[:1]:
        counts = {d: line.count(d) for d in _DELIMS}
        best = max(_DELIMS, key=lambda d: counts[d])
        if counts[best] > 0:
            return best
    return ","


_UNNAMED = re.compile(r"^Unnamed: \d+$")


def check_unnamed_tail(df: pd.DataFrame, label: str) -> None:
    """Refuse a last column the header leaves unnamed that holds values in a few rows only (a stray cell after the
    last delimiter of lines that otherwise end with an empty one): neither a column nor nothing.

    Raises
    ------
    InputError
        Naming the first line with a value there.
    """
    if df.shape[1] < 2 or not _UNNAMED.match(str(df.columns[-1])):
        return
    last = df.iloc[:, -1]
    filled = last.notna() & (last.astype(str).str.strip() != "")
    if 0 < int(filled.sum()) * 2 <= len(df):
        row = int(filled.to_numpy().argmax())
        raise InputError(
            f"{label}: line {file_line(df, row)} has a value ('{str(last.iloc[row])[:40]}') in a last column the header does not "
            f"name, which {len(df) - int(filled.sum())} of the {len(df)} rows leave empty (their lines end with a "
            "delimiter). Remove the stray value, or name the column in the header.")


def check_first_lines(head: str, said: str | None, label: str) -> tuple[str, list[str] | None]:
    """Every check of a CSV's first lines, in order (JSON or LaTeX given as CSV, the delimiter, the shape, the
    header's names), and what the parser needs from them.

    Parameters
    ----------
    head : str
        The start of the table's text.
    said : str or None
        The delimiter an Excel ``sep=`` line names.
    label : str
        File name for messages.

    Returns
    -------
    sep : str
        The delimiter.
    trailing : list of str or None
        :func:`check_shape`'s header names when every row ends with a delimiter.

    Raises
    ------
    InputError
        As the checks do.
    """
    check_not_json(head, label)
    check_not_latex(head, label)
    sep = delimiter(head, said, label)
    trailing = check_shape(head, sep, label)  # before the names: a title or a header in two rows repeats names
    check_header(head, sep, label)
    return sep, trailing


def delimiter(head: str, said: str | None, label: str) -> str:
    """The table's delimiter: the one an Excel ``sep=`` line names (checked against the header), else sniffed."""
    if said is None:
        return sniff_delimiter(head)
    check_sep_line(head, said, label)
    return said


def check_sep_line(head: str, sep: str, label: str) -> None:
    """Refuse an Excel ``sep=`` first line that names a delimiter the header (the next line) does not use, when it
    uses another one: which is meant cannot be told.

    Raises
    ------
    InputError
        Naming both delimiters and the fix.
    """
    header = head.split("\n", 1)[0]
    if sep in header:
        return
    used = max(_DELIMS, key=header.count)
    if header.count(used) == 0:
        return
    raise InputError(f"{label}: line 1 says 'sep={sep}' (cells separated by {_SHOWN.get(sep, repr(sep))}), but the "
                     f"header on line 2 has none and uses {_SHOWN[used]}. Delete the 'sep=' line, or save the table "
                     "again with the delimiter it names.")
