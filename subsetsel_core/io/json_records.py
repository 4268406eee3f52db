"""A table saved as JSON records — ``[{"model": "m1", "MMLU": 70.1, …}, …]``, as pandas' ``to_json(orient="records")``
and many leaderboards' downloads write it — read as the table it is.

The cells keep their text, as a CSV's do: numbers exactly as written in the file (``parse_float=str``),
``null`` an empty cell, ``true``/``false`` as words. JSON Lines (``.jsonl``, ``.ndjson``: an object per line, as
``to_json(orient="records", lines=True)`` writes it) is read the same way. No result file of lm-eval, MTEB or Every Eval Ever
is a list at the top, so a list of objects is never mistaken for one.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.result_json import lone_surrogate
from subsetsel_core.io.table_shape import is_number


def is_records(raw: bytes) -> bool:
    """Whether the bytes start as a JSON list of objects (``[`` then ``{``), the shape of records."""
    head = raw[:4096].removeprefix(b"\xef\xbb\xbf").lstrip()
    return head[:1] == b"[" and head[1:].lstrip()[:1] in (b"{", b"", b"]")


def is_json_lines(label: str) -> bool:
    """Whether the file's name says JSON Lines (``.jsonl``, ``.ndjson``): one JSON object per line."""
    return label.lower().endswith((".jsonl", ".ndjson"))


def records_frame(raw: bytes, label: str) -> pd.DataFrame:
    """The table of a JSON list of flat objects (or of JSON Lines, one object per line), one row per
    object and one column per key.

    Parameters
    ----------
    raw : bytes
        The file's bytes (UTF-8 JSON whose top is a list; with a ``.jsonl`` or ``.ndjson`` name,
        one JSON object per non-blank line).
    label : str
        File name for messages.

    Returns
    -------
    pandas.DataFrame
        Text cells (object dtype); a key an object lacks is an empty cell there. Columns in the
        order the keys first appear. The index is each row's line (JSON Lines) or item number
        (a list) less 2, so that messages about rows name them as a CSV's name its lines.

    Raises
    ------
    InputError
        Not UTF-8 or not valid JSON (line and column named), a key given twice in one object,
        an item that is not an object, or a value that is a list or an object (item and key named).
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{label}: a JSON table that is not UTF-8 (byte {exc.start}). Save it again as UTF-8.") from None
    lone_surrogate(text, label)
    if is_json_lines(label):
        if text.lstrip()[:1] == "[":
            raise InputError(f"{label}: is one JSON list, not JSON Lines (an object per line). Give it a .json name, "
                             "so that it is read as a list of records.")
        lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
        items = [_parse(line, label, n) for n, line in lines]
        where = [f"line {n}" for n, _ in lines]
        numbers = [n for n, _ in lines]
    else:
        items = _parse(text, label, None)
        where = [f"item {i + 1}" for i in range(len(items))] if isinstance(items, list) else []
        numbers = list(range(1, len(where) + 1))
    if not isinstance(items, list) or not items:
        raise InputError(f"{label}: a JSON {'Lines file' if is_json_lines(label) else 'list'} with no records. Give "
                         "one object per row (a model or a dataset), or the table as CSV.")
    columns: dict[str, None] = {}
    rows: list[dict[str, str]] = []
    for item, at in zip(items, where, strict=True):
        if not isinstance(item, _Pairs):
            raise InputError(f"{label}: {at}{'' if at.startswith('line') else ' of the JSON list'} is {_kind(item)}, not an object: a table as JSON records holds one "
                             "object per row ({\"model\": …, \"task\": score}). Give the table in that form, or as CSV.")
        row: dict[str, str] = {}
        for key, value in item.pairs:
            if key in row:
                raise InputError(f"{label}: {at} gives the key {key!r} twice, so which value counts is not "
                                 "defined. Keep one of them.")
            if isinstance(value, _Pairs | list):
                raise InputError(f"{label}: {at}'s {key!r} is {_kind(value)}, not a single value: a table as "
                                 "JSON records holds one value per key. Flatten it (a column per inner key), or give "
                                 "the table as CSV.")
            row[key] = _cell(value)
            columns.setdefault(key, None)
        rows.append(row)
    if not columns:
        raise InputError(f"{label}: its {len(rows)} JSON objects hold no keys, so no column. A table as JSON records "
                         "holds one object per row with a key per column ({\"model\": …, \"task\": score}).")
    frame = pd.DataFrame.from_records(rows, columns=list(columns)).fillna("").astype(object)
    # a row's index is its line (JSON Lines) or its item's number (a list) less 2, as a CSV row's is its line less 2:
    # messages about rows name them so
    frame.index = pd.Index([n - 2 for n in numbers], dtype="int64")
    if not is_json_lines(label):
        frame.attrs["row_word"] = "item"  # a list's rows are its items, numbered from 1
    return frame


def _parse(text: str, label: str, line: int | None) -> Any:
    """One JSON document (the whole file, or JSON Lines' line ``line``), numbers kept as their text."""
    try:
        return json.loads(text, parse_float=str, parse_int=str, parse_constant=str, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if line is None else f"line {line}, column {exc.colno}"
        raise InputError(f"{label}: is not valid JSON ({exc.msg} at {at}). The file may be cut short; save it "
                         "again.") from None
    except RecursionError:
        raise InputError(f"{label}: nests too deeply to be a table of records. Give a list of flat objects, "
                         "or the table as CSV.") from None


class _Pairs:
    """A JSON object as its key-value pairs in file order (a repeated key kept, to be refused by name)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


def _pairs(pairs: list[tuple[str, Any]]) -> _Pairs:
    return _Pairs(pairs)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _kind(value: object) -> str:
    if isinstance(value, _Pairs):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return "a number" if not isinstance(value, str) or is_number(value) else f"the text {value[:30]!r}"
