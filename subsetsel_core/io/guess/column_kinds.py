"""What the columns of a score table hold: scores, names, text, dates, sizes, or figures
derived from the scores (an average, a rank, a win rate). What their names' words say is
:mod:`~subsetsel_core.io.guess.header_words`.

The pieces of :func:`subsetsel_core.io.guess.table.guess_table`; each works on the raw table
(cells as text) and never raises for odd cells.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from subsetsel_core.io.cell_tokens import MISSING_TOKENS
from subsetsel_core.io.guess.header_words import (
    DATE_WORDS,
    META_WORDS,
    OVERALL_SCORE,
    SIZE_WORDS,
    has_word,
    names_average,
    names_rank,
    tokens,
)
from subsetsel_core.io.numeric_cells import (
    PERCENT_READ,
    REFUSALS,
    REWRITES,
    UNREAD_PAIRS,
    parse_numbers,
    unread_pairs,
)
from subsetsel_core.text.rounding import text

SPARE_ROWS = 3
"""A weighted mean of s columns is looked for only on at least SPARE_ROWS · s rows: with fewer,
weights fit to any column (and a task column can lie among the others by chance)."""
MIN_SHARE = 0.25
"""The smallest weight, as a share of an equal weight, a weighted mean's column may have (a
mean weighted by the tasks' sizes gives every task its part; a fit to noise gives some almost none)."""

Kind = Literal["number", "text", "date", "size", "empty"]

_DECIMALS_FROM = 2000  # cells the rounding is read from
_SIZE = re.compile(r"^[~<>≈]?\s*\d+(?:[.,]\d+)?\s*(?:x\s*\d+(?:[.,]\d+)?\s*)?(?:k|m|b|t|bn|billion|million)\b",
                   re.IGNORECASE)
_DATE = re.compile(r"^(?:\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?(?:[ t]\d{1,2}:\d{2}.*)?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"
                   r"|(?:\d{1,2}\s+)?[a-z]{3,9}\.?\s+(?:\d{1,2},?\s+)?\d{4})$", re.IGNORECASE)


@dataclass(frozen=True)
class Column:
    """One column of a raw table, as read.

    Attributes
    ----------
    name : str
    kind : {"number", "text", "date", "size", "empty"}
    numbers : ndarray of float
        The cells as numbers (NaN where missing or not a number).
    present : int
        Cells that are not missing.
    distinct : int
        Distinct non-missing cells (stripped).
    decimals : int
        Most digits after the decimal point among the first cells (rounding of the values; two
        more when percent signs were read: ``85%`` is 0.85).
    rewrites : tuple of str
        What the cells held besides numbers and was removed or combined
        (:data:`~subsetsel_core.io.numeric_cells.REWRITES`: footnote marks, spreads, pairs).
    bad : tuple of (int, str)
        In a number column, the first cells that are neither a number nor a missing-value word,
        as (row position, cell): the load refuses them.
    refused : str
        In a text column, why its numbers could not be read (``1,250``: a thousands separator or a
        decimal comma; :data:`~subsetsel_core.io.numeric_cells.REFUSALS`), else empty.
    """

    name: str
    kind: Kind
    numbers: np.ndarray
    present: int
    distinct: int
    decimals: int
    rewrites: tuple[str, ...] = ()
    bad: tuple[tuple[int, str], ...] = ()
    refused: str = ""

    @property
    def named_meta(self) -> bool:
        """Named like a model's attribute (company, licence, type …)."""
        return has_word(self.name, META_WORDS)


