"""Command line: ``subsetsel inspect`` shows the whole reading (per task: metric, direction and
where it came from; every column set aside with its reason; assumptions; what is undecided),
``--table`` writes the scores exactly as read, and a command that computes stops with exit 2
on an undecided reading, naming the part and the option that decides it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import leaderboard_shapes as shapes
import pandas as pd
import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.io.guess.reading import describe_reading
from subsetsel_core.io.guess.table import guess_table
from subsetsel_core.io.tables import read_table

CONFLICT = ("Model,Rank,MMLU - acc,ARC - acc,GSM8K - acc,HellaSwag - acc\n"
            "a,1,0.21,0.25,0.22,0.30\nb,2,0.41,0.45,0.42,0.50\nc,3,0.61,0.62,0.60,0.65\nd,4,0.81,0.85,0.82,0.90\n"
            "e,5,0.91,0.93,0.95,0.94\n")


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def inspect_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["inspect", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_lists_each_task_with_metric_direction_and_source(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    helm = write(tmp_path, "helm.csv", shapes.helm_with_time())
    d = inspect_json(capsys, helm)
    tasks = {t["dataset"]: t for t in d["tasks"]}
    assert tasks["MMLU - Denoised inference time (s)"] == {
        "dataset": "MMLU - Denoised inference time (s)", "metric": "Denoised inference time (s)",
        "direction": "lower", "direction_from": "metric name"}
    assert tasks["MMLU - EM"]["direction"] == "higher" and tasks["MMLU - EM"]["metric"] == "EM"
    assert d["direction_from"] == "evidence" and d["direction"] == "higher"
    assert main(["inspect", helm, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "tasks (7):" in text and "  MMLU - Denoised inference time (s): metric Denoised inference time (s); lower " \
                                   "is better; from: metric name" in text


def test_inspect_text_shows_set_aside_assumptions_and_undecided(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = write(tmp_path, "codes.csv", shapes.with_code_column())
    assert main(["inspect", code, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "unsure (set_aside): 'code' holds whole numbers, one per row (codes or ids)" in text
    assert "a task scored on its own scale, or not a task; read as a task [decide with --drop-columns COL" in text
    assert "assumed (direction): assumed higher is better" in text
    d = inspect_json(capsys, code)
    assert d["direction_from"] == "assumed" and d["tasks"][0]["direction_from"] == "assumed"
    conflict = write(tmp_path, "conflict.csv", CONFLICT)
    assert main(["inspect", conflict, "--format", "text"]) == 0  # inspect always succeeds
    text = capsys.readouterr().out
    assert "unsure (direction): the evidence conflicts" in text and "[decide with --lower-is-better" in text
    assert inspect_json(capsys, conflict)["direction"] == "unsure"


def test_a_command_stops_on_an_undecided_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conflict = write(tmp_path, "conflict.csv", CONFLICT)
    assert main(["select", "--scores", conflict, "--strategy", "random", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "conflict.csv: the reading is not decided" in err
    assert "direction: the evidence conflicts" in err and "[decide with --lower-is-better or --higher-is-better" in err
    assert main(["select", "--scores", conflict, "--strategy", "random", "--k", "2", "--higher-is-better"]) == 0
    capsys.readouterr()


def test_an_assumption_is_printed_by_the_command_that_uses_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    bare = write(tmp_path, "bare.csv", shapes.bare_score())
    assert main(["select", "--scores", bare, "--strategy", "random", "--k", "2"]) == 0
    err = capsys.readouterr().err
    assert "warning: direction assumed: assumed higher is better" in err
    assert main(["select", "--scores", bare, "--strategy", "random", "--k", "2", "--lower-is-better"]) == 0
    assert "assumed" not in capsys.readouterr().err


def test_repeated_model_names_name_the_unique_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "w.csv", shapes.per_class_imagenet(n_weights=30, n_classes=12, n_archs=10))
    assert inspect_json(capsys, path)["model_column"] == "Weight"
    argv = ["select", "--scores", path, "--layout", "models-as-rows", "--model-column", "Model", "--strategy",
            "random", "--k", "2"]
    assert main(argv) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("subsetsel: error: w.csv: ") and "'Weight' is unique per row" in last
    assert last.endswith("[--model-column COL]")


def test_keep_columns_reads_a_set_aside_column_as_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = write(tmp_path, "classes.csv", shapes.per_class_imagenet(n_weights=30, n_classes=25, n_archs=10))
    d = inspect_json(capsys, table)
    assert d["n_datasets"] == 25 and "Acc@5" not in [t["dataset"] for t in d["tasks"]]
    assert inspect_json(capsys, table, "--keep-columns", "Acc@5")["n_datasets"] == 26


def test_table_writes_the_scores_as_read_with_provenance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    helm = write(tmp_path, "helm.csv", shapes.helm_with_time())
    out = tmp_path / "as_read.csv"
    assert main(["inspect", helm, "--table", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert text.startswith("# subsetsel_version:") and "# settings: " in text and "# input_sha256: " in text
    table = read_table(out)
    assert list(table.columns) == ["model", "dataset", "fold", "score", "direction"]
    assert len(table) == 12 * 7
    time = table[table["dataset"] == "MMLU - Denoised inference time (s)"]
    assert set(time["direction"]) == {"lower"} and set(table["direction"]) == {"higher", "lower"}
    raw = pd.read_csv(helm).set_index("Model")
    row = time.iloc[0]
    assert float(row["score"]) == raw.loc[row["model"], "MMLU - Denoised inference time (s)"]  # not negated


def test_describe_reading_rows_are_general() -> None:
    g = guess_table(read_table(shapes.with_code_column().encode(), label="c.csv", object_text=True), label="c.csv",
                    drop_columns=["code"])
    rows = describe_reading(g)
    assert [r.part for r in rows][:2] == ["reading", "assumption"]
    assert sum(r.part == "task" for r in rows) == 6 and rows[-1].part == "set aside" and rows[-1].name == "code"
    assert set(rows[0].to_json_dict()) == {"part", "name", "metric", "subsets", "direction", "source", "detail"}


PER_METRIC = "dataset,model,metric,score\n" + "".join(
    f"{d},{m},{metric},0.{i + 1}\n"
    for i, (d, m, metric) in enumerate((d, m, x) for d in ("d1", "d2", "d3") for m in ("A", "B", "C")
                                       for x in ("acc", "acc_norm")))


def test_rows_repeated_per_metric_are_undecided(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "per_metric.csv", PER_METRIC)
    assert main(["inspect", path, "--format", "text"]) == 0  # inspect always succeeds, and says what is wrong
    text = capsys.readouterr().out
    assert ("unsure (fold_column): 18 rows of per_metric.csv repeat the same dataset and model (e.g. "
            "dataset 'd1', model 'A'); they differ in 'metric': keep one metric per dataset") in text
    assert "[decide with --fold-column COL" in text
    assert any(u.startswith("fold_column: 18 rows") for u in inspect_json(capsys, path)["unsure"])
    assert main(["select", "--scores", path, "--strategy", "random", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert "per_metric.csv: the reading is not decided" in err and "differ in 'metric'" in err
    one = write(tmp_path, "one_metric.csv", "".join(f"{line}\n" for line in PER_METRIC.splitlines() if ",acc_norm," not in line))
    assert not [u for u in inspect_json(capsys, one)["unsure"] if u.startswith("fold_column")]
    assert main(["select", "--scores", one, "--strategy", "random", "--k", "2"]) == 0
    capsys.readouterr()


def test_repeats_nothing_tells_apart_are_undecided_too() -> None:
    df = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "model": ["A", "A", "A", "B", "A", "B"],
                       "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    guess = guess_table(df, label="t.csv", fold_column="")
    assert [u for u in guess.unsure if u.startswith("fold_column: ")] == [
        "fold_column: 2 rows of t.csv repeat the same dataset and model (e.g. dataset 'd1', model 'A'), and "
        "no column tells them apart: keep one row per dataset and model, or average them first"]
