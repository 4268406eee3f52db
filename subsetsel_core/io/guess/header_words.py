"""What the words of a header say: the roles their words name (datasets, models, folds, scores, dates, sizes),
a metric's direction (``rmse`` lower, ``neg_rmse`` higher), and whether a header names an aggregate of the tasks or
a rank of the rows (``Average``, ``Rank``; not ``Average Precision``, ``Rank-1``). Words only: no cells are read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

DATASET_WORDS = ("dataset", "datasets", "data", "task", "tasks", "problem", "problems", "benchmark",
                 "scenario", "scenarios", "subject", "subtask", "corpus", "environment", "game")
MODEL_WORDS = ("model", "models", "classifier", "method", "methods", "algorithm", "algo", "estimator",
               "system", "learner", "llm", "agent", "submission", "regressor", "solver", "approach", "framework",
               "frameworks", "tracker", "trackers", "detector", "policy")
FOLD_WORDS = ("fold", "folds", "seed", "seeds", "resample", "split", "repeat", "rep", "run", "iteration",
              "trial", "replicate", "cv")
SCORE_WORDS = ("score", "accuracy", "acc", "value", "metric", "result", "error", "auc", "f1")
#: Metric words that mean lower scores are better, and those that mean higher ones are.
LOWER_WORDS = frozenset({"rmse", "mae", "mse", "mape", "smape", "rmsle", "error", "errors", "err", "loss",
                         "logloss", "nll", "time", "runtime", "seconds", "latency", "perplexity", "ppl",
                         "wer", "cer", "ece", "brier", "mase", "crps", "wql", "msis", "nrmse", "wape", "rmsse",
                         "nd", "owa"})  # GluonTS's normalised deviation; M4's overall weighted average
HIGHER_WORDS = frozenset({"accuracy", "acc", "f1", "auc", "auroc", "roc", "em", "bleu", "rouge", "rougel",
                          "ndcg", "map", "mrr", "precision", "recall", "r2", "kappa", "mcc", "spearman",
                          "pearson", "correlation", "chrf", "meteor", "bertscore", "rr", "hit", "pass", "elo"})
DATE_WORDS = frozenset({"date", "release", "released", "published", "launch", "year", "created"})
#: Words that, before ``score``, name a leaderboard's overall score (``Score``, ``GLUE Score``).
OVERALL_SCORE = frozenset({"overall", "total", "final", "aggregate", "combined", "glue", "superglue", "benchmark",
                           "leaderboard", "mean", "average", "avg"})
RANK_WORDS = frozenset({"rank", "ranking", "position", "pos", "place"})
"""Words that name a rank of the rows (``#`` and ``No.`` number them, which may be a rank or the order of a paper's
rows)."""
CMC_RANK = re.compile(r"\b(?:rank|r)\s*[-@_]?\s*\d+\b(?![.\d])", re.IGNORECASE)
"""``Rank-1``, ``R@5``, ``rank10``: retrieval's and re-identification's accuracy at rank k (higher is better), no rank
of the rows."""


AVERAGE_WORDS = frozenset({"average", "avg", "mean", "overall", "total", "aggregate"})
"""Words that name an aggregate of the task columns (``Average``, ``Mean score``, ``Overall``, ``Total``)."""
_METRIC_PHRASE = re.compile(r"\b(?:mean |m)?average precision\b|\bmean (?:reciprocal rank|absolute|squared|iou|rank)\b"
                            r"|\baverage (?:return|reward|episode)\b", re.IGNORECASE)
"""Metric names with an aggregate word in them (``Average Precision``, ``Mean Reciprocal Rank``, RL's ``Average
Return``): a task's metric, not an aggregate of tasks."""
_CONDITION = frozenset({"w", "with", "wo", "without", "excl", "excluding", "incl", "including", "except", "no"})
_QUALIFIED = frozenset({"overall", "total"})
"""Aggregate words that also qualify a task (VBench's ``Overall Consistency``, a dimension): an aggregate only with
nothing after them but score or metric words."""


