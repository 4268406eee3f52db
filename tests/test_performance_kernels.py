"""The fast kernels behind the protocol equal their plain definitions, to the last bit.

* Kendall tau-b from exact integer pair counts (inversions) == scipy, and == the pair-sign
  formulation it replaced (bit for bit), with ties and for large M;
* the shared tie structure (one sort) == ``scipy.stats.rankdata``;
* the directly computed random streams == ``numpy.random.SeedSequence`` spawning;
* k-means: the merged Lloyd loop (whole products or bounded) == the first version's
  padded loop (kept here as the reference), the fast first-index
  arg-minimum == ``argmin``, the batched pick == one k at a time, and the BLAS property
  the shortcuts rely on;
* farthest-first == a plain loop; the process pool == a serial run.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau, rankdata
from threadpoolctl import threadpool_limits

from subsetsel_core import metrics as M
from subsetsel_core.evaluation import protocol as P
from subsetsel_core.strategies import kmeans as KM
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
        np.testing.assert_array_equal(M.inversions(v), _brute_inversions(v))
        np.testing.assert_array_equal(M.inversions(v, budget=1), _brute_inversions(v))  # one row at a time


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
        r = M._Ranks(x)
        np.testing.assert_array_equal(r.lo, rankdata(x, method="min", axis=-1))
        np.testing.assert_array_equal(r.hi, rankdata(x, method="max", axis=-1))
        np.testing.assert_array_equal(r.average, rankdata(x, axis=-1))
        np.testing.assert_array_equal(r.dense, rankdata(x, method="dense", axis=-1) - 1)
        s = np.sort(x, axis=-1)
        pairs = [sum(int(c) * (int(c) - 1) // 2 for c in np.unique(row, return_counts=True)[1])
                 for row in s.reshape(-1, shape[-1])]
        np.testing.assert_array_equal(r.tie_pairs.reshape(-1), pairs)


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1, 2**32, 2**70 + 3])
def test_streams_equal_numpy_spawn(seed: int) -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        key = tuple(int(x) for x in rng.choice([0, 1, 2**32 - 1, 2**32 + 5, int(rng.integers(0, 2**32))],
                                               size=int(rng.integers(0, 5))))
        n = int(rng.integers(1, 25))
        parent = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
        expected = [g.bit_generator.state for g in parent.spawn(n)]
        assert [g.bit_generator.state for g in P._streams(seed, key, range(n))] == expected
        if key:
            assert P._streams(seed, key[:-1], [key[-1]])[0].bit_generator.state == parent.bit_generator.state
    assert P.trial_rng(seed, 1, 2).spawn(2)  # the public generator can still spawn


def test_blas_rows_do_not_depend_on_other_rows() -> None:
    """The k-means shortcuts assume: single-threaded, an even number of rows, row i of A @ B
    depends on row i of A only (true of OpenBLAS; checked here on this machine)."""
    rng = np.random.default_rng(6)
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(40):
            n, p = int(rng.integers(2, 300)), int(rng.integers(1, 70))
            A = rng.normal(size=(2 * int(rng.integers(1, 400)), p))
            X = rng.normal(size=(n, p))
            full = A @ X.T
            rows = rng.choice(len(A), size=2 * int(rng.integers(1, len(A) // 2 + 1)), replace=False)
            np.testing.assert_array_equal(A[rows] @ X.T, full[rows])


def test_min_argmin_first_index() -> None:
    rng = np.random.default_rng(7)
    for kmax in (1, 2, 5, 20, 300):
        d = rng.integers(0, 4, size=(6, kmax, 11)).astype(float)
        d[0, -1] = np.inf
        m, a = KM._min_argmin(d, KM._first_weights(kmax))
        np.testing.assert_array_equal(m, d.min(axis=1))
        np.testing.assert_array_equal(a, d.argmin(axis=1))


def _tsc_like(n: int = 89, p: int = 17, seed: int = 8) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) @ rng.normal(size=(4, p)) + 0.3 * rng.normal(size=(n, p))
    X[:, 0] = np.round(X[:, 0])  # a coarse column, as counts in the UCR facts
    X[5] = X[6]  # duplicate datasets
    return standardize(X)


def _reference_lloyd(X: np.ndarray, C: np.ndarray, valid: np.ndarray, max_iter: int = KM.MAX_ITER,
                     even: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The first version's Lloyd loop: runs padded to the largest k, every iteration two
    whole BLAS products (distances; cluster sums through the 0/1 membership matrix).
    ``even``: one zero row added to odd products (the layout of the ragged loop)."""
    n, p = X.shape
    R, kmax, _ = C.shape
    C = C.copy()
    x2 = (X * X).sum(axis=1)
    labels = np.full((R, n), -1)
    inertia = np.zeros(R)
    act = np.arange(R)
    for it in range(max_iter + 1):
        Ca = C[act]
        c2 = (Ca * Ca).sum(axis=2)
        c2[~valid[act]] = np.inf
        A = Ca.reshape(-1, p)
        if even and len(A) % 2:
            A = np.vstack([A, np.zeros((1, p))])
        d = (A @ X.T)[: act.size * kmax].reshape(act.size, kmax, n) * -2.0 + c2[:, :, None] + x2
        m, new = d.min(axis=1), d.argmin(axis=1)
        changed = (new != labels[act]).any(axis=1)
        inertia[act[~changed]] = np.maximum(m[~changed], 0.0).sum(axis=1)
        if it == max_iter:
            inertia[act[changed]] = np.maximum(m[changed], 0.0).sum(axis=1)
            break
        act, new = act[changed], new[changed]
        if act.size == 0:
            break
        labels[act] = new
        onehot = np.zeros((act.size * kmax + (act.size * kmax % 2 if even else 0), n))
        for i in range(act.size):
            onehot[i * kmax + new[i], np.arange(n)] = 1.0
        counts = onehot.sum(axis=1)[: act.size * kmax].reshape(act.size, kmax)
        sums = (onehot @ X)[: act.size * kmax].reshape(act.size, kmax, p) / np.maximum(counts, 1.0)[:, :, None]
        C[act] = np.where((counts > 0)[:, :, None], sums, C[act])
    return C, inertia


