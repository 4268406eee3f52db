"""The representation check: geometry (Mantel, CKA), a quick protocol run and its permutation test.

:func:`quick_check` is what the dashboard's Representation page runs, :func:`quick_checks`
what ``subsetsel check`` runs for several representations: the Mantel test and CKA say
whether the descriptor geometry follows the rank profiles; the quick run gives each
strategy's Spearman gain over random; the permutation test
(:mod:`subsetsel_core.evaluation.permutation`) says whether that gain is more than what
shuffled descriptors give — the only ground for "helps". With several representations the
run and the test cover them all at once: one family, one shuffle of every descriptor table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    PERMUTATIONS,
    STOP_AFTER,
    PermutationTest,
    iter_permutation_test,
    p_phrase,
)
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.ranks.metrics import HEADLINE
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    import pandas as pd

#: Shuffles B of the check's permutation test (maxT: the smallest p is 1 / (B + 1) whatever the entries).
CHECK_PERMUTATIONS = PERMUTATIONS
#: Trials of the check's quick run: as many as the permutation test reads by default (T′).
CHECK_TRIALS: int = SETTINGS["check_trials"].default
METRIC = HEADLINE


def quick_verdict(check: RepresentationCheck, verdict: QuickOutcome) -> str:
    """The check's sentence: what the geometry says, then the permutation verdict."""
    rep = check.representation
    geo = f"Mantel r = {text(check.mantel_r, 'correlation')}, {p_phrase(check.mantel_p)}"
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


@dataclass(frozen=True)
class QuickOutcome:
    """The verdict of one representation's entries in the shared test (the fields of a ``Verdict``)."""

    text: str
    helps: bool
    tested: bool
    best: str | None


@dataclass(frozen=True, eq=False)
class QuickCheck:
    """The geometry check of one representation, with the quick run and the permutation test it shares.

    Attributes
    ----------
    check : RepresentationCheck
    result : EvaluationResult
        The quick run (Spearman only), of every representation checked together.
    permutation : PermutationTest
        One family over every entry of ``result``.
    """

    check: RepresentationCheck
    result: EvaluationResult
    permutation: PermutationTest

    @property
    def keys(self) -> tuple[str, ...]:
        """This representation's tested entries."""
        rep = self.check.representation
        several = len({e.representation for e in self.result.entries if e.representation}) > 1
        return tuple(e.key for e in self.result.entries
                     if e.strategy != BASELINE and (not several or e.representation == rep))

    @property
    def outcome(self) -> QuickOutcome:
        """The verdict on this representation's entries, resting on the shared test."""
        pt, keys = self.permutation, self.keys
        if not keys:
            return QuickOutcome("No strategy besides random to check.", False, False, None)
        helping = [k for k in keys if pt.helps(k, METRIC)]
        best = max(helping or keys, key=lambda k: pt.gain[k][METRIC])
        line = pt.evidence(best, METRIC)
        if not pt.complete:
            return QuickOutcome(f"Permutation test {pt.stopped_phrase()}.", False, False, best)
        if helping:
            also = [k for k in helping if k != best]
            return QuickOutcome(f"{best} helps: {line}." + (f" Also helps: {', '.join(also)}." if also else ""),
                                True, True, best)
        return QuickOutcome(f"No evidence that any strategy helps on Spearman ρ: the best, {best}, has {line}.",
                            False, True, best)

    @property
    def best(self) -> str:
        """The entry the verdict is about (the helping one with the largest gain, else the largest gain)."""
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
        """Whether some strategy on this representation helps by the permutation test."""
        return self.outcome.helps

    @property
    def verdict(self) -> str:
        """:func:`quick_verdict` of the check and the test."""
        return quick_verdict(self.check, self.outcome)

    def table(self) -> pd.DataFrame:
        """Per entry of this representation, best gain first: AUC, gain, the shuffled null, both p-values, the verdict."""
        import pandas as pd

        pt, rows, keys = self.permutation, [], set(self.keys)
        for e in self.result.entries:
            if e.strategy != BASELINE and e.key not in keys:
                continue
            s = self.result.stats[e.key]
            row: dict[str, object] = {"strategy": e.key, "Spearman AUC": s.auc[METRIC].mean,
                                      "gain over random": pt.gain[e.key][METRIC] if e.key in pt.gain else 0.0}
            if e.key in pt.gain:
                mu, sd = pt.null_summary(e.key, METRIC)
                row.update({"shuffled: mean gain": mu, "shuffled: sd": sd,
                            "shuffles": pt.null[e.key][METRIC].size,
                            "p permutation (maxT)": pt.p_adjusted[e.key][METRIC] if pt.complete else None,
                            "p vs random on these pools (Holm)": s.p_vs_random.get(METRIC),
                            "verdict": ("helps" if pt.helps(e.key, METRIC) else "no evidence that it helps")
                            if pt.complete else pt.stopped_phrase()})
            rows.append(row)
        df = pd.DataFrame(rows)
        for c in ("p permutation (maxT)", "p vs random on these pools (Holm)"):
            if c in df:
                df[c] = pd.to_numeric(df[c], errors="coerce")
        return df.sort_values("gain over random", ascending=False).reset_index(drop=True)

    def gain_line(self) -> str:
        """``"best gain +0.33 (kmeans [ucr_info])"`` for a one-line summary."""
        return f"best gain {text(self.gain, 'gain')} ({self.best})"


