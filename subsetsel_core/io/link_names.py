"""Names written as links, read as their text: HTML links, as Hugging Face leaderboards export their model column
(``<a target="_blank" href="https://huggingface.co/org/model" …>org/model</a>``), and markdown links
(``[Llama2](https://…) (7B)``) — :func:`link_text`, for every table. A markdown table's cells also lose bold or
italic markers around the whole cell (``**NAT**``) and formatting tags (``AP<sub>50</sub>``) — :func:`markup_text`;
in a CSV those characters may be part of a name."""

from __future__ import annotations

import html
import re

import pandas as pd

_TAG = re.compile(r"<[^>]+>")
_ANCHORS = re.compile(r"<a\b[^>]*>(.*?)</a>", re.IGNORECASE | re.DOTALL)
_HREF = re.compile(r"""href\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)


def _href(anchor: str) -> str:
    """The address of a link whose text is empty, the name it points to (``https://…/org/model`` → ``org/model``)."""
    m = _HREF.search(anchor)
    if m is None:
        return ""
    path = m.group(1).split("://", 1)[-1].split("?", 1)[0].rstrip("/")
    parts = path.split("/")[1:]  # without the host
    return "/".join(parts[-2:]) if parts else ""


_MD_LINK = re.compile(r"\[([^\[\]]+)\]\([^()\s]*\)")
_EMPHASIS = re.compile(r"^(\*\*|__|\*|_)(.+)\1$")
_BOLD = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
_FORMAT = re.compile(r"</?(?:b|strong|i|em|u|ins|mark|sup|sub|span|font)\b[^>]*>", re.IGNORECASE)


def link_text(cell: str) -> str:
    """The text of a name written with markup (see the module); other names unchanged.

    Examples
    --------
    >>> link_text('<a target="_blank" href="https://huggingface.co/a/b">a/b</a>')
    'a/b'
    >>> link_text("[Llama2](https://huggingface.co/meta-llama/Llama-2-7b-chat-hf) (7B)")
    'Llama2 (7B)'
    >>> link_text('<a href="https://hf.co/o/m">o/m</a>  <a href="https://hf.co/d">📑</a>')
    'o/m'
    >>> link_text("**bold**")  # a CSV's name as it is: only a markdown table's markup is read (markup_text)
    '**bold**'
    """
    out = cell
    if "<a" in out.lower():  # links: the first's text when nothing but symbols is around them (the Open LLM
        anchors = list(_ANCHORS.finditer(out))  # Leaderboard's model link and its 📑 details link), else no tags
        if anchors and not any(ch.isalnum() for ch in _ANCHORS.sub("", out)):
            first = anchors[0]
            out = html.unescape(_TAG.sub("", first.group(1))).strip() or _href(first.group(0)) or out
        else:
            out = html.unescape(_TAG.sub("", out)).strip() or out
    if "](" in out:
        out = _MD_LINK.sub(r"\1", out)
    return out.strip() or cell


def markup_text(cell: str) -> str:
    """A markdown table's cell without its markup: :func:`link_text`, formatting tags, and bold or italic markers
    around the whole cell.

    Examples
    --------
    >>> markup_text("**NAT**"), markup_text("AP<sub>50</sub>"), markup_text("[a](u) (7B)")
    ('NAT', 'AP 50', 'a (7B)')
    >>> markup_text("**GPT-3 (CoT)** (ALE)")
    'GPT-3 (CoT) (ALE)'
    """
    out = link_text(cell)
    if "<" in out:  # AP<sub>50</sub><sup>test</sup>: AP 50 test
        spaced = _FORMAT.sub(lambda t: " " if t.group(0).lower() in ("<sub>", "<sup>") else "", out)
        out = re.sub(r"\s+", " ", spaced).strip()
    e = _EMPHASIS.match(out.strip())
    if e is not None and e.group(2).strip():
        out = e.group(2).strip()
    if "**" in out:  # "**GPT-3 (CoT)** (ALE)": bold inside
        out = _BOLD.sub(r"\1", out)
    return out.strip() or cell


def link_texts(names: pd.Series) -> tuple[pd.Series, int]:
    """:func:`link_text` of every cell of a column of names, and how many cells were rewritten."""
    links = names.str.contains(r"<a|\]\(", case=False, regex=True, na=False)
    if not bool(links.any()):
        return names, 0
    out = names.copy()
    out[links] = names[links].map(link_text)
    return out, int((out != names).sum())
