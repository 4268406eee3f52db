"""Scores read from result files: one :class:`Record` per (model, dataset, metric).

Each format's reader (:mod:`~subsetsel_core.io.lm_eval_results`,
:mod:`~subsetsel_core.io.mteb_results`, :mod:`~subsetsel_core.io.eee_results`) turns
its JSON files into :class:`Parsed` records; :mod:`~subsetsel_core.io.result_folders`
chooses one metric per dataset and builds the score table from them.

Result files are untrusted input: :func:`score_of` accepts only finite numbers within
:data:`MAX_ABS_SCORE` (the JSON parser of :mod:`~subsetsel_core.io.result_files` turns
``NaN``, ``Infinity``, ``1e999`` and numbers of hundreds of digits into
:class:`NotANumber`), and :func:`text_field` / :func:`object_field` refuse a field of the
wrong JSON type with the file and key named.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from subsetsel_core.errors import InputError
from subsetsel_core.text import rounding

MAX_ABS_SCORE = 1e12
"""Largest magnitude of a score; beyond it a value is a damaged file, not a score."""
LOWER_IS_BETTER_WORDS = frozenset(
    {"perplexity", "ppl", "loss", "error", "err", "rmse", "mae", "mse", "time", "ter", "wer", "cer", "bpb",
     "bits", "nll", "brier", "latency", "seconds", "toxicity", "mape", "smape", "mase", "crps", "wql", "msis",
     "nrmse", "rmsle", "logloss"}
)
"""Words of a metric name that mean lower is better (``word_perplexity``, ``bits_per_byte``,
``eval_loss``; lm-evaluation-harness declares ``perplexity``, ``word_perplexity``,
``byte_perplexity``, ``bits_per_byte``, ``ter``, ``wer``, ``brier_score`` lower-is-better,
and harness 0.3 named lambada's perplexity ``ppl``)."""
HIGHER_IS_BETTER_WORDS = frozenset(
    {"acc", "accuracy", "f1", "em", "exact", "match", "bleu", "rouge1", "rouge2", "rougel", "rouge", "chrf",
     "ndcg", "map", "mrr", "precision", "recall", "spearman", "pearson", "mcc", "auc", "ap", "v", "measure",
     "main", "correct", "pass", "win", "bertscore", "bleurt", "meteor", "hit", "cosine", "kappa", "mc1", "mc2",
     "mc3", "auroc", "r2"}
)
"""Words of a metric name that mean higher is better."""
BIAS_WORDS = frozenset({"bias", "stereotype", "stereotypes", "preferred"})
"""Words of a bias score (crows_pairs ``pct_stereotype``, bbq ``amb_bias_score``): neither
higher nor lower is better (the unbiased value is in the middle)."""
BIAS_METRICS = frozenset({"likelihood_diff", "likelihood_difference", "difference_male_female"})
"""Bias scores whose words do not say so (crows_pairs, winogender)."""
_WORD = re.compile(r"[a-z0-9]+")
NEGATIONS = frozenset({"neg", "negative", "negated", "minus"})
"""A metric name's first word that turns its direction (scikit-learn's ``neg_rmse``)."""

Direction = Literal["higher", "lower", "bias", "unknown"]


@dataclass(frozen=True)
class NotANumber:
    """A JSON number that is not a usable score: ``NaN``, ``Infinity``, ``1e999`` or a
    number of hundreds of digits (what :func:`score_of` refuses, in words)."""

    text: str


class Record(NamedTuple):
    """One score of one model on one dataset under one metric.

    Attributes
    ----------
    model, dataset, metric : str
        The model, the dataset (task) and the metric's key as the file names it.
    value : float
        The score (NaN when ``bad``).
    higher_is_better : bool or None
        The direction the file declares for the metric (None: not declared).
    source : str
        The file it comes from (its path in the folder).
    rank : tuple
        Among records of the same model, dataset and metric from several files, the
        greatest rank is kept (the format's documented rule, e.g. the latest run); equal
        ranks are an error naming both files.
    bad : str
        Why the file's value is not a score (empty: it is one); an error when the metric
        is taken.
    key : str
        Where the value sits in the file (``results.arc_easy.acc,none``), for messages.
    """

    model: str
    dataset: str
    metric: str
    value: float
    higher_is_better: bool | None
    source: str
    rank: tuple[Any, ...] = ()
    bad: str = ""
    key: str = ""


@dataclass(frozen=True)
class Parsed:
    """The records of one format's files.

    Attributes
    ----------
    records : tuple of Record
        In file order, and in each file in the order it lists metrics.
    notes : tuple of str
        What the reader did, in words (facts that change nothing).
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
    warnings : tuple of str
        What changed the benchmark (files, models or subsets set aside), in words.
    set_aside : tuple of (str, str)
        Every file, subset or dataset set aside, with its reason.
    readings : dict of str to dict
        Dataset → how it was read (``splits``, ``subsets``, ``subsets_from``), as plain
        values.
    main_is_higher : bool
        Whether the format defines its main metric as higher-is-better (MTEB).
    settings : dict of (str, str) to str
        (file, dataset) → how the run was set up where the format records it (lm-eval: ``"10-shot"``,
        ``"0-shot, limit 100"``): runs of one dataset set up differently are not comparable, said in a warning.
    """

    records: tuple[Record, ...]
    notes: tuple[str, ...]
    main_metric: str | None
    rule: str
    n_files: int
    title: str
    kept: str = "the latest run"
    warnings: tuple[str, ...] = ()
    set_aside: tuple[tuple[str, str], ...] = ()
    readings: dict[str, dict[str, Any]] = field(default_factory=dict)
    main_is_higher: bool = False
    settings: dict[tuple[str, str], str] = field(default_factory=dict)


def number(value: Any) -> float | None:
    """A finite number of a JSON value (None for text, booleans, null, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        x = float(value)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


def score_of(value: Any) -> tuple[float | None, str]:
    """A JSON value as a score: ``(x, "")``; ``(None, reason)`` for a number that is not
    a usable score; ``(None, "")`` for a value that is not a number at all (text, null,
    a boolean: not a metric)."""
    if type(value) is float and -MAX_ABS_SCORE <= value <= MAX_ABS_SCORE:
        return value, ""  # the common case, first
    if isinstance(value, NotANumber):
        return None, value.text
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, ""
    x = number(value)
    if x is None:
        return None, "an infinite number (beyond the range of a number)" if isinstance(value, float) else \
            "a number too large to be a score"
    if abs(x) > MAX_ABS_SCORE:
        return None, f"{rounding.text(x, 'score')}, beyond ±{rounding.text(MAX_ABS_SCORE, 'score')} (not a score)"
    return x, ""


def not_a_number(value: Any) -> str:
    """What a JSON value that should be a score but is text or a boolean is, in words
    (``text ("0.1")``, ``a boolean (false)``); empty for anything else."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:20] + "…"
        return f"text ({shown!r})"
    return ""


def reads_as_number(value: Any) -> bool:
    """Whether a JSON value is text that reads as a number (``"0.1"``)."""
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


def mapping(value: Any) -> Mapping[str, Any]:
    """A JSON object as a mapping; anything else as an empty one."""
    return value if isinstance(value, Mapping) else {}


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | NotANumber):
        return "a number"
    return "null" if value is None else "text"


