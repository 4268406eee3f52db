"""The ``scores`` section of a benchmark folder's ``manifest.json``: the score file and how to read it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from subsetsel_core.io.manifest_fields import FORMAT_HELP, FieldChecker
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.score_format import (
    LAYOUTS,
    MISSING_POLICIES,
    Layout,
    MissingPolicy,
    ScoreFormat,
)

__all__ = ["SCORES_KEYS", "scores_section", "shown_json"]


def shown_json(value: Any, width: int = 60) -> str:
    """A manifest value as JSON for a message, at most ``width`` characters (a huge value is cut with "…")."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= width else text[: width - 1] + "…"

SCORES_KEYS = (
    "file",
    "layout",
    "dataset_column",
    "model_column",
    "score_column",
    "fold_column",
    "missing",
)
"""The keys of the ``scores`` section."""


def scores_section(chk: FieldChecker, data: Any, higher_is_better: bool) -> tuple[str, ScoreFormat]:
    """The score file and its :class:`ScoreFormat`, from the manifest's ``scores`` field."""
    if data is None:
        raise chk.fail(
            "scores",
            "is missing",
            'Add "scores": {"file": "scores.csv", "layout": "long"} naming the score table. '
            + FORMAT_HELP,
        )
    if isinstance(data, str):
        data = {"file": data}
    if not isinstance(data, Mapping):
        raise chk.fail(
            "scores",
            f"must be an object, got {shown_json(data)}",
            'Write it as {"file": "scores.csv", "layout": "long"}.',
        )
    chk.keys(data, SCORES_KEYS, "scores")
    if "file" not in data:
        raise chk.fail("scores.file", "is missing", 'Name the score table, e.g. "scores.csv".')
    file = chk.file(data["file"], "scores.file")
    layout = chk.string(data, "layout", "scores.layout", default="long")
    if layout not in LAYOUTS:
        raise chk.fail(
            "scores.layout",
            f"is '{layout}'{did_you_mean(layout, LAYOUTS, 1)}",
            'Use "long" (one row per dataset, model and optional fold, with a score column) '
            'or "wide" (one row per dataset, one column per model).',
        )
    fold: str | None
    if "fold_column" in data and data["fold_column"] is None:
        fold = None
    else:
        fold = chk.optional_column(data, "fold_column", "scores.fold_column", "fold")
    missing = chk.string(data, "missing", "scores.missing", default="error")
    if missing not in MISSING_POLICIES:
        raise chk.fail(
            "scores.missing",
            f"is '{missing}'{did_you_mean(missing, MISSING_POLICIES, 1)}",
            f"Use one of {', '.join(MISSING_POLICIES)}.",
        )
    return file, ScoreFormat(
        layout=cast(Layout, layout),
        dataset_column=chk.optional_column(
            data, "dataset_column", "scores.dataset_column", "dataset"
        ),
        model_column=chk.optional_column(data, "model_column", "scores.model_column", "model"),
        score_column=chk.optional_column(data, "score_column", "scores.score_column", "score"),
        fold_column=fold,
        higher_is_better=higher_is_better,
        missing=cast(MissingPolicy, missing),
    )
