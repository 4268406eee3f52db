"""What a score table is, guessed before it is read: :func:`guess_table` → :class:`TableGuess`.

The layout (long, wide with datasets as rows, wide with models as rows), the role of each
column, the columns set aside with the reason (text, dates, sizes, an average, a rank, a
win rate — the derived ones checked against the scores), the sizes, the gaps and the
direction. The dashboard shows it before anything runs, ``subsetsel inspect`` prints it,
and :meth:`TableGuess.to_format` is the ``ScoreFormat`` the loader then reads the table
with. Whatever the user sets (a layout, a column, a direction) is taken as given.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.aggregates import rank_look
from subsetsel_core.io.guess.column_kinds import Column
from subsetsel_core.io.guess.column_scan import read_columns
from subsetsel_core.io.guess.direction_guess import decide_direction
from subsetsel_core.io.guess.header_words import (
    DATASET_WORDS,
    MODEL_WORDS,
    RANK_WORDS,
    has_word,
    pick,
    tokens,
)
from subsetsel_core.io.guess.layout import (
    METRIC_COLUMN,
    SAMPLE_ROWS,
    LongRoles,
    fold_column,
    is_key,
    long_roles,
    orientation,
)
from subsetsel_core.io.guess.long_table import long_guess
from subsetsel_core.io.guess.metric_names import score_metric
from subsetsel_core.io.guess.name_cells import can_name_rows, model_like
from subsetsel_core.io.guess.result import SetAside, TableGuess, names_of, release_dates
from subsetsel_core.io.guess.set_aside import set_aside_columns
from subsetsel_core.io.guess.summary_rows import aggregate_rows, scoreless_rows, without_rows
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.repeated_rows import column_apart
from subsetsel_core.io.score_format import LAYOUTS, Layout, check_roles

__all__ = ["GUESS_LAYOUTS", "SetAside", "TableGuess", "guess_table", "release_dates"]

#: ``layout=`` of :func:`guess_table`: "auto" or one of the layouts.
GUESS_LAYOUTS: tuple[str, ...] = ("auto", *LAYOUTS)


def _guess_table(
    df: pd.DataFrame,
    *,
    label: str = "scores",
    layout: str = "auto",
    dataset_column: str | None = None,
    model_column: str | None = None,
    score_column: str | None = None,
    fold_column: str | None = None,
    drop_columns: Sequence[str] = (),
    drop_rows: Sequence[str] = (),
    set_aside: Sequence[str] | None = None,
    keep_columns: Sequence[str] = (),
    release_column: str | None = None,
    higher_is_better: bool | None = None,
    lower_is_better_datasets: Sequence[str] = (),
    higher_is_better_datasets: Sequence[str] = (),
) -> TableGuess:
    """Guess what a raw score table is; whatever is given is taken as is.

    Parameters
    ----------
    df : DataFrame
        The table as :func:`~subsetsel_core.io.tables.read_table` returns it (cells as text).
    label : str
        File name, for messages and the direction (``errors_rmse.csv`` → lower).
    layout : {"auto", "long", "wide", "models-as-rows"}
    dataset_column, model_column, score_column, fold_column : str, optional
        Columns the user named. A dataset or model column that is not in the table is an
        error when the table is read long, and a dataset column not in it is ignored
        outside the long layout (it may name the descriptor tables' column);
        ``fold_column=""`` says there is no fold column (none is guessed).
    drop_columns : sequence of str
        Columns to set aside besides those the guess sets aside.
    drop_rows : sequence of str
        Rows of a wide table (by their name) to set aside, such as a summary row: removed before
        the table is guessed again, and listed in :attr:`TableGuess.dropped_rows`.
    set_aside : sequence of str, optional
        Exactly the columns to set aside (the guess's reasons are kept): every other
        column of a wide table is read as scores.
    keep_columns : sequence of str
        Columns read as scores though the guess would set them aside (or is unsure of them).
    release_column : str, optional
        The column of model release dates.
    higher_is_better : bool, optional
        The direction of every dataset (but those named below); when not given, decided
        from the file's evidence (:func:`~subsetsel_core.io.guess.direction_guess.decide_direction`).
    lower_is_better_datasets, higher_is_better_datasets : sequence of str
        Datasets with a direction of their own (replace the guessed ones).

    Returns
    -------
    TableGuess

    Raises
    ------
    InputError
        A named column that is not in the table, one column in two roles, a layout the
        table clearly is not, a per-dataset direction naming no dataset, a row to set aside
        that is not a row of a wide table.
    """
    if drop_rows:
        def again(frame: pd.DataFrame) -> TableGuess:
            return guess_table(frame, label=label, layout=layout, dataset_column=dataset_column,
                               model_column=model_column, score_column=score_column, fold_column=fold_column,
                               drop_columns=drop_columns, set_aside=set_aside, keep_columns=keep_columns,
                               release_column=release_column, higher_is_better=higher_is_better,
                               lower_is_better_datasets=lower_is_better_datasets,
                               higher_is_better_datasets=higher_is_better_datasets)

        rows = tuple(dict.fromkeys(str(r) for r in drop_rows))
        return replace(again(without_rows(df, again(df), rows, label)), dropped_rows=rows)
    cols = [str(c) for c in df.columns]
    if len(set(cols)) != len(cols):
        dup = sorted({c for c in cols if cols.count(c) > 1})
        raise InputError(f"{label}: duplicate column names {dup}. Rename them so each is unique.")
    if layout not in GUESS_LAYOUTS:
        raise InputError(f"unknown score-table layout '{layout}'; use one of {', '.join(GUESS_LAYOUTS)}.",
                         field="layout")
    if list(df.columns) != cols:
        df = df.set_axis(cols, axis=1)
    named = {"dataset": dataset_column, "model": model_column, "score": score_column, "fold": fold_column}
    for role in ("score", "fold", "release"):
        _require(cols, release_column if role == "release" else named[role], role, label)
    for c in [*drop_columns, *(set_aside or ())]:
        _require(cols, c, "set-aside", label)
    for c in keep_columns:
        _require(cols, c, "keep", label)
    both = [c for c in keep_columns if c in {*drop_columns, *(set_aside or ())}]
    if both:
        raise InputError(f"{label}: column '{both[0]}' is given both to keep as scores and to set aside; give it "
                         "to one of them.", field="keep_columns")
    check_roles({r: c for r, c in named.items() if c}, label=label)
    given = {r: (c if c in cols else None) for r, c in named.items()}
    if fold_column == "":
        given["fold"] = ""  # no fold column: none is guessed
    sample = df if len(df) <= SAMPLE_ROWS else df.head(SAMPLE_ROWS)
    quick: dict[str, Column] | None = None
    if layout in ("auto", "long"):
        quick = read_columns(sample)
        forced = layout == "long" or score_column is not None or bool(given["dataset"] and given["model"])
        if forced:
            for role in ("dataset", "model"):
                _require(cols, named[role], role, label)
        roles = long_roles(df, quick, given)
        if roles is None and forced:
            roles = _forced_long(cols, quick, given, label)
        if roles is not None:
            for role in ("dataset", "model"):
                _require(cols, named[role], role, label)  # the long layout reads them: a name not there is a slip
            guess = long_guess(df, roles, label, release_column)
            cells = _metric_cells(df, guess, [c for c in df.columns if c not in (roles.model, roles.fold, roles.score)],
                                  roles.score)
            return _directions(_metric_set_aside(guess, cells), label, higher_is_better, lower_is_better_datasets,
                               higher_is_better_datasets, (), cells[1] if cells else None)
    kinds = quick if quick is not None and len(sample) == len(df) else read_columns(df)
    wide = _wide_guess(df, kinds, layout, given, named, label, drop_columns, set_aside, keep_columns, release_column)
    cells = _metric_cells(df, wide.guess, [a.column for a in wide.guess.set_aside]) \
        if wide.guess.layout == "wide" else None  # datasets as rows: a column may name each one's metric
    return _directions(_metric_set_aside(wide.guess, cells), label, higher_is_better, lower_is_better_datasets,
                       higher_is_better_datasets, wide.hints, cells[1] if cells else None, wide.ranks)


@functools.wraps(_guess_table)
def guess_table(df: pd.DataFrame, **options: Any) -> TableGuess:  # noqa: D103 - the docstring is _guess_table's
    with np.errstate(over="ignore", invalid="ignore"):  # scores near 1e308 overflow sums: they are refused at load
        return _guess_table(df, **options)


def _require(cols: Sequence[str], column: str | None, role: str, label: str) -> None:
    """Refuse a named column that is not in the table (``role``: dataset, model, score, fold,
    release, set-aside or keep)."""
    if not column or column in cols:
        return
    what = "column" if role in ("set-aside", "keep") else f"{role} column"
    why = {"set-aside": " to set aside", "keep": " to keep as scores"}.get(role, "")
    field = {"set-aside": "drop_columns", "keep": "keep_columns"}.get(role, f"{role}_column")
    raise InputError(f"{label}: no {what} '{column}'{why}. The columns are: {', '.join(map(repr, cols[:30]))}"
                     f"{' …' if len(cols) > 30 else ''}.{did_you_mean(column, cols)} Name the table's {what}.",
                     field=field)


def _forced_long(cols: Sequence[str], kinds: Mapping[str, Column], given: Mapping[str, str | None],
                 label: str) -> LongRoles:
    """The long roles when the layout is long but the guess could not find them: name what is missing."""
    numbers = [c for c in cols if kinds[c].kind == "number" and c not in given.values()]
    roles = {"dataset": given["dataset"] or ("dataset" if "dataset" in cols else None),
             "model": given["model"] or ("model" if "model" in cols else None),
             "score": given["score"] or ("score" if "score" in cols else numbers[-1] if numbers else None)}
    for role, col in roles.items():
        if col is None:
            raise InputError(f"{label}: a long table needs a {role} column; none is named or found among "
                             f"{', '.join(map(repr, cols[:30]))}. Name the table's {role} column.",
                             field=f"{role}_column")
    return LongRoles(str(roles["dataset"]), str(roles["model"]), str(roles["score"]), given["fold"] or None)


def _sorted(values: pd.Series) -> tuple[str, ...]:
    return tuple(sorted(str(v) for v in pd.unique(values) if str(v) != ""))


@dataclass(frozen=True)
class _Wide:
    guess: TableGuess
    hints: tuple[tuple[str, bool], ...]  # (what says so, higher is better) from rank and win-rate columns
    ranks: str | None = None  # why the scores look like ranks (:func:`rank_look`)


def _wide_guess(df: pd.DataFrame, kinds: dict[str, Column], layout: str, given: Mapping[str, str | None],
                named: Mapping[str, str | None], label: str, drop: Sequence[str], exact: Sequence[str] | None,
                keep: Sequence[str], release: str | None) -> _Wide:
    cols = list(df.columns)
    fold = given["fold"]
    if fold is None:
        fold = fold_column(cols, kinds, avoid=[c for c in (given["dataset"], given["model"]) if c])
    fold = fold or None
    keyed = [c for c in cols if c != fold and is_key(kinds[c])]
    unique = [c for c in keyed if kinds[c].kind == "text" and _unique(df, c, fold)]
    names = [c for c in keyed if not set(tokens(c)) & RANK_WORDS]  # ProteinGym's Model_rank names no model
    # nor does a column of links (SWE-bench's 'site'), of yes and no (its 'os_model'), of commit hashes ('Model sha')
    names = [c for c in names if can_name_rows(df[c])]
    unique = [c for c in unique if c in names]
    text = [c for c in names if kinds[c].kind == "text"]
    by_words = {"model": pick(text, MODEL_WORDS) or pick(names, MODEL_WORDS),
                "dataset": pick(text, DATASET_WORDS) or pick(names, DATASET_WORDS)}
    named_like = [c for c in unique if model_like(df[c])]  # Open LLM's 'fullname' (org/model) over a type emoji
    fallback = (named_like or unique)[0] if unique else next((c for c in cols if c != fold), cols[0])
    if layout == "models-as-rows":
        _require(cols, named["model"], "model", label)
        name = given["model"] or by_words["model"] or fallback
    elif layout == "wide":
        name = given["dataset"] or by_words["dataset"] or fallback
    else:
        name = given["model"] or given["dataset"] or by_words["model"] or by_words["dataset"] or fallback
    unsure: list[str] = []
    role = "model" if layout == "models-as-rows" or (layout == "auto" and name != by_words["dataset"]) else "dataset"
    repeats: tuple[str, str] | None = None
    if name not in (given["model"], given["dataset"]) and not _unique(df, name, fold):
        n_names = int(names_of(df[name]).nunique())
        if len(unique) == 1:  # the one column unique per row is the identifier
            repeats = (name, f"text, {n_names} names for {len(df)} rows; '{unique[0]}' is unique per row")
            name = unique[0]
        else:
            others = f" ({', '.join(repr(c) for c in unique[:4])} are)" if unique else ""
            apart = column_apart(df, pd.factorize(names_of(df[name]))[0], [c for c in names if c != name and kinds[c].kind == "text"])
            fix = (f"its rows differ in '{apart}': keep one {apart} per {role} (filter the others out of the file), "
                   f"or name '{apart}' as the fold column if the rows are folds") if apart is not None else \
                f"name the column of {role} names, or the fold column if the repeats are folds"
            unsure.append(f"{role}_column: '{name}' repeats ({n_names} names for {len(df)} rows) and is not unique "
                          f"per row{others}; {fix}")
    elif len(unique) > 1 and name not in (*by_words.values(), given["model"], given["dataset"]):
        unsure.append(f"{role}_column: several columns could hold the row names "
                      f"({', '.join(repr(c) for c in unique[:4])}); took '{name}'")
    found = set_aside_columns(df, kinds, name, fold, drop, exact, keep, release if layout != "wide" else None,
                              release is not None, layout != "wide", label)
    lean = orientation(name, df[name], kinds, [s.column for s in found.set_aside], found.values)
    if repeats is not None and has_word(repeats[0], MODEL_WORDS) and lean.lean < 2:
        lean = replace(lean, models=lean.models + 3, because_models=(*lean.because_models,
                                                                    f"'{repeats[0]}' names the models"))
    if layout == "auto":
        if given["model"] or (not given["dataset"] and lean.lean >= 2):
            layout = "models-as-rows"
        else:
            layout = "wide"
            if not given["dataset"] and lean.lean > -2:
                said = "; ".join(lean.because_models + lean.because_datasets) or "no sign either way"
                unsure.append(f"layout: not sure whether the rows are datasets or models ({said}); read the rows "
                              "as datasets — flip the orientation if they are models")
            if found.release is not None or found.unsure:
                # again with the rows as datasets: no release dates, and the doubts of rows of datasets
                found = set_aside_columns(df, kinds, name, fold, drop, exact, keep, None, False, False, label)
    elif layout == "wide" and not given["dataset"] and lean.lean >= 3:
        raise InputError(f"{label}: read with datasets as rows, but it looks like one row per model "
                         f"({'; '.join(lean.because_models)}). Read it with the models-as-rows layout (or let the "
                         f"layout be guessed); to read it as it is, name '{name}' as the dataset column.",
                         field="layout")
    elif layout == "models-as-rows" and not given["model"] and lean.lean <= -3:
        raise InputError(f"{label}: read with models as rows, but it looks like one row per dataset "
                         f"({'; '.join(lean.because_datasets)}). Read it with the wide layout (datasets as rows), "
                         f"or name '{name}' as the model column to read it as it is.", field="layout")
    if release is not None and layout == "wide":
        raise InputError(f"{label}: '{release}' cannot hold model release dates when the rows are datasets; "
                         "read the table with models as rows, or leave the release column out.",
                         field="release_column")
    aside, values = found.set_aside, found.values
    if repeats is not None:
        aside = tuple(SetAside(a.column, repeats[1]) if a.column == repeats[0] else a for a in aside)
    if not values:
        per = "dataset" if layout == "models-as-rows" else "model"
        if aside:
            shown = ", ".join(f"'{s.column}' ({s.reason})" for s in aside[:6]) + (" …" if len(aside) > 6 else "")
            what = f"besides the names in '{name}', every column was set aside: {shown}"
        else:
            what = f"it has only the column '{name}' of names"
        raise InputError(f"{label}: no column of scores: {what}. A wide table needs one column of scores per {per}; "
                         + ("keep a column as scores if one was set aside by mistake." if aside else
                            "give the columns of numbers, or name the score column of a long table."),
                         field="keep_columns" if aside else "scores_file")
    rows = names_of(df[name])
    folds = names_of(df[fold]) if fold else pd.Series("0", index=df.index)
    matrix = np.column_stack([kinds[c].numbers for c in values])
    what = "datasets" if layout == "wide" else "models"
    unsure += aggregate_rows(rows, matrix, what) + scoreless_rows(rows, matrix, what)
    n_keys = len(pd.DataFrame({"r": rows, "f": folds}).drop_duplicates())
    row_names, n_folds = _sorted(rows), len(pd.unique(folds))
    missing = int((~np.isfinite(matrix)).sum()) + max(0, len(row_names) * n_folds - n_keys) * len(values)
    by_model = layout == "models-as-rows"
    datasets, models = (tuple(sorted(values)), row_names) if by_model else (row_names, tuple(sorted(values)))
    guess = TableGuess(label, cast(Layout, layout), None if by_model else name, name if by_model else None, None,
                       fold, aside, len(datasets), len(models), n_folds, missing, True, "",
                       unsure=tuple(unsure + found.unsure), datasets=datasets, models=models,
                       release_column=found.release if by_model else None, cells_read=_cells_read(kinds, values))
    return _Wide(guess, tuple(found.hints) if by_model else (), rank_look(matrix, by_model))


def _cells_read(kinds: Mapping[str, Column], values: Sequence[str]) -> tuple[str, ...]:
    """How the score columns' cells that held more than a number were read, one line per rewrite."""
    by: dict[str, list[str]] = {}
    for c in values:
        for note in kinds[c].rewrites:
            by.setdefault(note, []).append(c)
    return tuple(f"{', '.join(cs[:6])}{' …' if len(cs) > 6 else ''}: {note}" for note, cs in by.items())


def _unique(df: pd.DataFrame, column: str, fold: str | None) -> bool:
    keys = df[[column] + ([fold] if fold else [])]
    return bool(names_of(df[column]).ne("").all() and not keys.duplicated().any())


def _metric_cells(df: pd.DataFrame, guess: TableGuess, columns: Sequence[str],
                  score: str | None = None) -> tuple[str, dict[str, str]] | None:
    """A column of ``columns`` that names each dataset's metric and, per dataset, the metric it names
    (None: no such column, or a dataset with more than one metric). The column is named so (``metric``,
    ``measure``) or, in a table with datasets as rows (no ``score`` column), holds a metric name in
    every cell (``auc``, ``logloss``, ``rmse``)."""
    if score is not None and score_metric(score) is not None:
        return None  # the score column names its own metric (TabRepo's metric_error: lower for every one)
    dataset, keep = str(guess.dataset_column), set(guess.datasets)
    for col in columns:
        cells = names_of(df[col])
        if col == dataset or not ((t := tokens(col)) and t[-1] in METRIC_COLUMN or score is None and cells.ne("").all()
                                  and all(score_metric(x) is not None for x in set(cells))):
            continue
        pairs = pd.DataFrame({"d": names_of(df[dataset]), "m": cells}).drop_duplicates()
        pairs = pairs[pairs["d"].isin(keep)]
        if pairs["d"].duplicated().any() or pairs["m"].eq("").any():
            return None
        return str(col), dict(zip(pairs["d"], pairs["m"], strict=True))
    return None


def _metric_set_aside(guess: TableGuess, cells: tuple[str, dict[str, str]] | None) -> TableGuess:
    """The guess with the metric column (if any) set aside as what decides each dataset's direction."""
    if cells is None:
        return guess
    why = "each dataset's metric, which decides its direction"
    return replace(guess, set_aside=tuple(SetAside(a.column, why) if a.column == cells[0] else a
                                          for a in guess.set_aside))


def _directions(guess: TableGuess, label: str, higher: bool | None, lower_ds: Sequence[str],
                higher_ds: Sequence[str], hints: Sequence[tuple[str, bool]],
                metric_cells: Mapping[str, str] | None = None, ranks: str | None = None) -> TableGuess:
    """The guess with its direction decided (:func:`decide_direction`); only headers (or a long
    table's metric column) name metrics, so the datasets' names count in the models-as-rows layout alone."""
    d = decide_direction(guess.datasets, guess.score_column, label, higher, lower_ds, higher_ds, hints,
                         headers=guess.layout == "models-as-rows", metric_cells=metric_cells, ranks=ranks)
    return replace(guess, higher_is_better=d.higher_is_better, direction_from=d.source, direction_because=d.because,
                   lower_is_better_datasets=d.lower_is_better_datasets,
                   higher_is_better_datasets=d.higher_is_better_datasets, dataset_metrics=d.metrics,
                   unsure=(*guess.unsure, *d.unsure))
