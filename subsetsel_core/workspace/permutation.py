"""The permutation test of an evaluation in a workspace file: written as JSON, checked on load.

A workspace keeps the permutation test that followed an evaluation (the only test behind a
"helps" verdict), so a loaded evaluation is not "not tested". It is the ``permutation``
entry of the evaluation in ``workspace.json``: plain numbers and lists, every one checked
for type and range against the evaluation it belongs to before it is used.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.workspace.checks import Fields

_KEYS = ("keys", "metrics", "gain", "null", "p_raw", "p_adjusted", "permutations", "stop_after", "trials", "ks",
         "seed", "drawn", "complete", "verdict_metric", "stopped")
#: The fields of a test written by versions that adjusted with Holm (read back by recomputing maxT).
_OLD_KEYS = ("keys", "metrics", "gain", "null", "p_raw", "p_holm", "permutations", "stop_after", "trials", "ks",
             "seed", "drawn", "complete", "verdict_metric")
#: Most shuffles of a test held in a workspace.
MAX_PERMUTATIONS = 10**6


def permutation_meta(pt: PermutationTest) -> dict[str, Any]:
    """The test as the JSON object :func:`read_permutation` reads back."""
    def per(values: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        return {k: {m: float(values[k][m]) for m in pt.metrics} for k in pt.keys}

    return {
        "keys": list(pt.keys), "metrics": list(pt.metrics), "gain": per(pt.gain),
        "null": {k: {m: [float(x) for x in pt.null[k][m]] for m in pt.metrics} for k in pt.keys},
        "p_raw": per(pt.p_raw), "p_adjusted": per(pt.p_adjusted), "permutations": int(pt.permutations),
        "stop_after": None if pt.stop_after is None else int(pt.stop_after), "trials": int(pt.trials),
        "ks": [int(k) for k in pt.ks], "seed": int(pt.seed), "drawn": int(pt.drawn), "complete": bool(pt.complete),
        "verdict_metric": pt.verdict_metric, "stopped": {m: bool(pt.stopped.get(m, False)) for m in pt.metrics},
    }


def _number(f: Fields, value: Any, where: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise f.fail(where, "must be a finite number")
    if not low <= value <= high:
        raise f.fail(where, f"is {value}, outside {low:g}…{high:g}")
    return float(value)


def read_permutation(f: Fields, where: str, value: Any, result: EvaluationResult) -> PermutationTest:
    """The permutation test stored at ``where``, checked against the evaluation ``result``.

    A test written by an older version (Holm-adjusted, ``p_holm``) is read back when every
    entry drew the same shuffles: its adjusted p-values are recomputed by maxT from the stored
    null gains (the same shuffle b for every entry); otherwise it is refused with a message.

    Raises
    ------
    InputError
        A field missing, unknown, of the wrong type or out of range; entries or metrics the
        evaluation does not have; subset sizes, trials or seed that are not the evaluation's;
        an older test whose entries stopped at different shuffles.
    """
    old = isinstance(value, dict) and "p_holm" in value
    p = f.obj(value, where, _OLD_KEYS, _OLD_KEYS) if old else f.obj(value, where, _KEYS, _KEYS)
    tested = [e.key for e in result.entries if e.strategy != BASELINE]
    keys = f.names(p["keys"], f"{where}.keys", choices=tested)
    metrics = f.names(p["metrics"], f"{where}.metrics", choices=result.config.metrics)
    permutations = f.integer(p["permutations"], f"{where}.permutations", 1, MAX_PERMUTATIONS)
    stop_after = None if p["stop_after"] is None else f.integer(p["stop_after"], f"{where}.stop_after", 1,
                                                                 MAX_PERMUTATIONS)
    trials = f.integer(p["trials"], f"{where}.trials", 1, result.trials_done)
    if p["ks"] != [int(k) for k in result.ks]:
        raise f.fail(f"{where}.ks", "are not the subset sizes of the evaluation")
    seed = f.integer(p["seed"], f"{where}.seed", 0, 2**63 - 1)
    if seed != result.config.seed:
        raise f.fail(f"{where}.seed", "is not the seed of the evaluation")
    drawn = f.integer(p["drawn"], f"{where}.drawn", 0, permutations)
    complete = f.boolean(p["complete"], f"{where}.complete")
    verdict_metric = f.choice(p["verdict_metric"], f"{where}.verdict_metric", metrics)

    def per(name: str, low: float = -math.inf, high: float = math.inf) -> dict[str, dict[str, float]]:
        block = f.obj(p[name], f"{where}.{name}", keys, keys)
        return {k: {m: _number(f, v, f"{where}.{name}.{k}.{m}", low, high)
                    for m, v in f.obj(block[k], f"{where}.{name}.{k}", metrics, metrics).items()} for k in keys}

    null: dict[str, dict[str, np.ndarray]] = {}
    block = f.obj(p["null"], f"{where}.null", keys, keys)
    for k in keys:
        null[k] = {}
        for m, v in f.obj(block[k], f"{where}.null.{k}", metrics, metrics).items():
            if not isinstance(v, list) or len(v) > drawn:
                raise f.fail(f"{where}.null.{k}.{m}", f"must be a list of at most {drawn} numbers")
            null[k][m] = np.asarray([_number(f, x, f"{where}.null.{k}.{m}[{i}]") for i, x in enumerate(v)],
                                    dtype=float)
    gain = per("gain")
    stopped: dict[str, bool] = {}
    if old:
        p_raw, p_adj, top = _recomputed(f, where, keys, metrics, gain, null)
        drawn = max((int(null[keys[0]][m].size) for m in metrics), default=0)
    else:
        block = f.obj(p["stopped"], f"{where}.stopped", metrics, metrics)
        stopped = {m: f.boolean(block[m], f"{where}.stopped.{m}") for m in metrics}
        for m in metrics:
            if len({null[k][m].size for k in keys}) > 1:
                raise f.fail(f"{where}.null", f"holds different numbers of shuffles for the entries on {m}")
        p_raw, p_adj = per("p_raw", 0.0, 1.0), per("p_adjusted", 0.0, 1.0)
        top = {m: _top_hits([gain[k][m] for k in keys], [null[k][m] for k in keys]) for m in metrics}
    return PermutationTest(keys, metrics, gain, null, p_raw, p_adj, permutations, stop_after, trials,
                           np.asarray(result.ks, dtype=np.int64), seed, drawn, complete, verdict_metric, stopped, top)


def _top_hits(gains: list[float], nulls: list[np.ndarray]) -> int:
    """Shuffles whose largest null gain reaches the largest observed gain."""
    from subsetsel_core.evaluation.maxt import at_least

    if not gains or nulls[0].size == 0:
        return 0
    return int(at_least(np.max(np.column_stack(nulls), axis=1), max(gains)).sum())


def _recomputed(f: Fields, where: str, keys: tuple[str, ...], metrics: tuple[str, ...],
                gain: dict[str, dict[str, float]], null: dict[str, dict[str, np.ndarray]],
                ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]], dict[str, int]]:
    """maxT p-values of an older (Holm) test from its stored nulls, which must be joint."""
    from subsetsel_core.evaluation.maxt import Family

    p_raw: dict[str, dict[str, float]] = {k: {} for k in keys}
    p_adj: dict[str, dict[str, float]] = {k: {} for k in keys}
    top: dict[str, int] = {}
    for m in metrics:
        if len({null[k][m].size for k in keys}) > 1:
            raise f.fail(where, "was written by an older version (Holm's correction, entries stopped at different "
                         "shuffles) and cannot be converted to the maxT test; run the permutation test again")
        fam = Family.start(np.array([gain[k][m] for k in keys]), None)
        for row in np.column_stack([null[k][m] for k in keys]) if keys else []:
            fam.take(row)
        raw, adj = fam.raw(), fam.adjusted()
        top[m] = fam.top_hits
        for i, k in enumerate(keys):
            p_raw[k][m], p_adj[k][m] = float(raw[i]), float(adj[i])
    return p_raw, p_adj, top
