"""The two paths of the inner loops give the same numbers: compiled (numba) and numpy.

* k-means: :mod:`subsetsel_core.strategies.kmeans_numpy` against
  :mod:`subsetsel_core.strategies.kmeans_kernels`, seeding and Lloyd's iterations, bit for
  bit, on random, gridded (many exact ties) and duplicated points, every remainder of p / 4;
* the selections of k-means and of the A-/D-optimal designs with every call forced on one
  path or the other; a whole evaluation's JSON;
* :mod:`subsetsel_core.strategies.kernel_choice`: numpy until the budget, compiled after;
* a one-trial ``evaluate`` of all six strategies on the TSC sample never imports numba (the
  command line's fixed cost).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from subsetsel_core.strategies import kernel_choice, kmeans_kernels, kmeans_numpy
from subsetsel_core.strategies.kmeans import kmeans_many
from subsetsel_core.strategies.optimal import (
    LAMBDA,
    _inv_info,
    _objective,
    optimal_design_many,
    optimal_design_pools,
)

ROOT = Path(__file__).resolve().parents[3]
T = TypeVar("T")


def _points(rng: np.random.Generator, case: int) -> np.ndarray:
    n, p = int(rng.integers(1, 60)), int(rng.integers(1, 12))
    if case == 0:  # a grid: many exact ties between distances
        return rng.integers(0, 3, size=(n, p)).astype(float)
    if case == 1:
        return rng.normal(size=(n, p))
    return np.repeat(rng.normal(size=(max(1, n // 3), p)), 3, axis=0)  # every point three times


@pytest.mark.parametrize("case", [0, 1, 2])
def test_numpy_kmeans_loops_equal_the_compiled_ones(case: int) -> None:
    rng = np.random.default_rng(case)
    for _ in range(60):
        X = _points(rng, case)
        n = X.shape[0]
        ka = np.repeat(rng.integers(1, n + 1, size=int(rng.integers(1, 5))), int(rng.integers(1, 4))).astype(np.int64)
        first = rng.integers(0, n, size=ka.size)
        u = np.zeros((ka.size, int(ka.max())))
        u[:, 1:] = rng.random((ka.size, int(ka.max()) - 1))
        seeded = kmeans_kernels.seed_runs(X, first, u, ka)
        np.testing.assert_array_equal(kmeans_numpy.seed_runs(X, first, u, ka), seeded)
        max_iter = int(rng.integers(1, 60))
        want = kmeans_kernels.lloyd_runs(X, X[seeded], ka, max_iter)
        got = kmeans_numpy.lloyd_runs(X, X[seeded], ka, max_iter)
        np.testing.assert_array_equal(got[0], want[0])  # the centres, to the last bit
        np.testing.assert_array_equal(got[1], want[1])  # the inertia


def test_few_iterations_stop_where_the_compiled_ones_stop() -> None:
    """max_iter = 0 and 1 (labels only; one update) on points far from converged."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 6))
    ka = np.array([5, 5, 9], dtype=np.int64)
    C = X[rng.integers(0, 40, size=int(ka.sum()))]
    for max_iter in (0, 1, 2):
        want = kmeans_kernels.lloyd_runs(X, C, ka, max_iter)
        got = kmeans_numpy.lloyd_runs(X, C, ka, max_iter)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_large_groups_of_runs_are_split_with_the_same_numbers() -> None:
    """Ten runs of k = 20 on 300 × 40 points: the distances are computed a few runs at a time."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 40))
    ka = np.full(10, 20, dtype=np.int64)
    assert ka.size * 40 * 20 * 300 > kmeans_numpy._BLOCK  # more than one block
    C = X[rng.integers(0, 300, size=int(ka.sum()))]
    want = kmeans_kernels.lloyd_runs(X, C, ka, 30)
    got = kmeans_numpy.lloyd_runs(X, C, ka, 30)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def _on(path: kernel_choice.KernelPath, run: Callable[[], T]) -> T:
    with kernel_choice.forced(path):
        return run()


@pytest.mark.parametrize(("n", "p"), [(89, 9), (45, 381), (30, 4), (12, 1)])
def test_kmeans_selections_are_the_same_on_both_paths(n: int, p: int) -> None:
    X = np.random.default_rng(n).normal(size=(n, p))
    X[3] = X[4]
    ks = [k for k in (1, 2, 5, 11, 20) if k <= n]
    for include in ([], [7]):
        got = [_on(path, lambda inc=include: kmeans_many(X, ks, np.random.default_rng(p).spawn(len(ks)), include=inc))
               for path in ("numpy", "compiled")]
        assert [a.tolist() for a in got[0]] == [b.tolist() for b in got[1]]


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_optimal_designs_are_the_same_on_both_paths(criterion: str) -> None:
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(50, 6)), 1)  # coarse values: ties between swaps
    ks = [2, 6, 10, 25]
    for include in ((), (4,)):
        one = [_on(path, lambda inc=include: optimal_design_many(X, ks, criterion=criterion, include=inc))
               for path in ("numpy", "compiled")]
        assert [s.tolist() for s in one[0]] == [s.tolist() for s in one[1]]
    pools = [rng.normal(size=(40, 5)) for _ in range(4)]
    stacked = [_on(path, lambda: optimal_design_pools(pools, ks, criterion=criterion)) for path in ("numpy", "compiled")]
    assert [[s.tolist() for s in sets] for sets in stacked[0]] == [[s.tolist() for s in sets] for sets in stacked[1]]


def test_a_whole_evaluation_is_the_same_on_both_paths(tmp_path: Path) -> None:
    from subsetsel_core.cli.main import main

    out = {}
    for path in ("numpy", "compiled"):
        with kernel_choice.forced(path):
            assert main(["evaluate", "--benchmark", str(ROOT / "sample_data" / "tsc_bakeoff"), "--representation",
                         "ucr_info", "--trials", "3", "--permutations", "0", "--out", str(tmp_path / f"{path}.json")]) == 0
        out[path] = json.loads((tmp_path / f"{path}.json").read_text())
        out[path].pop("provenance")  # times and the output path
    assert out["numpy"] == out["compiled"]


def test_numpy_until_the_budget_then_compiled_for_good() -> None:
    with kernel_choice.forced("auto"):
        assert not kernel_choice.use_compiled(0.6 * kernel_choice.NUMPY_BUDGET)
        assert not kernel_choice.use_compiled(0.3 * kernel_choice.NUMPY_BUDGET)
        assert kernel_choice.use_compiled(0.3 * kernel_choice.NUMPY_BUDGET)  # past the budget
        assert kernel_choice.use_compiled(1.0)  # and from then on, however small
    with kernel_choice.forced("auto"):
        assert kernel_choice.use_compiled(2 * kernel_choice.NUMPY_BUDGET)  # one large call: compiled at once
    with kernel_choice.forced("auto"):
        kernel_choice.prefer_compiled()
        assert kernel_choice.use_compiled(1.0)
    state = dict(kernel_choice._state)
    with kernel_choice.forced("numpy"):
        assert not kernel_choice.use_compiled(10 * kernel_choice.NUMPY_BUDGET)
    assert kernel_choice._state == state  # restored


def test_a_one_trial_evaluation_never_loads_numba(tmp_path: Path) -> None:
    """The default six strategies on the TSC sample, T = 1, in a process of its own."""
    code = ("import sys; from subsetsel_core.cli.main import main; "
            f"rc = main(['evaluate', '--benchmark', {str(ROOT / 'sample_data' / 'tsc_bakeoff')!r}, '--representation', "
            f"'ucr_info', '--trials', '1', '--out', {str(tmp_path / 'x.json')!r}]); "
            "print(rc, 'numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.split()[-2:] == ["0", "False"], done.stdout + done.stderr
    assert len(json.loads((tmp_path / "x.json").read_text())["config"]["strategies"]) == 6


def test_the_numpy_path_gives_the_stored_selections_of_the_samples() -> None:
    """The stored k-means and A-/D-optimal selections (tests/fixtures/selections), every fourth pool, in numpy."""
    import gzip

    from optimal_cases import KS, STORED, STORED_KMEANS, kmeans_rng, kmeans_stored, sample_pools

    stored = {}
    for path in (STORED, STORED_KMEANS):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            stored.update({(path, key): value for key, value in json.load(fh).items()})
    checked = 0
    with kernel_choice.forced("numpy"):
        for i, (name, X) in list(enumerate(sample_pools()))[::6]:
            ks = [k for k in KS if k <= X.shape[0]]
            if kmeans_stored(name):
                got = [s.tolist() for s in kmeans_many(X, ks, [kmeans_rng(i)] * len(ks))]
                assert got == stored[STORED_KMEANS, name], name
                checked += 1
            for criterion in "ad":
                for got, want in zip([s.tolist() for s in optimal_design_many(X, list(KS), criterion=criterion)],
                                     stored[STORED, f"{name}/{criterion}"], strict=True):
                    if got != want:  # an exact tie broken the other way by this machine's arithmetic only
                        values = [_objective(_inv_info(X, S, LAMBDA), criterion) for S in (got, want)]
                        assert values[0] == pytest.approx(values[1], rel=1e-9, abs=1e-12), (name, criterion, got)
                checked += 1
    assert checked >= 10