def read_column(name: str, cells: pd.Series) -> Column:
    """Classify one column of raw cells.

    Mostly numbers → ``number`` (or ``date`` / ``size`` when the name says so: a release
    year, a parameter count); else sizes such as ``7B`` → ``size``; dates → ``date`` (most
    distinct cells); anything else → ``text``; no value at all → ``empty``.
    """
    text = cells.astype(object).where(cells.notna(), "").astype(str).str.strip()
    missing = text.str.lower().isin(MISSING_TOKENS).to_numpy()
    present = int((~missing).sum())
    vals = text[~missing]
    num, bad, notes = parse_numbers(cells)
    rewrites = tuple(n for n in notes if n in REWRITES)
    numbers = num.to_numpy(dtype=float, na_value=np.nan)
    digits = vals.head(_DECIMALS_FROM).astype(str).str.extract(r"\.(\d+)")[0].str.len()
    decimals = (int(digits.max()) if digits.notna().any() else 0) + (2 if PERCENT_READ in notes else 0)  # 85% → 0.85
    distinct = int(vals.nunique())
    if present == 0:
        return Column(name, "empty", numbers, 0, 0, 0)
    words = set(tokens(name))
    n_bad = int(bad.to_numpy().sum())
    if n_bad <= present / 2:
        finite = numbers[np.isfinite(numbers)]
        if words & DATE_WORDS and finite.size and np.all((finite >= 1900) & (finite <= 2100) & (finite % 1 == 0)):
            return Column(name, "date", numbers, present, distinct, decimals)
        kind: Kind = "size" if words & SIZE_WORDS and PERCENT_READ not in notes else "number"  # no size is in %
        where = np.flatnonzero(bad.to_numpy())[:3].tolist() if n_bad else []
        return Column(name, kind, numbers, present, distinct, decimals, rewrites,
                      tuple((i, str(text.iloc[i])) for i in where))
    unique = pd.Series(vals.unique(), dtype=object).astype(str)
    if unique.str.match(_SIZE).mean() >= 0.6:
        return Column(name, "size", numbers, present, distinct, decimals)
    if (unique.str.match(_DATE).mean() >= 0.6 or words & DATE_WORDS) and parse_dates(unique).notna().mean() >= 0.6:
        return Column(name, "date", numbers, present, distinct, decimals)  # shaped like dates and read as dates
    refused = next((n for n in notes if n in REFUSALS), "") or (UNREAD_PAIRS if unread_pairs(vals) else "")
    return Column(name, "text", numbers, present, distinct, decimals, refused=refused)


def parse_dates(cells: pd.Series) -> pd.Series:
    """Cells as dates (NaT where not a date); a bare year ``2023`` is 1 January."""
    text = cells.astype(object).where(cells.notna(), "").astype(str).str.strip()
    year = text.str.fullmatch(r"\d{4}(?:\.0)?")
    text = text.where(~year, text.str[:4] + "-01-01")
    return pd.to_datetime(text.where(text != ""), errors="coerce", format="mixed")


# --------------------------------------------------------------------------- derived columns


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Rank correlation of two columns over the rows where both are numbers (0 for fewer than 3)."""
    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < 3:
        return 0.0
    ra = pd.Series(a[ok]).rank().to_numpy()
    rb = pd.Series(b[ok]).rank().to_numpy()
    if np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def row_means(scores: np.ndarray) -> np.ndarray:
    """Mean of each row over its present cells (NaN for a row without any)."""
    n = np.isfinite(scores).sum(axis=1)
    total = np.where(np.isfinite(scores), scores, 0.0).sum(axis=1)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def win_rates(scores: np.ndarray) -> np.ndarray:
    """Each row's mean over columns of the share of other rows it beats (ties count half)."""
    out = np.zeros(scores.shape[0])
    used = np.zeros(scores.shape[0])
    for j in range(scores.shape[1]):
        col = scores[:, j]
        ok = np.isfinite(col)
        if ok.sum() < 2:
            continue
        r = pd.Series(col[ok]).rank(method="average").to_numpy()
        out[ok] += (r - 1) / (ok.sum() - 1)
        used[ok] += 1
    return np.where(used > 0, out / np.maximum(used, 1), np.nan)


@dataclass(frozen=True)
class Derived:
    """A column computed from the score columns.

    Attributes
    ----------
    reason : str
        What it is, as checked (``"the row mean"``, ``"a rank of the rows"`` …).
    higher_is_better : bool or None
        What it says about direction (a rank that puts the highest mean first: True).
    because : str
        Why it says so (``"rank 1 has the highest mean score"``).
    """

    reason: str
    higher_is_better: bool | None = None
    because: str = ""


def maybe_rank(col: Column) -> bool:
    """Whether a column named by a word that may name a rank (``#``, ``No``, ``Position``, ``Place``; not ``Rank``)
    holds something else than ranks: numbers that are not whole (ScienceQA's ``NO``, GenEval's ``Position``)."""
    words = set(tokens(col.name))
    if words & {"rank", "ranking"} or not (names_rank(col.name) or col.name.strip().lower() in ("#", "no", "no.")):
        return False
    fin = col.numbers[np.isfinite(col.numbers)]
    return fin.size > 0 and not bool(np.all((fin * 2) % 1 == 0))  # ranks are whole (or half, for ties) numbers


def named_derived(name: str) -> bool:
    """Whether a column is named as an average, a rank or a win rate."""
    words = tokens(name)
    return bool(set(words) & {"win", "winrate", "wins"}) or names_average(name) or names_rank(name) or name.strip().lower() in ("#", "no", "no.") \
        or (bool(words) and words[-1] == "score" and set(words[:-1]) <= OVERALL_SCORE)


