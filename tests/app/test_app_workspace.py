"""Save the workspace from one session, load it in a fresh one: the same benchmark, settings and result."""

from __future__ import annotations

import json

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np

from subsetsel_app import jobs, state
from subsetsel_app.views import workspace
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig

SETTINGS = state.SAVED


def _session_with_result():
    at = H.new_app()
    # AppTest (1.67) drops the sidebar's elements after switch_page: look at them on the first page
    labels = {e.proto.label for e in at.sidebar if getattr(e, "type", "") == "download_button"}
    assert "Save workspace" in labels
    assert [u.label for u in at.file_uploader] == ["Load workspace"]
    H.load_sample(at, "synthetic")
    H.goto(at, "select")
    at.selectbox(key="sel_strategy").select("kmeans")
    at.run()
    at.slider(key="sel_k").set_value(7)
    at.run()
    ds = list(at.session_state["data"].benchmark.datasets)
    at.multiselect(key="sel_include").set_value([ds[3]])
    at.run()
    assert not H.errors(at)
    data = at.session_state["data"]
    res = evaluate(data.benchmark, {}, EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=5, seed=4))
    run = jobs.restore_evaluation(res, token=data.token, benchmark_name=data.benchmark.name)
    at.session_state["ev_run"] = run.key
    at.run()
    return at, res


def test_save_then_load_in_a_fresh_session_is_identical():
    at, res = _session_with_result()
    src = at.session_state["data"]
    raw = workspace.workspace_bytes(at.session_state, src)
    assert workspace.file_name(src).endswith(".subsetsel")

    fresh = H.new_app()  # opens on another benchmark (the default sample): the load must replace it
    assert fresh.session_state["data"].name != src.name
    fresh.file_uploader(key="ws_upload_0").set_value(("mine.subsetsel", raw, "application/zip"))
    fresh.run()
    assert not H.errors(fresh)
    got = fresh.session_state["data"]
    assert got.benchmark.name == src.benchmark.name and got.benchmark.datasets == src.benchmark.datasets
    assert got.benchmark.models == src.benchmark.models and got.benchmark.folds == src.benchmark.folds
    np.testing.assert_array_equal(got.benchmark.scores, src.benchmark.scores)
    assert set(got.tables) == set(src.tables)
    for key in SETTINGS:
        assert fresh.session_state[key] == at.session_state[key], key
    assert fresh.session_state["sel_strategy"] == "kmeans" and fresh.session_state["sel_k"] == 7
    back = jobs.get(fresh.session_state["ev_run"])
    assert back is not None and back.status == "done"
    assert json.dumps(back.result.to_json_dict()) == json.dumps(res.to_json_dict())

    # the same subset is chosen in the loaded session, and the Evaluate page shows the result
    H.goto(at, "select")
    H.goto(fresh, "select")
    assert not H.errors(fresh)
    assert at.dataframe[0].value.equals(fresh.dataframe[0].value)
    H.goto(fresh, "evaluate")
    assert not H.errors(fresh)
    assert {"Results (JSON)"} <= {b.proto.label for b in fresh.get("download_button")}


def test_a_bad_file_shows_an_error_and_keeps_the_benchmark():
    at = H.new_app()
    before = at.session_state["data"]
    at.file_uploader(key="ws_upload_0").set_value(("junk.subsetsel", b"this is not a workspace", "application/zip"))
    at.run()
    assert any("not a subsetsel workspace file" in e for e in H.errors(at))
    assert at.session_state["data"] is before
    assert any("current workspace is kept" in e for e in H.errors(at))
