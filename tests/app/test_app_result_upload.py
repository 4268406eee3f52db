"""Uploads of results folders: the pure check, and the Benchmark page through AppTest."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)

from subsetsel_app import result_upload
from subsetsel_app.upload import UploadedTable

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "results"


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, Path(folder.name) / p.relative_to(folder))
    return buf.getvalue()


def test_check_results_builds_the_benchmark_and_the_metric_table():
    res = result_upload.check_results([UploadedTable("mteb.zip", _zip(FIXTURES / "mteb"))])
    assert res.check.ok and res.format == "mteb"
    b = res.check.data.benchmark
    assert (b.n_datasets, b.n_models) == (4, 3) and b.name == "mteb"
    assert list(res.metrics["metric"]) == ["main_score"] * 4
    assert dict(res.check.report.facts)["format"] == "MTEB"
    files = [UploadedTable(p.name, p.read_bytes()) for p in sorted((FIXTURES / "eee").rglob("*.json"))]
    res = result_upload.check_results(files, "eee", metric="TruthfulQA=mc2", name="board")
    assert res.check.ok and res.check.data.name == "board"
    assert res.metrics.set_index("task").loc["TruthfulQA", "metric"] == "mc2"


def test_check_results_words_errors_for_this_form():
    raw = _zip(FIXTURES / "lm_eval")
    res = result_upload.check_results([UploadedTable("lm.zip", raw)])
    assert not res.check.ok and "scores are missing" in res.check.error
    assert "'Missing scores' of the results" in res.check.error
    assert len(res.metrics) == 5  # the metric table is shown even so
    res = result_upload.check_results([UploadedTable("lm.zip", raw)], metric="arc_easy=f1")
    assert "has no metric 'f1'" in res.check.error and "under 'Metric'" in res.check.error
    res = result_upload.check_results([UploadedTable("x.json", b"{not json")])
    assert "is not valid JSON" in res.check.error
    assert result_upload.check_results([]).check.error


def test_results_upload_through_the_benchmark_page():
    at = H.goto(H.new_app(), "benchmark")
    uploader = next(u for u in at.get("file_uploader") if "Results folder" in u.label)
    uploader.set_value([("lm_eval.zip", _zip(FIXTURES / "lm_eval"), "application/zip")])
    at.run()
    assert not at.exception
    assert any("scores are missing" in e.value for e in at.error)
    use = at.button(key="use_results_btn")
    assert use.disabled and "the error above says what to change" in str(use.help)  # the reason beside it
    at.selectbox(key="up_res_missing").select("drop-models")
    at.text_input(key="up_res_metric").set_value("acc_norm")
    at.run()
    assert not H.errors(at), H.errors(at)
    assert at.session_state["data"].name == "tsc_bakeoff"  # nothing changes before "use"
    at.button(key="use_results_btn").click()
    at.run()
    data = at.session_state["data"]
    assert data.source == "upload" and data.name == "lm_eval"
    assert (data.benchmark.n_datasets, data.benchmark.n_models) == (5, 3)
    for page in ("select", "home"):
        H.goto(at, page)
        assert not H.errors(at), (page, H.errors(at))


def test_check_results_skips_unreadable_files_when_asked_and_lists_what_was_set_aside():
    files = [UploadedTable(p.name, p.read_bytes()) for p in sorted((FIXTURES / "eee_helm").rglob("*.json"))]
    broken = UploadedTable("broken.json", b'{"model_info": ')
    res = result_upload.check_results([*files, broken], "eee")
    assert not res.check.ok and "broken.json: is not valid JSON" in (res.check.error or "")
    res = result_upload.check_results([*files, broken], "eee", skip_unreadable=True)
    assert res.check.ok
    warnings = [f.message for f in res.check.report.findings if f.level == "warning"]
    assert any("skipped 1 file(s) that cannot be read: broken.json" in w for w in warnings)
    assert {"Mean win rate", "MMLU All Subjects"} <= set(res.set_aside["what"])
    assert set(res.metrics.columns) >= {"direction", "direction from", "splits / subsets"}


def test_the_skip_checkbox_on_the_benchmark_page():
    at = H.goto(H.new_app(), "benchmark")
    uploader = next(u for u in at.get("file_uploader") if "Results folder" in u.label)
    files = [(p.name, p.read_bytes(), "application/json") for p in sorted((FIXTURES / "eee_helm").rglob("*.json"))]
    uploader.set_value([*files, ("broken.json", b'{"model_info": ', "application/json")])
    at.run()
    assert not at.exception
    assert any("is not valid JSON" in e.value for e in at.error), [e.value for e in at.error]
    box = next(c for c in at.checkbox if c.label == "Skip files that cannot be read")
    box.check()
    at.run()
    assert not H.errors(at), H.errors(at)
    assert [b for b in at.button if b.key == "use_results_btn"]
