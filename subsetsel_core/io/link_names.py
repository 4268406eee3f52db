"""Names written as HTML links, as Hugging Face leaderboards export their model column
(``<a target="_blank" href="https://huggingface.co/org/model" …>org/model</a>``): read as the link's text."""

from __future__ import annotations

import html
import re

import pandas as pd

_ANCHOR = re.compile(r"\s*<a\b[^>]*>(.*?)</a>\s*", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def link_text(cell: str) -> str:
    """The text of a cell that is one HTML link (tags inside removed, entities decoded); other cells unchanged.

    Examples
    --------
    >>> link_text('<a target="_blank" href="https://huggingface.co/a/b">a/b</a>')
    'a/b'
    >>> link_text("a/b")
    'a/b'
    """
    m = _ANCHOR.fullmatch(cell)
    if m is None:
        return cell
    inner = html.unescape(_TAG.sub("", m.group(1))).strip()
    return inner or cell


def link_texts(names: pd.Series) -> tuple[pd.Series, int]:
    """:func:`link_text` of every cell of a column of names, and how many cells were links."""
    links = names.str.contains("<a", case=False, regex=False, na=False)
    if not bool(links.any()):
        return names, 0
    out = names.copy()
    out[links] = names[links].map(link_text)
    return out, int((out != names).sum())
