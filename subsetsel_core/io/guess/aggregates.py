"""What a leaderboard's aggregate columns say about its direction: :func:`aggregate_hints`.

An aggregate column (``Average``, ``Mean``, ``Score``, ``GLUE Score``) is checked against
the row means of the task columns; when it follows them, it is evidence twice over:

* a Rank column against it — rank 1 at the highest aggregate says higher is better (the
  check a Rank column gets against the row means themselves, for tables whose row means
  are off: pair cells left out, a baseline row);
* the order of the rows — leaderboards list the best first, so rows listed by the
  aggregate from the highest down say higher is better, from the lowest up lower is better.

An aggregate that neither follows the row means nor rises with most task columns one by one
says nothing (it may average other columns, or weigh them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from subsetsel_core.io.guess.column_kinds import Column, row_means, spearman
from subsetsel_core.io.guess.header_words import OVERALL_SCORE, names_average, names_rank, tokens
from subsetsel_core.text.rounding import text

MIN_ROWS = 5
"""Rows an order must have to count as evidence."""
FOLLOWS = 0.7
"""Rank correlation with the row means an aggregate needs to speak for the task columns."""
RISES = 0.5
"""Else, the median rank correlation with the task columns one by one it needs (a table whose
row means are off: a baseline row, diagnostic columns)."""


def overall_score(name: str) -> bool:
    """Whether a header names a leaderboard's overall score (``Score``, ``GLUE Score``, ``Overall score``)."""
    words = tokens(name)
    return bool(words) and words[-1] == "score" and set(words[:-1]) <= OVERALL_SCORE


def is_aggregate(name: str) -> bool:
    """Whether a header names an aggregate of the task columns (an average or an overall score)."""
    return names_average(name) or overall_score(name)


def is_rank(name: str) -> bool:
    """Whether a header names a rank of the rows."""
    return names_rank(name) or name.strip().lower() in ("#", "no", "no.")


def _order(v: np.ndarray) -> int:
    """+1: the rows are listed from the highest value down; -1: from the lowest up; 0: neither."""
    x = v[np.isfinite(v)]
    if x.size < MIN_ROWS or np.ptp(x) == 0 or len(np.unique(x)) < MIN_ROWS - 1:
        return 0
    d = np.diff(x)
    if np.all(d <= 0):
        return 1
    if np.all(d >= 0):
        return -1
    return 0


def _per_column(v: np.ndarray, ref_m: np.ndarray) -> list[float]:
    """Rank correlation of ``v`` with each task column that has five or more rows beside it."""
    ok = np.isfinite(v)[:, None] & np.isfinite(ref_m)
    return [spearman(v, ref_m[:, j]) for j in range(ref_m.shape[1]) if ok[:, j].sum() >= MIN_ROWS]


def aggregate_hints(kinds: Mapping[str, Column], candidates: Sequence[str], reasons: dict[str, str],
                    ref_m: np.ndarray) -> list[tuple[str, bool]]:
    """Direction evidence from the aggregate columns among ``candidates`` (columns named as
    derived), checked against the row means of the task columns ``ref_m``.

    ``reasons`` (column → why it is set aside) is updated for a Rank column that follows an
    aggregate when it does not follow the row means.
    """
    if ref_m.shape[1] == 0 or ref_m.shape[0] < MIN_ROWS:
        return []
    mean = row_means(ref_m)
    follow: dict[str, str] = {}
    for c in candidates:
        if is_aggregate(c) and not is_rank(c):
            rho = spearman(kinds[c].numbers, mean)
            if rho >= FOLLOWS:
                follow[c] = f"it follows the rows' mean scores, rank correlation {text(rho, 'correlation')}"
                continue
            per = _per_column(kinds[c].numbers, ref_m)
            med = float(np.median(per)) if per else 0.0
            if len(per) >= 3 and med >= RISES:
                follow[c] = (f"it rises with most task columns, median rank correlation {text(med, 'correlation')} "
                             f"over {len(per)}")
    hints: list[tuple[str, bool]] = []
    for c, how_follows in follow.items():
        order = _order(kinds[c].numbers)
        if order:
            how = "the highest first" if order > 0 else "the lowest first"
            hints.append((f"the rows are listed by the '{c}' column, {how} ({how_follows}; leaderboards list the "
                          "best first)", order > 0))
    for c in candidates:
        if not is_rank(c) or not reasons.get(c, "").startswith("named a rank"):
            continue  # a rank that follows the row means already spoke
        for a in follow:
            r = spearman(kinds[c].numbers, kinds[a].numbers)
            if abs(r) >= 0.9:
                up = r < 0
                reasons[c] = f"a rank of the rows by '{a}'" + ("" if up else ", 1 = lowest")
                hints.append((f"the '{c}' column: rank 1 has the {'highest' if up else 'lowest'} '{a}' "
                              f"({follow[a].removeprefix('it ')})", up))
                break
        else:
            per = _per_column(kinds[c].numbers, ref_m)
            med = float(np.median(per)) if per else 0.0
            if per and abs(med) >= 0.9:
                up = med < 0
                reasons[c] = "a rank of the rows" + ("" if up else ", 1 = lowest scores")
                hints.append((f"the '{c}' column: rank 1 has the {'highest' if up else 'lowest'} scores on most task "
                              f"columns (median rank correlation {text(-med if up else med, 'correlation')} over "
                              f"{len(per)})", up))
    return hints


def rank_look(matrix: np.ndarray, models_on_rows: bool) -> str | None:
    """Why the scores look like ranks of the models (None: they do not).

    Every score is a whole number from 1 to at most the number of models M, most datasets' scores
    start at 1 and typically reach ¾ M or more — the shape of a table of ranks per category
    (lower is better), which no score's name need say; a 1–5 or 1–10 rating of many models is not.
    ``matrix`` has one row per model when ``models_on_rows``, else one column per model.
    """
    per_dataset = matrix.T if models_on_rows else matrix  # one row per dataset, one column per model
    n_models = per_dataset.shape[1]
    fin = np.isfinite(per_dataset)
    if n_models < MIN_ROWS - 1 or not fin.all(axis=1).any() or fin.sum() < 2 * n_models:
        return None
    rows = fin.any(axis=1)
    lo = np.where(fin, per_dataset, np.inf).min(axis=1)[rows]
    hi = np.where(fin, per_dataset, -np.inf).max(axis=1)[rows]
    whole = bool(np.all(np.where(fin, per_dataset, 0) % 1 == 0))
    if (not whole or lo.min() < 1 or hi.max() > n_models or np.mean(lo == 1) < 0.5
            or np.median(hi) < 0.75 * n_models):
        return None
    return (f"every score is a whole number from 1 to at most {n_models}, the number of models: they look like "
            "ranks (lower is better) rather than scores")
