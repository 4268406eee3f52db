"""What a score table was guessed to be: :class:`TableGuess` (and :class:`SetAside`).

Made by :func:`subsetsel_core.io.guess.table.guess_table`; :meth:`TableGuess.to_format` is the
:class:`~subsetsel_core.io.score_format.ScoreFormat` the loader reads the table with,
:meth:`TableGuess.sentence` what the dashboard says, :meth:`TableGuess.to_json_dict` what
``subsetsel inspect`` prints, and :func:`release_dates` the models' release dates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import pandas as pd

from subsetsel_core.io.guess.column_kinds import parse_dates
from subsetsel_core.io.guess.direction_guess import DIRECTION_SOURCES, DatasetMetric
from subsetsel_core.io.link_names import link_texts
from subsetsel_core.io.score_format import Layout, MissingPolicy, ScoreFormat


def names_of(cells: pd.Series) -> pd.Series:
    """Cells as stripped text (missing cells as ``""``, an HTML link as its text), as the loader reads names."""
    return link_texts(cells.astype(object).where(cells.notna(), "").astype(str).str.strip())[0]


#: Why a row of a wide table is set aside: the user named it.
DROPPED_ROW = "named by the user: --drop-rows, or Rows set aside on the Benchmark page"


@dataclass(frozen=True)
class SetAside:
    """A column that is not read as scores, and why."""

    column: str
    reason: str


@dataclass(frozen=True)
class TableGuess:
    """What a score table is.

    Attributes
    ----------
    label : str
        The file's name.
    layout : {"long", "wide", "models-as-rows"}
    dataset_column, model_column, score_column, fold_column : str or None
        The columns in these roles (``None``: no such column in this layout).
    set_aside : tuple of SetAside
        Every other column, with the reason.
    n_datasets, n_models, n_folds, missing_cells : int
        Sizes, and the (dataset, model, fold) cells without a score.
    higher_is_better : bool
        The direction (as given, or guessed; provisional when ``direction_from`` is ``"unsure"``).
    direction_from : {"given", "evidence", "assumed", "unsure"}
        Where the direction came from (:data:`~subsetsel_core.io.guess.direction_guess.DIRECTION_SOURCES`).
    lower_is_better_datasets, higher_is_better_datasets : tuple of str
        Datasets with a direction of their own (as given, or guessed from their names).
    release_column : str or None
        The column of model release dates.
    unsure : tuple of str
        What could not be decided, each ``"topic: sentence"`` (topics: layout,
        dataset_column, model_column, score_column, direction, set_aside, rows, release_column).
    datasets, models : tuple of str
        The names, sorted.
    direction_because : str
        The evidence of the direction (or the assumption, or the conflict) in words.
    dataset_metrics : tuple of DatasetMetric
        The metric each dataset's header (or the score column) names.
    cells_read : tuple of str
        How score cells that held more than a number were read (``"MRPC, QQP: two numbers per
        cell … read as their mean"``, footnote marks and spreads removed).
    dropped_rows : tuple of str
        Rows of a wide table set aside as the user named them (:data:`DROPPED_ROW`).
    """

    label: str
    layout: Layout
    dataset_column: str | None
    model_column: str | None
    score_column: str | None
    fold_column: str | None
    set_aside: tuple[SetAside, ...]
    n_datasets: int
    n_models: int
    n_folds: int
    missing_cells: int
    higher_is_better: bool
    direction_from: str
    lower_is_better_datasets: tuple[str, ...] = ()
    higher_is_better_datasets: tuple[str, ...] = ()
    release_column: str | None = None
    unsure: tuple[str, ...] = ()
    datasets: tuple[str, ...] = field(default=(), repr=False)
    models: tuple[str, ...] = field(default=(), repr=False)
    direction_because: str = ""
    dataset_metrics: tuple[DatasetMetric, ...] = field(default=(), repr=False)
    cells_read: tuple[str, ...] = ()
    dropped_rows: tuple[str, ...] = ()

    @property
    def direction(self) -> str:
        """``"higher"``, ``"lower"`` or ``"unsure"`` (the evidence conflicts)."""
        if self.direction_from == "unsure":
            return "unsure"
        return "higher" if self.higher_is_better else "lower"

    def dataset_direction(self, dataset: str) -> bool:
        """Whether higher is better on ``dataset`` as read (its own direction, or the table's)."""
        if dataset in self.lower_is_better_datasets:
            return False
        if dataset in self.higher_is_better_datasets:
            return True
        return self.higher_is_better

    def own_directions(self) -> dict[str, bool]:
        """Dataset → higher is better, for the datasets whose headers name a metric of known direction, when some
        datasets' headers name none (empty when every one does, or none does): what a direction the user gives
        for the others leaves as it is."""
        own = {m.dataset: bool(m.higher_is_better) for m in self.dataset_metrics if m.higher_is_better is not None}
        return own if 0 < len(own) < len(self.datasets) else {}

    def answered(self, higher_is_better: bool) -> TableGuess:
        """The reading with the direction a user chose: the file's evidence (and its directions per dataset) while
        the answer agrees with it; else the answer, on every dataset but those whose headers name a metric of known
        direction when the reading was unsure (the question was about the others); the direction's doubts gone."""
        rest = tuple(u for u in self.unsure if not u.startswith("direction:"))
        if self.direction_from in ("evidence", "assumed") and higher_is_better == self.higher_is_better:
            return replace(self, unsure=rest)
        own = self.own_directions() if self.direction_from == "unsure" else {}
        return replace(self, higher_is_better=higher_is_better, direction_from="given", unsure=rest,
                       direction_because="as chosen, on every dataset not ticked otherwise" + (
                           "; the datasets whose headers name a metric as those names say" if own else ""),
                       lower_is_better_datasets=tuple(d for d, v in own.items() if not v and higher_is_better),
                       higher_is_better_datasets=tuple(d for d, v in own.items() if v and not higher_is_better))

    def to_format(self, missing: str = "error", **changes: Any) -> ScoreFormat:
        """The :class:`ScoreFormat` that reads the table as guessed (``changes`` replace fields)."""
        fmt = ScoreFormat(
            layout=self.layout,
            dataset_column=self.dataset_column or "dataset",
            model_column=self.model_column or "model",
            score_column=self.score_column or "score",
            fold_column=self.fold_column,
            higher_is_better=self.higher_is_better,
            missing=cast(MissingPolicy, missing),
            drop_columns=() if self.layout == "long" else tuple(s.column for s in self.set_aside),
            drop_rows=self.dropped_rows,
            lower_is_better_datasets=self.lower_is_better_datasets,
            higher_is_better_datasets=self.higher_is_better_datasets,
        )
        return replace(fmt, **changes) if changes else fmt

    def to_json_dict(self) -> dict[str, Any]:
        """The guess as JSON-ready values (what ``subsetsel inspect`` prints)."""
        return {
            "file": self.label, "layout": self.layout, "dataset_column": self.dataset_column,
            "model_column": self.model_column, "score_column": self.score_column, "fold_column": self.fold_column,
            "set_aside": [{"column": s.column, "reason": s.reason} for s in self.set_aside],
            "set_aside_rows": [{"row": r, "reason": DROPPED_ROW} for r in self.dropped_rows],
            "n_datasets": self.n_datasets, "n_models": self.n_models, "n_folds": self.n_folds,
            "missing_cells": self.missing_cells, "higher_is_better": self.higher_is_better,
            "direction": self.direction, "direction_from": self.direction_from,
            "direction_because": self.direction_because,
            "lower_is_better_datasets": list(self.lower_is_better_datasets),
            "higher_is_better_datasets": list(self.higher_is_better_datasets),
            "release_column": self.release_column, "unsure": list(self.unsure), "cells_read": list(self.cells_read),
            "sentence": self.sentence(),
        }

    def sentence(self) -> str:
        """``"I read this as: 107 models (rows) × 27 datasets (columns); set aside: …"``."""
        folds = f" × {self.n_folds} folds" if self.n_folds > 1 else ""
        if self.layout == "models-as-rows":
            shape = f"{self.n_models} models (rows) × {self.n_datasets} datasets (columns){folds}"
        elif self.layout == "wide":
            shape = f"{self.n_datasets} datasets (rows) × {self.n_models} models (columns){folds}"
        else:
            cols = ", ".join(f"{r} '{c}'" for r, c in (("dataset", self.dataset_column), ("model", self.model_column),
                                                       ("fold", self.fold_column), ("score", self.score_column)) if c)
            shape = f"a long table of {self.n_datasets} datasets × {self.n_models} models{folds} ({cols})"
        parts = [f"I read this as: {shape}"]
        if self.set_aside:
            parts.append("set aside: " + ", ".join(f"{s.column} ({s.reason})" for s in self.set_aside))
        if self.dropped_rows:
            parts.append("rows set aside: " + ", ".join(f"{r} ({DROPPED_ROW})" for r in self.dropped_rows))
        own = self.lower_is_better_datasets if self.higher_is_better else self.higher_is_better_datasets
        way = f"{'higher' if self.higher_is_better else 'lower'} is better"
        if self.direction_from == "unsure":
            said = f"direction unsure ({self.direction_because}; read as {way} until decided)"
        elif self.direction_from == "assumed":
            said = f"{way} — an assumption: {self.direction_because.removeprefix(f'assumed {way}: ')}"
        else:
            said = f"{way} ({self.direction_because or DIRECTION_SOURCES[self.direction_from]})"
        parts.append(said + (f", except on {len(own)} dataset(s): {', '.join(own[:5])}{' …' if len(own) > 5 else ''}"
                             if own else ""))
        if self.missing_cells:
            parts.append(f"{self.missing_cells} missing score(s)")
        parts += list(self.cells_read)
        return "; ".join(parts) + "."


def release_dates(df: pd.DataFrame, guess: TableGuess) -> dict[str, str]:
    """Model → release date (ISO ``YYYY-MM-DD``) from the guess's release column (empty without one).

    Models whose cell is not a date are left out.
    """
    if guess.release_column is None or guess.model_column is None:
        return {}
    when = parse_dates(df[guess.release_column])
    names = names_of(df[guess.model_column])
    out: dict[str, str] = {}
    for m, d in zip(names, when, strict=True):
        if m and m not in out and not pd.isna(d):
            out[m] = d.date().isoformat()
    return out
