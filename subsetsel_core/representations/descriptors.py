"""Descriptor tables and the :class:`Representation` built from them.

A descriptor table has a dataset column plus numeric, categorical or text columns.
Several tables are joined on the dataset name into one table; a representation is that
table encoded as a matrix X (n × p) aligned to a benchmark's dataset order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.names import check_normalisation, describe_mismatch, suggest
from subsetsel_core.io.numeric_cells import parse_numbers, refusal
from subsetsel_core.io.tables import TableSource, read_table, row_numbers, source_label
from subsetsel_core.io.validation import ReportBuilder, ValidationReport
from subsetsel_core.representations.tabular import encode_tabular


@dataclass(frozen=True, eq=False)
class Representation:
    """A matrix of a-priori dataset descriptors aligned to a benchmark.

    Attributes
    ----------
    name : str
        Display name (e.g. ``"ucr_info"``).
    X : ndarray of shape (n, p)
        Row i describes ``datasets[i]``; finite.
    feature_names : tuple of str, length p
    datasets : tuple of str, length n
    report : ValidationReport
        Imputations, dropped columns, encodings.
    """

    name: str
    X: np.ndarray
    feature_names: tuple[str, ...]
    datasets: tuple[str, ...]
    report: ValidationReport = field(default_factory=ValidationReport)

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=float)
        if X.ndim != 2 or X.shape[0] != len(self.datasets) or X.shape[1] != len(self.feature_names):
            raise InputError(
                f"representation '{self.name}': X has shape {X.shape}, expected "
                f"({len(self.datasets)}, {len(self.feature_names)})."
            )
        if not np.isfinite(X).all():
            raise InputError(f"representation '{self.name}': X has NaN or infinite values.")
        X.setflags(write=False)
        object.__setattr__(self, "X", X)

    def to_frame(self) -> pd.DataFrame:
        """X as a DataFrame indexed by dataset."""
        return pd.DataFrame(self.X, index=pd.Index(self.datasets, name="dataset"), columns=list(self.feature_names))


@dataclass(frozen=True, eq=False)
class JoinedTables:
    """Descriptor tables joined on the dataset name.

    Attributes
    ----------
    table : DataFrame
        Indexed by dataset (outer join). A column present in an earlier table with the
        same values is kept once; with different values it is renamed ``table.column``.
    pickable : list of str
        Columns of the tables that are not used in full (a user may choose among them).
    embedding : list of str
        Columns of the tables used in full (embeddings).
    names : dict of (table, column) to str
        Where each original column is in ``table``.
    """

    table: pd.DataFrame
    pickable: list[str]
    embedding: list[str]
    names: dict[tuple[str, str], str]


def join_tables(tables: Mapping[str, pd.DataFrame], in_full: Collection[str] = ()) -> JoinedTables:
    """Join descriptor tables (index = dataset) in the given order.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        Table name → raw descriptor table indexed by dataset name.
    in_full : collection of str
        Names of the tables whose columns are always used in full (embeddings).

    Returns
    -------
    JoinedTables

    Raises
    ------
    InputError
        When ``tables`` is empty.
    """
    out: pd.DataFrame | None = None
    pickable: list[str] = []
    embedding: list[str] = []
    names: dict[tuple[str, str], str] = {}
    for t, df in tables.items():
        ren: dict[str, str] = {}
        drop: list[str] = []
        for c in map(str, df.columns):
            if out is not None and c in out.columns:
                if out[c].reindex(df.index).astype(str).equals(df[c].astype(str)):
                    drop.append(c)
                    names[(t, c)] = c
                    continue
                ren[c] = f"{t}.{c}"
            names[(t, c)] = ren.get(c, c)
        part = df.drop(columns=drop).rename(columns=ren)
        (embedding if t in in_full else pickable).extend(str(c) for c in part.columns)
        out = part if out is None else out.join(part, how="outer")
    if out is None:
        raise InputError("choose at least one descriptor table.", field="representation")
    return JoinedTables(out, pickable, embedding, names)


def load_descriptors(
    sources: Sequence[TableSource] | TableSource,
    *,
    dataset_column: str = "dataset",
    aliases: Mapping[str, str] | None = None,
    labels: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read and join descriptor tables.

    Parameters
    ----------
    sources : path, DataFrame, bytes or a sequence of them
        Tables with a dataset column.
    dataset_column : str
        Name of the dataset column in every table.
    aliases : mapping, optional
        ``{name in a descriptor file: name in the scores}``, applied to every table.
    labels : sequence of str, optional
        File names for messages (uploads).

    Returns
    -------
    DataFrame
        Indexed by dataset (index name ``dataset``); the raw columns of every table
        joined by :func:`join_tables` (a column repeated with other values is prefixed
        with its table's name); a dataset absent from one table has NaN there.
        ``attrs["sources"]`` lists the table names.

    Raises
    ------
    InputError
        Missing dataset column, duplicate or empty dataset names.
    """
    if isinstance(sources, str | Path | pd.DataFrame | bytes) or hasattr(sources, "read"):
        sources = [sources]
    sources = list(sources)
    if not sources:
        raise InputError("no descriptor table given; give at least one descriptor file.", field="descriptor_file")
    tables: list[tuple[str, pd.DataFrame]] = []
    for i, src in enumerate(sources):
        label = source_label(src, labels[i] if labels and i < len(labels) else None)
        df = read_table(src, label=label, object_text=True)
        if dataset_column not in df.columns:
            hint = suggest(dataset_column, list(df.columns))
            raise InputError(
                f"{label}: no '{dataset_column}' column. The columns are: "
                f"{', '.join(map(repr, list(df.columns)[:12]))}"
                f"{' …' if df.shape[1] > 12 else ''}."
                + (f" Did you mean {hint[0]!r}?" if hint else "")
                + " Name the descriptor table's dataset column (or rename it).",
                field="descriptor_dataset_column",
            )
        names = df[dataset_column].astype(str).str.strip()
        blank = names.eq("") | df[dataset_column].isna()
        if blank.any():
            raise InputError(f"{label}: empty dataset name in rows {row_numbers(df.index[blank])}. Fill them in or "
                             "delete those rows.", field="descriptor_file", rows=[int(r) + 2 for r in df.index[blank]])
        check_normalisation(names.unique(), label, "dataset", field="descriptor_file")
        if aliases:
            names = names.map(lambda s: aliases.get(s, s))
        dup = names.duplicated(keep=False)
        if dup.any():
            raise InputError(
                f"{label}: dataset names repeat in rows {row_numbers(df.index[dup])} (e.g. "
                f"'{names[dup].iloc[0]}'). Keep one row per dataset.",
                field="descriptor_file", rows=[int(r) + 2 for r in df.index[dup]],
            )
        body = df.drop(columns=[dataset_column])
        _check_numbers(body, label)
        body.index = pd.Index(names.to_numpy(), name="dataset")
        tables.append((Path(label).name.split(".")[0], body))
    unique: dict[str, pd.DataFrame] = {}
    for tname, body in tables:
        key, i = tname, 2
        while key in unique:
            key, i = f"{tname}_{i}", i + 1
        unique[key] = body
    out = join_tables(unique).table
    out.attrs["sources"] = list(unique)
    return out


