"""The representation check: geometry (Mantel, CKA), a quick protocol run and its permutation test.

:func:`quick_check` is what ``subsetsel check`` and the dashboard's Representation page run:
the Mantel test and CKA say whether the descriptor geometry follows the rank profiles; the
quick run gives each strategy's Spearman gain over random; the permutation test
(:mod:`subsetsel_core.evaluation.permutation`) says whether that gain is more than what
shuffled descriptors give — the only ground for "helps".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled
from subsetsel_core.evaluation.check import (
    MANTEL_PERMUTATIONS,
    RepresentationCheck,
    check_representation,
)
from subsetsel_core.evaluation.permutation import (
    STOP_AFTER,
    PermutationTest,
    iter_permutation_test,
    p_phrase,
)
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.evaluation.verdict import Verdict, evaluation_verdict
from subsetsel_core.ranks.metrics import HEADLINE
from subsetsel_core.representations.descriptors import Representation

if TYPE_CHECKING:
    import pandas as pd

#: Shuffles B of the check's permutation test: with the five strategies besides random, the
#: smallest Holm-adjusted p is 5 / (B + 1), so B must exceed 99 for any "helps" at 5 %.
CHECK_PERMUTATIONS = 199
METRIC = HEADLINE


def quick_verdict(check: RepresentationCheck, verdict: Verdict) -> str:
    """The check's sentence: what the geometry says, then the permutation verdict."""
    rep = check.representation
    geo = f"Mantel r = {check.mantel_r:.2f}, {p_phrase(check.mantel_p)}"
    if verdict.helps:
        tail = "" if not check.looks_like_noise else (
            f" Its distances do not follow the rank profiles globally ({geo}); the gain comes from spreading "
            "the subset over the descriptor space.")
        return f"'{rep}' helps — {verdict.text}{tail}"
    if check.looks_like_noise:
        return (f"'{rep}' looks like noise for this benchmark ({geo}). {verdict.text} "
                "Expect subsets chosen from it to be no better than a random draw.")
    return (f"'{rep}' tracks the rank profiles ({geo}), but: {verdict.text} "
            "Treat subsets chosen from it as no better than random.")


@dataclass(frozen=True, eq=False)
class QuickCheck:
    """The geometry check, the quick run and its permutation test for one representation.

    Attributes
    ----------
    check : RepresentationCheck
    result : EvaluationResult
        The quick run (Spearman only).
    permutation : PermutationTest
    """

    check: RepresentationCheck
    result: EvaluationResult
    permutation: PermutationTest

    @property
    def outcome(self) -> Verdict:
        """:func:`~subsetsel_core.evaluation.verdict.evaluation_verdict` of the quick run."""
        return evaluation_verdict(self.result, self.permutation, METRIC)

    @property
    def best(self) -> str:
        """The entry the verdict is about (the helping one with the largest gain, else the best AUC)."""
        return self.outcome.best or BASELINE

    @property
    def gain(self) -> float:
        """Its gain G (Spearman AUC minus random's, unnormalised)."""
        return self.permutation.gain[self.best][METRIC] if self.best in self.permutation.gain else 0.0

    @property
    def gain_normalised(self) -> float:
        """The gain divided by the k span (difference of mean Spearman over k)."""
        return self.gain / max(1, len(self.result.ks) - 1)

    @property
    def helps(self) -> bool:
        """Whether some strategy helps by the permutation test."""
        return self.outcome.helps

    @property
    def verdict(self) -> str:
        """:func:`quick_verdict` of the check and the test."""
        return quick_verdict(self.check, self.outcome)

    def table(self) -> pd.DataFrame:
        """Per entry, best gain first: AUC, gain, the shuffled null, both p-values, the verdict."""
        import pandas as pd

        pt, rows = self.permutation, []
        base = self.result.stats[BASELINE].auc[METRIC].mean
        for e in self.result.entries:
            s = self.result.stats[e.key]
            row: dict[str, object] = {"strategy": e.key, "Spearman AUC": s.auc[METRIC].mean,
                                      "gain over random": s.auc[METRIC].mean - base}
            if e.key in pt.gain:
                mu, sd = pt.null_summary(e.key, METRIC)
                row.update({"shuffled: mean gain": mu, "shuffled: sd": sd,
                            "p permutation (Holm)": pt.p_holm[e.key][METRIC],
                            "p vs random on these pools (Holm)": s.p_vs_random.get(METRIC),
                            "verdict": "helps" if pt.helps(e.key, METRIC) else "no evidence that it helps"})
            rows.append(row)
        df = pd.DataFrame(rows)
        for c in ("p permutation (Holm)", "p vs random on these pools (Holm)"):
            if c in df:
                df[c] = pd.to_numeric(df[c], errors="coerce")
        return df.sort_values("gain over random", ascending=False).reset_index(drop=True)


def quick_check(
    benchmark: Benchmark, representation: Representation, *, trials: int = 50, seed: int = 0,
    permutations: int = CHECK_PERMUTATIONS, stop_after: int | None = STOP_AFTER,
    mantel_permutations: int = MANTEL_PERMUTATIONS, progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> QuickCheck:
    """Mantel test and CKA, a quick protocol run (all strategies, Spearman) and its permutation test.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation
    trials : int
        Trials of the quick run (α = 0.8, k = 2 … min(20, n)); the permutation test uses them all.
    seed : int
    permutations : int
        B of the permutation test (early stop after ``stop_after`` exceedances).
    stop_after : int or None
    mantel_permutations : int
    progress : callable, optional
        Called with the fraction done (0 … 1): Mantel, the quick run's batches, then each permutation.
    should_stop : callable, optional
        Polled between steps.

    Raises
    ------
    Cancelled
        When ``should_stop`` returned True before the end.
    InputError
        A representation not aligned to the benchmark, bad trials or permutations.
    """
    from subsetsel_core.evaluation.protocol import iter_evaluate

    units = 1 + trials + permutations

    def report(done: float) -> None:
        if progress is not None:
            progress(min(1.0, done / units))

    def stop() -> None:
        if should_stop is not None and should_stop():
            raise Cancelled("the representation check was stopped.")

    chk = check_representation(benchmark, representation, permutations=mantel_permutations, seed=seed)
    report(1)
    stop()
    k_max = min(20, benchmark.n_datasets)
    cfg = EvaluationConfig(trials=trials, seed=seed, metrics=(METRIC,), k_min=min(2, k_max), k_max=k_max,
                           batch_size=max(1, min(10, trials // 10 or 1)))
    res = None
    for res in iter_evaluate(benchmark, {representation.name: representation}, cfg, should_stop=should_stop):
        report(1 + res.trials_done)
    if res is None or not res.complete:
        raise Cancelled("the representation check was stopped.")
    pt = None
    for pt in iter_permutation_test(benchmark, {representation.name: representation}, cfg, observed=res,
                                    permutations=permutations, stop_after=stop_after, verdict_metric=METRIC,
                                    should_stop=should_stop):
        report(units if pt.complete else 1 + trials + pt.drawn)
    if pt is None or not pt.complete:
        raise Cancelled("the representation check was stopped.")
    return QuickCheck(chk, res, pt)
