"""Columns that are another form of task columns: :func:`raw_twins` (``IFEval Raw`` next to
``IFEval``), :func:`differences` (``top1_diff`` next to ``top1``), :func:`complements` (``top1_err`` =
100 − ``top1`` in every row), :func:`spreads` (``acc_stderr``, ``standard_error``, ``MMLU (SE)`` next to ``MMLU``),
:func:`metric_twins` (one task scored with two metrics: in doubt)
and :func:`partial_means` (``Natural`` = the mean of the seven columns before it,
as VTAB tables give a mean per group of tasks; ``STEM`` = the mean of subjects spread over the
table, as MMLU tables give a mean per category, equal-weighted or weighted by each subject's
questions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np

from subsetsel_core.io.guess.column_kinds import MIN_SHARE, SPARE_ROWS, Column, mean_kind
from subsetsel_core.io.guess.header_words import direction_of, tokens
from subsetsel_core.io.guess.metric_names import STRONG, metric_of
from subsetsel_core.io.guess.scales import correlations

SMOOTHER = 0.6
"""A mean of s columns of independent parts has about 1/s of their spread: a column is tried
only when its part's variance is at most SMOOTHER times the median of the others' (a task
column seldom is, so most tables cost nothing)."""
MAX_GROUP = 40
"""The most columns a mean spread over the table is looked for among."""
FIT_ROWS = 400
"""Rows the columns are chosen on (every claim is then checked on every row)."""
MAX_COLUMNS = 80
"""Tables with more number columns than this are not searched for partial means (pairs of
column runs grow with the square)."""
_RAW = frozenset({"raw", "unnormalized", "unnormalised"})


def _affix_twins(columns: Sequence[str], affixes: frozenset[str], why: str) -> dict[str, str]:
    """Column → ``why`` (with ``{twin}``), for a column named ``<X> <affix>`` or ``<affix> <X>`` when ``<X>`` is a
    column too."""
    by_words = {" ".join(tokens(c)): c for c in columns}
    out = {}
    for c in columns:
        words = tokens(c.replace("Δ", " delta "))
        if len(words) < 2 or not ({words[0], words[-1]} & affixes):
            continue
        rest = " ".join(w for i, w in enumerate(words) if not (w in affixes and i in (0, len(words) - 1)))
        twin = by_words.get(rest)
        if twin is not None and twin != c:
            out[c] = why.format(twin=twin)
    return out


def raw_twins(columns: Sequence[str]) -> dict[str, str]:
    """Column → why it is set aside, for ``<X> Raw`` (or ``Raw <X>``, ``<X> (raw)``) when ``<X>``
    is a column too: the same task before the leaderboard normalised it."""
    return _affix_twins(columns, _RAW, "the raw form of '{twin}' (the same task before the leaderboard's "
                                       "normalisation)")


_DIFF = frozenset({"diff", "difference", "delta", "change", "gap", "drop", "gain"})


def differences(columns: Sequence[str]) -> dict[str, str]:
    """Column → why it is set aside, for ``<X>_diff`` (``<X> delta``, ``Δ<X>``, ``diff <X>``) when ``<X>`` is a
    column too: X's difference from another result (timm's ``top1_diff`` against ImageNet-1k), a derived column."""
    return _affix_twins(columns, _DIFF, "the difference of '{twin}' from another result (a derived column), not a "
                                        "task")


_ERROR_WORDS = frozenset({"err", "error", "errors", "loss"})
_MAX_PAIRS = 20_000


def complements(kinds: Mapping[str, Column], columns: Sequence[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Columns that are 100 (or 1) minus another column in every row: the same task's score turned round.

    Returns
    -------
    reasons : dict of str to str
        The side named as an error or by a lower-is-better metric (timm's ``top1_err`` next to ``top1``,
        Vectara's ``Hallucination Rate`` next to ``Factual Consistency Rate``), set aside with why.
    flagged : list of (str, str)
        Pairs whose names say neither side is the error: in doubt, the second read as a task.
    """
    reasons: dict[str, str] = {}
    flagged: list[tuple[str, str]] = []
    if len(columns) ** 2 > _MAX_PAIRS:
        return reasons, flagged  # a wide table: no pair search
    lower = {c for c in columns if set(tokens(c)) & _ERROR_WORDS or ((m := metric_of(c)) is not None
                                                                       and m.higher_is_better is False)}
    for i, c in enumerate(columns):
        if c in reasons:
            continue
        for other in columns[i + 1:]:
            if other in reasons or (c in lower) == (other in lower) and (c in lower):
                continue
            whole = _sums_to(kinds[c], kinds[other])
            if whole is None:
                continue
            if c in lower or other in lower:
                err, kept = (c, other) if c in lower else (other, c)
                reasons[err] = (f"{whole:g} − '{kept}' in every row (its error: the same task turned round), "
                                "not a task")
            else:
                flagged.append((other, f"set_aside: '{other}' is {whole:g} − '{c}' in every row: the same task "
                                       "turned round, not a task of its own; read as a task"))
            break
    return reasons, flagged


