"""The fast kernels behind the protocol equal their plain definitions, to the last bit.

* Kendall tau-b from exact integer pair counts (inversions) == scipy, and == the pair-sign
  formulation it replaced (bit for bit), with ties and for large M;
* the shared tie structure (one sort) == ``scipy.stats.rankdata``;
* farthest-first == a plain loop; the process pool == a serial run; metrics computed in
  groups of entries == all at once.

(k-means has its own tests in ``tests/core/strategies/test_kmeans.py``.)
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau, rankdata

from subsetsel_core.evaluation import protocol as P
from subsetsel_core.ranks import metrics as M
from subsetsel_core.ranks import ties
from subsetsel_core.strategies import standardize
from subsetsel_core.strategies.fafi import farthest_first


def _brute_inversions(v: np.ndarray) -> np.ndarray:
    return np.array([sum(int(r[i] > r[j]) for i in range(len(r)) for j in range(i + 1, len(r))) for r in v])


def _pair_sign_tau(ref: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """The former O(M²) implementation: pair signs, float32 counts, same final division."""
    t, k, m = sub.shape
    i, j = np.triu_indices(m, k=1)
    p = len(i)
    sr = np.sign(ref[:, i] - ref[:, j]).astype(np.float32)
    ss = np.sign(sub[..., i] - sub[..., j]).astype(np.float32)
    num = np.matmul(ss, sr[:, :, None])[..., 0].astype(np.float64)
    n1 = (sr == 0).sum(axis=-1)
    n2 = (ss == 0).sum(axis=-1)
    den = np.sqrt((p - n1[:, None]).astype(float) * (p - n2).astype(float))
    return np.clip(np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)


@pytest.mark.parametrize("m", [0, 1, 2, 3, 7, 31, 64, 130])
def test_inversions_brute_force(m: int) -> None:
    rng = np.random.default_rng(m)
    for levels in (1, 2, max(1, m // 3), max(1, m)):
        v = rng.integers(0, levels, size=(6, m))
        np.testing.assert_array_equal(ties.inversions(v), _brute_inversions(v))
        np.testing.assert_array_equal(ties.inversions(v, budget=1), _brute_inversions(v))  # one row at a time


def test_kendall_matches_scipy_with_ties() -> None:
    rng = np.random.default_rng(1)
    for trial in range(60):
        m = int(rng.integers(2, 90))
        levels = int(rng.integers(1, m + 2))
        ref = rng.integers(0, levels, size=(2, m)).astype(float)
        sub = rng.integers(0, levels, size=(2, 3, m)).astype(float) / 2
        if trial % 3 == 0:
            ref, sub = rng.normal(size=(2, m)), rng.normal(size=(2, 3, m))
        out = M.kendall_paired(ref, sub)
        for a in range(2):
            for b in range(3):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exp = kendalltau(ref[a], sub[a, b]).statistic
                assert out[a, b] == pytest.approx(0.0 if np.isnan(exp) else exp, abs=1e-12)


def test_kendall_bit_identical_to_pair_signs() -> None:
    rng = np.random.default_rng(2)
    for m in (2, 5, 40, 150):
        for levels in (2, m // 2 + 1, 10 * m):
            ref = rng.integers(0, levels, size=(3, m)).astype(float)
            sub = rng.integers(0, levels, size=(3, 4, m)).astype(float)
            np.testing.assert_array_equal(M.kendall_paired(ref, sub), _pair_sign_tau(ref, sub))


def test_kendall_large_m() -> None:
    rng = np.random.default_rng(3)
    m = 1500
    ref = rng.permutation(m).astype(float) // 3  # ties in the reference
    sub = np.stack([ref + rng.integers(0, 400, m), rng.integers(0, 50, m).astype(float)])
    out = M.kendall_paired(ref[None], sub[None])
    for b in range(2):
        assert out[0, b] == pytest.approx(kendalltau(ref, sub[b]).statistic, abs=1e-12)


def test_shared_ranks_match_rankdata() -> None:
    rng = np.random.default_rng(4)
    for shape in [(5, 9), (2, 3, 40), (1, 1), (3, 1000)]:
        x = rng.integers(0, max(2, shape[-1] // 3), size=shape).astype(float)
        r = ties.TieRanks(x)
        np.testing.assert_array_equal(r.lo, rankdata(x, method="min", axis=-1))
        np.testing.assert_array_equal(r.hi, rankdata(x, method="max", axis=-1))
        np.testing.assert_array_equal(r.average, rankdata(x, axis=-1))
        np.testing.assert_array_equal(r.dense, rankdata(x, method="dense", axis=-1) - 1)
        s = np.sort(x, axis=-1)
        pairs = [sum(int(c) * (int(c) - 1) // 2 for c in np.unique(row, return_counts=True)[1])
                 for row in s.reshape(-1, shape[-1])]
        np.testing.assert_array_equal(r.tie_pairs.reshape(-1), pairs)


def _tsc_like(n: int = 89, p: int = 17, seed: int = 8) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) @ rng.normal(size=(4, p)) + 0.3 * rng.normal(size=(n, p))
    X[:, 0] = np.round(X[:, 0])  # a coarse column, as counts in the UCR facts
    X[5] = X[6]  # duplicate datasets
    return standardize(X)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_farthest_first_plain_loop(metric: str) -> None:
    X = _tsc_like(n=50, p=6)
    X[7] = 0.0  # a zero row (cosine distance 1 to everything)
    chosen = [int(np.argmax(np.sqrt(((X - X.mean(axis=0)) ** 2).sum(axis=1))))]
    U = X / np.where(np.linalg.norm(X, axis=1) == 0, 1, np.linalg.norm(X, axis=1))[:, None]

    def dist(i: int, j: int) -> float:
        if metric == "euclidean":
            return float(np.sqrt(((X[i] - X[j]) ** 2).sum()))
        if not U[i].any() or not U[j].any():
            return 1.0
        return 1.0 - float((U[j] * U[i]).sum())

    while len(chosen) < 15:
        best = max((i for i in range(len(X)) if i not in chosen), key=lambda i: (min(dist(i, c) for c in chosen), -i))
        chosen.append(best)
    np.testing.assert_array_equal(farthest_first(X, 15, metric=metric), chosen)


def test_process_pool_identical_to_serial() -> None:
    from subsetsel_core import EvaluationConfig, evaluate, load_scores
    from subsetsel_core.evaluation.parallel import process_mapper
    from subsetsel_core.representations.descriptors import build_representation
    from subsetsel_core.synthetic import make_synthetic

    s = make_synthetic(n_datasets=30, n_models=50, n_folds=2, seed=3)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    rep = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    cfg = EvaluationConfig(trials=6, k_max=7, batch_size=2, seed=1)
    serial = json.dumps(evaluate(bench, rep, cfg).to_json_dict())
    assert json.dumps(evaluate(bench, rep, cfg, mapper=process_mapper(2)).to_json_dict()) == serial
    # from a second thread (as the dashboard runs it): forkserver workers instead of fork
    import threading

    out: list[str] = []
    th = threading.Thread(target=lambda: out.append(
        json.dumps(evaluate(bench, rep, cfg, mapper=process_mapper(2)).to_json_dict())))
    th.start()
    th.join()
    assert out == [serial]


def test_metrics_in_entry_groups_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    from subsetsel_core import EvaluationConfig, evaluate, load_scores
    from subsetsel_core.representations.descriptors import build_representation
    from subsetsel_core.synthetic import make_synthetic

    s = make_synthetic(n_datasets=30, n_models=20, n_folds=2, seed=4)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    rep = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    cfg = EvaluationConfig(trials=4, k_max=6, seed=2)
    whole = json.dumps(evaluate(bench, rep, cfg).to_json_dict())
    monkeypatch.setattr(P, "_METRIC_BLOCK", 1)  # one entry per metrics call
    assert json.dumps(evaluate(bench, rep, cfg).to_json_dict()) == whole
