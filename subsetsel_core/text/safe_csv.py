"""The one CSV writer of the product: formula-safe cells, quoted where a reader could split them.

Every CSV subsetsel writes (the subset, the template of a new model's scores, the AUC and
curve tables, the budget curves, the descriptor tables inside a workspace) is written by
:func:`csv_text`:

* a **text** cell (and every header cell) that a spreadsheet would run as a formula, one
  starting with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed (or their
  full-width forms), gets a leading ``'`` (:func:`neutralise`); so does every piece of a
  cell after a ``,`` ``;`` tab ``|`` or line break that would start one for a reader
  guessing another separator or ignoring quotes (``a;=cmd()`` is written ``a;'=cmd()``),
  and a piece that already starts with ``'`` followed by one of them, so that
  :func:`restore` undoes the prefixes exactly;
* **numbers stay numbers**: numeric cells (int, float, bool columns, and numbers in mixed
  columns) are written as pandas writes them and never prefixed, so ``-0.5`` stays the
  number ``-0.5``; a text cell that is a plain decimal number (``-0.5``, ``+3``, ``1e-5``)
  is not prefixed either, since a spreadsheet reads it as that number and runs nothing;
* every cell holding a quote, a carriage return, a line feed or any of the separators a
  reader might guess (``,`` ``;`` tab ``|``) is quoted, quotes doubled, so no reader
  splits a row into a cell that starts a live formula;
* comment lines (``# key: value``, the value as one-line JSON) are written unquoted, so that
  ``pandas.read_csv(comment="#")`` and spreadsheets skip or show them as text; ``#`` comes
  first, and a piece after a separator that would run gets the same ``'`` (:func:`comment_line`);
  :func:`split_comments` reads the block back.

The product reads its own exports back: :func:`restore` (and :func:`restore_frame` for a
whole table) removes exactly the prefix :func:`neutralise` added, so a subset CSV whose
datasets are called ``+aug`` or ``@risk`` names those datasets again.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.text import strict_json

__all__ = ["BREAKS", "TRIGGERS", "comment_line", "csv_text", "neutralise", "restore", "json_line", "restore_frame",
           "split_comments"]

TRIGGERS = "=+-@\t\r\n\uff1d\uff0b\uff0d\uff20"
"""First characters that make a spreadsheet treat a cell as a formula (with full-width forms)."""
BREAKS = ",;\t|\r\n"
"""Characters after which some reader starts a new cell or row (the separators it may guess, line breaks)."""
_QUOTE_IF = frozenset(BREAKS + '"')
_TRIGGERED = re.compile(f"['\"]*[{re.escape(TRIGGERS)}]")
_NEUTRALISED = re.compile(f"'['\"]*[{re.escape(TRIGGERS)}]")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_SEGMENT_END = re.compile(f"[{re.escape(BREAKS)}]")


def _starts(text: str) -> list[int]:
    """Where some reader may start a cell: the beginning, and after every character of :data:`BREAKS`."""
    if _SEGMENT_END.search(text) is None:
        return [0]
    return [0] + [m.end() for m in _SEGMENT_END.finditer(text)]


def neutralise(text: str) -> str:
    """``text`` with a ``'`` inserted wherever a reader could start a cell that runs a formula.

    Where a cell may start for some reader (the beginning of the text, and after each
    separator or line break of :data:`BREAKS`, for a reader that guesses another separator
    or ignores quotes), a ``'`` is inserted when the text there starts with one of
    :data:`TRIGGERS` (possibly after quotes or apostrophes) and the text from there to its
    end is not a plain decimal number (``-0.5`` and ``1,-5`` stay as they are; ``-1;+x``
    does not).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> neutralise("=HYPERLINK(1)"), neutralise("-0.5"), neutralise("@risk"), neutralise("a;=b")
    ("'=HYPERLINK(1)", '-0.5', "'@risk", "a;'=b")
    """
    out, last = [], 0
    for p in _starts(text):
        if _TRIGGERED.match(text, p) and not _PLAIN_NUMBER.fullmatch(text, p):
            out += [text[last:p], "'"]
            last = p
    return "".join(out) + text[last:] if out else text


def restore(text: str) -> str:
    """Undo :func:`neutralise`: ``restore(neutralise(s)) == s`` for every string ``s``.

    Examples
    --------
    >>> restore("'+aug"), restore("plain"), restore("'quoted"), restore("a;'=b")
    ('+aug', 'plain', "'quoted", 'a;=b')
    """
    out, last = [], 0
    for p in _starts(text):
        if _NEUTRALISED.match(text, p):
            out.append(text[last:p])
            last = p + 1
    return "".join(out) + text[last:] if out else text


def restore_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a table read from one of the product's CSVs with :func:`restore` on every text cell and column name."""
    out = frame.copy()
    out.columns = [restore(c) if isinstance(c, str) else c for c in out.columns]
    for c in out.columns:
        col = out[c]
        if col.dtype == object or pd.api.types.is_string_dtype(col):
            out[c] = col.map(lambda v: restore(v) if isinstance(v, str) else v)
    return out


