"""Markdown pipe tables (``| Model | BoolQ |`` with a ``|---|---|`` line under the header), as
leaderboards in READMEs and papers' repositories write them: :func:`tidy_pipe_table`."""

from __future__ import annotations

import re

import pandas as pd

_RULE = re.compile(r"^\s*:?-{3,}:?\s*$")
_EDGE = re.compile(r"^(?:Unnamed: \d+)?$")


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


_PIPE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_RULE_LINE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def has_rule_line(text: str) -> bool:
    """Whether a text holds a markdown table's rule line (``|---|---|``)."""
    return "|" in text and any(_RULE_LINE.match(line) for line in text.splitlines() if "-" in line)


def pipe_table_in_prose(text: str, label: str) -> str | None:
    """The lines of the one markdown pipe table in a text that also holds prose (a README's sentence
    above its table), or None when the text holds no pipe table or is nothing but one.

    Raises
    ------
    InputError
        When the text holds several pipe tables, naming their lines.
    """
    lines = text.splitlines()
    runs: list[tuple[int, int]] = []  # [start, end) of each run of pipe lines with a rule line second
    i = 0
    while i < len(lines):
        if _PIPE_LINE.match(lines[i]):
            j = i
            while j < len(lines) and _PIPE_LINE.match(lines[j]):
                j += 1
            if j - i >= 3 and _RULE_LINE.match(lines[i + 1]):
                runs.append((i, j))
            i = j
        else:
            i += 1
    if not runs:
        return None
    if len(runs) > 1:
        from subsetsel_core.errors import InputError

        shown = ", ".join(f"lines {a + 1}–{b}" for a, b in runs[:5])
        raise InputError(f"{label}: holds {len(runs)} markdown tables ({shown}). Keep the one with the scores in the "
                         "file (or save it as CSV), so that it is clear which is read.")
    a, b = runs[0]
    if not any(line.strip() for line in lines[:a] + lines[b:]):
        return None  # nothing but the table: read as it is
    return "\n".join(lines[a:b]) + "\n"
