"""Which layout a score table has: long, or wide with datasets or with models as rows.

The evidence steps of :func:`subsetsel_core.io.guess.table.guess_table`: :func:`long_roles`
finds the dataset, model, fold and score columns of a long table, :func:`orientation`
weighs what says "one row per model" against what says "one row per dataset".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.io.guess.column_kinds import Column
from subsetsel_core.io.guess.header_words import (
    DATASET_WORDS,
    FOLD_WORDS,
    MODEL_WORDS,
    SCORE_WORDS,
    direction_of,
    has_word,
    looks_like_model,
    pick,
    tokens,
)
from subsetsel_core.io.guess.metric_names import metric_of

#: Sample of rows the long-table check classifies columns on.
SAMPLE_ROWS = 5000
_DERIVED_MODEL = ("rank", "win", "winrate", "ranking")
_AVERAGE = ("average", "avg", "mean", "overall")
#: Last words of a long table's column naming each row's metric (OpenML's evaluations name it ``function``).
METRIC_COLUMN = ("metric", "measure", "function")
_GENERIC_SCORE = ("result", "value", "score")
_COSTS = ("time", "runtime", "latency", "seconds", "duration")
_OTHER_SPLITS = ("val", "valid", "validation", "train", "dev")
_SPREAD = ("std", "stderr", "sd", "se", "sem", "ci", "err", "var", "variance")


@dataclass(frozen=True)
class LongRoles:
    """The columns of a long table, and what was not certain about them."""

    dataset: str
    model: str
    score: str
    fold: str | None
    unsure: tuple[str, ...] = ()


def is_key(col: Column) -> bool:
    """Whether a column can hold names: text, or whole numbers."""
    if col.kind == "text":
        return True
    v = col.numbers[np.isfinite(col.numbers)]
    return col.kind == "number" and v.size > 0 and bool(np.all(v % 1 == 0))


def fold_column(columns: Sequence[str], kinds: Mapping[str, Column], avoid: Sequence[str] = ()) -> str | None:
    """A column named as folds / seeds / splits that can hold fold labels."""
    keys = [c for c in columns if c not in avoid and is_key(kinds[c]) and kinds[c].distinct < max(kinds[c].present, 2)]
    return pick(keys, FOLD_WORDS)


def _name_column(keys: Sequence[str], kinds: Mapping[str, Column], words: Sequence[str],
                 other: str | None) -> str | None:
    """The column of names named by ``words``: a column named so as a whole (``dataset``), else
    a text column with one of the words (``framework``, ``data_name``), else a whole-number one —
    never ``models_count`` before a text ``framework``."""
    cands = [c for c in keys if c != other]
    whole = [c for c in cands if c.strip().lower() in words]
    if whole:
        return pick(whole, words)
    return pick([c for c in cands if kinds[c].kind == "text"], words) or pick(cands, words)


#: Words of a text column that describe datasets (ProteinGym's ``Taxon``, ``UniProt ID``; a corpus' ``Language``).
DATASET_META = ("taxon", "taxa", "uniprot", "species", "organism", "domain", "modality", "language", "languages",
                "selection", "subject", "genre")

#: The cells of a yes/no column (EvalPlus's ``prompted``, a leaderboard's ``Open?``): a flag, never names.
FLAG_CELLS = frozenset({"true", "false", "yes", "no", "y", "n", "t", "f", "✓", "✗", "✔", "✘", "x", "-", ""})


def is_flag(cells: pd.Series) -> bool:
    """Whether every cell of a column is a yes/no word or mark (``TRUE``/``FALSE``, ``yes``/``no``, ``✓``)."""
    values = {str(v).strip().lower() for v in cells.dropna().unique()}
    return bool(values - {"", "-"}) and values <= FLAG_CELLS


def _names_metrics(column: str) -> bool:
    """Whether a column is named as the one naming each row's metric (``Metric``, ``measure``)."""
    words = tokens(column)
    return bool(words) and words[-1] in METRIC_COLUMN


