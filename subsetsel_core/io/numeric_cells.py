"""Reading numbers the way spreadsheets write them: decimal commas, thousands separators,
percent signs and the many spellings of "missing"."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.cell_tokens import MISSING_TOKENS
from subsetsel_core.io.tables import text_codes
from subsetsel_core.text.safe_text import shorten

MIXED_PERCENT = "some cells have a percent sign and some do not"
PERCENT_READ = "percent signs removed (85% read as 0.85)"
"""The note of a column whose every number carried a percent sign: its values are fractions, two
decimals finer than the cells show."""
AMBIGUOUS_COMMA = "numbers like '1,250' could mean 1250 (thousands separator) or 1.25 (decimal comma)"
MIXED_UNITS = "cells carry different units, or some a unit and some none"
REFUSALS = (MIXED_PERCENT, AMBIGUOUS_COMMA, MIXED_UNITS)
MARKS_REMOVED = "bold, italic or underline markers removed (**85.2**, <ins>85.2</ins> read as 85.2)"
FOOTNOTES_REMOVED = "footnote marks removed (85.2* read as 85.2)"
SPREAD_REMOVED = "spreads after the numbers removed (85.2±0.3 read as 85.2)"
PAIR_MEAN = ("two numbers per cell ('a/b': a task's two metrics, as GLUE and SuperGLUE write them, or one metric at "
             "two settings) read as their mean")
THOUSANDS_BY_POINTS = ("commas read as thousands separators ('22,521' as 22521): the table writes its decimals with "
                       "a point")
REWRITES = (MARKS_REMOVED, FOOTNOTES_REMOVED, SPREAD_REMOVED, PAIR_MEAN, THOUSANDS_BY_POINTS)
"""Notes of :func:`parse_numbers` that say a cell's text was more than a number (the reading states them)."""
"""Notes of :func:`parse_numbers` that mean the column cannot be read safely (see :func:`refusal`)."""
UNITS = frozenset(
    "B kB KB MB GB TB KiB MiB GiB TiB ns us µs μs ms s sec min h hr hrs px Hz kHz MHz GHz k K M bn".split()
)
"""Unit suffixes recognised after a number (``12 MB``, ``250ms``, ``1.2k``)."""
DISTINCT_MIN_ROWS = 256
"""Columns this long are parsed once per distinct cell (shorter ones cell by cell, which is quicker for them)."""
_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$")
_THOUSANDS_COMMA = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_THOUSANDS_DOT = re.compile(r"^[+-]?\d{1,3}(?:\.\d{3})+,\d+$")
_SPACED = re.compile(r"(?<=\d)[\s\u00a0\u202f'](?=\d{3}\b)")
_GROUPED_ONLY = re.compile(r"^[+-]?[1-9]\d{0,2}(?:,\d{3})+$")
_NUM = r"[+-]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?"
_ANY_MARK = re.compile(r"[*_†‡§¶±/<(]|\+/?-")
_TAGS = re.compile(r"</?(?:b|strong|i|em|u|ins|mark|sup|sub|span|font)\b[^>]*>", re.IGNORECASE)
_EMPHASIS = re.compile(r"^(\*\*|__|\*|_)(" + _NUM + r"[*†‡§¶]*)\1$")
_FOOTNOTE = re.compile(r"^(" + _NUM + r")\s*(?:[*†‡§¶]+|\^\w)$")
_SPREAD = re.compile(r"^(" + _NUM + r")\s*(?:(?:±|\+/-|\+-)\s*\d[\d.]*%?|\(\s*±?\s*\d[\d.]*%?\s*\))$")
_PAIR = re.compile(r"^([+-]?\d+(?:\.\d+)?)\s*/\s*([+-]?\d+(?:\.\d+)?)$")
_WITH_UNIT = re.compile(r"^([+-]?(?:\d[\d,.]*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµμ]{1,3})$")


