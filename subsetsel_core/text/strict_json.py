"""Strict JSON: the one way the product turns data into JSON text.

Python's :func:`json.dumps` writes ``NaN``, ``Infinity`` and ``-Infinity`` for floats that
are not finite; these are not JSON (RFC 8259) and strict readers (JavaScript's
``JSON.parse``, ``jq``, most databases) refuse the whole file. :func:`dumps` writes
``null`` for them instead and always passes ``allow_nan=False``.

**What null means** in every JSON file of subsetsel: *the number is not defined* — a mean
over no values, a rank or score that is missing (NaN), a bound that is infinite. A
reader treats it as "no value", never as zero.

NumPy scalars and arrays become plain numbers and lists, tuples become lists, and
mapping keys become text. Anything else goes through ``default`` (as in
:func:`json.dumps`); without one it is an error, as there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["dumps", "for_script", "plain"]


def plain(value: Any, default: Callable[[Any], Any] | None = None) -> Any:
    """``value`` as JSON-ready data: non-finite floats → None, NumPy → Python, tuples → lists."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {_key(k): plain(v, default) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, default) for v in value]
    tolist = getattr(value, "tolist", None)  # NumPy scalars and arrays
    if callable(tolist) and type(value).__module__ == "numpy":
        return plain(tolist(), default)
    if default is None:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return plain(default(value), default)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float) and not math.isfinite(key):
        return "null"
    if isinstance(key, bool | int | float):
        return json.dumps(key)
    return str(key)


def dumps(value: Any, *, indent: int | None = None, ensure_ascii: bool = False, sort_keys: bool = False,
          separators: tuple[str, str] | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """Strict JSON text of ``value``: never ``NaN`` or ``Infinity`` (written as ``null``, "not defined").

    Parameters
    ----------
    value : Any
    indent, ensure_ascii, sort_keys, separators
        As in :func:`json.dumps` (``ensure_ascii`` defaults to False: UTF-8 text).
    default : callable, optional
        Turns an object JSON cannot hold into one it can (as in :func:`json.dumps`).

    Returns
    -------
    str
    """
    return json.dumps(plain(value, default), indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys,
                      separators=separators, allow_nan=False)


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def for_script(value: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """Strict JSON text of ``value`` that is safe inside an HTML ``<script>`` element.

    Every ``<``, ``>`` and ``&`` is written as a ``\\u`` escape (they only occur inside JSON strings,
    where the escape means the same character), so no ``</script>``, ``<!--`` or ``]]>`` can end the
    element or switch the parser's state; the line and paragraph separators U+2028 and U+2029 are
    escaped too. The text parses with ``JSON.parse`` to exactly ``value`` (non-finite floats as null).

    Parameters
    ----------
    value : Any
    default : callable, optional
        As in :func:`dumps`.

    Returns
    -------
    str
    """
    return dumps(value, default=default, separators=(",", ":")).translate(_SCRIPT_SAFE)