def _reference_kmeans(X: np.ndarray, k: int, rng: np.random.Generator, n_init: int = KM.N_INIT) -> np.ndarray:
    """``kmeans_select`` from the reference loop: seeding, Lloyd, then the picks."""
    C0, rows = KM._seed(X, [k], [rng], n_init)
    C, inertia = _reference_lloyd(X, C0, rows >= 0, even=k % 2 == 0)
    return KM._pick(X, C[int(np.argmin(inertia))], [])


LLOYD_CASES = [(89, 17, [2, 3, 7, 10]), (300, 7, [5, 9]), (700, 2, [3]), (257, 1, [2, 4]), (600, 33, [1, 4, 9]),
               (1000, 64, [13, 20]), (2500, 3, [7])]


@pytest.mark.parametrize(("n", "p", "ks"), LLOYD_CASES)
def test_lloyd_equals_reference(n: int, p: int, ks: list[int]) -> None:
    """The merged loop, whole products or bounded, padded (``stacked``) or ragged, gives the
    reference loop's centres and inertia to the last bit (odd products included)."""
    X = _tsc_like(n=n, p=p, seed=n)
    with threadpool_limits(limits=1, user_api="blas"):
        C0 = KM._seed_centres(X, ks, np.random.default_rng(n).spawn(len(ks)), 10)
        R, kmax, _ = C0.shape
        valid = np.arange(kmax)[None, :] < np.repeat(ks, 10)[:, None]
        # p = 1: BLAS takes a matrix-vector path whose rows depend on the row count, so the
        # ragged layout equals only itself (checked against the first version separately)
        for even in (False,) if p == 1 else (False, True):
            C, inertia = _reference_lloyd(X, C0, valid, even=even)
            for bounded in (False, True):
                if even:  # ragged layout, runs padded to their block
                    sizes = np.repeat(KM._blocks(ks), 10)
                    inside = np.arange(kmax)[None, :] < sizes[:, None]
                    Cb, ib = KM._lloyd_runs(X, C0[inside], sizes, real=valid[inside], bounded=bounded)
                    np.testing.assert_array_equal(Cb[valid[inside]], C[valid])
                else:
                    Cb, ib = KM._lloyd_runs(X, C0.reshape(R * kmax, p), np.full(R, kmax), real=valid.reshape(-1),
                                            stacked=True, bounded=bounded)
                    np.testing.assert_array_equal(Cb[valid.reshape(-1)], C[valid])
                np.testing.assert_array_equal(ib, inertia)
        Cp, ip = KM._lloyd(X, C0, valid)  # the padded wrapper (budget.py)
        C, inertia = _reference_lloyd(X, C0, valid)
        np.testing.assert_array_equal(ip, inertia)
        np.testing.assert_array_equal(Cp[valid], C[valid])