def parse_numbers(values: pd.Series) -> tuple[pd.Series, pd.Series, list[str]]:
    """Parse a column of text as numbers.

    Recognises: plain numbers; decimal commas (``0,85``) when no cell uses a decimal
    point; thousands separators (``1,234.5``, ``1.234,5``, ``1 234``); percent signs
    (``85%`` → 0.85, only when every number carries one); missing-value tokens (empty,
    ``NA``, ``-``, ``?`` …); one unit suffix shared by every number (``12 MB`` → 12, see
    :data:`UNITS`). Cells that cannot be read safely are marked bad with a note of
    :data:`REFUSALS`: ``1,250`` when no cell settles whether the comma is a decimal
    comma or a thousands separator, different units in one column, percent signs on
    some numbers only.

    Parameters
    ----------
    values : Series
        Raw cells (text or numbers).

    Returns
    -------
    numbers : Series of float
        NaN where a cell is missing or not a number.
    bad : Series of bool
        True where a cell is neither a number nor a missing-value token.
    notes : list of str
        What was converted, for the validation report.

    Notes
    -----
    A text column of at least :data:`DISTINCT_MIN_ROWS` cells is parsed once per distinct cell (see
    :func:`~subsetsel_core.io.tables.text_codes`); every rule is cell by cell or a check
    over all cells, so the result is the same.
    """
    if pd.api.types.is_bool_dtype(values):
        v = values.astype(float)
        return v, pd.Series(False, index=values.index), []
    if pd.api.types.is_numeric_dtype(values):
        v = values.astype(float)
        return v, pd.Series(False, index=values.index), []
    coded = text_codes(values) if len(values) >= DISTINCT_MIN_ROWS else None
    if coded is None or len(coded[1]) == len(values):
        return _parse_text(values)
    codes, distinct = coded
    distinct.name = values.name
    num, bad, notes = _parse_text(distinct)
    return (
        pd.Series(num.to_numpy()[codes], index=values.index, name=num.name),
        pd.Series(bad.to_numpy()[codes], index=values.index, name=bad.name),
        notes,
    )


def _parse_text(values: pd.Series) -> tuple[pd.Series, pd.Series, list[str]]:
    """:func:`parse_numbers` of a column that is neither boolean nor numeric."""
    quick = _parse_short(values) if len(values) < DISTINCT_MIN_ROWS else None
    if quick is not None:
        return quick
    text = values.astype(object).where(values.notna(), "").astype(str).str.strip()
    missing = text.str.lower().isin(MISSING_TOKENS)
    if not missing.any():
        # Fast path: every cell is a plain number (what pipelines usually write). Anything
        # the rules below would rewrite (commas, percent signs, spaced digits) makes
        # to_numeric raise, so the result is the same as the slow path's.
        try:
            plain = pd.to_numeric(text, errors="raise").astype(float)
        except (ValueError, TypeError):
            plain = None
        if plain is not None and not plain.isna().any():
            return plain, pd.Series(False, index=values.index), []
    notes: list[str] = []
    t = _unmarked(text.where(~missing, ""), notes)
    pct = t.str.endswith("%")
    present = t != ""
    if pct.any():
        if (pct | ~present).all():
            t = t.str[:-1].str.strip()
            notes.append(PERCENT_READ)
        else:
            notes.append(MIXED_PERCENT)
            t = t.str.rstrip("%").str.strip()
    t = t.str.replace(_SPACED, "", regex=True)
    t, refused = _strip_unit(t, present, notes)
    has_dot = t.str.contains(".", regex=False) & present
    has_comma = t.str.contains(",", regex=False) & present
    if has_comma.any():
        if t[has_comma].str.match(_THOUSANDS_DOT).all():
            t = t.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
            notes.append("'1.234,5' style numbers read with a decimal comma")
        elif t[has_comma].str.match(_THOUSANDS_COMMA).all() and (
                (has_dot & ~has_comma).any() | (has_dot & has_comma).any() | t[has_comma].str.count(",").gt(1).any()):
            # a decimal point elsewhere, or a cell with two separators (1,234,567): the commas group thousands
            t = t.str.replace(",", "", regex=False)
            notes.append("thousands separators removed (1,234.5 read as 1234.5)")
        elif not has_dot.any() and t[has_comma].str.match(_GROUPED_ONLY).all():
            notes.append(AMBIGUOUS_COMMA)  # '1,250' alone: 1250 or 1.25? Refuse rather than guess.
            refused = refused | has_comma
        elif not has_dot.any() and t[has_comma].str.match(_DECIMAL_COMMA).all():
            t = t.str.replace(",", ".", regex=False)
            notes.append("decimal commas read as decimal points (0,85 read as 0.85)")
    num = pd.to_numeric(t.where(t != ""), errors="coerce").astype(float)
    if pct.any() and (pct | ~present).all():
        num = num / 100.0
    if refused.any() and (num.isna() & present & ~refused).any():
        notes = [n for n in notes if n not in (AMBIGUOUS_COMMA, MIXED_UNITS)]  # text anyway, not numbers
    num = num.where(~refused)
    bad = (num.isna() & present) | refused
    if MIXED_PERCENT in notes:
        bad = bad | (present & ~pct)  # the cells without a percent sign are the odd ones
    return num, bad, notes


