"""Text from user files made safe to show: no control characters, no endless names.

Names come from files a user did not write: a dataset called ``\\x1b[2J`` would clear a
terminal, one with a right-to-left override would print reversed, one of 10,000
characters would bury the message. Every message of an
:class:`~subsetsel_core.errors.InputError`, every line the CLI prints for people, and every
name quoted in a message (:func:`~subsetsel_core.io.names.short`) goes through this
module:

* :func:`printable` writes each character Python does not count as printable (control
  and format characters, bidirectional overrides, zero-width and line/paragraph
  separators, non-ASCII spaces) as an escape such as ``\\x1b`` or ``\\u202e``;
* :func:`shorten` cuts a name to a length, keeping its start and end;
* :func:`safe_message` does both to a whole message: control characters escaped (line
  breaks kept), every run of more than :data:`RUN` characters without a space shortened,
  and the whole capped at :data:`MESSAGE`.
"""

from __future__ import annotations

import re

__all__ = ["MESSAGE", "RUN", "printable", "safe_message", "shorten"]

RUN = 160
"""Longest run of characters without a space kept whole in a message."""
MESSAGE = 1500
"""Longest message, in characters."""
_LONG_RUN = re.compile(r"\S{" + str(RUN + 1) + ",}")


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    if ch == "\n":
        return "\\n"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, *, newlines: bool = False) -> str:
    """``text`` with every non-printable character written as an escape.

    Parameters
    ----------
    text : str
    newlines : bool
        Keep line feeds as they are (for multi-line messages).

    Returns
    -------
    str
        Only printable characters (and line feeds when ``newlines``).

    Examples
    --------
    >>> printable("a\\x1b[31mb\\u202e")
    'a\\\\x1b[31mb\\\\u202e'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or (newlines and ch == "\n") else _escape(ch) for ch in text)


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to at most ``limit`` characters, keeping its start and end around ``…``.

    Examples
    --------
    >>> shorten("x" * 100, 11)
    'xxxxxx…xxxx'
    """
    if len(text) <= limit:
        return text
    tail = max(limit // 3, 1) if limit > 4 else 0
    return text[: max(limit - 1 - tail, 1)] + "…" + (text[-tail:] if tail else "")


def safe_message(text: str, limit: int | None = MESSAGE) -> str:
    """A message fit for a terminal or a page: escaped, long names shortened, length capped.

    Parameters
    ----------
    text : str
    limit : int or None
        Longest result (None: no cap).

    Returns
    -------
    str
        Printable characters and line feeds only; idempotent
        (``safe_message(safe_message(t)) == safe_message(t)``).
    """
    text = printable(text, newlines=True)
    if len(text) > RUN:
        text = _LONG_RUN.sub(lambda m: shorten(m.group(0), RUN // 2) + f"[{len(m.group(0))} characters]", text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 24] + " … (message shortened)"
    return text
