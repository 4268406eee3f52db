"""Score tables: a raw long or wide table to a (dataset, fold, model) cube of scores.

These are the steps of :func:`subsetsel_core.benchmark.load_scores`. Every problem is an
:class:`~subsetsel_core.errors.InputError` naming the file, the column or rows, with
``field`` set to the setting that fixes it when a setting does and ``rows`` to the
file's line numbers when the message names lines.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.missing_scores import handle_missing
from subsetsel_core.io.names import (
    did_you_mean,
    normalise_name,
    short,
    suggest,
)
from subsetsel_core.io.numeric_cells import (
    MIXED_PERCENT,
    PAIR_MEAN,
    finite,
    pair_means,
    parse_numbers,
    percent_columns,
    refusal,
)
from subsetsel_core.io.repeated_rows import column_apart, repeated_keys
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.score_names import clean_names
from subsetsel_core.io.tables import line_numbers, row_numbers
from subsetsel_core.io.validation import ReportBuilder

__all__ = ["ScoreCube", "score_cube"]

_MODEL = "__model"
_DATASET = "__dataset"
_SCORE = "__score"
_ROW = "__row"


class ScoreCube(NamedTuple):
    """The scores of a table, with their labels.

    Attributes
    ----------
    scores : ndarray of shape (n_datasets, n_folds, n_models)
        Every cell finite (missing cells were handled by the missing-score policy).
    datasets, models, folds : list of str
        Labels, sorted numerically when they all are numbers, else as text.
    dropped : list of str
        Datasets or models the missing-score policy removed.
    """

    scores: np.ndarray
    datasets: list[str]
    models: list[str]
    folds: list[str]
    dropped: list[str]


class _Columns(NamedTuple):
    dataset: str
    model: str
    score: str
    fold: str | None


def score_cube(df: pd.DataFrame, fmt: ScoreFormat, label: str, rb: ReportBuilder) -> ScoreCube:
    """Read the scores of a raw table (cells as text) into a cube.

    Parameters
    ----------
    df : DataFrame
        The table as :func:`~subsetsel_core.io.tables.read_table` returns it.
    fmt : ScoreFormat
        Layout, columns and missing-score policy.
    label : str
        File name used in messages.
    rb : ReportBuilder
        Receives what was converted, look-alike names and dropped cells.

    Returns
    -------
    ScoreCube

    Raises
    ------
    InputError
        A column is missing, a name is empty, a score is not a finite number, rows
        repeat, or scores are missing under the ``"error"`` policy.
    """
    columns = list(df.columns)
    if len(set(columns)) != len(columns):
        dup = sorted({c for c in columns if columns.count(c) > 1})
        raise InputError(f"{label}: duplicate column names {dup}. Rename them so each is unique.")
    wide = fmt.layout != "long"
    origin: pd.Series | None = None
    raw = df
    if wide:
        df = raw = _without_rows(df, fmt, label)
        fast = _wide_cube(df, fmt, label, rb)
        if fast is not None:
            return _finish(*fast, fmt, label, rb)
        df, cols = _melt_wide(df, fmt, label)
        origin = df[_DATASET if fmt.layout == "models-as-rows" else _MODEL]
    else:
        cols = _long_columns(columns, fmt, label)

    di, datasets = clean_names(df[cols.dataset], label, "dataset" if cols.dataset == _DATASET else f"'{cols.dataset}'", rb)
    mi, models = clean_names(df[cols.model], label, "model" if cols.model == _MODEL else f"'{cols.model}'", rb)
    if cols.fold is None:
        fi, folds = np.zeros(len(df), dtype=np.intp), ["0"]
    else:
        fi, folds = clean_names(df[cols.fold], label, f"'{cols.fold}'", rb)
    sc = _parse_scores(df[cols.score], label, cols.score, rb, origin)
    cube = np.full((len(datasets), len(folds), len(models)), np.nan)
    cell = np.ravel_multi_index((di, fi, mi), cube.shape)
    per_cell = np.bincount(cell, minlength=cube.size)
    if per_cell.max() > 1:
        repeated = per_cell[cell] > 1
        first = int(np.argmax(repeated))
        rows = pd.Index(pd.unique(df.index[repeated]))
        apart = None if wide else column_apart(df, cell, [c for c in df.columns if c not in (
            cols.dataset, cols.model, cols.fold, cols.score)])
        repeated_keys(rows, datasets[di[first]], models[mi[first]], cols.fold is not None, label,
                       _unique_columns(raw, fmt) if wide else (), apart)
    cube.reshape(-1)[cell] = sc.to_numpy(dtype=float)
    return _finish(cube, datasets, models, folds, fmt, label, rb)


def _finish(cube: np.ndarray, datasets: list[str], models: list[str], folds: list[str], fmt: ScoreFormat,
            label: str, rb: ReportBuilder) -> ScoreCube:
    """The cube with look-alike names noted and missing cells handled by the policy."""
    _warn_lookalikes(datasets, label, "dataset", rb)
    _warn_lookalikes(models, label, "model", rb)
    dropped: list[str] = []
    nan = np.isnan(cube)
    if nan.any():
        cube, datasets, models, dropped = handle_missing(
            cube, datasets, models, folds, nan, fmt.missing, label, rb
        )
    return ScoreCube(cube, datasets, models, folds, dropped)


def _wide_cube(df: pd.DataFrame, fmt: ScoreFormat, label: str,
               rb: ReportBuilder) -> tuple[np.ndarray, list[str], list[str], list[str]] | None:
    """The cube of a wide table whose score cells are all plain numbers, without melting it
    (None otherwise: the long path converts the cells or names the bad ones)."""
    columns = list(df.columns)
    name = _name_column(columns, fmt, label)
    fold = fmt.fold_column if fmt.fold_column and fmt.fold_column in columns and fmt.fold_column != name else None
    if any(c not in columns for c in fmt.drop_columns):
        return None
    aside = set(fmt.drop_columns)
    from subsetsel_core.io.guess.column_scan import plain_numbers  # wide tables only

    value_cols = [c for c in columns if c not in (name, fold) and c not in aside]
    matrix = plain_numbers(df, value_cols) if value_cols else None
    if matrix is None:
        return None
    by_model = fmt.layout == "models-as-rows"
    index = _positions(df, fmt)
    ri, rows = clean_names(df[name].set_axis(index), label, f"'{name}'", rb)
    fi, folds = (np.zeros(len(df), dtype=np.intp), ["0"]) if fold is None else \
        clean_names(df[fold].set_axis(index), label, f"'{fold}'", rb)
    ci, heads = clean_names(pd.Series(value_cols, dtype=object), label, "dataset" if by_model else "model", rb)
    key = ri * len(folds) + fi
    seen = np.bincount(key, minlength=len(rows) * len(folds))
    if seen.max() > 1:
        repeated = index[seen[key] > 1]
        first = int(np.flatnonzero(seen[key] > 1)[0])
        dataset, model = (heads[ci[0]], rows[ri[first]]) if by_model else (rows[ri[first]], heads[ci[0]])
        repeated_keys(repeated, dataset, model, fold is not None, label, _unique_columns(df, fmt))
    if by_model:
        cube = np.full((len(heads), len(folds), len(rows)), np.nan)
        cube[ci[None, :], fi[:, None], ri[:, None]] = matrix
        return cube, heads, rows, folds
    cube = np.full((len(rows), len(folds), len(heads)), np.nan)
    cube[ri[:, None], fi[:, None], ci[None, :]] = matrix
    return cube, rows, heads, folds


def _without_rows(df: pd.DataFrame, fmt: ScoreFormat, label: str) -> pd.DataFrame:
    """A wide table without the rows :attr:`ScoreFormat.drop_rows` names (by the column of row names); the index
    of the rows kept is their position in ``df``, so that messages name their lines in the file."""
    if not fmt.drop_rows:
        return df
    from subsetsel_core.io.guess.summary_rows import remove_rows

    return remove_rows(df.set_axis(_file_rows(df)), _name_column(list(df.columns), fmt, label), fmt.drop_rows, label)


def _positions(df: pd.DataFrame, fmt: ScoreFormat) -> pd.Index:
    """Each row's position in the file's table (the index :func:`_without_rows` keeps when rows are set aside)."""
    return pd.Index(df.index) if fmt.drop_rows else _file_rows(df)


def _file_rows(df: pd.DataFrame) -> pd.Index:
    """Each row's line in the file less 2: the index :func:`~subsetsel_core.io.tables.read_table` gives (lines above
    the header it left out, a README's prose, counted; a JSON table's lines or items, from -1), or 0, 1, … for a table
    given another index."""
    i = df.index
    if pd.api.types.is_integer_dtype(i.dtype) and i.is_monotonic_increasing and i.is_unique and (len(i) == 0 or i[0] >= -1):
        return i
    return pd.RangeIndex(len(df))


def _unique_columns(df: pd.DataFrame, fmt: ScoreFormat) -> tuple[str, ...]:
    """Columns of a wide table set aside whose names are unique per row (the fix of repeated row names)."""
    out = []
    for c in fmt.drop_columns:
        if c in df.columns:
            cells = df[c].astype(object).where(df[c].notna(), "").astype(str).str.strip()
            if cells.ne("").all() and not cells.duplicated().any():
                out.append(c)
    return tuple(out)


def _melt_wide(df: pd.DataFrame, fmt: ScoreFormat, label: str) -> tuple[pd.DataFrame, _Columns]:
    """A wide table (either orientation) as a long one; the index stays the wide table's row index."""
    columns = list(df.columns)
    by_model = fmt.layout == "models-as-rows"
    name = _name_column(columns, fmt, label)
    fold = fmt.fold_column
    fcol = fold if fold and fold in columns and fold != name else None
    unknown = [c for c in fmt.drop_columns if c not in columns]
    if unknown:
        raise InputError(
            f"{label}: no column '{unknown[0]}' to set aside.{did_you_mean(unknown[0], columns)} The columns "
            f"are: {', '.join(map(repr, columns[:30]))}.",
            field="drop_columns",
        )
    aside = set(fmt.drop_columns)
    value_cols = [c for c in columns if c not in (name, fcol) and c not in aside]
    if not value_cols:
        raise InputError(
            f"{label}: a wide table needs one column per {'dataset' if by_model else 'model'} besides "
            f"'{name}'{' and the columns set aside' if aside else ''}.",
            field="drop_columns" if aside else "layout",
        )
    keep = [name] + ([fcol] if fcol else [])
    rows = _positions(df, fmt)
    df = df.reset_index(drop=True)
    df[_ROW] = rows
    var = _DATASET if by_model else _MODEL
    long = df.melt(id_vars=keep + [_ROW], value_vars=value_cols, var_name=var, value_name=_SCORE)
    long.index = pd.Index(long[_ROW].to_numpy())
    if by_model:
        return long, _Columns(_DATASET, name, _SCORE, fcol)
    return long, _Columns(name, _MODEL, _SCORE, fcol)


