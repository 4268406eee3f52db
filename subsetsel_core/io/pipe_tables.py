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
