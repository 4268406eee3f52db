"""Rows of a wide table that are not datasets or models: summary rows, and the rows set aside.

:func:`aggregate_rows` finds the rows named as an aggregate (``Avg``, ``Average (13
datasets)``, ``Avg. w/o CQA``, ``Avg. Rank``) and :func:`scoreless_rows` the rows without a
single score (a section heading), which the guess reports as ``unsure`` (topic ``rows``)
rather than decide; :func:`summary_row` reads the row's name back from such an entry (the
option that decides it names the row); :func:`without_rows` removes the rows the user sets aside
(``drop_rows``) once the guess has found the column of row names, and :func:`remove_rows`
removes them by a known column (the loader's).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.header_words import tokens
from subsetsel_core.io.guess.result import TableGuess, names_of
from subsetsel_core.io.names import did_you_mean

__all__ = ["aggregate_rows", "remove_rows", "scoreless_rows", "summary_row", "without_rows"]

_AGGREGATE_ROW = frozenset({"avg", "average", "mean", "median", "geomean", "overall", "total", "sum", "aggregate"})
_AGGREGATE_TAIL = frozenset({"datasets", "tasks", "games", "environments", "all", "of", "over", "score", "scores",
                             "models", "rank", "ranks", "human", "normalised", "normalized", "hns", "relative"})
"""Words that may follow the first of an aggregate row's name (``Median human-normalised (%)``, ``Mean HNS``)."""
_EXCEPT = frozenset({"without", "wo", "excl", "excluding", "except", "minus"})
"""Words after which an aggregate row names what it leaves out (``Avg. w/o CQA``, ``Average (excl. MS MARCO)``)."""
_SUMMARY = re.compile(r"rows: the row '(.*)' (?:is a summary row|holds no score), ", re.DOTALL)


def aggregate_rows(rows: pd.Series, matrix: np.ndarray, what: str) -> list[str]:
    """``unsure`` entries for rows named as an aggregate (``Avg``, ``Average (13 datasets)``):
    a summary row, not one of the table's {what}; said with whether it is the column mean."""
    out = []
    for i, row in enumerate(rows):
        words = tokens(row)
        if not words or words[0] not in _AGGREGATE_ROW or not all(w.isdigit() or w in _AGGREGATE_TAIL
                                                                   for w in _before_exception(words[1:])):
            continue
        others = np.delete(matrix, i, axis=0)
        fin = np.isfinite(others)
        mean = np.where(fin.any(axis=0), np.where(fin, others, 0).sum(axis=0) / np.maximum(fin.sum(axis=0), 1), np.nan)
        ok = np.isfinite(mean) & np.isfinite(matrix[i])
        equal = bool(ok.any()) and float(np.max(np.abs(matrix[i][ok] - mean[ok]))) <= 0.01 * (
            1 + float(np.nanmax(np.abs(mean[ok]))))
        how = "it is the mean of the other rows" if equal else "named so"
        out.append(f"rows: the row '{row}' is a summary row, not one of the {what} ({how}); set the row aside "
                   "to read the table")
    return out


def scoreless_rows(rows: pd.Series, matrix: np.ndarray, what: str) -> list[str]:
    """``unsure`` entries for named rows without a single score among rows that have some (a
    section heading such as OpenCompass's ``--------- Exam ---------``): not one of the table's {what}."""
    empty = ~np.isfinite(matrix).any(axis=1)
    if empty.all():
        return []
    return [f"rows: the row '{row}' holds no score, so it is not one of the {what} (a section heading?); set the "
            "row aside to read the table" for row, none in zip(rows, empty, strict=True) if none and row]


def _before_exception(words: list[str]) -> list[str]:
    """The words before the first that says what an aggregate leaves out (``w/o`` is ``w``, ``o``)."""
    for j, w in enumerate(words):
        if w in _EXCEPT or (w == "w" and words[j + 1:j + 2] == ["o"]):
            return words[:j]
    return words


def summary_row(unsure: str) -> str | None:
    """The row an ``unsure`` entry of :func:`aggregate_rows` names (None: another entry)."""
    found = _SUMMARY.match(unsure)
    return found.group(1) if found else None


def without_rows(df: pd.DataFrame, guess: TableGuess, drop_rows: Sequence[str], label: str) -> pd.DataFrame:
    """``df`` without the rows named in ``drop_rows``, by the row names of ``guess`` (a guess of ``df``).

    Raises
    ------
    InputError
        ``field="drop_rows"``: the table is read long (its rows are not datasets or models),
        or a name is not one of the rows.
    """
    if guess.layout == "long":
        raise InputError(f"{label}: rows are set aside only in a wide table (one row per dataset or per model); "
                         "this one is read long. Give no rows to set aside, or read the table with a wide layout.",
                         field="drop_rows")
    return remove_rows(df, str(guess.model_column if guess.layout == "models-as-rows" else guess.dataset_column),
                       drop_rows, label)


def remove_rows(df: pd.DataFrame, column: str, drop_rows: Sequence[str], label: str) -> pd.DataFrame:
    """``df`` without the rows whose name in ``column`` (stripped, as the loader reads names) is in ``drop_rows``.

    Raises
    ------
    InputError
        ``field="drop_rows"``: a name that is not one of the rows (with the close matches).
    """
    names = names_of(df[column])
    present = list(dict.fromkeys(n for n in names if n))
    unknown = [r for r in drop_rows if r not in present]
    if unknown:
        raise InputError(f"{label}: no row '{unknown[0]}' to set aside in the column '{column}' of row names."
                         f"{did_you_mean(unknown[0], present)} Name the row as the table writes it.",
                         field="drop_rows")
    return df[~names.isin(list(drop_rows)).to_numpy()]