def _sums_to(a: Column, b: Column) -> float | None:
    """100 or 1 when two columns add up to it in every row both fill (three rows at least, to their rounding)."""
    both = np.isfinite(a.numbers) & np.isfinite(b.numbers)
    if both.sum() < 3:
        return None
    tol = 0.51 * (10.0 ** -a.decimals + 10.0 ** -b.decimals) + 1e-9
    if min(np.ptp(a.numbers[both]), np.ptp(b.numbers[both])) <= 10 * tol:
        return None  # a constant or coarsely rounded column matches anything within its rounding
    total = a.numbers[both] + b.numbers[both]
    for whole in (100.0, 1.0):
        if np.all(np.abs(total - whole) <= tol):
            return whole
    return None


_SPREAD_WORDS = frozenset({"stderr", "std", "stdev", "stddev", "sem", "variance", "ci95"})
_SPREAD_PAIRS = frozenset({("standard", "error"), ("standard", "deviation"), ("std", "dev"), ("std", "err"),
                           ("confidence", "interval")})
_SPREAD_TAILS = frozenset({"se", "sd", "err", "ci", "var"})
"""Short spread words, read as one only after the name of another column (``MMLU SE`` next to ``MMLU``)."""


def spreads(columns: Sequence[str]) -> dict[str, str]:
    """Column → why it is set aside, for a column named as the spread of a score (a standard error,
    deviation or confidence interval: ``acc_stderr``, ``lc_standard_error``, ``MMLU ± std``,
    ``95% CI``, ``MMLU (SE)`` when ``MMLU`` is a column): the uncertainty of a score, not a score."""
    by_words = {" ".join(tokens(c)): c for c in columns}
    out = {}
    for c in columns:
        words = tokens(c)
        named = (bool(_SPREAD_WORDS & set(words)) or any(p in _SPREAD_PAIRS for p in pairwise(words))
                 or "±" in c or "+/-" in c or (words[-2:-1] == ["95"] and words[-1:] == ["ci"]))
        twin = by_words.get(" ".join(words[:-1])) if len(words) > 1 and words[-1] in _SPREAD_TAILS else None
        if named or (twin is not None and twin != c):
            out[c] = "the spread of a score (a standard error, deviation or interval), not a score" + (
                f": of '{twin}'" if twin is not None and twin != c else "")
    return out


def _task_and_metric(header: str) -> tuple[str, str, bool | None] | None:
    """The task, the metric and its direction of ``<task> - <metric>``, ``<task>_<metric>`` or
    ``<task> <metric>`` (a metric word that names one on its own: ``acc``, ``acc_norm``, ``f1``), or
    None. A qualifier in brackets is not part of the metric (``EM (Robustness)`` is EM)."""
    m, head = metric_of(header), header.rstrip()
    if m is not None and not m.whole and head.endswith(m.metric):
        task = " ".join(tokens(head[: -len(m.metric)]))
        return (task, " ".join(tokens(m.metric.split("(")[0])), m.higher_is_better) if task else None
    words = tokens(header)
    for n in (2, 1):
        if len(words) > n and "_".join(words[-n:]) in STRONG:
            return " ".join(words[:-n]), "_".join(words[-n:]), direction_of("_".join(words[-n:]))
    return None


TWIN_CORRELATION = 0.9
"""Two metrics of one task that follow each other this closely over the rows measure the same thing."""


