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

from subsetsel_core.errors import InputError
from subsetsel_core.io.tables import line_numbers, row_numbers


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


def repeated_keys(rows: pd.Index, dataset: str, model: str, use_folds: bool, label: str,
                   unique: tuple[str, ...] = (), apart: str | None = None) -> None:
    """Raise for ``rows``, those that repeat a dataset, model (and fold), the first with ``dataset, model``;
    ``unique`` holds columns whose names are unique per row (the fix, when the row names are not), ``apart``
    a column whose values differ between the repeats (a long table's metric column)."""
    if apart is not None:
        hint = (f" They differ in '{apart}': keep one row per dataset and model (one {apart} per dataset, the "
                f"others filtered out of the file), or name '{apart}' as the fold column if the rows are folds.")
        field = "fold_column"
    elif unique:
        hint = (f" '{unique[0]}' is unique per row: name it as the column of row names (the model column), or "
                "name the fold column if these rows are folds.")
        field = "model_column"
    elif use_folds:
        hint, field = " Keep one row per dataset, model and fold (or average them first).", None
    else:
        hint = " If these rows are folds, seeds or resamples, name that column as the fold column."
        field = "fold_column"
    raise InputError(
        f"{label}: {len(rows)} rows repeat the same dataset, model"
        f"{' and fold' if use_folds else ''} (rows {row_numbers(rows)}; e.g. dataset "
        f"'{dataset}', model '{model}').{hint}",
        field=field,
        rows=line_numbers(rows),
    )
