"""The JSON of an evaluation with its permutation test and the full benchmark's stability.

One function for every face that writes it: ``subsetsel evaluate --out`` and the
dashboard's "Results (JSON)" download.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from subsetsel_core.evaluation.permutation_result import NOT_TESTED_NOTE, PermutationTest
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.evaluation.stability import Stability

if TYPE_CHECKING:
    from subsetsel_core.evaluation.theory import Theory


def evaluation_json(result: EvaluationResult, permutation: PermutationTest | None = None,
                    stability: Stability | None = None, theory: Mapping[str, Theory] | None = None,
                    provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """:meth:`EvaluationResult.to_json_dict` plus, per entry, ``gain`` (the one every face shows),
    ``p_permutation`` (maxT-adjusted), ``p_permutation_raw`` and ``helps`` (when the test ran) and ``theory`` (FAFI entries, when given: the coverage bound of
    :func:`~subsetsel_core.evaluation.theory.entry_theories`), and at the top
    ``permutation_test``, ``ceiling``, ``rank_intervals`` and ``adjacent_pairs`` (when the
    stability was computed).

    Per entry ``p_vs_random`` stays: the Wilcoxon test *vs random on these pools*, conditional
    on the one representation (PROTOCOL.md); only ``helps`` says whether it helps.
    """
    from subsetsel_core.evaluation.verdict import gain_note, shown_gain

    out = result.to_json_dict()
    for e in result.entries:  # the one gain every face shows (also without the test)
        if e.strategy != BASELINE and e.key in out["results"]:
            out["results"][e.key]["gain"] = {m: shown_gain(result, permutation, e.key, m) for m in result.config.metrics}
    out["gain_definition"] = gain_note(result, permutation)
    if permutation is not None:
        per = permutation.to_json_dict()
        for key, extra in per.items():
            out["results"][key].update(extra)
        out["permutation_test"] = {
            "permutations": permutation.permutations, "stop_after": permutation.stop_after,
            "trials": permutation.trials, "seed": permutation.seed, "drawn": permutation.drawn,
            "complete": permutation.complete, "verdict_metric": permutation.verdict_metric,
            "smallest_possible_p": permutation.smallest_p(), "description": permutation.describe(),
            "method": "Westfall–Young step-down maxT, one family per metric over every entry",
            "family": list(permutation.keys),
            "stopped_early": {m: bool(permutation.stopped.get(m, False)) for m in permutation.metrics},
            "shuffles": {m: permutation.shuffles(m) for m in permutation.metrics},
        }
        if not permutation.complete:
            out["note"] = permutation.stopped_phrase()
    else:
        out["permutation_test"] = None
        out["note"] = NOT_TESTED_NOTE
    if stability is not None:
        out.update(stability.to_json_dict())
    for key, th in (theory or {}).items():
        if key in out["results"]:
            out["results"][key]["theory"] = th.to_json_dict()
    if provenance is not None:  # what made it (subsetsel_core.outputs.provenance)
        out["provenance"] = dict(provenance)
    return out
