"""Tables of an evaluation for people: the AUC table the Evaluate page, the report and ``subsetsel report`` show.

Numbers stay numbers (rounded where shown, by :mod:`subsetsel_core.text.rounding`); intervals,
p-values and verdicts are text.
"""

from __future__ import annotations

import pandas as pd

from subsetsel_core.evaluation.permutation_result import PermutationTest, null_phrase
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.evaluation.verdict import NOT_TESTED, shown_gain
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text.rounding import format_p, text

__all__ = ["auc_table"]


def auc_table(result: EvaluationResult, metric: str, permutation: PermutationTest | None = None, *,
              pending: bool = False) -> pd.DataFrame:
    """The AUC rows of one metric, best first, with readable columns (p-values as text: "< 1e-4", "—").

    ``gain over random`` is :func:`~subsetsel_core.evaluation.verdict.shown_gain`, the number the
    verdict and the JSON show; ``pending``: the permutation test is still running (else an
    unfinished test was stopped: no verdict).
    """
    df = result.to_frame()
    df = df[df["metric"] == metric].sort_values("auc_mean", ascending=not METRICS[metric].higher_is_better)
    tested = permutation is not None and permutation.complete and metric in permutation.metrics

    def null(key: str) -> str:
        if not tested or permutation is None or key not in permutation.gain:
            return "—"
        return null_phrase(permutation.null[key][metric])

    def perm_p(key: str) -> str:
        return format_p(permutation.p_adjusted[key][metric]) if tested and permutation is not None and \
            key in permutation.gain else "—"

    def helps(key: str, strategy: str) -> str:
        if strategy == BASELINE:
            return "baseline"
        if permutation is None or metric not in permutation.metrics:
            return NOT_TESTED
        if not tested:
            return "permutation test running" if pending else permutation.stopped_phrase()
        return "helps" if permutation.helps(key, metric) else "no evidence that it helps"

    out = pd.DataFrame({
        "strategy": df["strategy"],
        "representation": df["representation"].fillna("—"),
        "verdict": [helps(k, s) for k, s in zip(df["key"], df["strategy"], strict=True)],
        "gain over random": [0.0 if s == BASELINE else shown_gain(result, permutation, k, metric)
                             for k, s in zip(df["key"], df["strategy"], strict=True)],
        "shuffled descriptors: gain": [null(k) for k in df["key"]],
        "p permutation (maxT)": [perm_p(k) for k in df["key"]],
        "p vs random on these pools (Holm)": ["—" if s == BASELINE else format_p(p)
                                              for s, p in zip(df["strategy"], df["p_vs_random"], strict=True)],
        "AUC": df["auc_mean"],
        "AUC 95% interval": [f"[{text(lo, 'auc')}, {text(hi, 'auc')}]"
                             for lo, hi in zip(df["auc_lo"], df["auc_hi"], strict=True)],
        "normalised AUC": df["auc_mean"] / max(1, len(result.ks) - 1),
    })
    if out["representation"][out["representation"] != "—"].nunique() <= 1:
        out = out.drop(columns=["representation"])
    return out.reset_index(drop=True)
