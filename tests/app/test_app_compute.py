"""The sidebar's Compute setting: the same evaluation in this server, in worker processes and on Dask."""

from __future__ import annotations

import json

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_app.views import compute


def _run(at, trials: int = 6):
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(trials)
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine", "kmeans"])
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    assert not H.errors(at), H.errors(at)
    run = H.run_of(at)
    assert run is not None
    H.wait_for_run(at)
    assert run.status == "done", run.error
    return run


def _numbers(run) -> str:
    from subsetsel_app import jobs

    d = run.result.to_json_dict()
    test = jobs.get(jobs.permutation_key(run.key))
    d["permutation"] = test.result.to_json_dict() if test is not None else None
    return json.dumps({k: d[k] for k in ("ks", "results", "friedman", "permutation")}, sort_keys=True)


def test_worker_processes_give_the_numbers_of_this_server():
    serial = _run(H.new_app())
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(H.APP, default_timeout=H.TIMEOUT)
    at.session_state["ev_compute"] = "local processes"
    at.session_state["ev_jobs"] = 2
    at.session_state["ev_permutations"] = H.FEW_SHUFFLES
    at.run()
    # AppTest drops the sidebar's elements after switch_page: look at them on the first page
    captions = [str(e.value) for e in at.sidebar if getattr(e, "type", "") == "caption"]
    assert any("2 local worker processes" in c for c in captions), captions
    parallel = _run(at)
    assert _numbers(parallel) == _numbers(serial)


def test_an_empty_scheduler_address_is_a_message_not_a_crash():
    at = H.new_app()
    at.session_state["ev_compute"] = "Dask cluster"
    at.session_state["ev_scheduler"] = "  "
    at.run()
    H.goto(at, "evaluate")
    at.button[0].click()
    at.run()
    assert not at.exception
    assert any("scheduler address is empty" in e.value for e in at.error)


def test_an_unreachable_scheduler_is_reported():
    ok, msg = compute.check_scheduler(f"tcp://127.0.0.1:{H.free_port()}")
    assert not ok and "cannot reach a Dask scheduler" in msg


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_numbers_of_this_server():
    distributed = pytest.importorskip("distributed")
    serial = _run(H.new_app())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0") as cluster:
        ok, msg = compute.check_scheduler(cluster.scheduler_address)
        assert ok and "2 worker(s)" in msg
        at = H.new_app()
        at.session_state["ev_compute"] = "Dask cluster"
        at.session_state["ev_scheduler"] = cluster.scheduler_address
        on_dask = _run(at)
    assert _numbers(on_dask) == _numbers(serial)
