"""Rows of a long table that repeat one (dataset, model, fold) cell, and the column that tells them apart.

A long table that holds several metrics per dataset (a ``metric`` column beside the score)
repeats each (dataset, model) pair once per metric. The reader stops on it with a message
that names that column (:mod:`.score_table`) and the guesser reports it as a doubt before
anything is read (:mod:`.guess.long_table`); both find the column here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def column_apart(frame: pd.DataFrame, cells: np.ndarray, candidates: Sequence[str]) -> str | None:
    """The column whose values differ between rows of one cell, the one with the fewest values.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table's rows.
    cells : numpy.ndarray
        One integer per row of ``frame``: the (dataset, model, fold) cell the row scores.
    candidates : sequence of str
        The columns to look at (those with no role in the reading).

    Returns
    -------
    str or None
        The candidate taking two or more values within some cell; of several, the one with the
        fewest distinct values over the table (a metric column rather than a free-text note);
        None when no candidate tells the repeats apart.
    """
    per_cell = np.bincount(cells)
    repeated = per_cell[cells] > 1
    if not repeated.any():
        return None
    found = [c for c in candidates if pd.Series(frame[c].astype(str).to_numpy()[repeated])
             .groupby(cells[repeated]).nunique().gt(1).any()]
    return min(found, key=lambda c: frame[c].nunique(), default=None)