def metric_twins(kinds: Mapping[str, Column], columns: Sequence[str]) -> list[tuple[str, str]]:
    """(column, ``unsure`` entry) for a column that scores the task of an earlier column with another
    metric of the same direction that it follows closely (``arc_challenge acc`` and ``arc_challenge
    acc_norm``, ``MMLU - EM`` and ``MMLU - F1``): every column is a dataset, so the task would count
    twice. Variants of one metric (``EM (Robustness)``) and metrics of other things (calibration
    error next to accuracy) are tasks of their own."""
    by_task: dict[str, list[tuple[str, str, bool | None]]] = {}
    for c in columns:
        found = _task_and_metric(str(c))
        if found is not None:
            by_task.setdefault(found[0], []).append((c, found[1], found[2]))
    out = []
    for group in by_task.values():
        for j, (c, metric, up) in enumerate(group):
            first = next((g for g in group[:j] if g[1] != metric and g[2] == up and up is not None
                          and _follows(kinds[g[0]].numbers, kinds[c].numbers)), None)
            if first is not None:
                out.append((c, f"set_aside: '{c}' scores the task of '{first[0]}' with another metric that follows it "
                               "closely: the task would count twice; read as a task"))
    return out


def _follows(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` correlate at :data:`TWIN_CORRELATION` or more over five rows or more."""
    ok = np.isfinite(a) & np.isfinite(b)
    return bool(ok.sum() >= 5 and correlations(a[:, None], b[:, None], ok[:, None])[0] >= TWIN_CORRELATION)


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
        else:
            why = _spread_mean(m, j, [i for i, x in enumerate(order) if i != j and x not in out], order, tol)
            if why:
                out[c] = why
    return out


def _spread_mean(m: np.ndarray, j: int, others: Sequence[int], order: Sequence[str], tol: float) -> str | None:
    """Why column j of m (rows, columns) is a mean of some of ``others`` spread over the table —
    equal weights, or non-negative weights summing to one (a mean weighted by each task's
    size) — within ``tol`` on every row; None if it is not.

    Each column less the row mean of all is what sets it apart from the rest (the models'
    common strength taken out); the columns are then taken one at a time, each time the one
    whose part follows most closely what is left to explain (orthogonal matching pursuit, the
    weights refitted non-negative with their sum held at one). After each step the columns
    used (and those left when the ones of almost no weight are dropped) are checked
    (:func:`~subsetsel_core.io.guess.column_kinds.mean_kind`). At most one column per :data:`SPARE_ROWS` rows is used, so the
    sparsest explanation, on rows enough to tell, is the one claimed; only a column smoother
    than the others is tried (:data:`SMOOTHER`).
    """
    steps = min(len(others), len(m) // SPARE_ROWS, MAX_GROUP)
    if steps < 2:
        return None
    from scipy.optimize import nnls  # only for tables with candidate columns

    fit = np.linspace(0, len(m) - 1, min(len(m), FIT_ROWS)).astype(int)
    a, v = m[:, others], m[:, j]
    af, vf = a[fit], v[fit]
    common = m[fit].mean(axis=1)
    part = af - common[:, None]
    part = part - part.mean(axis=0)
    own = vf - common
    if float(np.var(own)) > SMOOTHER * float(np.median(np.var(part, axis=0))):
        return None
    norms = np.linalg.norm(part, axis=0)
    norms[norms == 0] = np.inf
    scale = 100.0 * max(float(np.abs(v).max()), 1.0)
    used: list[int] = []
    left = own
    for _ in range(steps):
        score = part.T @ (left - left.mean()) / norms  # weights are non-negative: only columns that follow it
        score[used] = -1.0
        used.append(int(np.argmax(score)))
        w, _ = nnls(np.vstack([af[:, used], np.full(len(used), scale)]), np.append(vf, scale))
        left = vf - af[:, used] @ w
        if len(used) < 2:
            continue
        kept = [u for u, x in zip(used, w, strict=True) if x >= MIN_SHARE / len(used)]
        for cols in (kept, used) if 2 <= len(kept) < len(used) else (used,):
            kind = mean_kind(a[:, cols], v, tol, scale)
            if kind:
                names = sorted((order[others[i]] for i in cols), key=order.index)
                shown = ", ".join(f"'{x}'" for x in names[:4]) + (" …" if len(names) > 4 else "")
                return f"{kind} the {len(cols)} columns {shown} (a mean of a group of tasks)"
    return None
