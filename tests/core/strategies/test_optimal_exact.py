"""The A-/D-optimal search chooses exactly what its earlier, plain numpy version chose (and k-means what it chose).

:func:`_reference_many` below is that version (greedy forward, then the batched exchange
whose scores were numpy expressions), kept here as it was. The current search — compiled
best-swap scans (:mod:`subsetsel_core.strategies.optimal_kernels`), pools stacked by
:func:`~subsetsel_core.strategies.optimal.optimal_design_pools`, the protocol's choices per
batch — must give the same subsets on random and degenerate pools (duplicate rows, integer
grids, rank-deficient and constant data, must-include rows), and the same subsets as the ones
stored from the earlier version on the embedded samples.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from optimal_cases import KS, STORED, sample_pools

from subsetsel_core import load_scores
from subsetsel_core.evaluation.protocol import batch_choices, prepare, trial_choices, trial_pool
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.strategies import optimal_kernels as kernels
from subsetsel_core.strategies import standardize
from subsetsel_core.strategies.optimal import (
    _inv_info,
    _objective,
    best_swaps_numpy,
    optimal_design_many,
    optimal_design_pools,
)
from subsetsel_core.synthetic import make_synthetic

LAMBDA, REL_TOL = 1e-3, 1e-10


def _reference_greedy(X: np.ndarray, k: int, include: Sequence[int], criterion: str) -> list[int]:
    n, p = X.shape
    chosen = [int(i) for i in include]
    taken = np.zeros(n, dtype=bool)
    taken[chosen] = True
    XS = X[chosen]
    Minv = np.linalg.inv(XS.T @ XS + LAMBDA * np.eye(p))
    while len(chosen) < k:
        B = X @ Minv
        q = (B * X).sum(axis=1)
        gain = (B * B).sum(axis=1) / (1.0 + q) if criterion == "a" else np.log1p(q)
        i = int(np.where(taken, -np.inf, gain).argmax())
        b = Minv @ X[i]
        Minv = Minv - np.outer(b, b) / (1.0 + X[i] @ b)
        chosen.append(i)
        taken[i] = True
    return chosen


def _reference_exchange(X: np.ndarray, starts: Sequence[Sequence[int]], fixed: int, criterion: str) -> list[list[int]]:
    n, p = X.shape
    K = len(starts)
    kmax = max(len(s) for s in starts)
    S = np.zeros((K, kmax), dtype=np.int64)
    valid = np.zeros((K, kmax), dtype=bool)
    for i, st in enumerate(starts):
        S[i, : len(st)] = st
        valid[i, : len(st)] = True
    sizes = valid.sum(axis=1)
    movable = valid & (np.arange(kmax)[None, :] >= fixed)
    act = np.flatnonzero((sizes > fixed) & (sizes < n))
    eye = LAMBDA * np.eye(p)
    Minv = f = None
    for _ in range(50 * kmax):
        if act.size == 0:
            break
        a = act.size
        Sa, va, mv = S[act], valid[act], movable[act]
        XS = X[Sa] * va[:, :, None]
        if Minv is None or f is None:
            Minv = np.linalg.inv(np.swapaxes(XS, 1, 2) @ XS + eye)
            f = np.trace(Minv, axis1=1, axis2=2) if criterion == "a" else np.linalg.slogdet(Minv)[1]
        B = np.matmul(X[None], Minv)
        q = (B * X[None]).sum(axis=2)
        G = B @ np.swapaxes(XS, 1, 2)
        qa = np.take_along_axis(q, Sa, axis=1)
        ok = mv & (qa < 1.0 - 1e-12)
        denom = np.where(ok, 1.0 - qa, 1.0)[:, None, :]
        qp = G * G
        qp /= denom
        qp += q[:, :, None]
        if criterion == "d":
            imp = np.log1p(qp)
            imp += np.log1p(-np.where(ok, qa, 0.0))[:, None, :]
        else:
            BS = np.take_along_axis(B, Sa[:, :, None], axis=1)
            H = B @ np.swapaxes(BS, 1, 2)
            ba2 = (BS * BS).sum(axis=2)[:, None, :]
            r = G / denom
            imp = r * 2.0
            imp *= H
            imp += (B * B).sum(axis=2)[:, :, None]
            r *= r
            r *= ba2
            imp += r
            qp += 1.0
            imp /= qp
            imp -= ba2 / denom
        chosen = np.zeros((a, n), dtype=bool)
        np.put_along_axis(chosen, np.where(va, Sa, Sa[:, :1]), True, axis=1)
        np.copyto(imp, -np.inf, where=chosen[:, :, None] | ~ok[:, None, :])
        flat = np.swapaxes(imp, 1, 2).reshape(a, -1)
        best = flat.argmax(axis=1)
        gain = flat[np.arange(a), best]
        tol = REL_TOL * np.maximum(1.0, np.abs(f))
        pos, j = np.divmod(best, n)
        cand = np.flatnonzero(gain > tol)
        if cand.size:
            Snew = Sa[cand].copy()
            Snew[np.arange(cand.size), pos[cand]] = j[cand]
            XN = X[Snew] * va[cand][:, :, None]
            MN = np.linalg.inv(np.swapaxes(XN, 1, 2) @ XN + eye)
            fn = np.trace(MN, axis1=1, axis2=2) if criterion == "a" else np.linalg.slogdet(MN)[1]
            better = f[cand] - fn > tol[cand]
            cand = cand[better]
            S[act[cand], pos[cand]] = j[cand]
            Minv, f = MN[better], fn[better]
        act = act[cand]
    return [S[i, : sizes[i]].tolist() for i in range(K)]


def _reference_many(X: np.ndarray, ks: Sequence[int], criterion: str, include: Sequence[int] = ()) -> list[list[int]]:
    order = _reference_greedy(X, max(ks), include, criterion)
    return _reference_exchange(X, [order[:k] for k in ks], len(include), criterion)


def _pools() -> Iterator[tuple[str, np.ndarray]]:
    """Random and degenerate pools (n ≥ p), each with its name."""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        for n, p in ((6, 2), (15, 5), (40, 11), (89, 17)):
            yield f"normal {seed} {n}×{p}", standardize(rng.normal(size=(n, p)))
        # heavy tails, a low-rank geometry, integer grids full of exact ties, duplicated rows
        yield f"cauchy {seed}", standardize(rng.standard_cauchy(size=(50, 8)))
        yield f"low rank {seed}", rng.normal(size=(40, 2)) @ rng.normal(size=(2, 9))
        yield f"integers {seed}", standardize(rng.integers(0, 3, size=(30, 4)).astype(float))
        base = rng.normal(size=(12, 5))
        yield f"duplicates {seed}", np.vstack([base, base, base[:5]])
    yield "one column", np.linspace(-1.0, 1.0, 9)[:, None]
    yield "zeros and a point", np.vstack([np.zeros((10, 3)), [[1.0, 2.0, 3.0]]])
    yield "all zero", np.zeros((8, 3))
    yield "square", np.eye(6)
    yield "grid", np.array([[i, j] for i in range(-2, 3) for j in range(-2, 3)], dtype=float)


def _ks(n: int) -> list[int]:
    return sorted({k for k in (1, 2, 3, 5, n // 2, n - 1, n, *range(2, 21)) if 1 <= k <= n})


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_search_equals_the_plain_numpy_version(criterion: str) -> None:
    for name, X in _pools():
        ks = _ks(X.shape[0])
        got = [s.tolist() for s in optimal_design_many(X, ks, criterion=criterion)]
        assert got == _reference_many(X, ks, criterion), name


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_must_include_rows_as_before(criterion: str) -> None:
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        X = standardize(rng.normal(size=(30, 6)))
        include = [int(i) for i in rng.choice(30, 3, replace=False)]
        ks = [3, 4, 8, 15, 29, 30]
        got = [s.tolist() for s in optimal_design_many(X, ks, include=include, criterion=criterion)]
        assert got == _reference_many(X, ks, criterion, include), seed


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_stacked_pools_equal_each_pool_alone(criterion: str) -> None:
    rng = np.random.default_rng(7)
    # pools of two shapes (stacked by shape), a wide one (dual form) and one without columns
    pools = [standardize(rng.normal(size=(40, 6))) for _ in range(5)] + \
            [standardize(rng.integers(0, 4, size=(40, 6)).astype(float)) for _ in range(3)] + \
            [standardize(rng.normal(size=(25, 3))) for _ in range(4)] + \
            [standardize(rng.normal(size=(10, 30))), np.zeros((12, 0))]
    ks = list(range(2, 10))
    got = optimal_design_pools(pools, ks, criterion=criterion)
    for X, sets in zip(pools, got, strict=True):
        want = optimal_design_many(X, ks, criterion=criterion)
        assert [s.tolist() for s in sets] == [w.tolist() for w in want]
        if 0 < X.shape[1] <= X.shape[0]:
            assert [s.tolist() for s in sets] == _reference_many(X, ks, criterion)


def test_stored_selections_of_the_samples() -> None:
    with gzip.open(STORED, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    names, pools = zip(*sample_pools(), strict=True)
    for criterion in "ad":
        for name, X, sets in zip(names, pools, optimal_design_pools(pools, list(KS), criterion=criterion),
                                 strict=True):
            for got, want in zip([s.tolist() for s in sets], stored[f"{name}/{criterion}"], strict=True):
                if got != want:  # another machine's arithmetic may break an exact tie the other way: a tie only
                    values = [_objective(_inv_info(X, S, LAMBDA), criterion) for S in (got, want)]
                    assert values[0] == pytest.approx(values[1], rel=1e-9, abs=1e-12), (name, criterion, got, want)


def _scan_inputs(seed: int, a: int = 7, n: int = 13, k: int = 6) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    G = np.round(rng.normal(size=(a, n, k)), 1)  # coarse values: many exact ties between swaps
    G[:, 3] = G[:, 2]  # two identical rows
    qa = rng.uniform(0.0, 0.9, size=(a, k))
    ok = rng.random((a, k)) > 0.2
    chosen = rng.random((a, n)) < 0.3
    return {"G": G, "H": np.round(rng.normal(size=(a, n, k)), 1), "q": np.round(rng.random((a, n)), 1),
            "bb": np.round(rng.random((a, n)), 1), "den": np.where(ok, 1.0 - qa, 1.0), "qa": qa,
            "ba2": np.round(rng.random((a, k)), 1), "ok": ok, "chosen": chosen}


def test_compiled_scans_equal_the_numpy_scores() -> None:
    for seed in range(40):
        v = _scan_inputs(seed)
        if seed % 5 == 0:  # a NaN score, an infinite one, a set with nothing to swap
            v["G"][1, 4, 2] = np.nan
            v["ok"][1, 2], v["chosen"][1, 4] = True, False
            v["H"][2, 5, 1] = np.inf
            v["ok"][3] = False
        with np.errstate(invalid="ignore"):  # ∞ · 0 in the injected cases gives NaN, as it should
            want = best_swaps_numpy("a", v["G"], v["q"], v["den"], v["ok"], v["chosen"], H=v["H"], bb=v["bb"],
                                    ba2=v["ba2"])
        got = kernels.a_best(v["G"], v["H"], v["q"], v["bb"], v["den"], v["ba2"], v["ok"], v["chosen"])
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        L2 = np.log1p(-np.where(v["ok"], v["qa"], 0.0))
        with np.errstate(invalid="ignore"):
            want = best_swaps_numpy("d", v["G"], v["q"], v["den"], v["ok"], v["chosen"], L2=L2)
        idx, val, full = kernels.d_best(v["G"], v["q"], v["den"], L2, v["ok"], v["chosen"])
        live = np.setdiff1d(np.arange(len(idx)), full)
        np.testing.assert_array_equal(idx[live], want[0][live])
        np.testing.assert_array_equal(val[live], want[1][live])
        if seed % 5 == 0:
            assert 1 in full and 3 in full  # NaN and nothing to rank: left to the numpy scores


def test_batch_choices_equal_trial_by_trial() -> None:
    s = make_synthetic(n_datasets=40, n_models=8, n_folds=2, n_features=5, seed=3)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    rep = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    ctx = prepare(bench, rep, EvaluationConfig(trials=6, metrics=("spearman",), k_max=12))
    trials = list(range(6))
    pools = [trial_pool(ctx, t)[0] for t in trials]
    for t, pool, batch in zip(trials, pools, batch_choices(ctx, trials, pools), strict=True):
        one = trial_choices(ctx, t, pool)
        assert list(one) == list(batch)
        for key in one:
            assert (one[key].order is None) == (batch[key].order is None)
            for field in ("order", "idx", "starts"):
                if getattr(one[key], field) is not None:
                    np.testing.assert_array_equal(getattr(one[key], field), getattr(batch[key], field))


def test_stored_kmeans_selections_of_the_samples() -> None:
    from optimal_cases import STORED_KMEANS, kmeans_rng, kmeans_stored

    from subsetsel_core.strategies.kmeans import kmeans_many

    with gzip.open(STORED_KMEANS, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    checked = 0
    for i, (name, X) in enumerate(sample_pools()):
        if kmeans_stored(name):
            ks = [k for k in KS if k <= X.shape[0]]
            assert [s.tolist() for s in kmeans_many(X, ks, [kmeans_rng(i)] * len(ks))] == stored[name], name
            checked += 1
    assert checked == len(stored)
