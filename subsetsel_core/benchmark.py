"""The :class:`Benchmark`: a validated cube of scores (datasets, folds, models).

Long and wide files are converted here, at the edge; everything downstream sees one
layout: ``scores[d, f, m]`` with datasets and models sorted by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.names import normalise_name, short
from subsetsel_core.io.numbers import MIXED_PERCENT, finite, parse_numbers
from subsetsel_core.io.tables import TableSource, read_table, row_numbers, source_label
from subsetsel_core.io.validation import ReportBuilder, ValidationReport
from subsetsel_core.ranking import mean_ranks, rank_sums

MissingPolicy = Literal["error", "drop-models", "drop-datasets"]
MISSING_POLICIES: tuple[str, ...] = ("error", "drop-models", "drop-datasets")
MIN_DATASETS = 3
MIN_MODELS = 2


@dataclass(frozen=True, eq=False)
class Benchmark:
    """A validated benchmark.

    Attributes
    ----------
    scores : ndarray of shape (n_datasets, n_folds, n_models)
        Every cell finite.
    datasets : tuple of str
        Dataset names, sorted; the benchmark's dataset order.
    models : tuple of str
        Model names, sorted.
    folds : tuple of str
        Fold / seed / resample labels (``("0",)`` when the file had none).
    higher_is_better : bool
        Orientation of the scores.
    name : str
        Display name.
    report : ValidationReport
        What the loader found (sizes, dropped cells, ties, ...).
    """

    scores: np.ndarray
    datasets: tuple[str, ...]
    models: tuple[str, ...]
    folds: tuple[str, ...] = ("0",)
    higher_is_better: bool = True
    name: str = "benchmark"
    report: ValidationReport = field(default_factory=ValidationReport)

    def __post_init__(self) -> None:
        s = np.asarray(self.scores, dtype=float)
        if s.ndim == 2:
            s = s[:, None, :]
        if s.shape != (len(self.datasets), len(self.folds), len(self.models)):
            raise InputError(
                f"scores have shape {s.shape} but there are {len(self.datasets)} datasets, "
                f"{len(self.folds)} folds and {len(self.models)} models."
            )
        if not np.isfinite(s).all():
            raise InputError("scores contain NaN or infinite values; load them with load_scores.")
        s.setflags(write=False)
        object.__setattr__(self, "scores", s)

    @property
    def n_datasets(self) -> int:
        """Number of datasets n."""
        return len(self.datasets)

    @property
    def n_models(self) -> int:
        """Number of models M."""
        return len(self.models)

    @property
    def n_folds(self) -> int:
        """Number of folds F."""
        return len(self.folds)

    @cached_property
    def rank_sums(self) -> np.ndarray:
        """Exact rank sums, shape (n, M): twice the sum over folds of average ranks."""
        return rank_sums(self.scores, self.higher_is_better)

    @cached_property
    def rank_vectors(self) -> np.ndarray:
        """Mean rank of each model on each dataset, shape (n, M); 1 = best."""
        return mean_ranks(self.rank_sums, self.n_folds)

    def leaderboard(self) -> pd.DataFrame:
        """Models ordered by their mean rank over all datasets (the reference ranking)."""
        mean_rank = self.rank_vectors.mean(axis=0)
        df = pd.DataFrame(
            {
                "model": self.models,
                "mean_rank": mean_rank,
                "mean_score": self.scores.mean(axis=(0, 1)),
                "wins": (self.rank_vectors == self.rank_vectors.min(axis=1, keepdims=True)).sum(0),
            }
        )
        df = df.sort_values(["mean_rank", "model"], kind="stable").reset_index(drop=True)
        df.insert(0, "position", np.arange(1, len(df) + 1))
        return df

    def subset(self, datasets: list[str] | None = None, models: list[str] | None = None) -> Benchmark:
        """A new benchmark restricted to the given datasets and/or models."""
        di = [self.datasets.index(d) for d in (datasets or self.datasets)]
        mi = [self.models.index(m) for m in (models or self.models)]
        return Benchmark(
            self.scores[np.ix_(sorted(di), range(self.n_folds), sorted(mi))],
            tuple(self.datasets[i] for i in sorted(di)),
            tuple(self.models[i] for i in sorted(mi)),
            self.folds,
            self.higher_is_better,
            self.name,
            self.report,
        )

    def to_long_frame(self) -> pd.DataFrame:
        """The scores as a long table ``dataset, model, fold, score``."""
        d, f, m = np.meshgrid(
            np.arange(self.n_datasets), np.arange(self.n_folds), np.arange(self.n_models), indexing="ij"
        )
        return pd.DataFrame(
            {
                "dataset": np.asarray(self.datasets, dtype=object)[d.ravel()],
                "model": np.asarray(self.models, dtype=object)[m.ravel()],
                "fold": np.asarray(self.folds, dtype=object)[f.ravel()],
                "score": self.scores.ravel(),
            }
        )


def _sort_labels(values: pd.Series) -> list[str]:
    """Unique labels sorted numerically when they all are numbers, else as text."""
    uniq = pd.unique(values)
    num = pd.to_numeric(pd.Series(uniq), errors="coerce")
    if num.notna().all():
        order = np.argsort(num.to_numpy(), kind="stable")
        return [str(uniq[i]) for i in order]
    return sorted(str(u) for u in uniq)


def _column_error(label: str, role: str, wanted: str, columns: list[str], option: str) -> InputError:
    from subsetsel_core.io.names import suggest

    hint = suggest(wanted, columns)
    did = f" Did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
    return InputError(
        f"{label}: no {role} column '{wanted}'. The columns are: {', '.join(map(repr, columns))}."
        f"{did} Name the column with {option}."
    )


def _clean_names(series: pd.Series, label: str, column: str, rb: ReportBuilder) -> pd.Series:
    raw = series.astype(str)
    out = raw.str.strip()
    empty = out.eq("") | series.isna()
    if empty.any():
        raise InputError(
            f"{label}: empty {column} name in rows {row_numbers(out.index[empty])}. "
            "Fill in the names or delete those rows."
        )
    changed = int((out != raw).sum())
    if changed:
        rb.add("info", "whitespace", f"{label}: removed spaces around {changed} {column} names.")
    return out


def _parse_scores(series: pd.Series, label: str, column: str, rb: ReportBuilder) -> pd.Series:
    num, bad, notes = parse_numbers(series)
    if MIXED_PERCENT in notes:
        rows = series.index[bad]
        raise InputError(
            f"{label}: column '{column}' mixes numbers with and without a percent sign (e.g. rows "
            f"{row_numbers(rows)}). Use one convention for every score."
        )
    if bad.any():
        rows = series.index[bad]
        examples = ", ".join(repr(short(str(series.iloc[j]))) for j in np.flatnonzero(bad.to_numpy())[:5])
        raise InputError(
            f"{label}: column '{column}' has values that are not numbers in rows "
            f"{row_numbers(rows)} (e.g. {examples}). Make them plain numbers, or leave the cell "
            "empty for a missing score."
        )
    for note in notes:
        rb.add("info", "numbers", f"{label}: column '{column}': {note}.")
    inf = ~finite(num)
    if inf.any():
        raise InputError(
            f"{label}: column '{column}' has infinite values in rows "
            f"{row_numbers(series.index[inf])}. Replace them with finite scores or leave the "
            "cells empty for missing scores."
        )
    return num.astype(float)


def load_scores(
    source: TableSource,
    *,
    dataset_column: str = "dataset",
    model_column: str = "model",
    score_column: str = "score",
    fold_column: str | None = "fold",
    wide: bool = False,
    higher_is_better: bool = True,
    missing: MissingPolicy = "error",
    name: str | None = None,
    label: str | None = None,
) -> Benchmark:
    """Load and validate a score table.

    Parameters
    ----------
    source : path, bytes, file-like or DataFrame
        Long table (one row per dataset, model and optional fold) or wide table
        (first column = dataset, one column per model; ``wide=True``).
    dataset_column, model_column, score_column : str
        Column names of the long layout. In the wide layout ``dataset_column`` is used when
        present, else the first column.
    fold_column : str or None
        Fold / seed / resample column; used when present in the table.
    wide : bool
        Whether the table is wide.
    higher_is_better : bool
        Orientation of the scores.
    missing : {"error", "drop-models", "drop-datasets"}
        What to do with missing (dataset, model, fold) cells.
    name : str, optional
        Display name (defaults to the file name).
    label : str, optional
        File name used in messages.

    Returns
    -------
    Benchmark

    Raises
    ------
    InputError
        With a message naming the file, the column or rows and the fix.
    """
    if missing not in MISSING_POLICIES:
        raise InputError(f"unknown missing-score policy '{missing}'; use one of {', '.join(MISSING_POLICIES)}.")
    label = source_label(source, label)
    df = read_table(source, label=label)
    rb = ReportBuilder()
    columns = list(df.columns)
    if len(set(columns)) != len(columns):
        dup = sorted({c for c in columns if columns.count(c) > 1})
        raise InputError(f"{label}: duplicate column names {dup}. Rename them so each is unique.")

    if wide:
        dcol = dataset_column if dataset_column in columns else columns[0]
        fcol = fold_column if fold_column and fold_column in columns and fold_column != dcol else None
        model_cols = [c for c in columns if c not in (dcol, fcol)]
        if not model_cols:
            raise InputError(f"{label}: a wide table needs one column per model after '{dcol}'.")
        keep = [dcol] + ([fcol] if fcol else [])
        df = df.reset_index(drop=True)
        df["__row"] = df.index
        long = df.melt(id_vars=keep + ["__row"], value_vars=model_cols, var_name="__model", value_name="__score")
        long.index = pd.Index(long["__row"].to_numpy())
        dataset_column, model_column, score_column = dcol, "__model", "__score"
        fold_column = fcol
        df = long
        columns = list(df.columns)
    else:
        for role, col, opt in (
            ("dataset", dataset_column, "--dataset-column"),
            ("model", model_column, "--model-column"),
            ("score", score_column, "--score-column"),
        ):
            if col not in columns:
                if role == "model" and len(columns) > 3 and dataset_column in columns and score_column not in columns:
                    raise InputError(
                        f"{label}: no '{model_column}' or '{score_column}' column, but "
                        f"{len(columns) - 1} other columns: is this a wide table (one column per "
                        "model)? Then load it with --wide."
                    )
                raise _column_error(label, role, col, columns, opt)
    use_folds = bool(fold_column) and fold_column in columns

    ds = _clean_names(df[dataset_column], label, f"'{dataset_column}'", rb)
    ms = _clean_names(df[model_column], label, "model" if wide else f"'{model_column}'", rb)
    fs = _clean_names(df[fold_column], label, f"'{fold_column}'", rb) if use_folds else pd.Series("0", index=df.index)
    sc = _parse_scores(df[score_column], label, "score" if wide else score_column, rb)

    key = pd.DataFrame({"d": ds, "m": ms, "f": fs})
    dup = key.duplicated(keep=False)
    if dup.any():
        rows = key.index[dup]
        first = key.loc[rows[0]]
        hint = (
            " If these rows are folds, seeds or resamples, name that column with --fold-column."
            if not use_folds
            else " Keep one row per dataset, model and fold (or average them first)."
        )
        raise InputError(
            f"{label}: {int(dup.sum())} rows repeat the same dataset, model"
            f"{' and fold' if use_folds else ''} (rows {row_numbers(rows)}; e.g. dataset "
            f"'{first['d']}', model '{first['m']}').{hint}"
        )

    datasets = _sort_labels(ds)
    models = _sort_labels(ms)
    folds = _sort_labels(fs) if use_folds else ["0"]
    di = pd.Index(datasets).get_indexer(ds)
    mi = pd.Index(models).get_indexer(ms)
    fi = pd.Index(folds).get_indexer(fs)
    cube = np.full((len(datasets), len(folds), len(models)), np.nan)
    cube[di, fi, mi] = sc.to_numpy(dtype=float)

    _warn_lookalikes(datasets, label, "dataset", rb)
    _warn_lookalikes(models, label, "model", rb)

    nan = np.isnan(cube)
    if nan.any():
        cube, datasets, models = _handle_missing(cube, datasets, models, folds, nan, missing, label, rb)

    if len(datasets) < MIN_DATASETS:
        raise InputError(
            f"{label}: only {len(datasets)} dataset(s) left; at least {MIN_DATASETS} are needed to "
            "compare rankings. Check the dataset column and the missing-score policy."
        )
    if len(models) < MIN_MODELS:
        raise InputError(
            f"{label}: only {len(models)} model(s) left; at least {MIN_MODELS} are needed to rank. "
            "Check the model column and the missing-score policy."
        )

    flat = np.sort(cube, axis=2)
    tied = (np.diff(flat, axis=2) == 0).any(axis=2)
    if tied.any():
        rb.add(
            "info",
            "ties",
            f"{tied.mean():.0%} of the (dataset, fold) columns have tied scores; tied models get "
            "the average of their ranks.",
        )
    if (flat[:, :, 0] == flat[:, :, -1]).all():
        rb.add("warning", "all-tied", f"{label}: every model has the same score on every dataset; all rankings are ties.")
    rb.fact("datasets", len(datasets))
    rb.fact("models", len(models))
    rb.fact("folds", len(folds))
    rb.fact("orientation", "higher is better" if higher_is_better else "lower is better")
    return Benchmark(
        cube,
        tuple(datasets),
        tuple(models),
        tuple(folds),
        bool(higher_is_better),
        name or label,
        rb.build(),
    )


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


def _handle_missing(
    cube: np.ndarray,
    datasets: list[str],
    models: list[str],
    folds: list[str],
    nan: np.ndarray,
    missing: str,
    label: str,
    rb: ReportBuilder,
) -> tuple[np.ndarray, list[str], list[str]]:
    n_missing = int(nan.sum())
    per_model = nan.sum(axis=(0, 1))
    per_dataset = nan.sum(axis=(1, 2))
    if missing == "error":
        cells = np.argwhere(nan)[:5]
        ex = "; ".join(
            f"dataset '{datasets[d]}', model '{models[m]}'" + (f", fold '{folds[f]}'" if len(folds) > 1 else "")
            for d, f, m in cells
        )
        bad_models = [models[i] for i in np.flatnonzero(per_model)]
        bad_datasets = [datasets[i] for i in np.flatnonzero(per_dataset)]
        raise InputError(
            f"{label}: {n_missing} of {nan.size} (dataset, model{', fold' if len(folds) > 1 else ''}) "
            f"scores are missing (e.g. {ex}). They touch {len(bad_models)} model(s) "
            f"({', '.join(bad_models[:5])}{' …' if len(bad_models) > 5 else ''}) and "
            f"{len(bad_datasets)} dataset(s). Add the missing scores, or choose a policy: "
            f"'drop-models' removes the {len(bad_models)} incomplete models, 'drop-datasets' removes "
            f"the {len(bad_datasets)} incomplete datasets (CLI: --missing drop-models)."
        )
    if missing == "drop-models":
        keep = per_model == 0
        dropped = [models[i] for i in np.flatnonzero(~keep)]
        cube = cube[:, :, keep]
        models = [m for m, k in zip(models, keep, strict=True) if k]
        what = "models"
    else:
        keep = per_dataset == 0
        dropped = [datasets[i] for i in np.flatnonzero(~keep)]
        cube = cube[keep]
        datasets = [d for d, k in zip(datasets, keep, strict=True) if k]
        what = "datasets"
    rb.add(
        "warning",
        "dropped",
        f"{label}: {n_missing} scores were missing; dropped {len(dropped)} {what} with gaps: "
        f"{', '.join(dropped[:20])}{' …' if len(dropped) > 20 else ''}.",
    )
    return cube, datasets, models
