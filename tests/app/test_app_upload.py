"""Uploads: the handler functions directly, and the Benchmark page through AppTest."""

from __future__ import annotations

import io

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pandas as pd
import pytest

from subsetsel_app import upload
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat


def _check(scores: bytes, descs=(), *, name="scores.csv", **opts) -> upload.UploadCheck:
    fmt = ScoreFormat(**{"fold_column": "fold", **opts})
    tables = [upload.UploadedTable(n, c) for n, c in descs]
    return upload.check_upload(upload.UploadedTable(name, scores), fmt, tables)


def test_long_upload_with_descriptors_is_valid():
    check = _check(H.tiny_long_csv(), [("features_facts.csv", H.tiny_descriptors_csv())])
    assert check.ok and check.error is None
    b = check.data.benchmark
    assert (b.n_datasets, b.n_folds, b.n_models) == (8, 2, 4)
    assert set(check.data.tables) == {"facts"}
    assert check.descriptor_columns["facts"] == {"size": "numeric", "kind": "categorical"}
    facts = dict(check.report.facts)
    assert facts["datasets"] == "8" and facts["models"] == "4"
    assert check.data.token.startswith("upload:")


def test_wide_upload_and_guessed_mapping():
    long = pd.read_csv(io.BytesIO(H.tiny_long_csv(n_folds=1)))
    wide = long.pivot(index="dataset", columns="model", values="score").reset_index()
    raw = wide.to_csv(index=False).encode()
    head = upload.read_header(upload.UploadedTable("wide.csv", raw))
    g = upload.guess(head, "wide.csv")
    assert g.layout == "wide" and g.dataset_column == "dataset"
    check = _check(raw, layout="wide", dataset_column="dataset", fold_column=None, name="wide.csv")
    assert check.ok
    assert check.data.benchmark.n_models == 4
    g2 = upload.guess(upload.read_header(upload.UploadedTable("s.csv", H.tiny_long_csv())), "s.csv")
    assert (g2.layout, g2.dataset_column, g2.model_column, g2.score_column, g2.fold_column) == (
        "long", "dataset", "model", "score", "fold")


def test_parquet_upload(tmp_path):
    df = pd.read_csv(io.BytesIO(H.tiny_long_csv()))
    path = tmp_path / "scores.parquet"
    df.to_parquet(path)
    check = _check(path.read_bytes(), name="scores.parquet")
    assert check.ok, check.error


def test_name_mismatch_is_reported_with_alias_suggestions():
    desc = H.tiny_descriptors_csv(rename={"ds_03": "DS-03", "ds_05": "ds_5x"})
    check = _check(H.tiny_long_csv(), [("features_x.csv", desc)])
    assert check.ok  # the benchmark loads; the table is flagged
    warn = [f for f in check.report.findings if f.topic == "name-mismatch"]
    assert warn and "ds_03" in warn[0].message and "did you mean 'DS-03'" in warn[0].message
    assert check.suggested_aliases.get("DS-03") == "ds_03"
    assert "x" not in check.data.usable_tables()
    fixed = upload.check_upload(
        upload.UploadedTable("scores.csv", H.tiny_long_csv()), ScoreFormat(fold_column="fold"),
        [upload.UploadedTable("features_x.csv", desc)], aliases={"DS-03": "ds_03", "ds_5x": "ds_05"},
    )
    assert not [f for f in fixed.report.findings if f.topic == "name-mismatch"]
    assert "x" in fixed.data.usable_tables()


def test_missing_scores_error_then_policy_drops():
    lines = H.tiny_long_csv().decode().splitlines()
    gappy = ("\n".join(line for line in lines if not line.startswith("ds_02,model_1")) + "\n").encode()
    check = _check(gappy)
    assert not check.ok and "missing" in check.error and "drop-models" in check.error
    dropped = _check(gappy, missing="drop-datasets")
    assert dropped.ok and dropped.data.benchmark.n_datasets == 7
    assert any(f.topic == "dropped" for f in dropped.report.findings)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"", "empty"),
        (b"dataset,model,score\nd1,m1,abc\n", "not numbers"),
        (b"\x00\x01\x02binary", "binary"),
        (b"a,b,c\n1,2,3\n", "column"),
    ],
)
def test_bad_score_files_give_readable_errors(raw, fragment):
    check = _check(raw)
    assert not check.ok
    assert fragment in check.error


def test_bad_descriptor_file_gives_readable_error():
    check = _check(H.tiny_long_csv(), [("features_bad.csv", b"name,size\nds_00,1\n")])
    assert not check.ok and "no 'dataset' column" in check.error


def test_aliases_parsing():
    assert upload.parse_aliases("a = b\n# note\n\nc -> d\ne → f") == {"a": "b", "c": "d", "e": "f"}
    with pytest.raises(InputError, match="no '='"):
        upload.parse_aliases("just a name")
    with pytest.raises(InputError, match="empty name"):
        upload.parse_aliases(" = x")
    assert upload.parse_aliases(upload.format_aliases({"x y": "z"})) == {"x y": "z"}


