"""No silent carry-over, nothing lost on reload.

A benchmark switch resets every benchmark-dependent setting and names the ones the user
had changed; a missing-score policy never carries over to the next file. A session is kept
on the server under the id in its address: a new session with that id (a reload, a shared
link) gets the benchmark, the settings and the finished evaluation back.
"""

from __future__ import annotations

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pytest

from subsetsel_app import jobs, persist, session_store, state


def _infos(at) -> list[str]:
    return [str(e.value).replace("\\", "") for e in at.info]


def _upload(at, scores: bytes, name: str = "tiny_scores.csv", desc: bytes | None = None):
    H.goto(at, "benchmark")
    nonce = at.session_state["up_nonce"]
    at.file_uploader(key=f"up_scores_{nonce}").set_value((name, scores, "text/csv"))
    if desc is not None:
        at.file_uploader(key=f"up_desc_{nonce}").set_value([("features_tiny.csv", desc, "text/csv")])
    at.run()
    return at


def _use(at):
    at.button(key="use_upload_btn").click()
    at.run()
    assert not H.errors(at), H.errors(at)
    return at


# --------------------------------------------------------------------------- resets


def test_every_benchmark_setting_is_flagged_once():
    flagged = {k for k, v in state.KEYS.items() if v.resets_with_benchmark}
    assert {"sel_strategy", "sel_k", "up_missing", "up_res_missing", "rep_tables", "rep_columns", "ev_krange",
            "ev_reps", "map_color"} <= flagged
    assert all(state.KEYS[k].label for k in ("sel_strategy", "sel_k", "up_missing", "rep_tables"))
    assert not state.KEYS["seed"].resets_with_benchmark  # one seed for everything
    ss = {"sel_strategy": "kmeans", "sel_k": 12, "up_missing": "drop-models", "rep_tables": ["a"], "seed": 4,
          "map_color": "type", "sel_budget": 3.0}
    changes = state.reset_for_new_benchmark(ss, auto={"rep_tables": ["a"]})
    assert ss["sel_strategy"] == "fafi-cosine" and ss["sel_k"] == 10 and ss["up_missing"] == "error"
    assert ss["seed"] == 4 and ss["sel_budget"] is None
    assert state.reset_notice(changes) == ("Reset for the new benchmark: missing scores drop-models → error, "
                                           "map colour type → automatic, strategy kmeans → fafi-cosine, k 12 → 10.")


def test_a_sample_switch_resets_strategy_k_and_missing_policy_and_says_so():
    at = H.goto(H.new_app(), "select")
    at.selectbox(key="sel_strategy").select("kmeans")
    at.run()
    at.slider(key="sel_k").set_value(12)
    at.run()
    at.session_state["up_missing"] = "drop-models"  # as left by an earlier upload
    H.load_sample(at, "synthetic")
    assert (at.session_state["sel_strategy"], at.session_state["sel_k"], at.session_state["up_missing"]) == (
        "fafi-cosine", 10, "error")
    notes = [t for t in _infos(at) if t.startswith("Reset for the new benchmark")]
    assert notes == ["Reset for the new benchmark: missing scores drop-models → error, strategy kmeans → "
                     "fafi-cosine, k 12 → 10."], _infos(at)  # what was filled in by the pages is not named
    assert not H.errors(at)
    H.load_sample(at, "mmlu")  # nothing changed since: no notice
    assert not [t for t in _infos(at) if t.startswith("Reset")]


def test_an_upload_keeps_its_own_policy_and_the_next_file_starts_from_the_default():
    at = _upload(H.new_app(), H.tiny_long_csv(n_datasets=8, seed=0))
    at.selectbox(key="up_missing").select("drop-models")
    at.run()
    _use(at)
    assert at.session_state["data"].name == "tiny_scores" and at.session_state["up_missing"] == "drop-models"
    # another file in the uploader: the policy is chosen for it anew, and the page says so
    at.file_uploader(key=f"up_scores_{at.session_state['up_nonce']}").set_value(
        ("other.csv", H.tiny_long_csv(n_datasets=9, seed=3), "text/csv"))
    at.run()
    assert at.session_state["up_missing"] == "error"
    assert any("Missing scores: back to 'error' for this new file (it was 'drop-models'" in t for t in _infos(at))
    # and a switch to a sample resets it too
    at.selectbox(key="up_missing").select("drop-datasets")
    at.run()
    H.load_sample(at, "synthetic")
    assert at.session_state["up_missing"] == "error"
    assert any("missing scores drop-datasets → error" in t for t in _infos(at))


