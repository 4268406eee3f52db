"""Metrics: known answers, agreement with scipy / scikit-learn, properties."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import ndcg_score

from subsetsel_core.ranks import metrics as M
from subsetsel_core.ranks import ties


def _scipy(ref: np.ndarray, sub: np.ndarray) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = spearmanr(ref, sub).statistic
        t = kendalltau(ref, sub).statistic
    m = len(ref)
    best = int(np.argmin(ref))
    avg_rank = (sub < sub[best]).sum() + ((sub == sub[best]).sum() + 1) / 2
    return {
        "mae": float(np.abs(ref - sub).mean()),
        "spearman": 0.0 if np.isnan(s) else float(s),
        "kendall": 0.0 if np.isnan(t) else float(t),
        "ndcg5": float(ndcg_score((m + 1 - ref)[None], -sub[None], k=min(5, m))),
        "mrr": 1.0 / avg_rank,
    }


def test_known_answers_identity() -> None:
    ref = np.array([1.0, 2.0, 3.0, 4.0])
    out = M.agreement(ref, ref[None])
    assert out["mae"][0] == 0
    assert out["spearman"][0] == pytest.approx(1)
    assert out["kendall"][0] == pytest.approx(1)
    assert out["ndcg5"][0] == pytest.approx(1)
    assert out["mrr"][0] == 1


def test_known_answers_reversed() -> None:
    ref = np.array([1.0, 2.0, 3.0, 4.0])
    sub = ref[::-1].copy()
    out = M.agreement(ref, sub[None])
    assert out["mae"][0] == pytest.approx(2.0)  # |1-4|+|2-3|+|3-2|+|4-1| = 8, / 4
    assert out["spearman"][0] == pytest.approx(-1)
    assert out["kendall"][0] == pytest.approx(-1)
    assert out["mrr"][0] == pytest.approx(1 / 4)


def test_ties_known_answers() -> None:
    # best reference model (index 0) ties with model 1 for first in the subset: avg rank 1.5
    ref = np.array([1.0, 2.0, 3.0])
    sub = np.array([1.5, 1.5, 3.0])
    out = M.agreement(ref, sub[None])
    assert out["mrr"][0] == pytest.approx(1 / 1.5)
    # Kendall tau-b: pairs (0,1) tied in sub, (0,2),(1,2) concordant: 2 / sqrt(3 * 2)
    assert out["kendall"][0] == pytest.approx(2 / np.sqrt(6))


def test_constant_vector_gives_zero() -> None:
    ref = np.array([1.0, 2.0, 3.0])
    sub = np.array([2.0, 2.0, 2.0])
    out = M.agreement(ref, sub[None])
    assert out["spearman"][0] == 0
    assert out["kendall"][0] == 0


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 12).flatmap(
        lambda m: st.tuples(
            st.lists(st.integers(1, m).map(float), min_size=m, max_size=m),
            st.lists(st.lists(st.integers(1, 2 * m).map(lambda x: x / 2), min_size=m, max_size=m), min_size=1, max_size=4),
        )
    )
)
def test_matches_scipy_and_sklearn(data: tuple[list[float], list[list[float]]]) -> None:
    ref = np.array(data[0])
    subs = np.array(data[1])
    out = M.agreement(ref, subs)
    for i, sub in enumerate(subs):
        exp = _scipy(ref, sub)
        for name in M.METRICS:
            assert out[name][i] == pytest.approx(exp[name], abs=1e-9), name


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 15), st.integers(0, 10_000))
def test_bounds_and_relabelling_invariance(m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ref = rng.integers(1, m + 1, size=(3, m)).astype(float)
    sub = rng.integers(1, m + 1, size=(3, 5, m)).astype(float)
    out = M.agreement(ref, sub)
    for name, metric in M.METRICS.items():
        lo, hi = metric.bounds(m)
        assert np.all((out[name] >= lo - 1e-12) & (out[name] <= hi + 1e-12)), name
    perm = rng.permutation(m)
    out2 = M.agreement(ref[:, perm], sub[:, :, perm])
    for name in [n for n in M.METRICS if n != "mrr"]:  # MRR follows the first of tied best models
        np.testing.assert_allclose(out[name], out2[name], atol=1e-12)


def test_kendall_blocked_equals_unblocked(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    ref = rng.normal(size=(4, 30))
    sub = rng.normal(size=(4, 7, 30))
    a = M.kendall_paired(ref, sub)
    monkeypatch.setattr(ties, "PAIR_BLOCK", 100)
    b = M.kendall_paired(ref, sub)
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(a, M.kendall(ref[:, None, :], sub))


def test_scales_give_mean_ranks() -> None:
    ref_sums = np.array([2.0, 4.0, 6.0])  # mean ranks 1,2,3 with scale 1/2
    sub_sums = np.array([[4.0, 2.0, 6.0]])
    out = M.agreement(ref_sums, sub_sums, ref_scale=0.5, sub_scale=np.array([0.5]))
    assert out["mae"][0] == pytest.approx(np.abs(np.array([1, 2, 3]) - np.array([2, 1, 3])).mean())


def test_unknown_metric() -> None:
    with pytest.raises(ValueError, match="valid"):
        M.agreement(np.arange(3.0), np.arange(3.0)[None], metrics=["auc"])


@given(st.lists(st.lists(st.integers(-3, 3), min_size=1, max_size=7), min_size=1, max_size=5).filter(
    lambda rows: len({len(r) for r in rows}) == 1))
def test_twice_average_ranks_equals_scipy(rows: list[list[int]]) -> None:
    from scipy.stats import rankdata

    from subsetsel_core.ranks.ranking import twice_average_ranks

    x = np.asarray(rows, dtype=float)
    expected = np.rint(2 * rankdata(x, method="average", axis=-1)).astype(np.int64)
    np.testing.assert_array_equal(twice_average_ranks(x), expected)