def test_upload_through_the_benchmark_page():
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("my_scores.csv", H.tiny_long_csv(), "text/csv"))
    at.file_uploader[1].set_value([("features_x.csv", H.tiny_descriptors_csv(rename={"ds_03": "DS-03"}), "text/csv")])
    at.run()
    assert not at.exception
    assert any("did you mean" in w.value for w in at.warning)
    at.button(key="add_aliases_btn").click()
    at.run()
    assert "DS-03 = ds_03" in at.text_area[0].value
    assert not [w for w in at.warning if "did you mean" in w.value]
    assert at.session_state["data"].name == "tsc_bakeoff"  # nothing changes before "use"
    at.button(key="use_upload_btn").click()
    at.run()
    data = at.session_state["data"]
    assert data.name == "my_scores" and data.source == "upload"
    assert any("Using the uploaded benchmark" in s.value for s in at.success)
    for page in ("representation", "select", "evaluate", "report"):
        H.goto(at, page)
        assert not H.errors(at), (page, H.errors(at))
    H.goto(at, "select")
    assert len(at.dataframe[0].value) == 8  # k clamped to the 8 datasets
    H.goto(at, "home")  # fewer models than the leaderboard's 15 rows: all of them, said so
    assert H.markup(at, "ss-leaderboard").count("<tr title=") == 4
    assert any(c.value.startswith("All 4 models by mean rank over all 8 datasets") for c in at.caption)


def test_failed_upload_keeps_the_previous_benchmark():
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("broken.csv", b"dataset,model,score\nd1,m1,oops\n", "text/csv"))
    at.run()
    assert not at.exception
    assert any("not numbers" in e.value for e in at.error)
    use = at.button(key="use_upload_btn")
    assert use.disabled and use.label == "Use this benchmark" and "cannot be loaded" in str(use.help)
    assert at.session_state["data"].name == "tsc_bakeoff"
    H.goto(at, "home")
    assert not H.errors(at)


def test_column_mapping_widgets_fix_an_upload():
    raw = H.tiny_long_csv().decode().replace("dataset,model,fold,score", "problem,algo,rep,acc").encode()
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("renamed.csv", raw, "text/csv"))
    at.run()
    assert at.selectbox(key="up_dataset_col").value == "problem"
    assert at.selectbox(key="up_model_col").value == "algo"
    assert at.selectbox(key="up_score_col").value == "acc"
    assert at.selectbox(key="up_fold_col").value == "rep"
    assert not at.error
    at.selectbox(key="up_fold_col").select("(none)")
    at.run()
    assert any("repeat the same dataset" in e.value for e in at.error)  # folds needed
    at.selectbox(key="up_fold_col").select("rep")
    at.radio(key="up_higher").set_value("lower is better")
    at.run()
    at.button(key="use_upload_btn").click()
    at.run()
    assert at.session_state["data"].benchmark.higher_is_better is False


def test_unknown_benchmark_directory_is_a_message(monkeypatch):
    monkeypatch.setenv("SUBSETSEL_ALLOW_PATH_FIELD", "1")  # the path field is off unless the server turns it on
    at = H.goto(H.new_app(), "benchmark")
    at.text_input(key="bench_dir").set_value("no_such_dir")  # inside the root (sample_data), missing
    at.run()
    assert not at.exception
    assert any("no such benchmark directory" in e.value for e in at.error)
    at.text_input(key="bench_dir").set_value("/no/such/dir")  # outside every root: never looked up
    at.run()
    assert any("not inside the benchmark directories" in e.value for e in at.error)
    at.text_input(key="bench_dir").set_value("")
    at.run()
    assert not H.errors(at)


def test_rows_repeated_per_metric_stop_with_the_column_that_tells_them_apart():
    raw = ("dataset,model,metric,score\n" + "".join(
        f"{d},{m},{x},0.{i + 1}\n" for i, (d, m, x) in enumerate(
            (d, m, x) for d in ("d1", "d2", "d3") for m in ("A", "B", "C") for x in ("acc", "acc_norm")))).encode()
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("per_metric.csv", raw, "text/csv"))
    at.run()
    assert any("They differ in 'metric'" in e.value for e in at.error), [e.value for e in at.error]
    assert not any("not sure" in w.value for w in at.warning)  # said once, as the error; no tick to confirm it
    assert at.button(key="use_upload_btn").disabled


def test_a_leaderboard_as_json_records_uploads_like_its_csv():
    long = pd.read_csv(io.BytesIO(H.tiny_long_csv(n_folds=1)))
    board = long.pivot(index="model", columns="dataset", values="score").reset_index()
    raw = board.to_json(orient="records").encode()
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("board.json", raw, "application/json"))
    at.run()
    assert not at.exception and not H.errors(at), H.errors(at)
    at.button(key="use_upload_btn").click()
    at.run()
    data = at.session_state["data"]
    assert data.source == "upload" and (data.benchmark.n_models, data.benchmark.n_datasets) == (4, 8)


def test_a_result_file_in_the_scores_box_points_to_the_results_upload():
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("results_1.json", b'{"results": {"arc": {"acc,none": 0.5}}}', "application/json"))
    at.run()
    assert not at.exception
    assert any("the results upload" in e for e in H.errors(at)), H.errors(at)