def test_new_results_files_start_from_the_default_policy():
    from test_app_result_upload import FIXTURES, _zip

    at = H.goto(H.new_app(), "benchmark")
    uploader = next(u for u in at.get("file_uploader") if "Results folder" in u.label)
    uploader.set_value([("lm_eval.zip", _zip(FIXTURES / "lm_eval"), "application/zip")])
    at.run()
    at.selectbox(key="up_res_missing").select("drop-models")
    at.run()
    at.button(key="use_results_btn").click()
    at.run()
    assert at.session_state["data"].name == "lm_eval" and at.session_state["up_res_missing"] == "drop-models"
    uploader = next(u for u in at.get("file_uploader") if "Results folder" in u.label)
    uploader.set_value([("mteb.zip", _zip(FIXTURES / "mteb"), "application/zip")])
    at.run()
    assert at.session_state["up_res_missing"] == "error"
    assert any("back to 'error' for these new files (it was 'drop-models'" in t for t in _infos(at)), _infos(at)


def test_a_loaded_workspace_names_only_what_it_did_not_restore():
    from subsetsel_app.views import workspace

    src = H.load_sample(H.new_app(), "synthetic")
    raw = workspace.workspace_bytes(src.session_state, src.session_state["data"])
    at = H.new_app()  # AppTest (1.67) drops the sidebar's elements after switch_page: stay on the first page
    at.session_state["sel_k"] = 13
    at.session_state["up_missing"] = "drop-models"
    at.file_uploader(key="ws_upload_0").set_value(("mine.subsetsel", raw, "application/zip"))
    at.run()
    assert at.session_state["sel_k"] == 10  # from the file
    notes = [t for t in _infos(at) if t.startswith("Reset")]
    assert notes == ["Reset for the new benchmark: missing scores drop-models → error."]


# --------------------------------------------------------------------------- kept across reloads


@pytest.fixture
def store_on(tmp_path, monkeypatch):
    monkeypatch.setenv("SUBSETSEL_NO_STATE", "0")
    monkeypatch.setenv("SUBSETSEL_STATE_DIR", str(tmp_path / "sessions"))
    yield session_store.SessionStore.from_env()
    persist.flush()


