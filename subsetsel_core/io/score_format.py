"""How a score table is laid out: :class:`ScoreFormat`, shared by manifests, uploads and the CLI.

A ``ScoreFormat`` is the complete reading of a table (layout, the columns of each role, the
columns and rows set aside, the direction of every dataset, the missing-score policy):
:meth:`ScoreFormat.to_dict` writes it whole as plain values (the ``[reading]`` of a run's
config file, every output's provenance) and :meth:`ScoreFormat.from_dict` reads it back,
checked, so that the same file is read the same way again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from subsetsel_core.errors import InputError

MissingPolicy = Literal["error", "drop-models", "drop-datasets", "complete-block", "partial"]
MISSING_POLICIES: tuple[str, ...] = ("error", "drop-models", "drop-datasets", "complete-block", "partial")
#: How each missing-score policy is described to a user (PROTOCOL.md, "Missing scores").
MISSING_TITLES: dict[str, str] = {
    "error": "stop with an error",
    "drop-models": "drop the models with gaps",
    "drop-datasets": "drop the datasets with gaps",
    "complete-block": "drop the model or dataset with the most gaps, repeatedly, until complete",
    "partial": "keep everything: rank the models each dataset has (partial)",
}
RESULT_FORMATS: tuple[str, ...] = ("auto", "lm-eval", "mteb", "eee")
"""The results formats by the names the CLI and the dashboard use (``"auto"``: recognised
from the files); :data:`subsetsel_core.io.result_folders.FORMATS` reads them."""
Layout = Literal["long", "wide", "models-as-rows"]
LAYOUTS: tuple[str, ...] = ("long", "wide", "models-as-rows")
#: How each layout is described to a user.
LAYOUT_TITLES: dict[str, str] = {
    "long": "long: one row per dataset, model (and fold)",
    "wide": "wide: datasets as rows, one column per model",
    "models-as-rows": "wide: models as rows, one column per dataset",
}


@dataclass(frozen=True)
class ScoreFormat:
    """How to read a score table.

    Attributes
    ----------
    layout : {"long", "wide", "models-as-rows"}
        ``long``: one row per dataset, model and optional fold, with a score column;
        ``wide``: one row per dataset (and fold), one column per model;
        ``models-as-rows``: one row per model (and fold), one column per dataset (the
        usual leaderboard).
    dataset_column : str
        Column of dataset names (long and wide layouts). In the wide layout it is used
        when present, else the first column.
    model_column : str
        Column of model names (long and models-as-rows layouts).
    score_column : str
        Column of scores (long layout only).
    fold_column : str or None
        Fold / seed / resample column, used when present; ``None``: no folds.
    higher_is_better : bool
        Orientation of the scores (of every dataset not listed below).
    missing : {"error", "drop-models", "drop-datasets", "complete-block", "partial"}
        What to do with missing (dataset, model, fold) cells: stop with an error; drop
        the models or the datasets that have gaps; drop, one at a time, the model or
        dataset with the largest share of gaps until the table is complete
        (``complete-block``); or keep every model and dataset and rank each dataset's
        present models (``partial``; PROTOCOL.md, "Missing scores").
    drop_columns : tuple of str
        Columns set aside in the wide layouts (text, dates, sizes, averages, ranks …):
        not read as scores.
    drop_rows : tuple of str
        Rows of a wide table set aside by their name (a summary row such as ``Avg``): not
        read as a dataset or a model. Not used by the long layout.
    lower_is_better_datasets, higher_is_better_datasets : tuple of str
        Datasets whose direction is set one by one (leaderboards mix metrics); the
        others follow ``higher_is_better``.

    Raises
    ------
    InputError
        An unknown ``layout`` (``field="layout"``) or ``missing`` (``field="missing"``);
        one column in two roles (``field`` of the second role); a dataset in both
        direction lists (``field="dataset_directions"``); rows set aside in the long layout
        (``field="drop_rows"``).
    """

    layout: Layout = "long"
    dataset_column: str = "dataset"
    model_column: str = "model"
    score_column: str = "score"
    fold_column: str | None = "fold"
    higher_is_better: bool = True
    missing: MissingPolicy = "error"
    drop_columns: tuple[str, ...] = ()
    drop_rows: tuple[str, ...] = ()
    lower_is_better_datasets: tuple[str, ...] = ()
    higher_is_better_datasets: tuple[str, ...] = ()

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
        for name in ("drop_columns", "drop_rows", "lower_is_better_datasets", "higher_is_better_datasets"):
            object.__setattr__(self, name, tuple(str(v) for v in getattr(self, name)))
        if self.drop_rows and self.layout == "long":
            raise InputError(f"row '{self.drop_rows[0]}' is set aside, but rows are set aside only in a wide "
                             "table (one row per dataset or per model); give no rows to set aside, or read the table "
                             "with a wide layout.", field="drop_rows")
        check_roles(self.roles(), self.drop_columns)
        both = sorted(set(self.lower_is_better_datasets) & set(self.higher_is_better_datasets))
        if both:
            raise InputError(
                f"dataset '{both[0]}' is listed both as lower-is-better and as higher-is-better; "
                "give each dataset one direction.",
                field="dataset_directions",
            )

    def roles(self) -> dict[str, str]:
        """The columns this layout reads, by role (``"dataset"``, ``"model"``, ``"score"``, ``"fold"``)."""
        out: dict[str, str] = {}
        if self.layout in ("long", "wide"):
            out["dataset"] = self.dataset_column
        if self.layout in ("long", "models-as-rows"):
            out["model"] = self.model_column
        if self.layout == "long":
            out["score"] = self.score_column
        if self.fold_column:
            out["fold"] = self.fold_column
        return out

    def opposite_datasets(self) -> tuple[str, ...]:
        """The listed datasets whose direction differs from ``higher_is_better``."""
        return self.lower_is_better_datasets if self.higher_is_better else self.higher_is_better_datasets

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (tuples as lists; an unset optional column as None)."""
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, label: str = "reading") -> ScoreFormat:
        """The format :meth:`to_dict` wrote, every value checked; a missing key takes its default.

        An optional column given as ``""`` is None (TOML has no null).

        Raises
        ------
        InputError
            Not an object, an unknown key, a value of the wrong type (naming ``label.key``);
            or the error of :class:`ScoreFormat` itself (an unknown layout, …).
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{label}: must be a table of the reading's keys, got {type(data).__name__}.")
        hints = get_type_hints(cls)
        known = [f.name for f in fields(cls)]
        values: dict[str, Any] = {}
        for key, raw in data.items():
            if key not in known:
                raise InputError(f"{label}: unknown key '{key}'; the keys are {', '.join(known)}.")
            values[key] = _typed(raw, hints[key], f"{label}.{key}")
        return cls(**values)


def _typed(raw: Any, hint: Any, where: str) -> Any:
    """``raw`` as a value of the annotation ``hint`` (str, bool, a Literal, an optional str, a tuple of str)."""
    args = get_args(hint)
    if get_origin(hint) is tuple:
        if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
            raise InputError(f"{where}: must be a list of names, e.g. [\"a\", \"b\"], got {raw!r:.80}.")
        return tuple(raw)
    if hint is bool:
        if not isinstance(raw, bool):
            raise InputError(f"{where}: must be true or false, got {raw!r:.80}.")
        return raw
    optional = type(None) in args
    if optional and (raw is None or raw == ""):
        return None
    text_like = hint is str or get_origin(hint) is Literal or (optional and set(args) <= {str, type(None)})
    if not text_like:  # a field of another kind needs its own check here
        raise TypeError(f"ScoreFormat.from_dict cannot read a field of type {hint}")
    if not isinstance(raw, str):
        raise InputError(f"{where}: must be text in quotes, got {raw!r:.80}.")
    return raw


def check_roles(roles: dict[str, str], set_aside: tuple[str, ...] = (), label: str = "") -> None:
    """Refuse one column in two roles, or a role column that is also set aside.

    Parameters
    ----------
    roles : dict of str to str
        Role (``"dataset"``, ``"model"``, ``"score"``, ``"fold"``) → column.
    set_aside : tuple of str
        Columns not read.
    label : str
        File name the messages start with.

    Raises
    ------
    InputError
        Naming the column and both roles; ``field`` is the second role's column setting.
    """
    where = f"{label}: " if label else ""
    seen: dict[str, str] = {}
    for role, column in roles.items():
        if column in seen:
            raise InputError(
                f"{where}column '{column}' is mapped twice: as the {seen[column]} column and as the {role} "
                f"column. Choose another {role} column.",
                field=f"{role}_column",
            )
        seen[column] = role
    for column in set_aside:
        if column in seen:
            raise InputError(
                f"{where}column '{column}' is the {seen[column]} column and is also set aside; a column has "
                "one role. Remove it from the columns set aside.",
                field="drop_columns",
            )
