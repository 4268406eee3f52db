"""Parallel runs (local processes, a local Dask cluster) give the serial run's numbers."""

from __future__ import annotations

import json

import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_scores
from subsetsel_core.evaluation.parallel import dask_mapper, process_mapper
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.synthetic import make_synthetic


@pytest.fixture(scope="module")
def problem():  # type: ignore[no-untyped-def]
    s = make_synthetic(n_datasets=40, n_models=10, n_folds=2, seed=2)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    rep = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    cfg = EvaluationConfig(trials=12, k_max=8, batch_size=3, seed=7)
    return bench, rep, cfg, json.dumps(evaluate(bench, rep, cfg).to_json_dict())


def test_process_pool_identical(problem) -> None:  # type: ignore[no-untyped-def]
    bench, rep, cfg, serial = problem
    assert json.dumps(evaluate(bench, rep, cfg, mapper=process_mapper(2)).to_json_dict()) == serial


def test_dask_local_cluster_identical(problem) -> None:  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("distributed")
    bench, rep, cfg, serial = problem
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        by_client = evaluate(bench, rep, cfg, mapper=dask_mapper(client))
        by_address = evaluate(bench, rep, cfg, mapper=dask_mapper(cluster.scheduler_address))
    assert json.dumps(by_client.to_json_dict()) == serial
    assert json.dumps(by_address.to_json_dict()) == serial


def test_unreachable_scheduler_is_clear(problem) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("distributed")
    from subsetsel_core.errors import InputError

    bench, rep, cfg, _ = problem
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        evaluate(bench, rep, cfg, mapper=dask_mapper("tcp://127.0.0.1:1", timeout=2))


def test_permutation_shares_in_workers_equal_a_serial_test(problem) -> None:  # type: ignore[no-untyped-def]
    """Shuffles split into shares of their trials (2 and 3 workers, 7 trials: unequal shares) give
    the serial test's null gains and p-values to the last bit."""
    import numpy as np

    from subsetsel_core.evaluation.permutation import permutation_test

    bench, rep = problem[0], problem[1]
    cfg = EvaluationConfig(strategies=("random", "kmeans", "a-optimal", "d-optimal"), trials=7, k_max=8,
                           metrics=("spearman", "mae"))
    serial = permutation_test(bench, rep, cfg, permutations=5, stop_after=None, jobs=1)
    for jobs in (2, 3):
        par = permutation_test(bench, rep, cfg, permutations=5, stop_after=None, jobs=jobs)
        assert par.p_adjusted == serial.p_adjusted and par.p_raw == serial.p_raw and par.drawn == serial.drawn
        for k in serial.keys:
            for m in serial.metrics:
                np.testing.assert_array_equal(par.null[k][m], serial.null[k][m])