def _name_column(columns: list[str], fmt: ScoreFormat, label: str) -> str:
    """The column of row names of a wide table: the format's (or the one equal to it but for
    case); in the datasets-as-rows layout the first column when there is none."""
    by_model = fmt.layout == "models-as-rows"
    want = fmt.model_column if by_model else fmt.dataset_column
    if want in columns:
        return want
    same = [c for c in columns if c.strip().casefold() == want.strip().casefold()]
    if len(same) == 1:
        return same[0]
    if not by_model:
        return columns[0]
    raise InputError(
        f"{label}: no model column '{want}'.{did_you_mean(want, columns)} The columns are: "
        f"{', '.join(map(repr, columns[:30]))}. Name the column of model names.",
        field="model_column",
    )


def _long_columns(columns: list[str], fmt: ScoreFormat, label: str) -> _Columns:
    """The columns of a long table, checked to be present."""
    for role, col in (
        ("dataset", fmt.dataset_column),
        ("model", fmt.model_column),
        ("score", fmt.score_column),
    ):
        if col in columns:
            continue
        if (
            role == "model"
            and len(columns) > 3
            and fmt.dataset_column in columns
            and fmt.score_column not in columns
        ):
            raise InputError(
                f"{label}: no '{fmt.model_column}' or '{fmt.score_column}' column, but "
                f"{len(columns) - 1} other columns: is this a wide table (one column per "
                "model)? Then read it with the wide layout.",
                field="layout",
            )
        hint = suggest(col, columns)
        did = f" Did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
        raise InputError(
            f"{label}: no {role} column '{col}'. The columns are: {', '.join(map(repr, columns))}."
            f"{did} Name the table's {role} column.",
            field=f"{role}_column",
        )
    fold = fmt.fold_column if fmt.fold_column and fmt.fold_column in columns else None
    return _Columns(fmt.dataset_column, fmt.model_column, fmt.score_column, fold)


