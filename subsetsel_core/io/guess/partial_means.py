"""Columns that are another form of task columns: :func:`raw_twins` (``IFEval Raw`` next to
``IFEval``) and :func:`partial_means` (``Natural`` = the mean of the seven columns before it,
as VTAB tables give a mean per group of tasks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from subsetsel_core.io.guess.column_kinds import Column, tokens

MAX_COLUMNS = 80
"""Tables with more number columns than this are not searched for partial means (pairs of
column runs grow with the square)."""
_RAW = frozenset({"raw", "unnormalized", "unnormalised"})


def raw_twins(columns: Sequence[str]) -> dict[str, str]:
    """Column → why it is set aside, for ``<X> Raw`` (or ``Raw <X>``, ``<X> (raw)``) when ``<X>``
    is a column too: the same task before the leaderboard normalised it."""
    by_words = {" ".join(tokens(c)): c for c in columns}
    out = {}
    for c in columns:
        words = tokens(c)
        if len(words) < 2 or not ({words[0], words[-1]} & _RAW):
            continue
        rest = " ".join(w for i, w in enumerate(words) if not (w in _RAW and i in (0, len(words) - 1)))
        twin = by_words.get(rest)
        if twin is not None and twin != c:
            out[c] = f"the raw form of '{twin}' (the same task before the leaderboard's normalisation)"
    return out


def partial_means(kinds: Mapping[str, Column], order: Sequence[str], tested: Sequence[str]) -> dict[str, str]:
    """Column of ``tested`` → why it is set aside, for a column equal (to its rounding) to the
    mean of a run of two or more other columns of ``order`` (the file's column order) that does
    not hold it, on every row where all are numbers."""
    if len(order) > MAX_COLUMNS or len(order) < 4:
        return {}
    m = np.column_stack([kinds[c].numbers for c in order])
    rows = np.isfinite(m).all(axis=1)
    if rows.sum() < 5:
        return {}
    m = m[rows]
    csum = np.concatenate([np.zeros((m.shape[0], 1)), np.cumsum(m, axis=1)], axis=1)
    out: dict[str, str] = {}
    pos = {c: i for i, c in enumerate(order)}
    for c in tested:
        j = pos.get(c)
        if j is None:
            continue
        v = m[:, j]
        tol = 0.51 * 2 * 10.0 ** -max(kinds[c].decimals, 0) + 1e-9
        if np.ptp(v) <= 4 * tol:
            continue
        for length in range(len(order) - 2, 1, -1):  # all the others: the row mean, checked elsewhere
            found = None
            for a in range(0, len(order) - length + 1):
                b = a + length
                if a <= j < b or any(x in out for x in order[a:b]):
                    continue
                if float(np.max(np.abs((csum[:, b] - csum[:, a]) / length - v))) <= tol:
                    found = (a, b)
                    break
            if found:
                a, b = found
                out[c] = f"the row mean of the {b - a} columns '{order[a]}' … '{order[b - 1]}' (a mean of a group of tasks)"
                break
    return out
