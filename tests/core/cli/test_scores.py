"""Command line: score tables in every layout — ``subsetsel inspect``, ``--layout``, the columns
set aside, release dates and the direction per dataset."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from subsetsel_core.cli.main import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards"
BBH = str(FIXTURES / "bbh_style_leaderboard.csv")
HELM = str(FIXTURES / "helm_style_leaderboard.csv")
LONG = str(FIXTURES / "long_rmse.csv")
WIDE = str(FIXTURES / "tsc_accuracy_wide.csv")
KEYS = {"layout", "dataset_column", "model_column", "score_column", "fold_column", "set_aside", "n_datasets",
        "n_models", "n_folds", "missing_cells", "higher_is_better", "unsure"}


def inspect(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["inspect", *argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (BBH, {"layout": "models-as-rows", "model_column": "Model", "dataset_column": None, "n_models": 12,
               "n_datasets": 10, "n_folds": 1, "missing_cells": 1, "higher_is_better": True, "unsure": []}),
        (HELM, {"layout": "models-as-rows", "model_column": "Model", "n_models": 9, "n_datasets": 10,
                "missing_cells": 3, "higher_is_better": True}),
        (LONG, {"layout": "long", "dataset_column": "dataset", "model_column": "model", "fold_column": "fold",
                "score_column": "rmse", "n_datasets": 7, "n_models": 5, "n_folds": 3, "missing_cells": 0,
                "higher_is_better": False, "unsure": []}),
        (WIDE, {"layout": "wide", "dataset_column": "dataset", "model_column": None, "n_datasets": 10,
                "n_models": 6, "higher_is_better": True, "set_aside": []}),
    ],
)
def test_inspect_prints_the_guess(capsys: pytest.CaptureFixture[str], path: str, expected: dict[str, Any]) -> None:
    d = inspect(capsys, path)
    assert KEYS <= set(d)
    assert {k: d[k] for k in expected} == expected


def test_inspect_set_aside_columns_with_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    d = inspect(capsys, BBH)
    assert d["set_aside"] == [{"column": "Rank", "reason": "a rank of the rows"}, {"column": "Company", "reason": "text"},
                              {"column": "Release", "reason": "dates → release dates"},
                              {"column": "Parameters", "reason": "sizes"},
                              {"column": "Average", "reason": "the row mean"}]
    assert d["release_column"] == "Release"
    helm = inspect(capsys, HELM)
    assert helm["set_aside"] == [{"column": "Mean win rate", "reason": "a win rate of the rows"}]
    flipped = inspect(capsys, HELM, "--layout", "wide", "--dataset-column", "Model")
    assert (flipped["layout"], flipped["n_datasets"], flipped["n_models"]) == ("wide", 9, 10)
    dropped = inspect(capsys, BBH, "--drop-columns", "snarks,navigate", "--lower-is-better")
    assert dropped["n_datasets"] == 8 and dropped["higher_is_better"] is False
    assert {"column": "snarks", "reason": "set aside as asked"} in dropped["set_aside"]


def test_wide_on_a_models_as_rows_table_names_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["select", "--scores", BBH, "--wide", "--strategy", "random", "--k", "3"]) == 2
    err = capsys.readouterr().err
    assert "one row per model" in err and "models-as-rows" in err and "'score'" not in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_select_on_a_leaderboard(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["select", "--scores", BBH, "--layout", "models-as-rows", "--model-column", "Model", "--missing",
            "drop-models", "--strategy", "random", "--k", "9", "--drop-columns", "snarks"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    out = pd.read_csv(io.StringIO(cap.out), comment="#")
    assert len(out) == 9 and "snarks" not in set(out["dataset"]) and "Average" not in set(out["dataset"])
    assert "note: I read this as: 12 models (rows) × 9 datasets (columns)" in cap.err
    assert main(["select", "--scores", HELM, "--missing", "drop-models", "--strategy", "random", "--k", "10"]) == 0
    helm = pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")
    assert "MMLU - EM" in set(helm["dataset"]) and "Mean win rate" not in set(helm["dataset"])


def test_evaluate_on_a_leaderboard(tmp_path: Path) -> None:
    out = tmp_path / "res.json"
    assert main(["evaluate", "--scores", HELM, "--layout", "models-as-rows", "--model-column", "Model",
                 "--missing", "drop-datasets", "--strategies", "random", "--trials", "3", "--k-min", "2",
                 "--k-max", "3", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["ks"] == [2, 3] and "random" in d["results"]


def test_long_rmse_is_lower_is_better_without_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from subsetsel_core.cli.data import load
    from subsetsel_core.cli.main import build_parser

    base = ["select", "--scores", LONG, "--strategy", "random", "--k", "3"]
    assert load(build_parser().parse_args(base)).benchmark.higher_is_better is False
    assert load(build_parser().parse_args([*base, "--higher-is-better"])).benchmark.higher_is_better is True
    assert main(base) == 0
    assert len(pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")) == 3
    with pytest.raises(SystemExit):
        build_parser().parse_args([*base, "--higher-is-better", "--lower-is-better"])


MIXED = ("Model,MMLU - EM,GSM8K - EM,ARC - EM,Calibration - ECE\nm1,0.6,0.7,0.5,0.30\nm2,0.5,0.6,0.4,0.20\n"
         "m3,0.4,0.3,0.45,0.10\nm4,0.3,0.2,0.2,0.25\n")


def test_direction_per_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text(MIXED)
    d = inspect(capsys, str(path))
    assert d["lower_is_better_datasets"] == ["Calibration - ECE"] and d["higher_is_better"] is True
    d = inspect(capsys, str(path), "--lower-is-better-datasets", "Calibration - ECE,ARC - EM")
    assert d["lower_is_better_datasets"] == ["Calibration - ECE", "ARC - EM"]
    assert main(["select", "--scores", str(path), "--lower-is-better-datasets", "Calibration - EC", "--strategy",
                 "random", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert "'Calibration - EC' (did you mean 'Calibration - ECE'?)" in err
    assert "[--lower-is-better-datasets A,B or --higher-is-better-datasets A,B]" in err
    assert main(["select", "--scores", str(path), "--strategy", "random", "--k", "4"]) == 0
    assert "except on 1 dataset(s): Calibration - ECE" in capsys.readouterr().err


def test_release_column_feeds_generalise(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generalise", "--scores", BBH, "--missing", "drop-models", "--strategies", "random", "--trials", "3",
            "--k-max", "4"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "held-out models by the release dates of the score table's release column" in cap.err
    assert main([*argv, "--release-column", "Company"]) == 2
    err = capsys.readouterr().err
    assert "'Company' does not hold dates" in err and "[--release-column COL]" in err


def test_unsure_guesses_are_said_with_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\nx4,0.3,0.3,0.3\n")
    d = inspect(capsys, str(path))
    assert [u.split(":")[0] for u in d["unsure"]] == ["layout"] and d["direction_from"] == "assumed"
    assert main(["select", "--scores", str(path), "--strategy", "random", "--k", "2"]) == 2  # never resolved silently
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "layout: not sure" in err and "[decide with --layout wide or --layout " in err
    assert main(["select", "--scores", str(path), "--layout", "wide", "--strategy", "random", "--k", "2"]) == 0
    err = capsys.readouterr().err
    assert "warning: direction assumed" in err and "--higher-is-better" in err  # the assumption is printed


def test_inspect_errors_are_short(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["inspect", str(tmp_path / "nope.csv")]) == 2
    assert "nope.csv" in capsys.readouterr().err
    assert main(["inspect", LONG, "--model-column", "dataset", "--dataset-column", "dataset"]) == 2
    err = capsys.readouterr().err
    assert "mapped twice" in err and "Traceback" not in err
