"""Strategy contract (over the whole registry) and known answers."""

from __future__ import annotations

import numpy as np
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.ranks.metrics import HEADLINE, METRICS
from subsetsel_core.strategies import (
    BASELINE,
    COVERING,
    REGISTRY,
    SCORE_AWARE,
    STRATEGIES,
    select,
    standardize,
)
from subsetsel_core.strategies.fafi import farthest_first
from subsetsel_core.strategies.optimal import optimal_design

ALL = sorted(STRATEGIES)  # the a-priori strategies: the score-aware ones never select from descriptors


@pytest.fixture
def X() -> np.ndarray:
    return np.random.default_rng(7).normal(size=(40, 5))


def test_registry_records_are_consistent() -> None:
    import re

    from subsetsel_core.strategies import BUDGET_STRATEGIES

    assert STRATEGIES + SCORE_AWARE == tuple(REGISTRY)
    assert not any(REGISTRY[s].score_aware for s in STRATEGIES) and all(REGISTRY[s].score_aware for s in SCORE_AWARE)
    assert all(name == info.name for name, info in REGISTRY.items())
    colours = [info.colour for info in REGISTRY.values()]
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours) and len(set(colours)) == len(colours)
    assert BUDGET_STRATEGIES == tuple(n for n in STRATEGIES if REGISTRY[n].cost_aware is not None)
    assert all(info.title and info.description for info in REGISTRY.values())


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("k", [1, 2, 7, 40])
def test_contract(name: str, k: int, X: np.ndarray) -> None:
    before = X.copy()
    idx = select(X, k, name, rng=3)
    assert idx.shape == (k,)
    assert len(set(idx.tolist())) == k
    assert idx.min() >= 0 and idx.max() < len(X)
    np.testing.assert_array_equal(X, before)
    np.testing.assert_array_equal(idx, select(X, k, name, rng=3))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("k", [0, -1, 41])
def test_bad_k_raises(name: str, k: int, X: np.ndarray) -> None:
    with pytest.raises(InputError, match="k = "):
        select(X, k, name, rng=0)


@pytest.mark.parametrize("name", ALL)
def test_include_exclude(name: str, X: np.ndarray) -> None:
    idx = select(X, 6, name, rng=1, include=[5, 2], exclude=[0, 1, 3])
    assert list(idx[:2]) == [5, 2]
    assert not {0, 1, 3} & set(idx.tolist())
    assert len(set(idx.tolist())) == 6


@pytest.mark.parametrize("name", ALL)
def test_duplicate_rows_and_constant_columns(name: str) -> None:
    X = np.zeros((10, 3))
    X[:5, 0] = 1.0  # two groups of identical points, two constant columns
    idx = select(X, 4, name, rng=0)
    assert len(set(idx.tolist())) == 4


def test_unknown_strategy_lists_valid(X: np.ndarray) -> None:
    with pytest.raises(InputError, match="valid strategies: .*fafi-cosine"):
        select(X, 3, "fafi", rng=0)


def test_nan_rejected(X: np.ndarray) -> None:
    X[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        select(X, 3, "kmeans", rng=0)


def test_include_exclude_overlap(X: np.ndarray) -> None:
    with pytest.raises(InputError, match="both"):
        select(X, 3, "kmeans", rng=0, include=[1], exclude=[1])


def test_standardize_drops_constant_and_zscores() -> None:
    X = np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 2.0], [5.0, 5.0, 4.0]])
    Z = standardize(X)
    assert Z.shape == (3, 2)
    np.testing.assert_allclose(Z.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(0), 1)


def test_fafi_known_answer() -> None:
    # points on a line; mean = 2.4; farthest from mean = 10 (index 4)
    X = np.array([[0.0], [1.0], [2.0], [-1.0], [10.0]])
    order = farthest_first(X, 5)
    # from 10: farthest is -1 (index 3); then min distances: 0→1, 1→2, 2→3 (to -1) → index 2? no:
    # distances to nearest chosen {10, -1}: 0→1, 1→2, 2→3 → pick 2 (value 2); then 0→1, 1→1 → tie → index 0
    assert order.tolist() == [4, 3, 2, 0, 1]