@pytest.mark.parametrize(("n", "k"), [(200, 7), (200, 20), (1000, 25), (3000, 49), (3000, 50)])
def test_kmeans_select_equals_reference(n: int, k: int) -> None:
    """``select`` chooses the reference loop's subsets (n = 3000: the bounded loop)."""
    from subsetsel_core.synthetic import make_synthetic

    syn = make_synthetic(n_datasets=n, n_models=3, n_folds=1, seed=n)
    X = syn.oracle.drop(columns=["dataset"]).to_numpy(float)
    with threadpool_limits(limits=1, user_api="blas"):
        for seed in (0, 1)[: 1 if n > 1000 else 2]:
            ref = _reference_kmeans(standardize(X), k, np.random.default_rng(seed))
            np.testing.assert_array_equal(KM.kmeans_select(standardize(X), k, rng=np.random.default_rng(seed)), ref)


def test_sequential_sums_equal_blas_product() -> None:
    """Block sums added in order equal the 0/1 product (when the model matches this BLAS);
    the three-row product gives the last row of an odd product."""
    rng = np.random.default_rng(11)
    with threadpool_limits(limits=1, user_api="blas"):
        for n, p in ((5, 3), (256, 2), (257, 9), (700, 64), (1025, 5), (4099, 17)):
            X = rng.normal(size=(n, p)) * np.exp(rng.normal(size=(n, 1)))
            starts = KM._depth_blocks(n)
            blk = np.repeat(np.arange(starts.size), np.diff(np.append(starts, n)))
            for k in (2, 6, 50):
                lab = rng.integers(0, k, n)
                onehot = np.zeros((k, n))
                onehot[lab, np.arange(n)] = 1.0
                if KM._sums_model_ok(n, p):
                    parts = KM._member_sums(np.ascontiguousarray(X), lab * starts.size + blk, np.arange(n),
                                            k * starts.size)
                    np.testing.assert_array_equal(KM._fold(parts.reshape(k, starts.size, p)), onehot @ X)
                odd = np.vstack([onehot, onehot[:1]])
                np.testing.assert_array_equal(KM._edge_product(odd[-1], X, False), (odd @ X)[-1])
                C = rng.normal(size=(k + 1, p))
                np.testing.assert_array_equal(KM._edge_product(C[-1], X.T, False), (C @ X.T)[-1])
            np.testing.assert_array_equal(KM._edge_product(X[0], X.T, True), (X[:1] @ X.T)[0])


def test_kmeans_many_equals_one_k_at_a_time() -> None:
    X = _tsc_like()
    ks = list(range(2, 13))
    with threadpool_limits(limits=1, user_api="blas"):
        many = KM.kmeans_many(X, ks, np.random.default_rng(2).spawn(len(ks)))
        single = [KM.kmeans_select(X, k, rng=g) for k, g in zip(ks, np.random.default_rng(2).spawn(len(ks)),
                                                                strict=True)]
    for a, b in zip(many, single, strict=True):
        np.testing.assert_array_equal(a, b)


def test_pick_distances_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    X = _tsc_like(n=60)
    rng = np.random.default_rng(9)
    blocks = [X[rng.choice(60, k, replace=False)] + 0.01 for k in (2, 5, 3, 9, 1)]
    whole = [KM._sq_dist(X, c) for c in blocks]
    for budget in (1, 60 * 7 * X.shape[1], 2**22):
        monkeypatch.setattr(KM, "_PICK_BLOCK", budget)
        for a, b in zip(KM._sq_dist_blocks(X, blocks), whole, strict=True):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(KM._pick(X, blocks[3], []), KM._pick(X, blocks[3], [], whole[3]))


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
    from subsetsel_core.descriptors import build_representation
    from subsetsel_core.evaluation.parallel import process_mapper
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
    from subsetsel_core.descriptors import build_representation
    from subsetsel_core.synthetic import make_synthetic

    s = make_synthetic(n_datasets=30, n_models=20, n_folds=2, seed=4)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    rep = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    cfg = EvaluationConfig(trials=4, k_max=6, seed=2)
    whole = json.dumps(evaluate(bench, rep, cfg).to_json_dict())
    monkeypatch.setattr(P, "_METRIC_BLOCK", 1)  # one entry per metrics call
    assert json.dumps(evaluate(bench, rep, cfg).to_json_dict()) == whole


def test_fold_adds_blocks_in_order() -> None:
    """The block fold (numpy's sum over the middle axis for p ≥ 2) adds the blocks one after
    the other, as the cumulative sum does, for every shape it meets."""
    rng = np.random.default_rng(5)
    for t in (1, 2, 7, 50):
        for nb in (2, 3, 9, 40):
            for p in (1, 2, 3, 5, 64):
                parts = rng.normal(size=(t, nb, p)) * np.exp(rng.normal(0.0, 3.0, size=(t, nb, 1)))
                np.testing.assert_array_equal(KM._fold(parts), np.add.accumulate(parts, axis=1)[:, -1])
                np.testing.assert_array_equal(KM._fold(parts[::2]), np.add.accumulate(parts[::2], axis=1)[:, -1])