def _quoted(cell: str) -> str:
    if _QUOTE_IF.intersection(cell):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _number(value: Any) -> str | None:
    """The CSV text of a number as pandas writes it (None: not a number)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return "" if value != value else str(value)  # NaN: an empty cell
    return None


def _cell(value: Any) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    num = _number(value)
    if num is not None:
        return num
    return _quoted(neutralise(str(value)))


def _column(values: pd.Series) -> list[str]:
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else ""
    if kind == "f":  # numpy's own shortest text of each float (float32 included), as pandas writes it
        return ["" if v != v else str(v) for v in values.to_numpy()]
    if kind in ("i", "u", "b"):
        return [str(v) for v in values.to_numpy()]
    cells = values.tolist()
    if len(cells) > 256:  # a column of names that repeat (a long table): each distinct text is written once
        try:
            codes, uniques = pd.factorize(np.asarray(cells, dtype=object))
        except TypeError:  # unhashable cells
            codes, uniques = None, None
        if uniques is not None and len(uniques) * 4 < len(cells) and \
                pd.api.types.infer_dtype(uniques, skipna=False) == "string":
            texts = [_cell(u) for u in uniques] + [""]  # code -1: a missing cell
            return [texts[c] for c in codes]
    return [_cell(v) for v in cells]


def json_line(value: Any) -> str:
    """JSON on one line: control characters and every other character a reader takes for a line break escaped.

    Items are separated by ``","`` with no space, so that a reader that trims spaces cannot
    see a formula after a separator: :func:`comment_line` neutralises what follows each one.
    """
    out = strict_json.dumps(value, separators=(",", ": "), default=str)
    return "".join(f"\\u{ord(c):04x}" if 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" else c for c in out)


def comment_line(key: str, value: Any) -> str:
    """A ``# key: value`` line of the leading comment block (``value`` written as one-line JSON).

    Unquoted, so ``pandas.read_csv(comment="#")`` skips it; formula-safe, like every cell:
    ``#`` first, and :func:`neutralise` on the pieces after separators (``a,=b`` inside a value
    is written ``a,'=b``; :func:`split_comments` removes the prefix again).
    """
    return neutralise(f"# {key}: {json_line(value)}") + "\n"


def split_comments(text: str) -> tuple[dict[str, Any], str]:
    """The leading ``# key: value`` block of one of the product's CSVs, and the rest of the text.

    Values are parsed as JSON (a value that is not JSON is kept as text); lines starting with
    ``#`` that are not ``key: value`` are skipped. A text without a comment block gives
    ``({}, text)``.
    """
    meta: dict[str, Any] = {}
    body = text[1:] if text.startswith("\ufeff") else text
    while body.startswith("#"):
        line, sep, rest = body.partition("\n")
        body = rest if sep else ""
        key, colon, value = restore(line.rstrip("\r"))[1:].strip().partition(":")
        if not colon or not key.strip():
            continue
        try:
            meta[key.strip()] = json.loads(value.strip())
        except ValueError:
            meta[key.strip()] = value.strip()
    return meta, body


def csv_text(
    frame: pd.DataFrame,
    *,
    index_label: str | None = None,
    comments: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
) -> str:
    """The formula-safe CSV text of a table (comma-separated, ``\\n`` line ends, a header row).

    Parameters
    ----------
    frame : DataFrame
        The table; column names become the header.
    index_label : str, optional
        Write the index too, as the first column with this name (default: no index).
    comments : mapping or pairs of (str, value), optional
        ``# key: value`` lines written before the header (:func:`comment_line`: values as JSON).

    Returns
    -------
    str
        The same text as ``frame.to_csv(index=False)`` for a table of plain names and
        numbers; see the module's description for what differs on hostile cells.
    """
    pairs = comments.items() if isinstance(comments, Mapping) else comments
    head = "".join(comment_line(str(k), v) for k, v in pairs)
    if index_label is not None:
        frame = pd.concat([pd.DataFrame({index_label: frame.index.to_numpy()}), frame.reset_index(drop=True)], axis=1)
    columns = [_column(frame.iloc[:, j]) for j in range(frame.shape[1])]
    lines = [",".join(_quoted(neutralise(str(c))) for c in frame.columns)]
    lines += [",".join(row) for row in zip(*columns, strict=True)] if columns else [""] * len(frame)
    return head + "\n".join(lines) + "\n"