def _parse_scores(
    series: pd.Series, label: str, column: str, rb: ReportBuilder, origin: pd.Series | None = None
) -> pd.Series:
    """The scores as numbers; ``origin`` holds each cell's column in a wide table (the
    messages name those columns)."""
    paired = pair_means(series, origin) if origin is not None else series
    num, bad, notes = parse_numbers(paired)
    if paired is not series and PAIR_MEAN not in notes:
        notes.append(PAIR_MEAN)
    where, field = f"column '{column}'", None
    if origin is not None:
        where, field = "the score columns", "drop_columns"

    def columns_of(mask: pd.Series) -> str:
        """``"column 'x' has"`` / ``"columns 'x', 'y' have"``: the columns of the masked cells."""
        if origin is None:
            return f"column '{column}' has"
        cols = list(dict.fromkeys(origin[mask.to_numpy()].astype(str)))
        shown = ", ".join(f"'{short(c)}'" for c in cols[:6]) + (" …" if len(cols) > 6 else "")
        return f"column {shown} has" if len(cols) == 1 else f"columns {shown} have"

    if MIXED_PERCENT in notes:
        rows = series.index[bad]
        if origin is not None and (split := percent_columns(paired, origin)):
            raise InputError(f"{label}: {split}", field=field)
        raise InputError(
            f"{label}: {where} mix{'es' if origin is None else ''} numbers with and "
            f"without a percent sign (e.g. rows {row_numbers(rows)}). Use one convention for every score.",
            rows=line_numbers(rows),
        )
    if bad.any():
        first = column if origin is None else str(origin[bad.to_numpy()].iloc[0])
        if err := refusal(series, bad, notes, label, first):
            raise err
        rows = series.index[bad]
        examples = ", ".join(
            repr(short(str(series.iloc[j]))) for j in np.flatnonzero(bad.to_numpy())[:5]
        )
        aside = " If a column holds no scores (names, text, dates), set it aside." if origin is not None else ""
        raise InputError(
            f"{label}: {columns_of(bad)} values that are not numbers in rows "
            f"{row_numbers(rows)} (e.g. {examples}). Make them plain numbers, or leave the cell "
            f"empty for a missing score.{aside}",
            field=field,
            rows=line_numbers(rows),
        )
    for note in notes:
        rb.add("info", "numbers", f"{label}: {where}: {note}.")
    inf = ~finite(num)
    if inf.any():
        rows = series.index[inf]
        raise InputError(
            f"{label}: {columns_of(pd.Series(inf, index=series.index))} infinite values in rows "
            f"{row_numbers(rows)}. Replace them with finite scores or leave the "
            "cells empty for missing scores.",
            rows=line_numbers(rows),
        )
    return num.astype(float)


def _warn_lookalikes(names: list[str], label: str, what: str, rb: ReportBuilder) -> None:
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(normalise_name(n), []).append(n)
    clash = [g for g in groups.values() if len(g) > 1]
    if clash:
        shown = "; ".join(" / ".join(repr(x) for x in g) for g in clash[:5])
        rb.add(
            "warning",
            "lookalike-names",
            f"{label}: {len(clash)} groups of {what} names differ only in case, spaces or "
            f"punctuation ({shown}). They are kept apart; rename them if they are the same {what}.",
        )