def long_roles(df: pd.DataFrame, kinds: Mapping[str, Column], given: Mapping[str, str | None]) -> LongRoles | None:
    """The columns of a long table, or None when the table does not look long.

    Long: a dataset column and a model column (named so, or two text columns whose
    values repeat while no text column is unique) and a number column of scores.
    ``given`` holds the columns the user named (role → column or None; fold ``""``: no
    fold column).
    """
    cols = list(df.columns)
    flags = {c for c in cols if kinds[c].kind == "text" and kinds[c].distinct <= 2 and is_flag(df[c])}
    keys = [c for c in cols if is_key(kinds[c]) and c not in flags]  # a yes/no column names no datasets or models
    d, m = given.get("dataset"), given.get("model")
    unsure: list[str] = []
    if d is None:
        d = _name_column(keys, kinds, DATASET_WORDS, m)
    if m is None:
        m = _name_column(keys, kinds, MODEL_WORDS, d)
    if d is None or m is None:
        repeating = [c for c in cols if kinds[c].kind == "text" and kinds[c].distinct < kinds[c].present
                     and c not in (d, m) and c not in flags and not _names_metrics(c)]
        unique_text = [c for c in cols if kinds[c].kind == "text" and kinds[c].distinct == kinds[c].present]
        pool = ([d] if d else []) + ([m] if m else []) + repeating
        if unique_text or len(pool) < 2 or (given.get("score") is None and len(repeating) > 2):
            return None
        a, b = pool[:2]
        if d is None and m is None:  # more datasets than models is the usual benchmark
            d, m = (a, b) if kinds[a].distinct >= kinds[b].distinct else (b, a)
            unsure.append(f"dataset_column: '{d}' taken for datasets and '{m}' for models by their numbers of "
                          "names; swap them if it is the other way round")
        elif d is None:
            d = a if a != m else b
        else:
            m = a if a != d else b
    if d is None or m is None or d == m or not (is_key(kinds[d]) and is_key(kinds[m])):
        return None
    unique = [c for c in (d, m) if kinds[c].distinct == kinds[c].present]
    n_numbers = sum(kinds[c].kind == "number" for c in cols if c not in (d, m))
    if len(unique) == 2 or (unique and n_numbers >= 3 and given.get("score") is None):
        return None  # one row per name and many number columns: a wide table
    fold = given.get("fold")
    if fold is None:
        fold = fold_column(cols, kinds, avoid=[d, m])
    fold = fold or None
    score = given.get("score")
    if score is None:
        numbers = [c for c in cols if c not in (d, m, fold) and kinds[c].kind == "number"]
        if not numbers:
            return None
        score, said = _score_column(cols, kinds, numbers, (d, m, fold))
        if said:
            unsure.append(said)
        named = sum(metric_of(c) is not None or "stderr" in c.lower() for c in numbers)
        if said and len(numbers) >= 3 and fold is None and not df.duplicated([d, m]).any() and named * 2 <= len(
                numbers):  # most number columns name metrics (acc, acc_stderr, acc_norm …): a long table's metrics
            shown = ", ".join(f"'{c}'" for c in numbers[:3]) + (" …" if len(numbers) > 3 else "")
            unsure.append(f"layout: each ('{d}', '{m}') pair has one row, next to {len(numbers)} number columns "
                          f"({shown}): the table may be wide, each row named by the two columns together (a dataset "
                          "and a model, or a method and its backbone); if so, join them into one name column and say "
                          "whether the rows are datasets or models")
    return LongRoles(d, m, score, fold, tuple(unsure))


