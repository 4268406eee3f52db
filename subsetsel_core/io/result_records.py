"""Scores read from result files: one :class:`Record` per (model, dataset, metric).

Each format's reader (:mod:`~subsetsel_core.io.lm_eval_results`,
:mod:`~subsetsel_core.io.mteb_results`, :mod:`~subsetsel_core.io.eee_results`) turns
its JSON files into :class:`Parsed` records; :mod:`~subsetsel_core.io.result_folders`
chooses one metric per dataset and builds the score table from them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

RESULT_FORMATS: tuple[str, ...] = ("auto", "lm-eval", "mteb", "eee")
"""The results formats by the names the CLI and the dashboard use (``"auto"``: recognised
from the files); :data:`subsetsel_core.io.result_folders.FORMATS` reads them."""
LOWER_IS_BETTER_WORDS = frozenset(
    {"perplexity", "loss", "error", "err", "rmse", "mae", "mse", "time", "ter", "wer", "cer", "bpb", "bits"}
)
"""Words of a metric name that mean lower is better (``word_perplexity``, ``eval_loss``)."""
_WORD = re.compile(r"[a-z0-9]+")


class Record(NamedTuple):
    """One score of one model on one dataset under one metric.

    Attributes
    ----------
    model, dataset, metric : str
        The model, the dataset (task) and the metric's key as the file names it.
    value : float
        The score (finite).
    higher_is_better : bool or None
        The direction the file declares for the metric (None: not declared).
    source : str
        The file it comes from (its path in the folder).
    rank : tuple
        Among records of the same model, dataset and metric, the greatest rank is kept
        (e.g. the latest run).
    """

    model: str
    dataset: str
    metric: str
    value: float
    higher_is_better: bool | None
    source: str
    rank: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Parsed:
    """The records of one format's files.

    Attributes
    ----------
    records : tuple of Record
        In file order, and in each file in the order it lists metrics.
    notes : tuple of str
        What the reader did or set aside, in words.
    main_metric : str or None
        The format's main metric, taken by default where it is reported
        (``"main_score"`` for MTEB); None: each dataset's first metric.
    rule : str
        How the default metric is chosen, in words (for the report).
    n_files : int
        Result files read.
    title : str
        The format's name (``"lm-evaluation-harness"``).
    kept : str
        Which of several records of one model, dataset and metric is kept, in words.
    """

    records: tuple[Record, ...]
    notes: tuple[str, ...]
    main_metric: str | None
    rule: str
    n_files: int
    title: str
    kept: str = "the latest run"


def number(value: Any) -> float | None:
    """A finite number of a JSON value (None for text, booleans, null, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def mapping(value: Any) -> Mapping[str, Any]:
    """A JSON object as a mapping; anything else as an empty one."""
    return value if isinstance(value, Mapping) else {}


def guess_higher_is_better(metric: str) -> bool:
    """Direction of a metric from its name: lower is better for perplexities, losses,
    errors, times; higher for everything else."""
    return not (set(_WORD.findall(metric.lower().replace("_", " "))) & LOWER_IS_BETTER_WORDS)


def names(items: list[str] | tuple[str, ...] | set[str], limit: int = 5) -> str:
    """A few names for a message: ``a, b, c … (12 in all)``."""
    items = sorted(items)
    head = ", ".join(items[:limit])
    return head if len(items) <= limit else f"{head} … ({len(items)} in all)"
