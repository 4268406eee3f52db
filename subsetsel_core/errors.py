"""Exception types of :mod:`subsetsel_core`.

Every problem caused by user input raises :class:`InputError` (a ``ValueError``) whose
message names the file, the column or row, and the fix. The CLI turns these into exit
code 2 and the dashboard into a readable message; neither shows a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from subsetsel_core.text.safe_text import safe_message


class SubsetselError(Exception):
    """Base class of every error raised on purpose by ``subsetsel_core``."""


class InputError(SubsetselError, ValueError):
    """Bad user input: a file, a column, a row, a parameter.

    The message says what is wrong and where, in neutral words (no command-line flag,
    no widget name). ``field`` names the setting that fixes it, from :data:`FIELDS`;
    each face words that fix itself (the CLI as a flag, the dashboard as a widget).

    Parameters
    ----------
    message : str
        What is wrong, where (file, row, column), and what to change. It is kept as
        :func:`~subsetsel_core.text.safe_text.safe_message` makes it: control characters from
        names escaped, very long names shortened, at most 1,500 characters.
    field : str, optional
        The setting that fixes it, a key of :data:`FIELDS`.
    rows : sequence of int, optional
        1-based row numbers of the file the problem is in.
    """

    def __init__(self, message: str, *, field: str | None = None, rows: Sequence[int] = ()) -> None:
        super().__init__(safe_message(str(message)))
        if field is not None and field not in FIELDS:
            raise ValueError(f"unknown InputError field {field!r}; add it to FIELDS")
        self.field = field
        self.rows = tuple(int(r) for r in rows)


FIELDS: dict[str, str] = {
    "layout": "the layout of the score table (long, wide with datasets as rows, or wide with models as rows)",
    "dataset_column": "the column of the score table holding dataset names",
    "model_column": "the column of the score table holding model names",
    "score_column": "the column of the score table holding the scores",
    "fold_column": "the column of the score table holding folds / seeds / resamples",
    "direction": "whether higher or lower scores are better",
    "dataset_directions": "the datasets whose scores are lower-is-better (or higher-is-better) unlike the rest",
    "drop_columns": "the columns of the score table set aside (not read as scores)",
    "drop_rows": "the rows of a wide score table set aside (not read as a dataset or a model)",
    "keep_columns": "the columns of the score table read as scores though the guess sets them aside",
    "release_column": "the column of the score table holding model release dates",
    "missing": "the missing-score policy",
    "aliases": "the aliases that map descriptor names to score names",
    "descriptor_dataset_column": "the column of a descriptor table holding dataset names",
    "scores_file": "the score file",
    "scores_format": "how the scores are read: a table, or one format's result files",
    "descriptor_file": "a descriptor file",
    "workspace": "the workspace file",
    "recipe": "the JSON sidecar a subset is reproduced from",
    "release_dates": "the models' release dates",
    "config": "the config file of subsetsel report (run.toml)",
}
"""Settings an :class:`InputError` can point at, with a neutral description.

Written here: the data's and the files' (no entry of the settings table). The settings'
own fields (``trials``, ``k_range``, ``representation``, …) are added by
:mod:`subsetsel_core.settings.table` from its records (:attr:`Setting.about`) through
:func:`add_fields` when it is imported, which ``import subsetsel_core`` does first.
"""


def add_fields(described: Mapping[str, str]) -> None:
    """Add fields (name → neutral description) that an :class:`InputError` may name.

    Raises
    ------
    ValueError
        A field already there with another description (one field, one meaning).
    """
    for name, text in described.items():
        if FIELDS.get(name, text) != text:
            raise ValueError(f"the error field {name!r} is described twice: {FIELDS[name]!r} and {text!r}")
        FIELDS[name] = text


class MissingExtraError(InputError, ImportError):
    """An optional package needed by a feature is not installed.

    It is both an :class:`InputError` (the user can fix it) and an :class:`ImportError`.
    The message names the package and the install command.
    """


class Cancelled(SubsetselError):
    """Raised when a long computation was cancelled by its caller."""
