"""Rough run times, to say before a long computation how long it will take."""

from __future__ import annotations

from subsetsel_core.evaluation.result import EvaluationConfig

#: Rough cost of one trial of one strategy on a 112-dataset benchmark (seconds).
SECONDS_PER_ENTRY_TRIAL = 0.022
#: Rough cost of the Mantel test with :data:`~subsetsel_core.evaluation.check.MANTEL_PERMUTATIONS`
#: permutations on 112 datasets (seconds); it grows with the square of the datasets.
MANTEL_SECONDS_112 = 0.3


def estimate_seconds(config: EvaluationConfig, n_reps: int, n_datasets: int) -> float:
    """A rough run time of an evaluation: trials × grid entries, scaled by the benchmark's size."""
    entries = 1 + len([s for s in config.strategies if s != "random"]) * max(1, n_reps)
    return config.trials * entries * SECONDS_PER_ENTRY_TRIAL * max(0.5, n_datasets / 112)


def permutation_seconds(config: EvaluationConfig, n_reps: int, n_datasets: int, permutations: int,
                        trials: int | None = None) -> float:
    """Longest rough run time of a permutation test (every entry drawing all B shuffles; early stops shorten it)."""
    entries = len([s for s in config.strategies if s != "random"]) * max(1, n_reps)
    t = config.trials if trials is None else trials
    return permutations * t * entries * SECONDS_PER_ENTRY_TRIAL * max(0.5, n_datasets / 112)


def check_seconds(n_datasets: int, trials: int, permutations: int = 0) -> float:
    """Longest rough run time of :func:`~subsetsel_core.evaluation.quick.quick_check` with B shuffles."""
    mantel = MANTEL_SECONDS_112 * (n_datasets / 112) ** 2
    cfg = EvaluationConfig(trials=trials)
    return mantel + estimate_seconds(cfg, 1, n_datasets) + permutation_seconds(cfg, 1, n_datasets, permutations)