def mean_kind(a: np.ndarray, v: np.ndarray, tol: float, scale: float, min_share: float = MIN_SHARE) -> str | None:
    """"the row mean of" when v is the plain mean of a's columns within ``tol`` on every row,
    "a weighted mean of" when non-negative weights summing to one, none below ``min_share`` of
    an equal share, make it so; else None. (A mean looked for among some columns of the table
    needs :data:`MIN_SHARE`: a fit to noise gives some columns almost nothing. A mean of all of
    them, on three rows or more per column, is told by the fit alone: weights as small as MTEB's
    3 tasks of 132 for one task type are real.)"""
    from scipy.optimize import nnls

    if float(np.max(np.abs(a.mean(axis=1) - v))) <= tol:
        return "the row mean of"
    w, _ = nnls(np.vstack([a, np.full(a.shape[1], scale)]), np.append(v, scale))
    if abs(float(w.sum()) - 1) <= 1e-3 and float(w.min()) >= min_share / a.shape[1] \
            and float(np.max(np.abs(a @ w - v))) <= tol:
        return "a weighted mean of"
    return None


def derived(col: Column, scores: np.ndarray, decimals: int) -> Derived | None:
    """What a column derived from the rows' scores is, or None when it is not one.

    A column named as an average, a rank or a win rate is derived whatever its values;
    the check says whether the values agree. An unnamed column is derived only when it
    equals the row mean of the score columns (to their rounding).

    Parameters
    ----------
    col : Column
        A number column.
    scores : ndarray of shape (n_rows, n_score_columns)
        The score columns (NaN where missing), without ``col``.
    decimals : int
        Rounding of the score columns (digits after the decimal point).
    """
    words = set(tokens(col.name))
    low = col.name.strip().lower()
    v = col.numbers
    if scores.shape[1] == 0 or scores.shape[0] < 3:
        return None
    if "win" in words or "winrate" in words or "wins" in words:
        rho = spearman(v, win_rates(scores))
        if abs(rho) >= 0.9:
            return Derived("a win rate of the rows", rho > 0,
                           f"it {'rises' if rho > 0 else 'falls'} with the rows' wins on the score columns")
        return Derived("named a win rate; it does not follow the rows' wins on the score columns")
    mean = row_means(scores)
    if names_rank(col.name) or low in ("#", "no", "no."):
        rho = spearman(v, mean)
        if rho <= -0.9:
            return Derived("a rank of the rows", True, "rank 1 has the highest mean score")
        if rho >= 0.9:
            return Derived("a rank of the rows, 1 = lowest mean score", False, "rank 1 has the lowest mean score")
        return Derived("named a rank; it does not order the rows by their mean score")
    named = named_derived(col.name)
    ok = np.isfinite(v) & np.isfinite(mean)
    tol = 0.51 * (10.0 ** -col.decimals + 10.0 ** -decimals) + 1e-9
    if named and ok.sum() >= 3:
        scales = ((1.0, ""), (100.0, ", in percent"), (0.01, ", as a fraction"))
        for scale, how in scales:
            if float(np.max(np.abs(v[ok] - scale * mean[ok]))) <= tol * max(scale, 1.0):
                return Derived(f"the row mean{how}")
        full = np.isfinite(v) & np.isfinite(scores).all(axis=1)  # a weighted mean: on the complete rows, enough of them
        enough = bool(full.sum() >= SPARE_ROWS * scores.shape[1])
        if enough:
            for scale, how in scales:
                kind = mean_kind(scale * scores[full], v[full], tol * max(scale, 1.0),
                                 100.0 * max(float(np.abs(v[full]).max()), 1.0), min_share=0.0)
                if kind == "a weighted mean of":
                    return Derived(f"a weighted mean of the score columns{how} (weights summing to one)")
        return Derived(f"named an average; not the row mean of the score columns, off by up to "
                       f"{text(float(np.max(np.abs(v[ok] - mean[ok]))), 'score')}"
                       + (", nor a weighted mean of them" if enough else ""))
    if named:
        return Derived("named an average")
    # an unnamed column is the row mean only when the rows' scores differ (else every column is)
    fin = np.isfinite(scores)
    spread = np.where(fin, scores, -np.inf).max(axis=1) - np.where(fin, scores, np.inf).min(axis=1)
    spread = np.where(fin.any(axis=1), spread, 0.0)
    if (scores.shape[1] >= 3 and ok.sum() >= 5 and float(spread.max()) > 4 * tol
            and float(np.max(np.abs(v[ok] - mean[ok]))) <= tol):
        return Derived("the row mean")
    return None
