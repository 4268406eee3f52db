"""The one plain-language verdict of an evaluation, shared by the CLI, the dashboard and the report.

A strategy on a representation **helps** only when the permutation test
(:mod:`subsetsel_core.evaluation.permutation`) says so. Without that test the verdict names
the best entry and its Wilcoxon p-value *vs random on these pools* and says plainly that the
descriptors were not tested against shuffled ones; it is never positive.
"""

from __future__ import annotations

from dataclasses import dataclass

from subsetsel_core.evaluation.permutation import (
    LEVEL,
    PermutationTest,
    p_phrase,
    permutations_needed,
)
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.ranks.metrics import METRICS

NOT_TESTED = "not tested against shuffled descriptors"
"""The label of every result that the permutation test has not judged."""


@dataclass(frozen=True)
class Verdict:
    """A verdict on one metric.

    Attributes
    ----------
    text : str
        Plain sentences (no Markdown).
    helps : bool
        Some entry helps by the permutation test (the only case shown as a success).
    tested : bool
        A finished permutation test stands behind the text.
    best : str or None
        The entry the verdict is about (the helping one with the largest gain, else the
        entry with the best AUC).
    """

    text: str
    helps: bool
    tested: bool
    best: str | None


def settings_label(result: EvaluationResult) -> str:
    """``"seed 0, T = 200 trials, α = 0.8, β = 1, k = 2…20"``: what the numbers were computed with."""
    c = result.config
    t = f"{result.trials_done} of {c.trials}" if not result.complete else f"{c.trials}"
    return (f"seed {c.seed}, T = {t} trials, α = {c.alpha:g}, β = {c.beta:g}, "
            f"k = {int(result.ks[0])}…{int(result.ks[-1])}")


def best_entry(result: EvaluationResult, metric: str) -> str | None:
    """The non-random entry with the best mean AUC on ``metric`` (None without one)."""
    keys = [e.key for e in result.entries if e.strategy != BASELINE]
    if not keys:
        return None
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    return max(keys, key=lambda k: sign * result.stats[k].auc[metric].mean)


def favoured_entry(result: EvaluationResult, permutation: PermutationTest | None, metric: str) -> str | None:
    """The entry the evaluation favours: the helping entry with the largest gain, else the best AUC."""
    if permutation is not None and permutation.complete and metric in permutation.metrics:
        helping = [k for k in permutation.keys if permutation.helps(k, metric)]
        if helping:
            return max(helping, key=lambda k: permutation.gain[k][metric])
    return best_entry(result, metric)


def evaluation_verdict(result: EvaluationResult, permutation: PermutationTest | None, metric: str) -> Verdict:
    """The verdict of ``result`` on ``metric``, resting on ``permutation`` when it was run.

    Parameters
    ----------
    result : EvaluationResult
    permutation : PermutationTest or None
        Of the same evaluation; None (or unfinished) gives the untested verdict.
    metric : str
    """
    label = METRICS[metric].label
    prefix = "" if result.complete else f"Preliminary ({result.trials_done} of {result.config.trials} trials): "
    best = best_entry(result, metric)
    if best is None or result.trials_done < 2:
        return Verdict(prefix + f"Not enough to compare yet: {result.trials_done} trial(s) and no strategy "
                       "besides random.", False, False, best)
    span = f"{label}-AUC over k = {int(result.ks[0])}…{int(result.ks[-1])}"
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    gain = sign * (result.stats[best].auc[metric].mean - result.stats[BASELINE].auc[metric].mean)
    p_pools = result.stats[best].p_vs_random.get(metric)
    pools = f"Wilcoxon {p_phrase(p_pools)} vs random on these pools"
    if permutation is None or not permutation.complete or metric not in permutation.metrics:
        why = "the permutation test is still running" if permutation is not None and not permutation.complete \
            else NOT_TESTED
        return Verdict(prefix + f"Best: {best}, gain {gain:+.2f} {span} over random ({pools}). "
                       f"{why[0].upper() + why[1:]}: this does not show that the descriptors help — the trials "
                       "share datasets, so that p-value overstates the evidence.", False, False, best)
    fav = favoured_entry(result, permutation, metric) or best
    helping = [k for k in permutation.keys if permutation.helps(k, metric)]
    line = permutation.evidence(fav, metric)
    if helping:
        also = [k for k in helping if k != fav]
        text = f"{fav} helps: {line}."
        if also:
            text += " Also helps: " + ", ".join(also) + "."
        return Verdict(prefix + text, True, True, fav)
    small = permutation.smallest_p()
    note = ""
    if small >= LEVEL:
        note = (f" With {len(permutation.keys)} entries and B = {permutation.permutations} shuffles the smallest "
                f"possible Holm-adjusted p is {small:.3f}: raise B to at least "
                f"{permutations_needed(len(permutation.keys))} to be able to see a help.")
    return Verdict(prefix + f"No evidence that any strategy helps on {label}: the best, {fav}, has {line}.{note}",
                   False, True, fav)
