"""``--drop-rows``: a summary row of a wide table (BEIR's ``Avg``) is undecided until set aside by name.

Without the option a computing command stops naming the row and the option; with it the row is
neither a dataset nor a model, ``inspect`` lists it as set aside, and the reading (``drop_rows``)
travels in run.toml so that ``report --config`` reads the table the same way again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.result import DROPPED_ROW
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.outputs.run_config import RunConfig, config_toml, read_run_config

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards"
BEIR = str(FIXTURES / "shapes" / "beir.csv")
BBH = str(FIXTURES / "bbh_style_leaderboard.csv")
EVALUATE = ["evaluate", "--scores", BEIR, "--representation", "names", "--strategies", "random", "--trials", "2",
            "--k-max", "4", "--permutations", "0"]


@pytest.mark.parametrize(("extra", "code", "needles"), [
    ([], 2, ["the row 'Avg' is a summary row", "[decide with --drop-rows Avg]"]),
    (["--drop-rows", "Avgg"], 2, ["no row 'Avgg' to set aside", "did you mean 'Avg'", "--drop-rows"]),
    (["--drop-rows", "Avg,Nope"], 2, ["no row 'Nope' to set aside", "--drop-rows"]),
    (["--drop-rows", "Avg"], 0, []),
])
def test_evaluate_on_a_summary_row(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], code: int,
                                   needles: list[str]) -> None:
    out = tmp_path / "ev.json"
    assert main([*EVALUATE, *extra, "--out", str(out)]) == code
    err = capsys.readouterr().err
    for needle in needles:
        assert needle in err
    if code == 0:
        assert "summary row" not in err
        config = json.loads(out.read_text())["config"]
        assert (config["n_datasets"], config["n_models"]) == (8, 9)  # the nine rows of the file but Avg
    else:
        assert err.count("\n") == 1 and not out.exists()


@pytest.mark.parametrize(("fmt", "needle"), [("json", None), ("text", "  Avg: row named by the user: --drop-rows, or Rows set aside on the Benchmark page\n")])
def test_inspect_lists_the_row_as_set_aside(capsys: pytest.CaptureFixture[str], fmt: str, needle: str | None) -> None:
    assert main(["inspect", BEIR, "--drop-rows", "Avg", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if needle is not None:
        assert needle in out and "unsure" not in out
        return
    d = json.loads(out)
    assert d["set_aside_rows"] == [{"row": "Avg", "reason": DROPPED_ROW}]
    assert d["n_datasets"] == 8 and d["unsure"] == [] and "rows set aside: Avg" in d["sentence"]
    assert "Avg" not in {t["dataset"] for t in d["tasks"]}


def test_a_long_table_has_no_rows_to_set_aside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long = tmp_path / "long.csv"
    long.write_text("dataset,model,score\na,m1,1\na,m2,2\nb,m1,3\nb,m2,1\n", encoding="utf-8")
    assert main(["inspect", str(long), "--drop-rows", "a"]) == 2
    err = capsys.readouterr().err
    assert "rows are set aside only in a wide table" in err and "--drop-rows" in err
    with pytest.raises(InputError, match="only in a wide table") as exc:
        ScoreFormat(drop_rows=("a",))
    assert exc.value.field == "drop_rows"


def test_the_loader_reads_the_reading_without_the_rows() -> None:
    fmt = ScoreFormat(layout="wide", dataset_column="Dataset", fold_column=None, drop_rows=("Avg",))
    bench = load_scores(BEIR, fmt)
    assert bench.n_datasets == 8 and "Avg" not in bench.datasets
    models = load_scores(BBH, ScoreFormat(layout="models-as-rows", model_column="Model", fold_column=None,
                                          missing="drop-models", drop_rows=("tern-2b",),
                                          drop_columns=("Rank", "Company", "Release", "Parameters", "Average")))
    assert "tern-2b" not in models.models and len(models.models) >= 10
    with pytest.raises(InputError, match="no row 'avg' to set aside") as exc:
        load_scores(BEIR, fmt, drop_rows=("avg",))
    assert exc.value.field == "drop_rows"


def test_run_toml_replays_the_rows_set_aside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reading = ScoreFormat(layout="wide", dataset_column="Dataset", fold_column=None, drop_rows=("Avg",))
    assert ScoreFormat.from_dict(reading.to_dict()) == reading
    toml = tmp_path / "run.toml"
    toml.write_text(config_toml(RunConfig(strategies=("random",), representations=("names",), trials=3, k_max=4,
                                          permutations=0, images=False)), encoding="utf-8")
    first = tmp_path / "first"
    assert main(["report", "--scores", BEIR, "--drop-rows", "Avg", "--config", str(toml), "--out", str(first),
                 "--no-images"]) == 0
    as_run = read_run_config(first / "run.toml")
    assert as_run.reading is not None and as_run.reading.drop_rows == ("Avg",)
    again = tmp_path / "again"
    assert main(["report", "--scores", BEIR, "--config", str(first / "run.toml"), "--out", str(again),
                 "--no-images"]) == 0
    config = json.loads((again / "evaluation.json").read_text())["config"]
    assert config["n_datasets"] == 8
    assert read_run_config(again / "run.toml").reading == as_run.reading
    capsys.readouterr()
    assert main(["report", "--scores", BEIR, "--config", str(first / "run.toml"), "--drop-rows", "Avg", "--out",
                 str(tmp_path / "both"), "--no-images"]) == 2
    assert "and --drop-rows says it too" in capsys.readouterr().err


@pytest.mark.parametrize(("change", "lines"), [("bad cell", (7,)), ("repeated name", (5, 8))])
def test_messages_name_the_files_lines_after_a_row_is_set_aside(change: str, lines: tuple[int, ...]) -> None:
    header, *body = Path(BEIR).read_text(encoding="utf-8").splitlines()
    avg = next(line for line in body if line.startswith("Avg"))
    rest = [line for line in body if line != avg]  # Avg moved to line 2: the rows after it are lines 3, 4, …
    if change == "bad cell":
        rest[4] = rest[4].replace("0.", "x", 1)
    else:
        rest[5] = rest[2]
    fmt = ScoreFormat(layout="wide", dataset_column="Dataset", fold_column=None, drop_rows=("Avg",))
    with pytest.raises(InputError) as exc:
        load_scores("\n".join([header, avg, *rest]).encode() + b"\n", fmt, label="t.csv")
    assert exc.value.rows == lines


def test_a_row_name_with_a_comma_is_named_quoted_and_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from subsetsel_core.cli.args import names

    assert names('"Avg, all",Wine') == ["Avg, all", "Wine"] and names("a, b") == ["a", "b"]
    table = tmp_path / "t.csv"
    table.write_text('dataset,A,B,C\n"Avg, all",0.5,0.6,0.7\nWine,0.4,0.5,0.9\nIris,0.3,0.2,0.1\nPima,0.35,0.5,0.2\n')
    base = ["select", "--scores", str(table), "--strategy", "random", "--k", "2", "--representation", "names"]
    assert main(base) == 2
    assert """[decide with --drop-rows '"Avg, all"']""" in capsys.readouterr().err
    assert main([*base, "--drop-rows", '"Avg, all"']) == 0