def bad_field(where: str, key: str, value: Any, want: str) -> InputError:
    """The error of a field of the wrong JSON type."""
    return InputError(f"{where}: '{key}' is {_kind(value)}, not {want}. Fix the file or remove it from the "
                      "folder (or pass --skip-unreadable to skip it with a warning).", field="scores_file")


def text_field(data: Mapping[str, Any], name: str, where: str, key: str | None = None) -> str | None:
    """A field that must be text when present: stripped, or None when absent, null or empty.

    Raises
    ------
    InputError
        The field is a list, an object, a number or a boolean.
    """
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise bad_field(where, key or name, value, "text")
    return value.strip() or None


def object_field(data: Mapping[str, Any], name: str, where: str, key: str | None = None) -> Mapping[str, Any]:
    """A field that must be a JSON object when present (absent or null: empty)."""
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise bad_field(where, key or name, value, "an object")
    return value


def metric_words(metric: str) -> set[str]:
    """The lower-case words of a metric name (``"bits_per_byte,none"`` → bits, per, byte, none)."""
    return set(_WORD.findall(metric.lower()))


def metric_direction(metric: str) -> Direction:
    """What a metric's name says: ``higher``/``lower`` is better, a ``bias`` score (neither),
    or ``unknown`` (a bare ``score``: no word says)."""
    base = metric.split(",", 1)[0].strip().lower()
    words = metric_words(base)
    if base in BIAS_METRICS or words & BIAS_WORDS:
        return "bias"
    lower, higher = bool(words & LOWER_IS_BETTER_WORDS), bool(words & HIGHER_IS_BETTER_WORDS)
    if lower and higher:
        lower = bool(words & {"error", "err", "loss", "perplexity", "ppl"})
        higher = not lower
    if lower == higher:
        return "unknown"
    first = _WORD.findall(base)[:1]
    if first and first[0] in NEGATIONS:  # neg_rmse, neg_log_loss: the metric negated, higher is better
        lower = not lower
    return "lower" if lower else "higher"


def guess_higher_is_better(metric: str) -> bool:
    """Direction of a metric from its name: lower is better for perplexities, losses,
    errors, times; higher for everything else."""
    return metric_direction(metric) != "lower"


def names(items: list[str] | tuple[str, ...] | set[str], limit: int = 5) -> str:
    """A few names for a message: ``a, b, c … (12 in all)``."""
    items = sorted(items)
    head = ", ".join(items[:limit])
    return head if len(items) <= limit else f"{head} … ({len(items)} in all)"
