"""The ``kmeans`` strategy: known answers, include / exclude, reproducibility, batching,
quality against scikit-learn, edge cases, and its protocol results against today's."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate
from subsetsel_core.strategies import kmeans as KM
from subsetsel_core.strategies import select, standardize
from subsetsel_core.strategies.kmeans_kernels import lloyd_runs, seed_runs


def _blobs(sizes: list[int], p: int = 3, spread: float = 0.05, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points around far-apart centres (shuffled) and the blob of each point."""
    rng = np.random.default_rng(seed)
    centres = 10.0 * rng.normal(size=(len(sizes), p))
    blob = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    return centres[blob] + spread * rng.normal(size=(len(blob), p)), blob


def _random_data(seed: int, n: int, p: int) -> np.ndarray:
    """Standardised rank-3 structure plus noise."""
    rng = np.random.default_rng(seed)
    return standardize(rng.normal(size=(n, 3)) @ rng.normal(size=(3, p)) + 0.5 * rng.normal(size=(n, p)))


def _inertia(X: np.ndarray, centres: np.ndarray) -> float:
    return float(((X[:, None, :] - centres[None]) ** 2).sum(axis=2).min(axis=1).sum())


def _plain_lloyd(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Textbook Lloyd iterations (direct distances) to convergence: the centres."""
    labels = None
    for _ in range(KM.MAX_ITER + 1):
        new = ((X[:, None, :] - C[None]) ** 2).sum(axis=2).argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        C = np.array([X[labels == j].mean(axis=0) if (labels == j).any() else C[j] for j in range(len(C))])
    return C


def _plain_pick(X: np.ndarray, centres: np.ndarray) -> list[int]:
    """Per centroid in order, the nearest row not yet taken (ties: the lower row)."""
    chosen: list[int] = []
    for c in centres:
        d = ((X - c) ** 2).sum(axis=1)
        chosen.append(min((i for i in range(len(X)) if i not in chosen), key=lambda i: (d[i], i)))
    return chosen


@pytest.mark.parametrize("seed", range(5))
def test_separated_blobs_one_dataset_each(seed: int) -> None:
    X, blob = _blobs([6, 3, 9, 4, 5], seed=seed)
    for k_seed in range(3):
        out = KM.kmeans_select(standardize(X), 5, rng=np.random.default_rng(k_seed))
        assert sorted(blob[out].tolist()) == [0, 1, 2, 3, 4]


def test_k_equals_n_is_a_permutation() -> None:
    for n in (1, 2, 7, 30):
        X = _random_data(n, n, 4)
        out = KM.kmeans_select(X, n, rng=np.random.default_rng(0))
        assert sorted(out.tolist()) == list(range(n))


def test_include_comes_first_and_covers_its_centroid() -> None:
    X, blob = _blobs([5, 5, 5, 5], seed=3)
    Z = standardize(X)
    first = int(np.flatnonzero(blob == 2)[3])
    for s in range(5):
        out = KM.kmeans_select(Z, 4, rng=np.random.default_rng(s), include=[first])
        assert out[0] == first
        assert sorted(blob[out].tolist()) == [0, 1, 2, 3]  # the include covers blob 2's centroid
    two = [int(np.flatnonzero(blob == 1)[0]), int(np.flatnonzero(blob == 1)[1])]
    out = KM.kmeans_select(Z, 4, rng=np.random.default_rng(0), include=two)
    assert out[:2].tolist() == two and len(set(out.tolist())) == 4
    assert KM.kmeans_select(Z, 2, rng=np.random.default_rng(0), include=two).tolist() == two


def test_include_and_exclude_through_select() -> None:
    X, blob = _blobs([6, 6, 6], seed=4)
    excluded = np.flatnonzero(blob == 0)[:5].tolist()  # one dataset of blob 0 stays
    inc = [int(np.flatnonzero(blob == 1)[2])]
    for s in range(4):
        out = select(X, 3, "kmeans", rng=s, include=inc, exclude=excluded)
        assert out[0] == inc[0] and not set(out.tolist()) & set(excluded)
        assert sorted(blob[out].tolist()) == [0, 1, 2]
    assert select(X, 3, "kmeans", rng=7).tolist() == select(X, 3, "kmeans", rng=7).tolist()


def test_same_seed_same_selection_different_seeds_differ() -> None:
    X = _random_data(1, 80, 6)
    runs = {tuple(KM.kmeans_select(X, 8, rng=np.random.default_rng(s)).tolist()) for s in range(12)}
    assert len(runs) > 1
    for s in (0, 5):
        a = KM.kmeans_select(X, 8, rng=np.random.default_rng(s))
        np.testing.assert_array_equal(a, KM.kmeans_select(X, 8, rng=np.random.default_rng(s)))


@pytest.mark.parametrize(("n", "p", "ks"), [(89, 17, list(range(2, 21))), (45, 381, [2, 9, 5, 20]),
                                             (120, 5, [1, 3, 3, 12]), (2500, 6, [3, 20, 17])])
def test_many_equals_one_k_at_a_time(n: int, p: int, ks: list[int]) -> None:
    """Every k of one batch gets what it gets alone."""
    X = _random_data(n, n, p)
    X[3] = X[4]  # duplicate datasets
    for include in ([], [7]):
        many = KM.kmeans_many(X, ks, np.random.default_rng(n).spawn(len(ks)), include=include)
        alone = [KM.kmeans_select(X, k, rng=g, include=include) for k, g in zip(ks, np.random.default_rng(n).spawn(len(ks)),
                                                                              strict=True)]
        for a, b in zip(many, alone, strict=True):
            np.testing.assert_array_equal(a, b)


def _mixture(seed: int, n: int, p: int, m: int) -> np.ndarray:
    """m overlapping Gaussian clusters (unit spread, centres N(0, 2²)), standardised."""
    rng = np.random.default_rng(seed)
    return standardize(2.0 * rng.normal(size=(m, p))[rng.integers(0, m, n)] + rng.normal(size=(n, p)))


def test_inertia_as_good_as_sklearn() -> None:
    """Best inertia of our 10 restarts ≤ 1.01 × scikit-learn's ``KMeans(k, n_init=10)``.

    On random mixtures with cluster structure (k = m − 1 … m + 1): there both best-of-10
    inertias are stable. On structureless data they are not (scikit-learn against itself
    with another ``random_state`` differs by more than 1 % in about a fifth of the cases).
    """
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(0)
    cases = [(int(rng.integers(60, 300)), int(rng.integers(2, 20)), int(rng.integers(3, 9))) for _ in range(8)]
    for seed, (n, p, m) in enumerate([*cases, (2500, 6, 17)]):
        X = _mixture(seed, n, p, m)
        k = m + seed % 3 - 1
        ours = _inertia(X, KM.kmeans_centres(X, k, rng=np.random.default_rng(seed)))
        theirs = KMeans(n_clusters=k, n_init=10, random_state=seed).fit(X).inertia_
        assert ours <= 1.01 * theirs, (n, p, m, k, ours / theirs)


@pytest.mark.parametrize(("n", "k"), [(89, 6), (2500, 20)])
def test_centres_are_lloyd_fixed_points_and_picks_plain(n: int, k: int) -> None:
    """The centres are those of textbook Lloyd iterations from themselves (converged), and
    the selection is the plain nearest-free-row loop over them."""
    X = _random_data(n, n, 5)
    C = KM.kmeans_centres(X, k, rng=np.random.default_rng(3))
    assert C.shape == (k, 5)
    np.testing.assert_allclose(_plain_lloyd(X, C), C, rtol=0, atol=1e-9)
    assert KM.kmeans_select(X, k, rng=np.random.default_rng(3)).tolist() == _plain_pick(X, C)


def _plain_labels(X: np.ndarray, C0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Textbook Lloyd iterations from C0 with feature-by-feature distances: centres, labels."""
    C, labels = C0.copy(), None
    for it in range(KM.MAX_ITER + 1):
        new = ((X[:, None, :] - C[None]) ** 2).sum(axis=2).argmin(axis=1)
        if labels is not None and np.array_equal(new, labels) or it == KM.MAX_ITER:
            return C, new
        labels = new
        C = np.array([X[labels == j].mean(axis=0) if (labels == j).any() else C[j] for j in range(len(C))])
    raise AssertionError


@pytest.mark.parametrize("grid", [False, True])
def test_bounded_lloyd_equals_plain_lloyd(grid: bool) -> None:
    """Hamerly's bounds skip only what cannot change: the same labels as plain Lloyd, also on
    integer data full of exact ties (grid), and each run alone equals the batch of runs."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(400, 3)).astype(float) if grid else _random_data(9, 3000, 7)
    ks = np.array([1, 4, 30, 4], dtype=np.int64)
    C0 = np.concatenate([X[rng.choice(len(X), k, replace=False)] for k in ks])
    C, inertia = lloyd_runs(X, C0, ks, KM.MAX_ITER)
    for r, (lo, hi) in enumerate(itertools.pairwise([0, *np.cumsum(ks).tolist()])):
        ref, labels = _plain_labels(X, C0[lo:hi])
        np.testing.assert_allclose(C[lo:hi], ref, rtol=0, atol=1e-9)
        assert inertia[r] == pytest.approx(((X - ref[labels]) ** 2).sum(), rel=1e-12)
        alone = lloyd_runs(X, C0[lo:hi], ks[r:r + 1], KM.MAX_ITER)
        np.testing.assert_array_equal(alone[0], C[lo:hi])
        assert alone[1][0] == inertia[r]


def test_seeding_follows_its_definition() -> None:
    """k-means++ seeding: each next centre is the first row whose cumulative squared distance
    to the centres so far exceeds u times the total (row 0 once every row is a centre)."""
    rng = np.random.default_rng(4)
    X = np.repeat(rng.normal(size=(6, 4)), [3, 1, 2, 5, 1, 2], axis=0)  # duplicates: zero distances
    ka = np.array([1, 5, 14, 9], dtype=np.int64)
    first, u = rng.integers(0, len(X), size=len(ka)), rng.random((len(ka), int(ka.max())))
    rows = seed_runs(X, first, u, ka)
    for r, lo in enumerate((np.cumsum(ka) - ka).tolist()):
        chosen = [int(first[r])]
        for j in range(1, int(ka[r])):
            d2 = ((X[:, None, :] - X[chosen][None]) ** 2).sum(axis=2).min(axis=1)
            cum = np.cumsum(d2)
            chosen.append(0 if cum[-1] == 0 else min(int((cum <= u[r, j] * cum[-1]).sum()), len(X) - 1))
        assert rows[lo:lo + ka[r]].tolist() == chosen


def test_exactly_k_distinct_with_duplicates_and_no_columns() -> None:
    rng = np.random.default_rng(2)
    X = np.repeat(rng.normal(size=(4, 3)), [5, 1, 7, 3], axis=0)[rng.permutation(16)]  # 4 distinct rows
    for k in range(1, 17):
        for include in ([], [15, 0]):
            if len(include) > k:
                continue
            out = KM.kmeans_select(X, k, rng=np.random.default_rng(k), include=include)
            assert len(out) == k and len(set(out.tolist())) == k and out.dtype == np.int64
            assert out[:len(include)].tolist() == include
    # equal rows: the lower index first
    Y = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 0.0], [5.0, 5.0]])
    assert sorted(KM.kmeans_select(Y, 2, rng=np.random.default_rng(0)).tolist()) == [0, 1]
    empty = np.empty((6, 0))
    assert KM.kmeans_select(empty, 3, rng=np.random.default_rng(0)).tolist() == [0, 1, 2]
    assert KM.kmeans_select(empty, 3, rng=np.random.default_rng(0), include=[4]).tolist() == [4, 0, 1]
    assert [o.tolist() for o in KM.kmeans_many(empty, [1, 2], [None, None], include=[5])] == [[5], [5, 0]]
    assert KM.kmeans_centres(empty, 2, rng=np.random.default_rng(0)).shape == (2, 0)
    assert select(np.ones((5, 2)), 4, "kmeans", rng=0).tolist() == [0, 1, 2, 3]  # constant columns dropped


def test_bad_k() -> None:
    X = _random_data(0, 10, 2)
    for k in (0, 11):
        with pytest.raises(ValueError):
            KM.kmeans_select(X, k, rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        KM.kmeans_select(X, 1, rng=np.random.default_rng(0), include=[1, 2])


# The k-means Spearman AUC of the protocol (EvaluationConfig defaults: k = 2…20, α = 0.8)
# before this k-means was rewritten (commit f25bf22): mean and standard deviation (ddof = 1)
# over T_OLD trials, the auc_mean / auc_std of the "spearman" row of
#   evaluate(lb.benchmark, lb.representation(rep),
#            EvaluationConfig(strategies=("kmeans",), trials=1000, seed=0)).to_frame()
# with lb = subsetsel_core.catalog.load_benchmark_folder(SAMPLE_DATA_DIR / name), run on a
# checkout of f25bf22 (PYTHONPATH=<checkout> .venv/bin/python ...).
T_OLD = 1000
OLD_AUC = {
    ("tsc_bakeoff", "ucr_info"): (16.786390, 0.213029),
    ("mmlu", "minilm"): (16.737796, 0.263965),
    ("synthetic", "oracle"): (17.205441, 0.100654),
}
T_NEW = 50


@cache
def _sample(name: str):  # type: ignore[no-untyped-def]
    from subsetsel_core.loading.folder import SAMPLE_DATA_DIR, load_benchmark_folder

    return load_benchmark_folder(SAMPLE_DATA_DIR / name)


@pytest.mark.parametrize(("name", "rep"), list(OLD_AUC))
def test_protocol_auc_statistically_equal_to_before(name: str, rep: str) -> None:
    """Two-sample z-test of the mean AUC, new code with another seed: |z| < 3.5."""
    lb = _sample(name)
    res = evaluate(lb.benchmark, lb.representation(rep), EvaluationConfig(strategies=("kmeans",), trials=T_NEW, seed=11))
    frame = res.to_frame()
    row = frame[(frame["strategy"] == "kmeans") & (frame["metric"] == "spearman")].iloc[0]
    mean_old, sd_old = OLD_AUC[(name, rep)]
    z = abs(row["auc_mean"] - mean_old) / np.sqrt(sd_old**2 / T_OLD + row["auc_std"] ** 2 / T_NEW)
    assert z < 3.5, (row["auc_mean"], row["auc_std"], mean_old, sd_old)
