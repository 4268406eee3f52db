"""The guess of a long table once its columns' roles are known: :func:`long_guess`.

Names, sizes and gaps from the dataset, model, fold and score columns, the other columns set
aside, and one doubt of its own: rows that repeat a (dataset, model, fold) cell — a table that
holds several metrics per dataset, or folds in a column not named as such — are ``unsure``
with the column that tells them apart (:func:`~subsetsel_core.io.repeated_rows.column_apart`),
so that ``inspect`` says so and no command computes on them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.column_kinds import parse_dates
from subsetsel_core.io.guess.layout import LongRoles
from subsetsel_core.io.guess.result import SetAside, TableGuess
from subsetsel_core.io.numeric_cells import parse_numbers
from subsetsel_core.io.repeated_rows import column_apart
from subsetsel_core.io.score_format import check_roles


def long_guess(df: pd.DataFrame, roles: LongRoles, label: str, release: str | None) -> TableGuess:
    """The guess of ``df`` read as a long table with ``roles`` (and ``release``, the column of
    release dates, or None).

    Raises
    ------
    InputError
        A role names a column twice, or ``release`` does not hold dates.
    """
    check_roles({"dataset": roles.dataset, "model": roles.model, "score": roles.score,
                 **({"fold": roles.fold} if roles.fold else {}), **({"release": release} if release else {})},
                label=label)
    if release is not None and parse_dates(df[release]).notna().mean() < 0.5:
        raise InputError(f"{label}: '{release}' does not hold dates (fewer than half its cells are dates); name the "
                         "column of model release dates, written as YYYY-MM-DD.", field="release_column")
    (dc, datasets), (mc, models) = codes(df[roles.dataset]), codes(df[roles.model])
    fc, folds = codes(df[roles.fold]) if roles.fold else (np.zeros(len(df), dtype=np.int64), ("0",))
    score = parse_numbers(df[roles.score])[0].to_numpy(dtype=float, na_value=np.nan)
    ok = np.isfinite(score) & (dc >= 0) & (mc >= 0) & (fc >= 0)
    cell = (dc[ok] * (len(models) + 1) + mc[ok]) * (len(folds) + 1) + fc[ok]
    present = len(pd.unique(cell))
    used = {roles.dataset, roles.model, roles.score, roles.fold}
    aside = tuple(SetAside(c, "dates → release dates" if c == release else "not used by the long layout")
                  for c in df.columns if c not in used)
    unsure = roles.unsure
    if present < len(cell):
        unsure = (*unsure, _repeats(df[ok], pd.factorize(cell)[0], roles, label))
    return TableGuess(label, "long", roles.dataset, roles.model, roles.score, roles.fold, aside, len(datasets),
                      len(models), len(folds), max(0, len(datasets) * len(models) * len(folds) - present), True,
                      "", release_column=release, unsure=unsure, datasets=datasets, models=models)


def _repeats(rows: pd.DataFrame, cells: np.ndarray, roles: LongRoles, label: str) -> str:
    """The doubt about rows that repeat a cell: how many (every row of a repeated cell, as the
    reader's error counts them), an example, and what tells them apart."""
    repeated = np.bincount(cells)[cells] > 1
    first = rows.iloc[int(np.argmax(repeated))]
    what = "dataset, model and fold" if roles.fold else "dataset and model"
    said = (f"fold_column: {int(repeated.sum())} rows of {label} repeat the same {what} (e.g. dataset "
            f"'{first[roles.dataset]}', model '{first[roles.model]}')")
    apart = column_apart(rows, cells, [c for c in rows.columns if c not in (roles.dataset, roles.model, roles.fold,
                                                                            roles.score)])
    if apart is not None:
        return (f"{said}; they differ in '{apart}': keep one {apart} per dataset (filter the others out of the "
                f"file), or name '{apart}' as the fold column if the rows are folds")
    return f"{said}, and no column tells them apart: keep one row per {what}, or average them first"


def codes(cells: pd.Series) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each row's position among the sorted stripped names (-1: empty), and the names; the
    text work is done once per distinct cell."""
    raw, uniques = pd.factorize(cells)
    stripped = pd.Series(np.asarray(uniques, dtype=object)).astype(str).str.strip()
    names = tuple(sorted(set(stripped) - {""}))
    where = {n: i for i, n in enumerate(names)}
    per_unique = np.array([where.get(n, -1) for n in stripped], dtype=np.int64)
    return np.where(raw >= 0, per_unique[raw] if len(per_unique) else -1, -1), names