@pytest.mark.parametrize("layout", ["C", "F", "C view", "F view"])
def test_bounded_picks_equal_whole_distances(layout: str) -> None:
    """Large n: the picks from bounded distances are those from the whole distance table,
    with must-include rows, duplicate datasets (ties) and centres sitting on datasets, for
    descriptors in row- or column-major order (contiguous or not)."""
    X = _tsc_like(n=2600, p=9, seed=4)
    X[100:110] = X[7]  # ten copies of one dataset: exact ties
    fortran = layout.startswith("F")
    X = np.asfortranarray(X) if fortran else np.ascontiguousarray(X)
    if layout.endswith("view"):  # every other column of a wider table
        wide = np.repeat(X, 2, axis=1)
        X = (np.asfortranarray(wide) if fortran else np.ascontiguousarray(wide))[:, ::2]
    rng = np.random.default_rng(8)
    for k in (1, 6, 40):
        centres = X[rng.choice(X.shape[0], k, replace=False)] + rng.normal(0.0, 0.05, size=(k, X.shape[1]))
        centres[0] = X[7]  # nearest rows tie: the lowest one first, then the next copies
        if k > 1:
            centres[1] = X[7]
        for include in ([], [105, 3], [int(i) for i in rng.choice(X.shape[0], min(k, 4), replace=False)]):
            include = include[:k]
            whole = KM._pick(X, centres, include, KM._sq_dist(X, centres))
            np.testing.assert_array_equal(KM._pick_bounded(X, centres, include), whole)
    sub = X[[3, 5]]
    np.testing.assert_array_equal(KM._sq_dist(np.asfortranarray(sub) if fortran else sub, centres),
                                  KM._sq_dist(X, centres)[[3, 5]])


def test_restarts_on_threads_equal_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded loop's restarts on two threads give the subsets of one thread."""
    from subsetsel_core.synthetic import make_synthetic

    X = standardize(make_synthetic(n_datasets=2300, n_models=3, n_folds=1, seed=3).oracle
                    .drop(columns=["dataset"]).to_numpy(float))
    with threadpool_limits(limits=1, user_api="blas"):
        with KM.single_threaded():
            one = [KM.kmeans_select(X, k, rng=np.random.default_rng(k)) for k in (9, 24)]
        monkeypatch.setattr(KM, "_threads", lambda: 2)  # two threads even on a one-core machine
        two = [KM.kmeans_select(X, k, rng=np.random.default_rng(k)) for k in (9, 24)]
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", ["lattice", "offset", "wide", "many columns"])
def test_single_precision_labels_change_nothing(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded loop's single-precision first pass gives the double-precision loop's
    centres and inertia to the last bit, also with exact ties (points on a lattice, many
    equidistant from two centres), far from the origin, and with large norms."""
    rng = np.random.default_rng(12)
    if case == "lattice":
        X = rng.integers(0, 4, size=(2300, 3)).astype(float)
    elif case == "offset":
        X = _tsc_like(n=2300, p=6, seed=2) + 1e4
    elif case == "wide":
        X = _tsc_like(n=2300, p=40, seed=3) * 1e6
    else:
        X = _tsc_like(n=2300, p=300, seed=5)
    with threadpool_limits(limits=1, user_api="blas"):
        C0, rows = KM._seed(X, [6, 12], np.random.default_rng(1).spawn(2), 10)
        sizes = np.repeat([6, 12], 10)
        inside = np.arange(C0.shape[1])[None, :] < sizes[:, None]
        runs = (X, C0[inside], sizes)
        fast = KM._lloyd_runs(*runs, real=(rows >= 0)[inside], bounded=True)
        monkeypatch.setattr(KM, "_SINGLE", False)
        plain = KM._lloyd_runs(*runs, real=(rows >= 0)[inside], bounded=True)
    np.testing.assert_array_equal(fast[0], plain[0])
    np.testing.assert_array_equal(fast[1], plain[1])


def test_csr_kernel_loads_without_the_sparse_package() -> None:
    """In a fresh process the CSR kernel is loaded from its file (``scipy.sparse`` itself is
    not imported) and its sums are the sparse product's."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "import subsetsel_core.strategies.kmeans as K\n"
        "f = K._csr_kernel()\n"
        "assert f is not None and 'scipy.sparse' not in sys.modules, sorted(m for m in sys.modules if 'sparse' in m)\n"
        "X = np.arange(12.0).reshape(6, 2)\n"
        "print(K._member_sums(X, np.array([1, 0, 1]), np.array([0, 2, 5]), 2).tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[[4.0, 5.0], [10.0, 12.0]]"
