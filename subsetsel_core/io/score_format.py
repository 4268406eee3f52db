"""How a score table is laid out: :class:`ScoreFormat`, shared by manifests, uploads and the CLI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from subsetsel_core.errors import InputError

MissingPolicy = Literal["error", "drop-models", "drop-datasets"]
MISSING_POLICIES: tuple[str, ...] = ("error", "drop-models", "drop-datasets")
Layout = Literal["long", "wide"]
LAYOUTS: tuple[str, ...] = ("long", "wide")

@dataclass(frozen=True)
class ScoreFormat:
    """How to read a score table.

    Attributes
    ----------
    layout : {"long", "wide"}
        ``long``: one row per dataset, model and optional fold, with a score column;
        ``wide``: one row per dataset (and fold), one column per model.
    dataset_column : str
        Column of dataset names. In the wide layout it is used when present, else the
        first column.
    model_column, score_column : str
        Columns of model names and of scores (long layout only).
    fold_column : str or None
        Fold / seed / resample column, used when present; ``None``: no folds.
    higher_is_better : bool
        Orientation of the scores.
    missing : {"error", "drop-models", "drop-datasets"}
        What to do with missing (dataset, model, fold) cells: stop with an error, or
        drop the models or the datasets that have gaps.

    Raises
    ------
    InputError
        An unknown ``layout`` (``field="layout"``) or ``missing`` (``field="missing"``).
    """

    layout: Layout = "long"
    dataset_column: str = "dataset"
    model_column: str = "model"
    score_column: str = "score"
    fold_column: str | None = "fold"
    higher_is_better: bool = True
    missing: MissingPolicy = "error"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise InputError(
                f"unknown score-table layout '{self.layout}'; use one of {', '.join(LAYOUTS)}.",
                field="layout",
            )
        if self.missing not in MISSING_POLICIES:
            raise InputError(
                f"unknown missing-score policy '{self.missing}'; use one of "
                f"{', '.join(MISSING_POLICIES)}.",
                field="missing",
            )