def names_average(name: str) -> bool:
    """Whether a header names an aggregate of the task columns by its words (``Average``, ``Avg.``, ``Mean score``,
    ``Overall``, ``Total (%)``); not a metric named with such a word (``Average Precision``), nor ``Overall
    <something>`` that names a task of its own (``Overall Consistency``)."""
    words = tokens(_METRIC_PHRASE.sub(" ", str(name)))
    found = set(words) & AVERAGE_WORDS
    if not found:
        return False
    if found <= _QUALIFIED:
        cut = next((i for i, w in enumerate(words) if w in _CONDITION), len(words))  # "Overall w/ Style Control"
        rest = [w for w in words[:cut] if w not in AVERAGE_WORDS and not w.isdigit()]
        return all(w in OVERALL_SCORE or w in {"score", "scores", "pct", "percent"} or w in LOWER_WORDS
                   or w in HIGHER_WORDS for w in rest)
    return True


def names_rank(name: str) -> bool:
    """Whether a header names a rank of the rows by its words (``Rank``, ``Model_rank``, ``Position``; not
    ``Rank-1``, an accuracy)."""
    return bool(set(tokens(name)) & RANK_WORDS) and CMC_RANK.search(str(name)) is None
SIZE_WORDS = frozenset({"params", "parameters", "param", "size", "nparams", "billion"})
META_WORDS = frozenset({"company", "organization", "organisation", "org", "developer", "creator", "provider",
                         "license", "licence", "vendor", "author", "authors", "type", "family", "access",
                         "precision", "architecture", "hub", "link", "url"})
_TOKEN = re.compile(r"[a-z0-9]+")
_MODEL_NAME = re.compile(r"\d+(?:\.\d+)?\s*[bm]\b|/|\b(?:gpt|llama|mistral|mixtral|claude|gemini|qwen|phi|falcon"
                         r"|gemma|bert|roberta|t5|bloom|palm|instruct|chat|davinci|turbo|deepseek|vicuna)",
                         re.IGNORECASE)


def tokens(text: str) -> list[str]:
    """The lower-case words of a name (``"MMLU - EM"`` → ``["mmlu", "em"]``)."""
    return _TOKEN.findall(str(text).lower())


def has_word(name: str, words: Iterable[str]) -> bool:
    """Whether the name is one of ``words`` or has one of them as a word."""
    w = set(words)
    low = str(name).strip().lower()
    return low in w or any(t in w for t in tokens(low))


def pick(columns: Sequence[str], words: Sequence[str], avoid: Iterable[str] = ()) -> str | None:
    """The first column named by one of ``words``: whole names first, then words of names."""
    skip = set(avoid)
    cands = [c for c in columns if c not in skip]
    low = {c: c.strip().lower() for c in cands}
    for w in words:
        for c in cands:
            if low[c] == w:
                return c
    for w in words:
        for c in cands:
            if w in tokens(low[c]):
                return c
    return None


#: Leading words that negate a metric (``neg_rmse``, ``neg_log_loss``: scikit-learn's and the AutoML
#: benchmark's higher-is-better forms of lower-is-better metrics).
NEGATIONS = frozenset({"neg", "negative", "negated", "minus"})


def negated(name: str) -> bool:
    """Whether a metric's name starts with a negation (``neg_logloss``, ``negative rmse``)."""
    words = tokens(name)
    return bool(words) and words[0] in NEGATIONS and len(words) > 1


def direction_of(name: str, *, lower: frozenset[str] = LOWER_WORDS) -> bool | None:
    """What a metric's name says about direction: True (higher is better), False, or None
    (``neg_rmse`` is higher-is-better: the negation turns the metric's direction)."""
    t = set(tokens(name))
    lo, hi = bool(t & lower), bool(t & HIGHER_WORDS)
    if lo == hi:
        return None
    return hi != negated(name)


def looks_like_model(name: str) -> bool:
    """Whether a name looks like a model's (``llama-2-7b-chat``, ``org/model``, ``GPT-4``)."""
    return bool(_MODEL_NAME.search(str(name)))