def test_nested_strategies_give_prefixes(X: np.ndarray) -> None:
    nested = [s for s in STRATEGIES if REGISTRY[s].nested]
    assert set(COVERING) <= set(nested)
    for name in nested:
        full = select(X, 20, name)
        for k in (1, 5, 13):
            np.testing.assert_array_equal(select(X, k, name), full[:k])


def test_fafi_cosine_zero_row() -> None:
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    out = farthest_first(X, 4, metric="cosine")
    assert sorted(out.tolist()) == [0, 1, 2, 3]


def test_fafi_ties_go_to_first() -> None:
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert farthest_first(X, 1).tolist() == [0]


def _a(X: np.ndarray, S: list[int]) -> float:
    return float(np.trace(np.linalg.inv(X[S].T @ X[S] + 1e-3 * np.eye(X.shape[1]))))


def _d(X: np.ndarray, S: list[int]) -> float:
    return float(np.linalg.slogdet(X[S].T @ X[S] + 1e-3 * np.eye(X.shape[1]))[1])


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_optimal_design_is_locally_optimal(criterion: str) -> None:
    X = standardize(np.random.default_rng(2).normal(size=(25, 3)))
    S = optimal_design(X, 5, criterion=criterion).tolist()
    f = _a if criterion == "a" else _d
    best = f(X, S)
    for pos in range(5):
        for j in range(25):
            if j in S:
                continue
            T = S.copy()
            T[pos] = j
            if criterion == "a":
                assert f(X, T) >= best - 1e-9 * abs(best)
            else:
                assert f(X, T) <= best + 1e-9 * abs(best)


def test_d_optimal_small_known_answer() -> None:
    # in 1-D, D-optimal with k = 2 takes the two points of largest |x|
    X = np.array([[0.1], [-3.0], [0.5], [2.0], [-0.2]])
    assert sorted(optimal_design(X, 2, criterion="d").tolist()) == [1, 3]


def test_random_draws_uniformly() -> None:
    rng = np.random.default_rng(0)
    counts = np.zeros(10)
    for _ in range(2000):
        counts[select(np.zeros((10, 1)), 3, "random", rng=rng)] += 1
    assert counts.min() > 500 and counts.max() < 700  # expected 600 each


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_dual_form_matches_primal_on_wide_data(criterion: str) -> None:
    from subsetsel_core.strategies.optimal import exchange_many, greedy_forward
    from subsetsel_core.strategies.optimal_dual import optimal_design_dual_many

    rng = np.random.default_rng(11)
    X = standardize(rng.normal(size=(30, 6)) @ rng.normal(size=(6, 50)) + 0.1 * rng.normal(size=(30, 50)))
    ks = [3, 6, 10]
    dual = optimal_design_dual_many(X, ks, criterion=criterion)
    order = greedy_forward(X, max(ks), [], criterion)
    primal = exchange_many(X, [order[:k] for k in ks], 0, criterion)
    f = _a if criterion == "a" else _d
    for d, p in zip(dual, primal, strict=True):
        assert len(set(d.tolist())) == len(d)
        assert f(X, d.tolist()) == pytest.approx(f(X, p), rel=1e-6)
    # the dual result is a local optimum of the primal objective
    S = dual[1].tolist()
    best = f(X, S)
    for pos in range(len(S)):
        for j in range(len(X)):
            if j not in S:
                T = S.copy()
                T[pos] = j
                assert (f(X, T) >= best - 1e-6 * abs(best)) if criterion == "a" else (f(X, T) <= best + 1e-6 * abs(best))


def test_records_carry_what_code_asks_of_a_name() -> None:
    assert [s for s, info in REGISTRY.items() if info.baseline] == [BASELINE] and BASELINE in STRATEGIES
    assert not REGISTRY[BASELINE].uses_features
    assert COVERING and all(REGISTRY[s].nested and REGISTRY[s].deterministic for s in COVERING)  # one order per pool
    assert all(info.seconds_per_trial > 0 for info in REGISTRY.values())
    for s in SCORE_AWARE:  # each score-aware strategy is run by its order (nested) or its prediction
        info = REGISTRY[s]
        assert (info.orders is not None) == info.nested and info.predicts != info.nested
    assert [m for m, info in METRICS.items() if info.headline] == [HEADLINE]
    assert all(info.unit for info in METRICS.values() if info.from_values)  # values in units, not only an order