_NO_NUMBER_HINTS = re.compile(r"[0-9%<]|inf|nan")
"""In a lowercased cell: what could make a cell without digits read as a number or add a note
(``inf``, ``nan``, a percent sign, an HTML tag)."""


def _parse_short(values: pd.Series) -> tuple[pd.Series, pd.Series, list[str]] | None:
    """:func:`_parse_text` of a short column of plain ASCII text, decided cell by cell in Python
    (each pandas string operation costs more than the whole column here), or None to take the
    general path. The two cases it decides are those of most descriptor columns, with the general
    path's results exactly:

    - no cell is missing and every cell reads as a number (the general path's fast path, with
      the same parser, :func:`pandas.to_numeric`, on the same stripped cells);
    - no cell holds a digit, ``inf``, ``nan``, a percent sign or ``<``: text, no number, no note
      (every rule of the general path needs a digit, except those four).

    Cells are stripped as pandas strips them (``str.strip`` of an ASCII cell), lowercased for
    the missing-value tokens.
    """
    cells = values.tolist()
    stripped: list[str] = []
    for c in cells:
        if c is None or (type(c) is float and c != c):
            stripped.append("")
        elif type(c) is str and c.isascii():
            stripped.append(c.strip())
        else:
            return None
    lower = [c.lower() for c in stripped]
    missing = [c in MISSING_TOKENS for c in lower]
    name = values.name
    if not any(missing):
        try:
            plain = pd.to_numeric(np.asarray(stripped, dtype=object), errors="raise").astype(float)
        except (ValueError, TypeError):
            plain = None
        if plain is not None and not np.isnan(plain).any():
            return pd.Series(plain, index=values.index, name=name), pd.Series(False, index=values.index), []
    if any(_NO_NUMBER_HINTS.search(c) for c in lower):
        return None
    return (pd.Series(np.nan, index=values.index, name=name, dtype=float),
            pd.Series([not m for m in missing], index=values.index, dtype=bool), [])


