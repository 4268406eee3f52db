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

_KEYS = ("keys", "metrics", "gain", "null", "p_raw", "p_holm", "permutations", "stop_after", "trials", "ks", "seed",
         "drawn", "complete", "verdict_metric")
#: Most shuffles of a test held in a workspace.
MAX_PERMUTATIONS = 10**6


def permutation_meta(pt: PermutationTest) -> dict[str, Any]:
    """The test as the JSON object :func:`read_permutation` reads back."""
    def per(values: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        return {k: {m: float(values[k][m]) for m in pt.metrics} for k in pt.keys}

    return {
        "keys": list(pt.keys), "metrics": list(pt.metrics), "gain": per(pt.gain),
        "null": {k: {m: [float(x) for x in pt.null[k][m]] for m in pt.metrics} for k in pt.keys},
        "p_raw": per(pt.p_raw), "p_holm": per(pt.p_holm), "permutations": int(pt.permutations),
        "stop_after": None if pt.stop_after is None else int(pt.stop_after), "trials": int(pt.trials),
        "ks": [int(k) for k in pt.ks], "seed": int(pt.seed), "drawn": int(pt.drawn), "complete": bool(pt.complete),
        "verdict_metric": pt.verdict_metric,
    }


def _number(f: Fields, value: Any, where: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise f.fail(where, "must be a finite number")
    if not low <= value <= high:
        raise f.fail(where, f"is {value}, outside {low:g}…{high:g}")
    return float(value)


def read_permutation(f: Fields, where: str, value: Any, result: EvaluationResult) -> PermutationTest:
    """The permutation test stored at ``where``, checked against the evaluation ``result``.

    Raises
    ------
    InputError
        A field missing, unknown, of the wrong type or out of range; entries or metrics the
        evaluation does not have; subset sizes, trials or seed that are not the evaluation's.
    """
    p = f.obj(value, where, _KEYS, _KEYS)
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
    return PermutationTest(keys, metrics, per("gain"), null, per("p_raw", 0.0, 1.0), per("p_holm", 0.0, 1.0),
                           permutations, stop_after, trials, np.asarray(result.ks, dtype=np.int64), seed, drawn,
                           complete, verdict_metric)
