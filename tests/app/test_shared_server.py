"""A dashboard a lab can put on a shared server (issue 19), without a browser.

* the settings: one registry, environment over file over default, a typo never stops the
  server (a problem is listed), the documentation's table is the registry's;
* benchmark roots: no path field by default; the page offers the roots' benchmarks only; a
  root's sub-folder that links out is refused without looking into it; a typed path is
  confined (the same answer for ``/etc`` and ``/nonexistent``);
* every file of a benchmark folder is checked again as it is read (a swap for a link out
  after the manifest was read is refused, the message never shows the file's contents);
* per-session limits: trials, computations at once (another session is not affected),
  upload size, stored state.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.roots import confine_directory, offering_root
from subsetsel_core.loading.folder import load_benchmark_folder, scan_benchmarks
from subsetsel_core.loading.manifest import read_manifest
from subsetsel_core.settings import server as S

SECRET = "hunter2-top-secret"
ENV = [s.env for s in S.SETTINGS.values()] + [S.SETTINGS_ENV]


@pytest.fixture(autouse=True)
def _clean_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No setting from the outside: no variable, and a settings file that does not exist."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SUBSETSEL_NO_STATE", "1")
    monkeypatch.setenv(S.SETTINGS_ENV, str(tmp_path / "no-settings.toml"))


def bench(root: Path, name: str, title: str | None = None) -> Path:
    """A small valid benchmark folder ``root/name``."""
    d = root / name
    d.mkdir(parents=True)
    (d / "scores.csv").write_bytes(H.tiny_long_csv(n_datasets=6, n_models=4, n_folds=1))
    (d / "features.csv").write_bytes(H.tiny_descriptors_csv(n_datasets=6))
    manifest = {"name": name, "title": title or name, "higher_is_better": True,
                "scores": {"file": "scores.csv", "fold_column": None},
                "representations": [{"name": "facts", "kind": "tabular", "files": ["features.csv"]}]}
    (d / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return d


# --------------------------------------------------------------------------- settings


def test_defaults_environment_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert S.get("allow_path_field") is False
    assert S.benchmark_roots() == (S.PROJECT_DIR / "sample_data",)
    assert S.get("max_running") == 2 and S.get("max_trials") == 5000
    f = tmp_path / "subsetsel.toml"
    f.write_text('benchmark_roots = ["/srv/a", "rel"]\nmax_trials = 300\nallow_path_field = true\n')
    monkeypatch.setenv(S.SETTINGS_ENV, str(f))
    assert S.benchmark_roots() == (Path("/srv/a"), S.PROJECT_DIR / "rel")
    assert S.get("max_trials") == 300 and S.get("allow_path_field") is True
    monkeypatch.setenv("SUBSETSEL_MAX_TRIALS", "40")
    monkeypatch.setenv("SUBSETSEL_BENCHMARK_ROOTS", os.pathsep.join(["/x", "/y"]))
    assert S.get("max_trials") == 40 and S.benchmark_roots() == (Path("/x"), Path("/y"))
    assert ("max_trials", "SUBSETSEL_MAX_TRIALS", 40, "environment") in S.effective()
    assert not S.problems()


def test_a_typo_is_a_problem_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "subsetsel.toml"
    f.write_text('max_trails = 3\nmax_running = "many"\nmax_upload_mb = 5\n')
    monkeypatch.setenv(S.SETTINGS_ENV, str(f))
    monkeypatch.setenv("SUBSETSEL_MAX_TRIALS", "lots")
    assert S.get("max_trials") == 5000 and S.get("max_running") == 2 and S.get("max_upload_mb") == 5
    found = " ".join(S.problems())
    assert "'max_trails' is not a setting" in found and "max_running" in found and "SUBSETSEL_MAX_TRIALS" in found
    assert S.main([]) == 2
    out = capsys.readouterr()
    assert "max_upload_mb" in out.out and "(file;" in out.out and "problem:" in out.err
    f.write_text("[broken\n")
    assert S.get("max_upload_mb") == 200 and "cannot be read as TOML" in " ".join(S.problems())


def test_the_documentation_shows_the_registry() -> None:
    doc = (H.ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for line in S.markdown_table().splitlines():
        assert line in doc, f"docs/deploy.md lacks the row: {line}"
    assert "docs/deploy.md" in (H.ROOT / "README.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- roots and confinement


def test_a_typed_path_is_confined_and_probing_learns_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    bench(root, "good")
    (root / "out").symlink_to(tmp_path)  # a link inside the root to a folder outside it
    answers = []
    for typed in ("/", "/etc", "/nonexistent", str(root / ".." / ".."), "../..", "out", str(tmp_path), "a\0b"):
        with pytest.raises(InputError) as exc:
            confine_directory(typed, [root])
        answers.append(re.sub(r"^'[^']*'", "'…'", str(exc.value)))  # the typed path (long ones shortened) aside
    assert len(set(answers[:4])) == 1, answers  # the same words whether the path exists or not
    assert confine_directory("", [root]) == root.resolve()
    assert confine_directory("good", [root]) == (root / "good").resolve()
    assert offering_root(root / "good", [root]) == root
    assert offering_root(root / "out", [root]) is None and offering_root("relative/x", [root]) is None


def test_a_root_with_a_link_to_outside_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    bench(root, "good")
    outside = bench(tmp_path / "elsewhere", "secret_bench", title=SECRET)
    (root / "linked").symlink_to(outside)
    cat = scan_benchmarks(root)
    assert [m.name for m in cat.manifests] == ["good"]
    (path, why), = cat.problems
    assert path.name == "linked" and "outside the benchmark directory" in why and SECRET not in why


def test_a_file_swapped_for_a_link_after_the_manifest_was_read_is_refused(tmp_path: Path) -> None:
    d = bench(tmp_path, "swap")
    secret = tmp_path / "secret.csv"
    secret.write_text(f"dataset,{SECRET}\nds_00,{SECRET}\n", encoding="utf-8")
    m = read_manifest(d)
    for name in ("features.csv", "scores.csv"):
        (d / name).rename(d / f"{name}.bak")
        (d / name).symlink_to(secret)
        with pytest.raises(InputError, match="outside the benchmark folder") as exc:
            load_benchmark_folder(m)
        assert SECRET not in str(exc.value) and f"swap/{name}" in str(exc.value)
        (d / name).unlink()
        (d / f"{name}.bak").rename(d / name)
    assert load_benchmark_folder(m).benchmark.n_datasets == 6


def test_no_path_field_by_default_and_only_the_roots_benchmarks(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    bench(root, "lab_one", title="Lab benchmark one")
    bench(root, "lab_two", title="Lab benchmark two")
    (root / "linked").symlink_to(bench(tmp_path / "elsewhere", "secret_bench", title=SECRET))
    monkeypatch.setenv("SUBSETSEL_BENCHMARK_ROOTS", str(root))
    at = H.goto(H.new_app(), "benchmark")
    assert not at.exception
    assert not [t for t in at.text_input if t.key == "bench_dir" or t.label == "Benchmark directory"]
    assert at.session_state["data"].name == "lab_one"  # the roots do not offer the embedded samples
    options = at.selectbox(key="bench_choice").options
    assert options == ["Lab benchmark one  (lab_one)", "Lab benchmark two  (lab_two)"], options
    shown = " ".join(str(w.value) for w in at.warning) + " ".join(str(m.value) for m in at.markdown)
    assert "linked" in shown and SECRET not in shown
    at.selectbox(key="bench_choice").select("Lab benchmark two  (lab_two)")
    at.run()
    at.button(key="load_folder_btn").click()
    at.run()
    assert at.session_state["data"].name == "lab_two" and not H.errors(at)


def test_the_path_field_when_turned_on_stays_inside_the_roots(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    bench(root / "group_a", "a_bench")
    monkeypatch.setenv("SUBSETSEL_BENCHMARK_ROOTS", str(root))
    monkeypatch.setenv("SUBSETSEL_ALLOW_PATH_FIELD", "1")
    at = H.goto(H.new_app(), "benchmark")
    answers = []
    for typed in ("/etc", "/nonexistent"):
        at.text_input(key="bench_dir").set_value(typed)
        at.run()
        answers.append([str(e.value).replace(f"'{typed}'", "'…'", 1) for e in at.error])
    assert answers[0] == answers[1] and "not inside the benchmark directories" in answers[0][0]
    assert not at.get("selectbox") or not [s for s in at.selectbox if s.key == "bench_choice"]
    at.text_input(key="bench_dir").set_value("group_a")
    at.run()
    assert at.selectbox(key="bench_choice").options == ["a_bench  (a_bench)"]


# --------------------------------------------------------------------------- limits


def test_too_many_trials_get_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_MAX_TRIALS", "10")
    at = H.goto(H.new_app(), "evaluate")
    at.number_input(key="ev_trials").set_value(50)
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    assert not at.exception
    shown = [str(e.value).replace("\\", "") for e in at.error]  # Markdown escapes
    assert any("at most 10 trials per run" in e and "max_trials" in e for e in shown), shown
    assert H.run_of(at) is None


def test_too_many_shuffles_get_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_MAX_PERMUTATIONS", "99")
    at = H.goto(H.new_app(), "evaluate")
    at.number_input(key="ev_trials").set_value(5)
    at.number_input(key="ev_permutations").set_value(199)
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    assert not at.exception
    shown = [str(e.value).replace("\\", "") for e in at.error]
    assert any("199 shuffles asked for" in e and "at most 99" in e and "max_permutations" in e for e in shown), shown
    assert H.run_of(at) is None


def test_computations_at_once_are_limited_per_session() -> None:
    from subsetsel_app import jobs

    release = threading.Event()

    def work(job: Any) -> str:
        release.wait(30)
        return "ok"

    try:
        a1 = jobs.submit(("shared-server-test", "a1"), "the first check", 1, work, owner="A", max_running=2)
        jobs.submit(("shared-server-test", "a2"), "the second check", 1, work, owner="A", max_running=2)
        with pytest.raises(InputError, match="at most 2 at once per session") as exc:
            jobs.submit(("shared-server-test", "a3"), "the third check", 1, work, owner="A", max_running=2)
        assert "the first check" in str(exc.value) and "max_running" in str(exc.value)
        b = jobs.submit(("shared-server-test", "b1"), "B's check", 1, work, owner="B", max_running=2)  # unaffected
        assert b.running and len(jobs.running_of("B")) == 1
        assert jobs.submit(("shared-server-test", "a1"), "the first check", 1, work, owner="A", max_running=2) is a1
        a1.stop()  # asked to stop: no longer counted
        jobs.submit(("shared-server-test", "a3"), "the third check", 1, work, owner="A", max_running=2)
    finally:
        release.set()
        jobs.wait_all(30)


def test_one_computation_too_many_gets_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_MAX_RUNNING", "1")
    at = H.new_app()
    at.session_state["ev_krange"] = (2, 40)
    H.goto(at, "evaluate")
    at.toggle(key="ev_permute").set_value(False)
    at.number_input(key="ev_trials").set_value(3000)  # long enough to still run below
    at.button[0].click()
    at.run()
    run = H.run_of(at)
    assert run is not None and run.running
    try:
        H.goto(at, "representation")
        at.number_input(key="rep_check_trials").set_value(10)
        at.run()
        at.button(key="rep_check_btn").click()
        at.run()
        shown = [str(e.value).replace("\\", "") for e in at.error]
        assert any("already runs 1 computation(s) (the evaluation)" in e and "at most 1 at once per session" in e
                   for e in shown), shown
        assert at.session_state["rep_check_job"] is None
    finally:
        run.stop()
        assert run.wait(60)


def test_uploads_over_the_limit_are_named_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from subsetsel_app import limits

    monkeypatch.setenv("SUBSETSEL_MAX_UPLOAD_MB", "0.5")
    assert limits.too_large("small.csv", 2**19) is None
    text = limits.too_large("big.csv", 2**20)
    assert text is not None and text.startswith("big.csv: 1 MB") and "0.5 MB" in text and "max_upload_mb" in text
    assert limits.widget_mb() == 1  # the uploaders' own cap is in whole MB


def test_stored_state_per_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subsetsel_app.session_store import SessionStore, new_id

    monkeypatch.setenv("SUBSETSEL_NO_STATE", "0")
    monkeypatch.setenv("SUBSETSEL_STATE_DIR", str(tmp_path / "sessions"))
    monkeypatch.setenv("SUBSETSEL_STATE_MB", "4")
    monkeypatch.setenv("SUBSETSEL_STATE_SESSION_MB", "0.001")
    store = SessionStore.from_env()
    assert store is not None and store.max_entry == int(0.001 * 2**20)
    a, b = new_id(), new_id()
    assert not store.put(a, b"x" * 2000)  # over one session's share: not kept
    assert store.put(b, b"y" * 500) and store.get(a) is None and store.get(b).data == b"y" * 500


# --------------------------------------------------------------------------- login


def test_require_login_stops_at_the_login_page(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("SUBSETSEL_REQUIRE_LOGIN", "1")
    at = AppTest.from_file(H.APP, default_timeout=H.TIMEOUT)
    at.run()
    assert not at.exception
    assert any("no login provider is configured" in str(e.value) for e in at.error)
    assert "data" not in at.session_state  # nothing of the dashboard ran
    at = AppTest.from_file(H.APP, default_timeout=H.TIMEOUT)
    at.secrets["auth"] = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32,
                          "client_id": "subsetsel", "client_secret": "s",
                          "server_metadata_url": "https://login.example.org/.well-known/openid-configuration"}
    at.run()
    assert not at.exception and not at.error
    assert at.button(key="login_btn").label == "Log in" and "data" not in at.session_state


def test_compute_modes_and_the_scheduler_are_the_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_COMPUTE_MODES", "this server,Dask cluster")
    monkeypatch.setenv("SUBSETSEL_DASK_SCHEDULER", "tcp://10.0.0.5:8786")
    at = H.new_app()  # (the sidebar is drawn by app.py: on the start page in AppTest)
    radio = at.radio(key="ev_compute")
    assert radio.options == ["this server", "Dask cluster"]
    radio.set_value("Dask cluster")
    at.run()
    assert not [t for t in at.text_input if t.key == "ev_scheduler"]  # the server's scheduler: nothing to type
    monkeypatch.setenv("SUBSETSEL_COMPUTE_MODES", "this server")  # the administrator narrows it
    from subsetsel_app import jobs

    at.run()
    assert not [r for r in at.radio if r.key == "ev_compute"]
    H.goto(at, "evaluate")
    at.toggle(key="ev_permute").set_value(False)
    at.number_input(key="ev_trials").set_value(4)
    at.button[0].click()
    at.run()
    run = H.run_of(at)
    assert run is not None and not H.errors(at) and run.wait(120) and run.status == "done"  # on this server
    jobs.wait_all(60)
    assert S.main(["--markdown"]) == 0
