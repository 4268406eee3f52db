"""Markdown pipe tables (``| Model | BoolQ |`` with a ``|---|:-:|`` line under the header), as leaderboards
in READMEs and papers' repositories write them, read the way GitHub's markdown reads them: the table is the
header line, the delimiter line and the lines after it up to a blank line; leading and trailing bars are
optional on each line; ``\\|`` is a bar inside a cell; prose, headings and other paragraphs around the table
are not part of it (:func:`markdown_table`). :func:`tidy_pipe_table` tidies a bar-separated table read by the
CSV parser (a rule row under the header, empty edge columns)."""

from __future__ import annotations

import re

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.link_names import markup_text

_RULE = re.compile(r"^\s*:?-{3,}:?\s*$")
_RULE_CELL = re.compile(r"^\s*:?-+:?\s*$")
_EDGE = re.compile(r"^(?:Unnamed: \d+)?$")
_BAR = re.compile(r"(?<!\\)\|")


def tidy_pipe_table(df: pd.DataFrame) -> pd.DataFrame:
    """A ``|``-separated table without markdown's rule line under the header and without the
    empty first and last columns its leading and trailing bars make; other tables unchanged."""
    if df.empty:
        return df
    cells = df.astype(object).where(df.notna(), "").astype(str)
    rule = cells.apply(lambda col: col.str.match(_RULE) | col.str.strip().eq("")).all(axis=1) & \
        cells.apply(lambda col: col.str.match(_RULE)).any(axis=1)
    if not bool(rule.any()):
        return df
    edges = [c for i, c in enumerate(df.columns) if i in (0, df.shape[1] - 1) and _EDGE.match(str(c))
             and bool(cells[c].str.strip().eq("").all())]
    out = df.loc[~rule].drop(columns=edges)
    return out.apply(lambda col: col.str.strip() if col.dtype == object else col).reset_index(drop=True)


def _cells(line: str) -> list[str]:
    """A table line's cells: split at bars that are not escaped, the optional edge bars dropped, ``\\|`` a bar."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [c.strip().replace("\\|", "|") for c in _BAR.split(text)]


def _number_inside(cell: str) -> bool:
    """Whether a cell is a number once its markup is gone (``**85.2**``): the score reader reads and says that."""
    try:
        float(markup_text(cell).rstrip("%*†‡"))
    except ValueError:
        return False
    return True


def is_rule_line(line: str) -> bool:
    """Whether a line is a markdown table's delimiter line (``|---|:-:|``, ``--- | ---``)."""
    return "|" in line and "-" in line and all(_RULE_CELL.match(c) for c in _cells(line))


def _lines(text: str) -> list[str]:
    """The text's lines, split at line feeds only (a U+2028 inside a name is part of the name, as markdown reads it);
    the lines of fenced code blocks (```, ~~~) and of HTML comments are blank, as GitHub renders no table in them."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    fence, comment = "", False
    for i, line in enumerate(lines):
        bare = line.strip()
        if fence:
            fence = "" if bare.startswith(fence) else fence
            lines[i] = ""
        elif comment or bare.startswith("<!--"):
            comment = "-->" not in bare
            lines[i] = ""
        elif bare.startswith(("```", "~~~")):
            fence = bare[:3]
            lines[i] = ""
    return lines


def has_rule_line(text: str) -> bool:
    """Whether a text holds a markdown table's delimiter line under a line with a bar."""
    lines = _lines(text)
    return any(is_rule_line(line) and i > 0 and "|" in lines[i - 1] for i, line in enumerate(lines) if "-" in line)


def markdown_table(text: str, label: str) -> pd.DataFrame | None:
    """The one markdown table in a text, as text cells (header names as columns), or None when it holds none.

    Raises
    ------
    InputError
        Several tables (their lines named), or a row with more cells than the header (its line named).
    """
    lines = _lines(text)
    under = [i for i, line in enumerate(lines) if i > 0 and "|" in lines[i - 1] and "-" in line and is_rule_line(line)]
    starts = [i - 1 for i in under if len(_cells(lines[i])) == len(_cells(lines[i - 1]))]
    if not starts and under:
        i = under[0]
        raise InputError(f"{label}: line {i + 1}, the delimiter line of a markdown table, has {len(_cells(lines[i]))} "
                         f"cells but its header (line {i}) has {len(_cells(lines[i - 1]))}. Give the delimiter line "
                         "one '---' per column.")
    if not starts:
        return None
    spans = []
    for s in starts:
        e = s + 2
        while e < len(lines) and lines[e].strip() and "|" in lines[e] and not is_rule_line(lines[e]):
            e += 1
        spans.append((s, e))
    if len(spans) > 1:
        shown = ", ".join(f"lines {a + 1}–{b}" for a, b in spans[:5])
        raise InputError(f"{label}: holds {len(spans)} markdown tables ({shown}). Keep the one with the scores in the "
                         "file (or save it as CSV), so that it is clear which is read.")
    a, b = spans[0]
    header = [markup_text(c) for c in _cells(lines[a])]  # "**NAT**", "AP<sub>50</sub>", "[BoolQ](…)": the names
    rows, lines_of = [], []
    for n in range(a + 2, b):
        cells = _cells(lines[n])
        if len(cells) > len(header):
            raise InputError(f"{label}: line {n + 1} of the markdown table has {len(cells)} cells but its header "
                             f"(line {a + 1}) has {len(header)}. Check that line for an extra '|' (write a bar inside "
                             "a cell as '\\|').")
        if any(cells):  # a row of empty cells separates groups of rows; it holds nothing
            cells = [c if _number_inside(c) else markup_text(c) for c in cells]  # names without their markup
            rows.append(cells + [""] * (len(header) - len(cells)))  # missing cells are empty, as markdown reads them
            lines_of.append(n - 1)  # a row's index is its line in the file less 2, as a CSV's is
    if not rows:
        raise InputError(f"{label}: the markdown table (line {a + 1}) has a header but no rows. Add the rows below "
                         "its delimiter line.")
    return pd.DataFrame(rows, columns=header, dtype=object, index=_file_index(lines_of))


def _file_index(lines_of: list[int]) -> pd.Index:
    """The rows' index: each row's file line less 2 (a range when the rows are consecutive lines)."""
    if lines_of and lines_of == list(range(lines_of[0], lines_of[0] + len(lines_of))):
        return pd.RangeIndex(lines_of[0], lines_of[0] + len(lines_of))
    return pd.Index(lines_of, dtype="int64")
