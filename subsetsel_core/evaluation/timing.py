"""Rough run times, to say before a long computation how long it will take."""

from __future__ import annotations

from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.strategies import BASELINE, REGISTRY

#: A strategy not in the registry (its seconds per trial).
OTHER_STRATEGY_SECONDS = 0.012
#: Per trial, besides the strategies: the pools and their rank tables.
REST_PER_TRIAL = 0.002
#: Rough cost of the Mantel test with :data:`~subsetsel_core.evaluation.check.MANTEL_PERMUTATIONS`
#: permutations on 112 datasets (seconds); it grows with the square of the datasets.
MANTEL_SECONDS_112 = 0.3


def _per_trial(strategies: list[str], n_reps: int, n_datasets: int) -> float:
    """Seconds of one trial of these strategies (each strategy but random once per representation)."""
    cost = sum((REGISTRY[s].seconds_per_trial if s in REGISTRY else OTHER_STRATEGY_SECONDS)
               * (max(1, n_reps) if REGISTRY.get(s) is None or REGISTRY[s].uses_features else 1)
               for s in strategies)
    return (REST_PER_TRIAL + cost) * max(0.5, n_datasets / 112)


def estimate_seconds(config: EvaluationConfig, n_reps: int, n_datasets: int) -> float:
    """A rough run time of an evaluation: trials × the grid's strategies, scaled by the benchmark's size."""
    return config.trials * _per_trial(list(dict.fromkeys([BASELINE, *config.strategies])), n_reps, n_datasets)


def permutation_seconds(config: EvaluationConfig, n_reps: int, n_datasets: int, permutations: int,
                        trials: int | None = None) -> float:
    """Longest rough run time of a permutation test (every entry drawing all B shuffles; early stops shorten it)."""
    tested = [s for s in dict.fromkeys(config.strategies) if s != BASELINE]
    t = config.trials if trials is None else trials
    return permutations * t * _per_trial(tested, n_reps, n_datasets) if tested else 0.0


def check_seconds(n_datasets: int, trials: int, permutations: int = 0) -> float:
    """Longest rough run time of :func:`~subsetsel_core.evaluation.quick.quick_check` with B shuffles."""
    mantel = MANTEL_SECONDS_112 * (n_datasets / 112) ** 2
    cfg = EvaluationConfig(trials=trials)
    return mantel + estimate_seconds(cfg, 1, n_datasets) + permutation_seconds(cfg, 1, n_datasets, permutations)