def _unmarked(t: pd.Series, notes: list[str]) -> pd.Series:
    """The cells without what leaderboards write around a number: bold or italic markers
    (``**85.2**``, ``<b>85.2</b>``), footnote marks (``85.2*``, ``85.2†``), a spread after the
    number (``85.2±0.3``, ``85.2 (0.3)``); two numbers per cell (``94.1/92.2``, a task's two
    metrics) in every cell are read as their mean. Each rewrite is a note of :data:`REWRITES`."""
    if not t.str.contains(_ANY_MARK, regex=True).any():
        return t
    present = t != ""
    out = t.str.replace(_TAGS, "", regex=True).str.strip()
    inner = out.str.extract(_EMPHASIS)[1]
    out = out.where(inner.isna(), inner)
    if not out.equals(t):
        notes.append(MARKS_REMOVED)
    mark = out.str.extract(_FOOTNOTE)[0]
    if mark.notna().any():
        out = out.where(mark.isna(), mark)
        notes.append(FOOTNOTES_REMOVED)
    spread = out.str.extract(_SPREAD)[0]
    if spread.notna().any():
        out = out.where(spread.isna(), spread)
        notes.append(SPREAD_REMOVED)
    pair = out.str.extract(_PAIR)
    both = pair[0].notna() & present
    if both.any() and bool(both[present].all()) and two_numbers(pair[0][present], pair[1][present]):
        mean = (pd.to_numeric(pair[0]) + pd.to_numeric(pair[1])) / 2
        out = out.where(~both, mean.map(lambda x: format(float(x), ".15g")))
        notes.append(PAIR_MEAN)
    return out


UNREAD_PAIRS = ("cells 'a/b' (3/5) that are not two scores on one scale (a count out of a total, a date, or two "
                "metrics on other scales)")


def unread_pairs(values: pd.Series) -> bool:
    """Whether most filled cells of a text column are ``a/b`` pairs that :func:`two_numbers` does not read as
    scores (a score column written as solved/total, ``3/5``): a doubt worth saying, not text."""
    text = values.astype(object).where(values.notna(), "").astype(str).str.strip()
    text = text[~text.str.lower().isin(MISSING_TOKENS)]
    return len(text) > 0 and float(text.str.match(_PAIR).mean()) >= 0.8


def two_numbers(first: pd.Series, second: pd.Series) -> bool:
    """Whether a column's ``a/b`` cells hold two scores (``94.1/92.2``, WeatherBench's ``154 / 334``: RMSE at
    3 and 5 days), read as their mean, rather than a fraction or a date.

    Two numbers on other scales (super-resolution's PSNR/SSIM ``39.10/0.9773``, a median ratio beyond 10) are not
    averaged. Otherwise cells with decimals on both sides are two scores. Whole numbers are two scores only when the
    second ones differ from row to row (``3/5``, ``17/20`` with one denominator count what was
    solved out of a total) and they are no dates: not every number a day or a month (``3/12``,
    ``28/2``), nor months next to years (``09/2022``, ``2022/09``).
    """
    a, b = pd.to_numeric(first), pd.to_numeric(second)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.nanmedian(np.abs(a.to_numpy(dtype=float)) / np.abs(b.to_numpy(dtype=float)))) if len(a) else 1.0
    if not 0.1 <= ratio <= 10:  # super-resolution's PSNR/SSIM, 39.10/0.9773: two metrics on other scales, no mean
        return False
    if bool((first.str.contains(".", regex=False) & second.str.contains(".", regex=False)).all()):
        return True

    def within(x: pd.Series, lo: int, hi: int) -> bool:
        return bool(x.between(lo, hi).all())

    dates = (within(a, 0, 31) and within(b, 0, 31)) or (within(a, 1, 12) and within(b, 1900, 2100)) or (
        within(a, 1900, 2100) and within(b, 1, 12))
    return second.nunique() >= 2 and not dates


