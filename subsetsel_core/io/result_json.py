"""Result files' JSON, parsed strictly: numbers that are not scores become :class:`NotANumber`, a key
given twice in one object is an error.

``json.loads`` accepts ``NaN`` and ``Infinity`` and stops with a ``ValueError`` on an
integer of more than 4,300 digits; :func:`parse_json` turns each of them into a
:class:`~subsetsel_core.io.result_records.NotANumber` that the readers refuse as a score
with the file and key named (and ignore where the value is not used). A float beyond the
range (``1e999``) parses as an infinity, which
:func:`~subsetsel_core.io.result_records.score_of` refuses the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.result_records import NotANumber

MAX_DIGITS = 400
"""Longest number a result file may hold, in characters (a float holds ~309 digits)."""


_SURROGATE = re.compile(r"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                        r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})(?<!\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def lone_surrogate(text: str, where: str) -> None:
    """Refuse a JSON text with a ``\\ud800``-style escape that is half of a UTF-16 pair (a lone surrogate): no
    character, and no name can hold it.

    Raises
    ------
    InputError
        Naming the line and column of the escape.
    """
    m = _SURROGATE.search(text) if "\\u" in text else None
    if m is None:
        return
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    raise InputError(f"{where}: holds {m.group(0)} at line {line}, column {column}: half of a UTF-16 pair (a lone "
                     "surrogate), which is no character. Write the character itself, or its whole pair.",
                     field="scores_file")


def parse_json(raw: bytes, where: str) -> Any:
    """The JSON value of a file's bytes.

    Raises
    ------
    InputError
        The bytes are not UTF-8 JSON; the message names the file, line and column.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            f"{where}: is not UTF-8 text, so not a JSON result file. Re-export it as UTF-8 JSON or "
            "remove it from the folder.",
            field="scores_file",
        ) from None
    lone_surrogate(text, where)
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant, object_pairs_hook=_unique)
    except _Duplicate as dup:
        raise InputError(
            f"{where}: the key {dup.key!r} appears twice in one object, so which value counts is not defined. "
            "Keep one of them (the file was hand-edited or merged).",
            field="scores_file",
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where}: is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). The file "
            "may be cut short or hand-edited; write it again or remove it from the folder.",
            field="scores_file",
        ) from None
    except RecursionError:
        raise InputError(f"{where}: nests too deeply to be a result file. Remove it from the folder.",
                         field="scores_file") from None


def _parse_int(text: str) -> int | NotANumber:
    if len(text.lstrip("-")) > MAX_DIGITS:
        return NotANumber(f"a number of {len(text.lstrip('-'))} digits")
    return int(text)


def _parse_constant(text: str) -> NotANumber:
    return NotANumber(f"{text} (not a finite number)")


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Duplicate(k)
            seen.add(k)
    return out
