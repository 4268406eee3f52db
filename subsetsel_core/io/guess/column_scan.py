"""Every column of a raw table classified at once: :func:`read_columns`.

The same :class:`~subsetsel_core.io.guess.column_kinds.Column` as
:func:`~subsetsel_core.io.guess.column_kinds.read_column` gives one column at a time, for a
thousand columns in one pass: the cells of every column are factorised together, each
distinct cell is read once, and a column whose cells are all plain numbers or missing
tokens is built from arrays. A column with any other cell (text, a percent sign, a
decimal comma, a unit) is read by :func:`read_column` itself, so every rule stays in one
place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from subsetsel_core.io.cell_tokens import MISSING_TOKENS
from subsetsel_core.io.guess.column_kinds import Column, Kind, read_column
from subsetsel_core.io.guess.header_words import DATE_WORDS, SIZE_WORDS, tokens
from subsetsel_core.io.numeric_cells import AMBIGUOUS_COMMA, THOUSANDS_BY_POINTS

_DECIMALS_FROM = 2000  # cells the rounding is read from (as read_column)


def read_columns(df: pd.DataFrame, columns: Sequence[str] | None = None) -> dict[str, Column]:
    """Classify the columns of a raw table (cells as text), as :func:`read_column` would.

    Parameters
    ----------
    df : DataFrame
        The table as :func:`~subsetsel_core.io.tables.read_table` returns it.
    columns : sequence of str, optional
        The columns to classify (default: all).

    Returns
    -------
    dict of str to Column
        In the order of ``columns``.
    """
    cols = [str(c) for c in (df.columns if columns is None else columns)]
    out: dict[str, Column] = {}
    text_cols = [c for c in cols if _is_text(df[c])]
    if len(text_cols) >= 8 and len(df) > 0:
        out.update(_scan(df, text_cols))
    for c in cols:
        if c not in out:
            out[c] = read_column(c, df[c])
    pointed = any(k.kind == "number" and k.decimals > 0 and not k.refused for k in out.values())
    for c in cols:  # "22,521" where the table writes its decimals with a point: a thousands separator, as the load reads it
        if pointed and out[c].refused == AMBIGUOUS_COMMA:
            out[c] = read_column(c, df[c].astype(str).str.replace(",", "", regex=False).where(df[c].notna()))
            out[c] = replace(out[c], rewrites=(*out[c].rewrites, THOUSANDS_BY_POINTS))
    return {c: out[c] for c in cols}


def _is_text(cells: pd.Series) -> bool:
    return cells.dtype == object or isinstance(cells.dtype, pd.StringDtype)


def plain_numbers(df: pd.DataFrame, cols: Sequence[str]) -> np.ndarray | None:
    """The cells of ``cols`` as a (rows, columns) float array (NaN: missing), or None when a cell
    is neither a plain finite number nor a missing token (then the column-by-column reader
    converts it or names it)."""
    out = np.empty((len(df), len(cols)))
    text = [j for j, c in enumerate(cols) if _is_text(df[c])]
    for j, c in enumerate(cols):
        if j not in set(text):
            if not (pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])):
                return None
            out[:, j] = df[c].to_numpy(dtype=float, na_value=np.nan)
    if text:
        found = _cells(df, [cols[j] for j in text])
        if found is None:
            return None
        codes, numbers, odd, _, _ = found
        if odd.any():
            return None
        out[:, text] = numbers[codes]
    return None if np.isinf(out).any() else out


def _cells(df: pd.DataFrame, cols: Sequence[str]) -> tuple[np.ndarray, ...] | None:
    """The cells of ``cols`` factorised together: codes (rows, columns) and, per distinct cell
    (plus a last entry for missing cells), its number, whether it is odd (present, not a plain
    number), whether it is missing, and its stripped text."""
    n = len(df)
    cells = np.empty((n, len(cols)), dtype=object)
    for j, c in enumerate(cols):
        cells[:, j] = df[c].to_numpy(dtype=object)
    try:
        codes, distinct = pd.factorize(cells.ravel(order="F"))
    except TypeError:  # unhashable cells
        return None
    del cells
    codes = codes.astype(np.int32 if len(distinct) < 2**31 - 1 else np.int64).reshape((n, len(cols)), order="F")
    uniq = pd.Series(distinct, dtype=object)
    is_str = uniq.map(type).eq(str).to_numpy()
    text = uniq.where(is_str, "").astype(str).str.strip()
    na = uniq.isna().to_numpy()
    missing = (text.str.lower().isin(MISSING_TOKENS).to_numpy() & is_str) | na
    numbers = pd.to_numeric(text.where(~missing), errors="coerce").to_numpy(dtype=float)
    odd = (~missing & np.isnan(numbers)) | (~is_str & ~na)  # other objects: read_column decides
    # a missing cell (None / NaN) has code -1: map it to an extra "missing" entry
    codes[codes < 0] = len(distinct)
    return (codes, np.append(numbers, np.nan), np.append(odd, False), np.append(missing, True),
            np.append(text.to_numpy(dtype=object), ""))


def _scan(df: pd.DataFrame, cols: list[str]) -> dict[str, Column]:
    """The columns whose every cell is a plain number or a missing token, built from arrays."""
    n = len(df)
    found = _cells(df, cols)
    if found is None:
        return {}
    codes, numbers, odd, missing, text_arr = found
    text = pd.Series(text_arr, dtype=object)
    digits = text.str.extract(r"\.(\d+)")[0].str.len().fillna(0).to_numpy(dtype=np.int64)
    col_odd = odd[codes].any(axis=0)
    present_mask = ~missing[codes]
    present = present_mask.sum(axis=0)
    # distinct stripped cells per column: distinct stripped texts share one id
    text_id = pd.factorize(text_arr)[0].astype(np.int32)
    ids = np.where(present_mask, text_id[codes], np.int32(-1))
    ids.sort(axis=0)
    changes = (np.diff(ids, axis=0) != 0) & (ids[1:] >= 0)
    distinct_n = changes.sum(axis=0) + (ids[0] >= 0)
    # decimals over the first present cells, as read_column reads them
    digits = digits.astype(np.int16)
    if n <= _DECIMALS_FROM:  # every present cell is among the first ones
        decimals = np.where(present_mask, digits[codes], 0).max(axis=0) if n else np.zeros(len(cols), dtype=np.int16)
    else:
        head = present_mask & (np.cumsum(present_mask, axis=0, dtype=np.int32) <= _DECIMALS_FROM)
        decimals = np.where(head, digits[codes], 0).max(axis=0)
    values = numbers[codes]
    out: dict[str, Column] = {}
    for j, c in enumerate(cols):
        if col_odd[j]:
            continue
        if present[j] == 0:
            out[c] = Column(c, "empty", values[:, j].copy(), 0, 0, 0)
            continue
        words = set(tokens(c))
        finite = values[:, j][np.isfinite(values[:, j])]
        kind: Kind = "number"
        if words & DATE_WORDS and finite.size and np.all((finite >= 1900) & (finite <= 2100) & (finite % 1 == 0)):
            kind = "date"
        elif words & SIZE_WORDS:
            kind = "size"
        out[c] = Column(c, kind, values[:, j].copy(), int(present[j]), int(distinct_n[j]), int(decimals[j]))
    return out