def _score_column(cols: Sequence[str], kinds: Mapping[str, Column], numbers: Sequence[str],
                  roles: Sequence[str | None]) -> tuple[str, str]:
    """A long table's score column, and what was not certain about it (``""``: nothing).

    Next to a column naming each row's metric (``metric``: ``auc``, ``neg_logloss``), the score
    is the column named for the value of that metric (``result``, ``value``, ``score``), as in
    the AutoML benchmark's results. Otherwise the column named as a score, then the one column
    that names a metric; two or more columns naming metrics (``MASE`` and ``WQL``) are in doubt.
    """
    metric_col = any(_names_metrics(c) and kinds[c].kind == "text"
                     for c in cols if c not in roles)
    if metric_col and (generic := pick(numbers, _GENERIC_SCORE)) is not None:
        return generic, ""
    metrics = [c for c in numbers if direction_of(c) is not None and not has_word(c, _SPREAD)]
    plain = [c for c in metrics if not has_word(c, _COSTS)]  # times next to a metric: costs, not scores
    metrics = plain or metrics
    stems = {" ".join(tokens(c)) for c in metrics}
    metrics = [c for c in metrics if not (len(t := tokens(c)) > 1 and t[-1] in _OTHER_SPLITS
                                          and " ".join(t[:-1]) in stems)] or metrics  # metric_error_val
    named = pick(numbers, SCORE_WORDS)
    if named is not None and (named not in metrics or len(metrics) < 2 or pick([named], _GENERIC_SCORE)):
        return named, ""
    if len(metrics) == 1:
        return metrics[0], ""
    if len(metrics) > 1:
        return metrics[0], (f"score_column: {len(metrics)} columns name metrics ({_listed(metrics)}); took "
                            f"'{metrics[0]}' — name the one to rank by")
    score = numbers[-1]
    return score, (f"score_column: {len(numbers)} number columns and none named as a score; took '{score}'"
                   if len(numbers) > 1 else "")


@dataclass(frozen=True)
class Orientation:
    """What the columns say about the rows.

    Attributes
    ----------
    models, datasets : int
        Weight of the evidence that rows are models, and that they are datasets.
    because_models, because_datasets : tuple of str
        That evidence in words.
    """

    models: int
    datasets: int
    because_models: tuple[str, ...]
    because_datasets: tuple[str, ...]

    @property
    def lean(self) -> int:
        """Positive: rows are models; negative: datasets; near 0: unsure."""
        return self.models - self.datasets


def orientation(name: str, names: pd.Series, kinds: Mapping[str, Column], others: Sequence[str],
                values: Sequence[str]) -> Orientation:
    """Weigh the evidence that the rows of a wide table are models, or datasets.

    Parameters
    ----------
    name : str
        The column of row names.
    names : Series
        Its cells.
    kinds : mapping
        Every column, classified.
    others : sequence of str
        Columns that are not scores (set aside: text, dates, sizes, derived …).
    values : sequence of str
        The score columns (their headers name the other axis).
    """
    mod: list[tuple[int, str]] = []
    dat: list[tuple[int, str]] = []
    if has_word(name, MODEL_WORDS):
        mod.append((3, f"the row names are in a '{name}' column"))
    if has_word(name, DATASET_WORDS):
        dat.append((3, f"the row names are in a '{name}' column"))
    derived = [c for c in others if has_word(c, _DERIVED_MODEL)]
    if derived:
        mod.append((3, f"{_listed(derived)} {'ranks' if len(derived) == 1 else 'rank'} the rows as a leaderboard does"))
    averages = [c for c in others if has_word(c, _AVERAGE) and c not in derived]
    if averages:
        mod.append((1, f"{_listed(averages)} averages over the columns"))
    sizes = [c for c in others if kinds[c].kind == "size"]
    if sizes:
        mod.append((2, f"{_listed(sizes)} holds model sizes"))
    dates = [c for c in others if kinds[c].kind == "date"]
    if dates:
        mod.append((1, f"{_listed(dates)} holds dates"))
    meta = [c for c in others if kinds[c].kind == "text" and kinds[c].named_meta]
    if meta:
        mod.append((2, f"{_listed(meta)} describes models"))
    about = [c for c in others if kinds[c].kind == "text" and has_word(c, DATASET_META)]
    if about:
        dat.append((2, f"{_listed(about)} {'describes' if len(about) == 1 else 'describe'} datasets"))
    text = names.astype(str)
    if len(text) and text.map(looks_like_model).mean() >= 0.5:
        mod.append((2, "the row names look like model names"))
    if values and np.mean([looks_like_model(v) for v in values]) >= 0.5:
        dat.append((2, "the column names look like model names"))
    if values and np.mean([direction_of(v) is not None for v in values]) >= 0.5:
        mod.append((2, "the column names carry metric names"))
    return Orientation(sum(w for w, _ in mod), sum(w for w, _ in dat), tuple(t for _, t in mod),
                       tuple(t for _, t in dat))


def _listed(columns: Sequence[str]) -> str:
    shown = ", ".join(f"'{c}'" for c in columns[:4])
    return shown + (" …" if len(columns) > 4 else "")