def _reload(sid: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(H.APP, default_timeout=H.TIMEOUT)
    at.query_params[persist.PARAM] = sid
    at.run()
    return at


def test_a_reload_brings_back_the_upload_its_settings_and_the_finished_evaluation(store_on):
    at = H.new_app()
    assert at.session_state["ps_mode"] == "" and persist.PARAM not in at.query_params  # a fresh visit: nothing kept
    _use(_upload(at, H.tiny_long_csv(n_datasets=10, n_models=5), desc=H.tiny_descriptors_csv(n_datasets=10)))
    H.goto(at, "select")
    at.slider(key="sel_k").set_value(4)
    at.run()
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(4)
    at.number_input(key="ev_perm_trials").set_value(4)
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine"])
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    H.wait_for_run(at)
    assert not H.errors(at)
    assert persist.flush()
    sid = at.session_state["ps_id"]
    assert session_store.valid_id(sid) and at.session_state["ps_mode"] == "own"
    assert at.query_params[persist.PARAM] in (sid, [sid])
    run = H.run_of(at)
    assert run.status == "done"

    back = _reload(sid)
    assert not H.errors(back), H.errors(back)
    assert any(t.startswith("Restored your session from ") for t in _infos(back)), _infos(back)
    src, got = at.session_state["data"], back.session_state["data"]
    assert got.name == "tiny_scores" and got.source == "upload" and got.token == src.token
    np.testing.assert_array_equal(got.benchmark.scores, src.benchmark.scores)
    assert set(got.tables) == set(src.tables)
    assert back.session_state["sel_k"] == 4 and back.session_state["ev_trials"] == 4
    job = jobs.get(back.session_state["ev_run"])
    assert job is not None and job.status == "done" and job.result.trials_done == 4
    assert jobs.get(jobs.permutation_key(job.key)).status == "done"
    H.goto(back, "evaluate")
    assert not H.errors(back)
    progress = [str(p.proto.text) for p in back.get("progress")]
    assert any(t.startswith("Finished: 4 trials") for t in progress), progress
    assert any(t.startswith("Permutation test finished") for t in progress), progress

    # on a restarted server (no job registry) the result comes from the file, with its permutation test
    with _no_live_jobs():
        again = _reload(sid)
        job2 = jobs.get(again.session_state["ev_run"])
        assert job2 is not None and job2.key != run.key and job2.status == "done" and job2.result.trials_done == 4
        assert jobs.get(jobs.permutation_key(job2.key)).status == "done"
        H.goto(again, "evaluate")
        assert not H.errors(again)
        progress = [str(p.proto.text) for p in again.get("progress")]
        assert any(t.startswith("Permutation test finished") for t in progress), progress
        table = next(d.value for d in again.dataframe if "verdict" in d.value.columns)
        verdicts = dict(zip(table["strategy"], table["verdict"], strict=True))
        assert verdicts["fafi-cosine"] in ("helps", "no evidence that it helps"), verdicts


class _no_live_jobs:
    """Hide the registry's jobs, as on a restarted server."""

    def __enter__(self):
        self.saved = dict(jobs._JOBS)
        jobs._JOBS.clear()

    def __exit__(self, *exc):
        jobs._JOBS.update(self.saved)


def test_a_restored_session_writes_its_changes_under_a_new_id(store_on):
    at = H.load_sample(H.new_app(), "synthetic")
    at.run()
    assert persist.flush()
    sid = at.session_state["ps_id"]
    back = H.goto(_reload(sid), "select")
    back.slider(key="sel_k").set_value(6)
    back.run()
    assert persist.flush()
    new = back.session_state["ps_id"]
    assert new != sid and back.query_params[persist.PARAM] in (new, [new])
    assert _reload(sid).session_state["sel_k"] == 10  # the shared link still shows what was shared
    assert _reload(new).session_state["sel_k"] == 6


def test_an_unknown_or_bad_id_gives_a_note_and_a_fresh_session(store_on):
    for sid, words in ((session_store.new_id(), "unknown or has expired"), ("../../etc/passwd", "not a valid id")):
        at = _reload(sid)
        assert not H.errors(at) and not at.exception
        assert at.session_state["data"].name == "tsc_bakeoff"
        notes = [str(e.value) for e in (*at.info, *at.warning)]
        assert any(words in n for n in notes), notes
        assert persist.PARAM not in at.query_params


def test_a_session_over_the_cap_is_not_kept_and_the_page_says_so(store_on, monkeypatch):
    monkeypatch.setenv("SUBSETSEL_STATE_MB", "0.01")  # entries of at most 2.5 kB
    at = H.load_sample(H.new_app(), "synthetic")
    assert persist.flush()
    H.goto(at, "home")
    warnings = [str(w.value) for w in at.warning]
    assert any("too large to keep across reloads" in w for w in warnings), warnings
    assert session_store.SessionStore.from_env().get(at.session_state["ps_id"]) is None


def test_a_switch_after_an_evaluation_keeps_the_session_and_its_workspace_loadable(store_on):
    # a larger benchmark is evaluated (k up to 20 of 24 datasets, 30 models), then a smaller one is used
    at = _use(_upload(H.new_app(), H.tiny_long_csv(n_datasets=24, n_models=30), name="big_scores.csv"))
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(4)
    at.number_input(key="ev_perm_trials").set_value(4)
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine"])
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    H.wait_for_run(at)
    old = H.run_of(at)
    assert old.status == "done" and max(old.result.ks) > 8  # sizes the smaller benchmark does not have
    _use(_upload(at, H.tiny_long_csv(n_datasets=8, n_models=5, seed=3), name="small_scores.csv"))
    assert at.session_state["data"].name == "small_scores"
    H.goto(at, "select")
    at.slider(key="sel_k").set_value(3)
    at.run()
    assert persist.flush()
    sid = at.session_state["ps_id"]

    back = _reload(sid)
    assert not H.errors(back) and not [w for w in back.warning if "could not be restored" in str(w.value)]
    assert any(t.startswith("Restored your session from ") for t in _infos(back)), _infos(back)
    got = back.session_state["data"]
    assert got.name == "small_scores" and got.benchmark.n_models == 5 and back.session_state["sel_k"] == 3
    assert back.session_state["ev_run"] is None  # the old run belongs to the other benchmark
    H.goto(back, "evaluate")
    assert not H.errors(back)

    # the workspace saved in that same session loads in a fresh one
    from subsetsel_app.views import workspace

    raw = workspace.workspace_bytes(at.session_state, at.session_state["data"])
    fresh = H.new_app()
    fresh.file_uploader(key="ws_upload_0").set_value(("small.subsetsel", raw, "application/zip"))
    fresh.run()
    assert not H.errors(fresh), H.errors(fresh)
    assert fresh.session_state["data"].benchmark.n_models == 5 and fresh.session_state["ev_run"] is None


def test_a_session_kept_before_evaluations_carried_their_benchmark_loads_without_the_old_one(store_on):
    import io
    import json
    import zipfile

    from subsetsel_core import EvaluationConfig, evaluate, load_scores
    from subsetsel_core.synthetic import make_synthetic
    from subsetsel_core.workspace.files import BENCHMARK_KEY, Workspace, save_workspace

    big = load_scores(make_synthetic(n_datasets=24, n_models=40, n_folds=1, seed=1).scores, name="big")
    small = load_scores(make_synthetic(n_datasets=8, n_models=5, n_folds=1, seed=2).scores, name="small")
    old = evaluate(big, {}, EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=15, seed=0))
    src = zipfile.ZipFile(io.BytesIO(save_workspace(Workspace(small, settings={"sel_k": 4},
                                                              evaluations={"evaluation": old}))))
    meta = json.loads(src.read("workspace.json"))  # as the previous format kept it: no identity
    meta["version"] = 1
    meta["evaluations"]["evaluation"].pop(BENCHMARK_KEY)
    meta["evaluations"]["evaluation"]["info"].pop(BENCHMARK_KEY)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else src.read(info))
    sid = session_store.new_id()
    assert store_on.put(sid, buf.getvalue())
    back = _reload(sid)
    assert not H.errors(back)
    note = next(t for t in _infos(back) if t.startswith("Restored your session from "))
    assert "The evaluation 'evaluation' (with its permutation test) does not fit the benchmark" in note, note
    assert back.session_state["data"].benchmark.n_models == 5 and back.session_state["sel_k"] == 4
    assert back.session_state["ev_run"] is None


def test_an_uploaded_workspace_with_an_evaluation_of_another_benchmark_loads_without_it():
    from subsetsel_core import EvaluationConfig, evaluate, load_scores
    from subsetsel_core.synthetic import make_synthetic
    from subsetsel_core.workspace.files import Workspace, save_workspace

    big = load_scores(make_synthetic(n_datasets=24, n_models=40, n_folds=1, seed=1).scores, name="big")
    small = load_scores(make_synthetic(n_datasets=8, n_models=5, n_folds=1, seed=2).scores, name="small")
    old = evaluate(big, {}, EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=15, seed=0))
    raw = save_workspace(Workspace(small, settings={"sel_k": 4}, evaluations={"evaluation": old}))
    at = H.new_app()
    at.file_uploader(key="ws_upload_0").set_value(("mine.subsetsel", raw, "application/zip"))
    at.run()
    assert not H.errors(at), H.errors(at)
    assert at.session_state["data"].benchmark.n_models == 5 and at.session_state["ev_run"] is None
    assert "The evaluation 'evaluation' (with its permutation test) was run on another benchmark than the one this " \
           "file holds; it is not loaded." in _infos(at), _infos(at)