def quick_check(
    benchmark: Benchmark, representation: Representation, *, trials: int = CHECK_TRIALS, seed: int = 0,
    permutations: int = CHECK_PERMUTATIONS, stop_after: int | None = STOP_AFTER,
    mantel_permutations: int = MANTEL_PERMUTATIONS, progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None, jobs: int | None = None,
) -> QuickCheck:
    """:func:`quick_checks` of one representation."""
    return quick_checks(benchmark, [representation], trials=trials, seed=seed, permutations=permutations,
                        stop_after=stop_after, mantel_permutations=mantel_permutations, progress=progress,
                        should_stop=should_stop, jobs=jobs)[0]


def quick_checks(
    benchmark: Benchmark, representations: Sequence[Representation], *, trials: int = CHECK_TRIALS, seed: int = 0,
    permutations: int = CHECK_PERMUTATIONS, stop_after: int | None = STOP_AFTER,
    mantel_permutations: int = MANTEL_PERMUTATIONS, progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None, jobs: int | None = None,
) -> tuple[QuickCheck, ...]:
    """Mantel test and CKA of each representation, one quick protocol run (all strategies on every
    representation, Spearman) and one permutation test over all of them (one family).

    Parameters
    ----------
    benchmark : Benchmark
    representations : sequence of Representation
    trials : int
        Trials of the quick run (α = 0.8, k = 2 … min(20, n)); the permutation test uses them all.
    seed : int
    permutations : int
        B of the permutation test (sequential stop after ``stop_after`` shuffles reaching the top gain).
    stop_after : int or None
    mantel_permutations : int
    progress : callable, optional
        Called with the fraction done (0 … 1): Mantel, the quick run's batches, then each shuffle.
    should_stop : callable, optional
        Polled between steps.
    jobs : int, optional
        Worker processes of the shuffles (see :func:`~subsetsel_core.evaluation.permutation.shuffle_jobs`).

    Raises
    ------
    Cancelled
        When ``should_stop`` returned True before the end.
    InputError
        A representation not aligned to the benchmark, bad trials or permutations.
    """
    from subsetsel_core.evaluation.protocol import iter_evaluate

    reps = list(representations)
    units = len(reps) + trials + permutations

    def report(done: float) -> None:
        if progress is not None:
            progress(min(1.0, done / units))

    def stop() -> None:
        if should_stop is not None and should_stop():
            raise Cancelled("the representation check was stopped.")

    checks = []
    for i, rep in enumerate(reps):
        checks.append(check_representation(benchmark, rep, permutations=mantel_permutations, seed=seed))
        report(i + 1)
        stop()
    k_max = min(20, benchmark.n_datasets)
    cfg = EvaluationConfig(trials=trials, seed=seed, metrics=(METRIC,), k_min=min(2, k_max), k_max=k_max,
                           batch_size=max(1, min(10, trials // 10 or 1)))
    by_name = {rep.name: rep for rep in reps}
    res = None
    for res in iter_evaluate(benchmark, by_name, cfg, should_stop=should_stop):
        report(len(reps) + res.trials_done)
    if res is None or not res.complete:
        raise Cancelled("the representation check was stopped.")
    pt = None
    for pt in iter_permutation_test(benchmark, by_name, cfg, observed=res, permutations=permutations,
                                    stop_after=stop_after, verdict_metric=METRIC, should_stop=should_stop, jobs=jobs):
        report(units if pt.complete else len(reps) + trials + pt.drawn)
    if pt is None or not pt.complete:
        raise Cancelled("the representation check was stopped.")
    return tuple(QuickCheck(chk, res, pt) for chk in checks)
