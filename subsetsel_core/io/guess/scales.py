"""Columns of a wide table on another scale or of another type than its task columns: :func:`other_scales`.

A column named as a model's attribute (:data:`ATTRIBUTE_WORDS`, likes, ``# tokens``) on another
scale is set aside; so is an unnamed column on another scale among many task columns, or one of
percentages next to tasks scored 0–1. Among few task columns (:data:`FEW_TASKS`) an unnamed column
on another scale may be a task scored on its own scale: it is read as a task and listed in
``unsure``, with whether it follows the rows' mean scores.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from subsetsel_core.io.guess.column_kinds import Column
from subsetsel_core.io.guess.header_words import has_word
from subsetsel_core.io.guess.metric_names import MetricName, arrow_of
from subsetsel_core.text.rounding import text

#: "# eval", "Number of Mutants", AlpacaEval's "n_wins", "num_samples", "sample_count"
_COUNT_PART = re.compile(r"(?:^|\s[-–—|:/]\s*)#\s*\w|^(?:number|num|count) of\b|_count$|^(?:n|num|count)_(?:wins?|draws?"
                         r"|loss(?:es)?|ties?|total|samples?|examples?|questions?|items?|instances?|tokens?|params?"
                         r"|parameters|layers?|shots?|tasks?|runs?|votes?|battles?|ratings?|models?|answers?|evals?"
                         r"|train|test)\b", re.IGNORECASE)  # not reasoning-gym's tasks count_bits, n_queens
_MONEY = re.compile(r"[$€£¥]|\b(?:usd|eur|cost|costs|price|prices)\b", re.IGNORECASE)
_ATTRIBUTE_MARKS = ("❤", "♥", "⭐", "👍", "★")  # likes and stars
#: Words that name a model's attribute, not a task (``Memory Usage (GB, fp32)``, ``Embedding Dimensions``).
ATTRIBUTE_WORDS = frozenset({"memory", "dimension", "dimensions", "dim", "dims", "tokens", "gflops", "flops", "macs",
                             "throughput", "likes", "downloads", "hearts", "votes", "gb", "mb", "cutoff", "vocab",
                             "seqlen", "cost", "price", "co2", "emissions", "rtf", "rtfx", "speed", "speedup",
                             "fps", "qps", "truncated", "crop", "latency"})


def named_count(col: Column) -> bool:
    """Whether a column is named as a count (``# eval``, ``Number of Mutants``, ``n_wins``) and holds whole numbers:
    a count, not a score, whatever the other columns hold."""
    v = col.numbers[np.isfinite(col.numbers)]
    return _COUNT_PART.search(col.name) is not None and v.size > 0 and bool(np.all(v % 1 == 0))


def correlations(a: np.ndarray, b: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Pearson correlation of each column of ``a`` with the same column of ``b`` over the rows ``ok``."""
    w = ok.astype(float)
    n = np.maximum(w.sum(axis=0), 1.0)
    a0, b0 = np.where(ok, a, 0.0), np.where(ok, b, 0.0)
    ma, mb = a0.sum(axis=0) / n, b0.sum(axis=0) / n
    da, db = (a0 - ma) * w, (b0 - mb) * w
    den = np.sqrt((da**2).sum(axis=0) * (db**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (da * db).sum(axis=0) / np.where(den > 0, den, 1.0), 0.0)


FEW_TASKS = 20
"""Below this many task columns, an unnamed column on another scale may be a task scored on its own
scale (OCRBench's 0–1000 and MME's 0–2800 next to 0–100 benchmarks): in doubt, not set aside, unless
it holds percentages next to tasks scored 0–1. Among more task columns, one column on another scale
is not one of them (Acc@5 next to 1,000 per-class accuracies)."""
FOLLOWS = 0.7
"""The rank correlation with the rows' mean scores from which a column is said to follow them."""


def _row_mean(columns: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of each row over the finite values of ``columns`` (NaN for a row with none)."""
    m = np.column_stack(columns)
    fin = np.isfinite(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(fin, m, 0.0).sum(axis=1) / fin.sum(axis=1)


def _follows_the_rows(values: np.ndarray, mean: np.ndarray) -> float | None:
    """The rank correlation of ``values`` with the rows' mean scores over the rows where both are
    known (at least five), when it is at least :data:`FOLLOWS`; else None."""
    ok = np.isfinite(values) & np.isfinite(mean)
    if ok.sum() < 5:
        return None
    a, b = pd.Series(values[ok]).rank().to_numpy(), pd.Series(mean[ok]).rank().to_numpy()
    r = float(correlations(a[:, None], b[:, None], np.ones((len(a), 1), dtype=bool))[0])
    return r if r >= FOLLOWS else None


def other_scales(kinds: Mapping[str, Column], plain: Sequence[str], ref: Sequence[str],
                 metric: Mapping[str, MetricName | None], reasons: dict[str, str], flagged: list[tuple[str, str]]) -> None:
    """Columns on another scale or of another type than the task columns ``ref``, added to
    ``reasons`` (set aside) or ``flagged`` (in doubt) as the module docstring says."""
    if len(ref) < 2:
        return
    step = max(1, len(ref) // 200)  # the task columns' range, from up to 200 of them
    ref_vals = np.concatenate([kinds[c].numbers for c in ref[::step]])
    ref_vals = ref_vals[np.isfinite(ref_vals)]
    if ref_vals.size == 0:
        return
    lo, hi = float(np.quantile(ref_vals, 0.01)), float(np.quantile(ref_vals, 0.99))
    ref_whole = all(bool(np.all(v[np.isfinite(v)] % 1 == 0)) for v in (kinds[c].numbers for c in ref))
    unnamed = [c for c in plain if not _named_attribute(c, metric[c])]  # attributes by name are not among the tasks
    strong = len(ref) >= 3 and len(ref) * 4 >= 3 * len(unnamed)
    in_ref = set(ref)
    mean = _row_mean([kinds[c].numbers for c in ref])
    for c in plain:
        m = metric[c]
        if c in reasons or (m is not None and not m.whole):
            continue  # "<task> - <metric>": a task's own metric, whatever its scale
        v = kinds[c].numbers[np.isfinite(kinds[c].numbers)]
        if v.size == 0:
            continue
        whole = bool(np.all(v % 1 == 0)) and not ref_whole
        codes = whole and kinds[c].distinct >= max(5, 0.9 * kinds[c].present)
        what = ("whole numbers, one per row (codes or ids)" if codes else "whole numbers (counts)" if whole
                else "numbers")
        inside = float(np.mean((v >= lo) & (v <= hi)))
        attribute = _named_attribute(c, m)
        if attribute and (inside < 0.5 or whole or _MONEY.search(c) is not None):  # a cost is no task's score
            reasons[c] = (f"a model attribute by its name; {what} {_range(v.min(), v.max())} "
                          f"(the {len(ref)} task columns: {_range(lo, hi)})")
            continue
        if attribute:
            flagged.append((c, f"set_aside: '{c}' is named as a model attribute, not a task, but holds numbers on the "
                               "task columns' scale; read as a task"))
            continue
        if c not in in_ref and inside < 0.5 and arrow_of(c) is None:  # an arrow (FID↓, Recall↑) declares a score
            why = f"{what} {_range(v.min(), v.max())}, on another scale than the {len(ref)} task columns ({_range(lo, hi)})"
            percent = (0.0 <= lo and hi <= 1.0 and float(v.min()) >= 0.0 and float(v.max()) <= 100.0  # of 0–1 tasks
                       and float(np.mean((v / 100 >= lo) & (v / 100 <= hi))) >= 0.5)  # and lie where they do
            if strong and (len(ref) >= FEW_TASKS or percent):
                reasons[c] = why
                continue
            follows = _follows_the_rows(kinds[c].numbers, mean)
            also = ("" if follows is None else f", and it follows the rows' mean scores (rank correlation "
                    f"{text(follows, 'correlation')})")
            flagged.append((c, f"set_aside: '{c}' holds {why}{also}: a task scored on its own scale, or not a task; "
                               "read as a task"))
        elif whole and kinds[c].present >= 5:
            flagged.append((c, f"set_aside: '{c}' holds {what} among task columns that are not whole numbers; read "
                               "as a task"))


def _named_attribute(column: str, m: MetricName | None) -> bool:
    """Whether a column is named as a model's attribute (its size, memory, cost, speed, likes; a count), not as a
    task's own metric."""
    return (m is None or m.whole) and (has_word(column, ATTRIBUTE_WORDS) or any(e in column for e in _ATTRIBUTE_MARKS)
                                       or _COUNT_PART.search(column) is not None)


def _range(lo: float, hi: float) -> str:
    """``lo–hi`` as scores are written."""
    return f"{text(float(lo), 'score')}–{text(float(hi), 'score')}"