def _check_numbers(body: pd.DataFrame, label: str) -> None:
    """Refuse a column whose numbers cannot be read safely (``1,250``, mixed units), naming ``label``."""
    for col in body.columns:
        values = body[col]
        num, bad, notes = parse_numbers(values)
        err = refusal(values, bad, notes, label, str(col))
        if err is not None:
            raise InputError(str(err), field="descriptor_file")


def align_descriptors(
    descriptors: pd.DataFrame, datasets: Sequence[str], *, label: str = "descriptors",
    report: ReportBuilder | None = None,
) -> pd.DataFrame:
    """Rows of ``descriptors`` in the order of ``datasets``.

    Raises
    ------
    InputError
        When a dataset has no descriptor row; lists them with close-match suggestions.
    """
    have = set(descriptors.index)
    missing = [d for d in datasets if d not in have]
    if missing:
        raise InputError(
            f"{len(missing)} dataset(s) of the scores have no row in {label}: "
            f"{describe_mismatch(missing, [str(x) for x in descriptors.index if x not in set(datasets)])}. "
            "Rename them in one of the files or map them with an alias "
            "(a descriptor name to a score name).",
            field="aliases",
        )
    extra = [d for d in descriptors.index if d not in set(datasets)]
    if extra and report is not None:
        report.add(
            "info",
            "unused-rows",
            f"{label}: {len(extra)} row(s) describe datasets that are not in the scores and are not "
            f"used: {', '.join(map(str, extra[:10]))}{' …' if len(extra) > 10 else ''}.",
        )
    return descriptors.loc[list(datasets)]


def build_representation(
    descriptors: pd.DataFrame,
    datasets: Sequence[str],
    *,
    name: str = "descriptors",
    columns: Sequence[str] | None = None,
    text: Literal["tfidf", "drop"] = "tfidf",
    text_components: int = 16,
    log_columns: Sequence[str] | Literal["auto"] = (),
    pca_variance: float | None = None,
    seed: int = 0,
) -> Representation:
    """Encode descriptors as a representation aligned to ``datasets``.

    Parameters
    ----------
    descriptors : DataFrame
        From :func:`load_descriptors` (index = dataset).
    datasets : sequence of str
        The benchmark's dataset order.
    name : str
        Display name of the representation.
    columns : sequence of str, optional
        Columns to use (default: all).
    text, text_components, log_columns, pca_variance, seed
        See :func:`subsetsel_core.representations.tabular.encode_tabular`.

    Returns
    -------
    Representation
    """
    rb = ReportBuilder()
    table = align_descriptors(descriptors, datasets, label=name, report=rb)
    if columns is not None:
        unknown = [c for c in columns if c not in table.columns]
        if unknown:
            raise InputError(
                f"{name}: unknown column(s) {unknown}; the columns are {list(table.columns)}.",
                field="descriptor_columns",
            )
        table = table[list(columns)]
    X, names = encode_tabular(
        table,
        label=name,
        text=text,
        text_components=text_components,
        log_columns=log_columns,
        pca_variance=pca_variance,
        report=rb,
        seed=seed,
    )
    rb.fact("representation", f"{name}: {X.shape[0]} datasets × {X.shape[1]} features")
    return Representation(name, X, tuple(names), tuple(datasets), rb.build())


def representation_from_matrix(
    X: np.ndarray, datasets: Sequence[str], *, name: str = "matrix", feature_names: Sequence[str] | None = None
) -> Representation:
    """Wrap a ready matrix (rows in ``datasets`` order) as a :class:`Representation`."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"representation '{name}' must be a 2-D matrix, got shape {X.shape}.")
    names = tuple(feature_names) if feature_names is not None else tuple(f"x{i}" for i in range(X.shape[1]))
    return Representation(name, X, names, tuple(datasets))
