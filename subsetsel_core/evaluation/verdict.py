"""The one plain-language verdict of an evaluation, shared by the CLI, the dashboard and the report.

A strategy on a representation **helps** only when the permutation test
(:mod:`subsetsel_core.evaluation.permutation`) says so. Without that test (an explicit
``--permutations 0``) the verdict says *not tested*, and the Wilcoxon p appears only under
its own name, *vs random on these pools*; it is never positive. A test stopped before its
end gives no verdict. Every face shows one gain per entry (:func:`shown_gain`).
"""

from __future__ import annotations

from dataclasses import dataclass

from subsetsel_core.evaluation.permutation_result import (
    LEVEL,
    PermutationTest,
    gain_definition,
    p_phrase,
)
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text.rounding import format_p, text

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


def shown_gain(result: EvaluationResult, permutation: PermutationTest | None, key: str, metric: str) -> float:
    """The one gain of an entry every face shows: the permutation test's G when it covers the entry and the
    metric (over the trials it used), else direction × (mean AUC − random's mean AUC) over every trial."""
    if permutation is not None and key in permutation.gain and metric in permutation.metrics:
        return float(permutation.gain[key][metric])
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    return float(sign * (result.stats[key].auc[metric].mean - result.stats[BASELINE].auc[metric].mean))


def gain_note(result: EvaluationResult, permutation: PermutationTest | None) -> str:
    """How :func:`shown_gain` is computed, for the outputs' labels."""
    trials = permutation.trials if permutation is not None else result.trials_done
    return gain_definition(trials, result.trials_done)


def best_entry(result: EvaluationResult, metric: str, permutation: PermutationTest | None = None) -> str | None:
    """The non-random entry with the largest gain on ``metric`` (:func:`shown_gain`; None without one)."""
    keys = [e.key for e in result.entries if e.strategy != BASELINE]
    if not keys:
        return None
    return max(keys, key=lambda k: shown_gain(result, permutation, k, metric))


def favoured_entry(result: EvaluationResult, permutation: PermutationTest | None, metric: str) -> str | None:
    """The entry the evaluation favours: the helping entry with the largest gain, else the largest gain."""
    if permutation is not None and permutation.complete and metric in permutation.metrics:
        helping = [k for k in permutation.keys if permutation.helps(k, metric)]
        if helping:
            return max(helping, key=lambda k: permutation.gain[k][metric])
    return best_entry(result, metric, permutation)


def evaluation_verdict(result: EvaluationResult, permutation: PermutationTest | None, metric: str, *,
                       running: bool = False) -> Verdict:
    """The verdict of ``result`` on ``metric``, resting on ``permutation`` when it was run.

    Parameters
    ----------
    result : EvaluationResult
    permutation : PermutationTest or None
        Of the same evaluation; None: not tested (``--permutations 0``); unfinished: the live
        state when ``running``, else "stopped after b shuffles: no verdict".
    metric : str
    running : bool
        An unfinished ``permutation`` is still running (the dashboard's live verdict).
    """
    label = METRICS[metric].label
    prefix = "" if result.complete else f"Preliminary ({result.trials_done} of {result.config.trials} trials): "
    best = best_entry(result, metric, permutation)
    if best is None or result.trials_done < 2:
        return Verdict(prefix + f"Not enough to compare yet: {result.trials_done} trial(s) and no strategy "
                       "besides random.", False, False, best)
    span = f"{label}-AUC over k = {int(result.ks[0])}…{int(result.ks[-1])}"
    gain = text(shown_gain(result, permutation, best, metric), "gain")
    if permutation is None or metric not in permutation.metrics:
        p_pools = result.stats[best].p_vs_random.get(metric)
        return Verdict(prefix + f"Not tested — {NOT_TESTED} (the permutation test was switched off): the largest "
                       f"gain, {best}, is "
                       f"{gain} {span} over random (Wilcoxon {p_phrase(p_pools)} vs random on these pools, which "
                       "does not show that the descriptors help — the trials share datasets).", False, False, best)
    if not permutation.complete:
        state = permutation.progress(metric) if running else permutation.stopped_phrase()
        return Verdict(prefix + f"Permutation test {state}. Largest gain so far: {best}, {gain} {span} over "
                       "random.", False, False, best)
    fav = favoured_entry(result, permutation, metric) or best
    helping = [k for k in permutation.keys if permutation.helps(k, metric)]
    line = permutation.evidence(fav, metric)
    if helping:
        also = [k for k in helping if k != fav]
        text_ = f"{fav} helps: {line}."
        if also:
            text_ += " Also helps: " + ", ".join(also) + "."
        return Verdict(prefix + text_, True, True, fav)
    note = ""
    if permutation.smallest_p() >= LEVEL:
        note = (f" With B = {permutation.permutations} shuffles the smallest possible p is "
                f"{format_p(permutation.smallest_p())}: use at least {int(1 / LEVEL)} shuffles (the default is 199) to be "
                "able to see a help.")
    return Verdict(prefix + f"No evidence that any strategy helps on {label}: the best, {fav}, has {line}.{note}",
                   False, True, fav)


def cd_caption(permutation: PermutationTest | None) -> str:
    """What the critical-difference diagram does not say: whether the descriptors help."""
    if permutation is None:
        return (f"Whether any strategy helps was {NOT_TESTED} (--permutations 0): the diagram compares the "
                "strategies on these pools only.")
    return "Whether a strategy helps rests on the permutation test (the verdict), not on this diagram."