def pair_means(values: pd.Series, columns: pd.Series) -> pd.Series:
    """``values`` with the two-number cells (``94.1/92.2``) of each column whose every present
    cell is one replaced by their mean — the rule :func:`parse_numbers` applies to one column,
    applied per column to the cells of several stacked together (``columns``: each cell's column)."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    text = values.astype(object).where(values.notna(), "").astype(str).str.strip()
    pair = text.str.extract(_PAIR)
    has = pair[0].notna()
    if not bool(has.any()):
        return values
    present = ~text.str.lower().isin(MISSING_TOKENS)
    whole = (has | ~present).groupby(columns.to_numpy()).transform("all")
    for c in pd.unique(columns.to_numpy()[has.to_numpy()]):  # a column of fractions or dates is no pair of scores
        mine = has.to_numpy() & (columns.to_numpy() == c)
        if not two_numbers(pair[0][mine], pair[1][mine]):
            whole[columns.to_numpy() == c] = False
    use = has & whole.to_numpy()
    if not bool(use.any()):
        return values
    mean = (pd.to_numeric(pair[0]) + pd.to_numeric(pair[1])) / 2
    return values.where(~use, mean.map(lambda x: format(float(x), ".15g")))


def _strip_unit(t: pd.Series, present: pd.Series, notes: list[str]) -> tuple[pd.Series, pd.Series]:
    """The cells without a unit suffix all numbers share, and the cells refused for their units."""
    refused = pd.Series(False, index=t.index)
    if not t.str.contains(r"\d\s*[A-Za-zµμ]", regex=True).any():
        return t, refused
    parts = t.str.extract(_WITH_UNIT)
    has_unit = parts[1].isin(UNITS) & present
    if not has_unit.any():
        return t, refused
    units = list(dict.fromkeys(parts[1][has_unit]))
    if len(units) > 1 or not has_unit[present].all():
        notes.append(MIXED_UNITS)
        return t, has_unit
    example = t[has_unit].iloc[0]
    notes.append(f"unit '{units[0]}' removed ({example!r} read as {parts[0][has_unit].iloc[0]})")
    return t.where(~has_unit, parts[0]), refused


def refusal(values: pd.Series, bad: pd.Series, notes: list[str], label: str, column: str) -> InputError | None:
    """The error for a column :func:`parse_numbers` could not read safely, or None.

    Parameters
    ----------
    values : Series
        The raw cells.
    bad, notes
        What :func:`parse_numbers` returned for them.
    label : str
        File name for the message.
    column : str
        Column name for the message.

    Returns
    -------
    InputError or None
        Naming the file, the column, an example cell and how to fix it.
    """
    why = next((n for n in notes if n in REFUSALS), None)
    if why is None or not bad.any():
        return None
    example = str(values[bad.to_numpy()].iloc[0]).strip()
    fix = {
        MIXED_PERCENT: "Use one convention for every number.",
        AMBIGUOUS_COMMA: "Write numbers without thousands separators, with a decimal point (1250 or 1.25).",
        MIXED_UNITS: "Convert every cell to one unit and give plain numbers (name the unit in the header).",
    }[why]
    from subsetsel_core.io.names import short

    return InputError(f"{label}: column '{short(column)}': {why} (e.g. {short(example)!r}). {fix}")


def finite(values: pd.Series) -> np.ndarray:
    """Boolean mask of finite (not infinite) entries; NaN counts as finite here."""
    a = values.to_numpy(dtype=float, na_value=np.nan)
    return ~np.isinf(a)


def percent_columns(cells: pd.Series, origin: pd.Series) -> str | None:
    """When each score column of a wide table holds percent signs in all its numbers or in none:
    which columns do and which do not, and the fix (a column of another kind set aside); else None."""
    text = cells.astype(str).str.strip()
    present = (cells.notna() & (text != "") & ~text.str.lower().isin(MISSING_TOKENS)).to_numpy()
    pct = pd.Series(text.str.endswith("%").to_numpy()[present]).groupby(origin.astype(str).to_numpy()[present])
    share = pct.mean()
    if not ((share == 0) | (share == 1)).all():
        return None
    with_pct, without = [str(c) for c in share.index[share == 1]], [str(c) for c in share.index[share == 0]]

    def named(cols: list[str]) -> str:
        return ", ".join(f"'{shorten(c)}'" for c in cols[:4]) + (f" and {len(cols) - 4} more" if len(cols) > 4 else "")

    return (f"the score columns mix numbers with and without a percent sign: {named(with_pct)} "
            f"{'has' if len(with_pct) == 1 else 'have'} percent signs and {named(without)} "
            f"{'has' if len(without) == 1 else 'have'} none. Set aside the column(s) that hold no scores of the "
            f"tasks, or use one convention for every score.")
