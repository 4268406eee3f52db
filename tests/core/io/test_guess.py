"""The guess of what a score table is (layout, columns set aside, direction), and reading it so.

Fixtures (``tests/fixtures/leaderboards``, made-up numbers in four public shapes): a
BIG-Bench-Hard-style leaderboard (one row per model with Rank, Model, Company, Release,
Parameters, Average and one column per task, one gap), a HELM-style one (one row per
model, a "Mean win rate" column, empty cells), a long ``model,dataset,fold,rmse`` table
and a wide table with one row per dataset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.table import TableGuess, guess_table, release_dates
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.tables import read_table
from subsetsel_core.selection.placement import place_model

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards"
BBH, HELM, LONG, WIDE = (FIXTURES / f for f in ("bbh_style_leaderboard.csv", "helm_style_leaderboard.csv",
                                                "long_rmse.csv", "tsc_accuracy_wide.csv"))


def raw(path: Path) -> pd.DataFrame:
    return read_table(path, object_text=True)


def guess(path: Path, **options: Any) -> TableGuess:
    return guess_table(raw(path), label=path.name, **options)


def text_guess(text: str, label: str = "t.csv", **options: Any) -> TableGuess:
    return guess_table(read_table(text.encode(), label=label, object_text=True), label=label, **options)


def aside(g: TableGuess) -> dict[str, str]:
    return {s.column: s.reason for s in g.set_aside}


# --------------------------------------------------------------------------- the four shapes


def test_bbh_style_leaderboard_is_models_as_rows_with_its_metadata_set_aside() -> None:
    g = guess(BBH)
    assert g.layout == "models-as-rows" and g.model_column == "Model" and g.dataset_column is None
    assert (g.n_models, g.n_datasets, g.n_folds, g.missing_cells) == (12, 10, 1, 1)
    assert aside(g) == {"Rank": "a rank of the rows", "Company": "text", "Release": "dates → release dates",
                        "Parameters": "sizes", "Average": "the row mean"}
    assert g.higher_is_better and g.direction_from == "evidence" and "Rank" in g.direction_because
    assert g.release_column == "Release" and not g.unsure
    s = g.sentence()
    assert s.startswith("I read this as: 12 models (rows) × 10 datasets (columns); set aside: Rank (a rank of the "
                        "rows), Company (text), Release (dates → release dates), Parameters (sizes), Average (the "
                        "row mean)")
    dates = release_dates(raw(BBH), g)
    assert len(dates) == 12 and dates["quartz-72b"] == "2024-02-01"


def test_helm_style_leaderboard_is_not_read_transposed() -> None:
    g = guess(HELM)
    assert g.layout == "models-as-rows" and g.model_column == "Model"
    assert (g.n_models, g.n_datasets, g.missing_cells) == (9, 10, 3)
    assert aside(g) == {"Mean win rate": "a win rate of the rows"}
    assert "MMLU - EM" in g.datasets and "Mean win rate" not in g.datasets
    assert g.higher_is_better and not g.unsure
    b = load_scores(raw(HELM), g.to_format("drop-models"), label=HELM.name)
    assert b.n_datasets == 10 and b.n_models == 9 - 3 and "Aurora (52B)" in b.models


def test_long_rmse_table_is_long_and_lower_is_better() -> None:
    g = guess(LONG)
    assert (g.layout, g.dataset_column, g.model_column, g.fold_column, g.score_column) == (
        "long", "dataset", "model", "fold", "rmse")
    assert (g.n_datasets, g.n_models, g.n_folds, g.missing_cells) == (7, 5, 3, 0)
    assert g.higher_is_better is False and "rmse" in g.direction_because and not g.unsure
    b = load_scores(LONG, g.to_format())
    assert not b.higher_is_better and b.leaderboard()["model"].iloc[0] == "gradient_boosting"


def test_wide_table_with_one_row_per_dataset() -> None:
    g = guess(WIDE)
    assert (g.layout, g.dataset_column, g.n_datasets, g.n_models, g.missing_cells) == ("wide", "dataset", 10, 6, 0)
    assert g.set_aside == () and g.higher_is_better and "file name" in g.direction_because
    assert g.sentence().startswith("I read this as: 10 datasets (rows) × 6 models (columns)")
    assert load_scores(WIDE, g.to_format()).n_models == 6


def test_inspect_json_has_the_keys() -> None:
    d = guess(BBH).to_json_dict()
    assert {"layout", "dataset_column", "model_column", "score_column", "fold_column", "set_aside", "n_datasets",
            "n_models", "n_folds", "missing_cells", "higher_is_better", "unsure"} <= set(d)
    assert d["set_aside"][0] == {"column": "Rank", "reason": "a rank of the rows"}
    assert isinstance(d["higher_is_better"], bool) and isinstance(d["unsure"], list)


# --------------------------------------------------------------------------- forced layouts, flips, errors


def test_wide_on_a_leaderboard_says_it_has_models_as_rows() -> None:
    with pytest.raises(InputError, match="one row per model") as e:
        guess(BBH, layout="wide")
    assert e.value.field == "layout" and "'score'" not in str(e.value) and "models-as-rows" in str(e.value)
    flipped = guess(HELM, layout="wide", dataset_column="Model")  # read as it is, when named
    assert flipped.layout == "wide" and flipped.n_datasets == 9 and flipped.n_models == 10
    with pytest.raises(InputError, match="one row per dataset"):
        guess(WIDE, layout="models-as-rows")


def test_a_column_is_never_mapped_twice() -> None:
    with pytest.raises(InputError, match="mapped twice") as e:
        guess(LONG, dataset_column="model", model_column="model")
    assert e.value.field == "model_column" and "long_rmse.csv" in str(e.value)
    with pytest.raises(InputError, match="mapped twice"):
        ScoreFormat(layout="long", dataset_column="a", model_column="b", score_column="a")
    with pytest.raises(InputError, match="also set aside"):
        guess(BBH, layout="models-as-rows", set_aside=["Model"])


def test_named_columns_must_exist_with_a_suggestion() -> None:
    with pytest.raises(InputError, match=r"no score column 'rmsee'.*did you mean 'rmse'") as e:
        guess(LONG, score_column="rmsee")
    assert e.value.field == "score_column"
    with pytest.raises(InputError, match="no column 'Compny' to set aside") as e:
        guess(BBH, drop_columns=["Compny"])
    assert e.value.field == "drop_columns"
    with pytest.raises(InputError, match="does not hold dates") as e:
        guess(BBH, release_column="Company")
    assert e.value.field == "release_column"


@pytest.mark.parametrize("table, options, message, field", [
    ("BBH", {"keep_columns": ["NoSuch"]}, "no column 'NoSuch' to keep as scores", "keep_columns"),
    ("BBH", {"keep_columns": ["Company"], "drop_columns": ["Company"]},
     "column 'Company' is given both to keep as scores and to set aside", "keep_columns"),
    ("BBH", {"keep_columns": ["Company"], "set_aside": ["Company"]}, "is given both", "keep_columns"),
    ("LONG", {"dataset_column": "NoSuch"}, r"no dataset column 'NoSuch'\. The columns are: ", "dataset_column"),
    ("LONG", {"model_column": "NoSuch"}, r"no model column 'NoSuch'\. The columns are: ", "model_column"),
])
def test_options_that_name_nothing_or_contradict(table: str, options: dict[str, Any], message: str,
                                                 field: str) -> None:
    with pytest.raises(InputError, match=message) as e:
        guess({"BBH": BBH, "LONG": LONG}[table], **options)
    assert e.value.field == field and "\n" not in str(e.value)


def test_a_dataset_column_not_in_a_wide_table_is_left_to_the_descriptors() -> None:
    assert guess(BBH, dataset_column="NoSuch").layout in ("wide", "models-as-rows")


def test_an_unclear_table_says_it_is_unsure() -> None:
    g = text_guess("name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\n")
    topics = [u.split(":")[0] for u in g.unsure]
    assert g.layout == "wide" and topics == ["layout"]
    assert g.direction_from == "assumed" and g.direction == "higher"  # no evidence: an assumption, said as one
    assert "an assumption" in g.sentence()
    assert text_guess("name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\n", layout="wide").unsure == ()


def test_long_table_without_telling_names() -> None:
    g = text_guess("a,b,val\nd1,m1,0.1\nd1,m2,0.2\nd2,m1,0.3\nd2,m2,0.1\nd3,m1,0.2\nd3,m2,0.5\nd4,m1,.3\nd4,m2,.1\n")
    assert (g.layout, g.dataset_column, g.model_column, g.score_column) == ("long", "a", "b", "val")
    assert any(u.startswith("dataset_column") for u in g.unsure)


def test_drop_and_exact_set_aside() -> None:
    g = guess(BBH, drop_columns=["snarks"])
    assert aside(g)["snarks"] == "set aside as asked" and g.n_datasets == 9
    exact = guess(BBH, layout="models-as-rows", set_aside=["Rank", "Company", "Parameters"])
    assert "Average" in exact.datasets and exact.release_column == "Release"


FOLDS = (b"Model,seed,A - acc,B - acc,C - acc\nm1,0,0.1,0.2,0.3\nm1,1,0.1,0.2,0.35\nm2,0,0.3,0.3,0.3\n"
         b"m2,1,0.2,0.3,0.3\nm3,0,0.5,0.5,0.5\nm3,1,0.5,0.4,0.5\n")


def _weighted_board(weights: np.ndarray, rows: int, percent: bool = False) -> str:
    """A leaderboard whose Average is the mean of its tasks weighted by ``weights`` (rounded to 2 decimals)."""
    rng = np.random.default_rng(len(weights) * rows)
    tasks = np.round(rng.uniform(0.2, 0.9, size=(rows, len(weights))), 2)
    avg = tasks @ (weights / weights.sum()) * (100.0 if percent else 1.0)
    names = [f"task{i}" for i in range(len(weights))]
    lines = ["Model,Average," + ",".join(names)]
    lines += [f"m{r},{avg[r]:.2f}," + ",".join(f"{x:.2f}" for x in tasks[r]) for r in range(rows)]
    return "\n".join(lines) + "\n"


def test_a_weighted_average_is_named_so() -> None:
    """An Average weighted by the tasks' sizes (as MMLU's by questions) is set aside as a weighted mean;
    with too few rows to tell, the reading does not claim one."""
    sizes = np.array([100.0, 250.0, 120.0, 300.0, 80.0])
    g = text_guess(_weighted_board(sizes, rows=30))
    assert aside(g)["Average"] == "a weighted mean of the score columns (weights summing to one)"
    assert g.n_datasets == 5
    pct = text_guess(_weighted_board(sizes, rows=30, percent=True))
    assert aside(pct)["Average"] == "a weighted mean of the score columns, in percent (weights summing to one)"
    few = text_guess(_weighted_board(sizes, rows=8))  # fewer rows than 3 per task: weights fit anything
    assert aside(few)["Average"].startswith("named an average; not the row mean")
    assert "weighted" not in aside(few)["Average"]
    noise = _weighted_board(sizes, rows=30).splitlines()
    noise[1:] = [",".join([r.split(",")[0], "0.55"] + r.split(",")[2:]) for r in noise[1:]]  # no mean at all
    other = aside(text_guess("\n".join(noise) + "\n"))["Average"]
    assert other.startswith("named an average; not the row mean") and other.endswith("nor a weighted mean of them")


def test_folds_in_a_leaderboard() -> None:
    g = text_guess(FOLDS.decode())
    assert (g.layout, g.fold_column, g.n_models, g.n_folds, g.n_datasets) == ("models-as-rows", "seed", 3, 2, 3)
    b = load_scores(FOLDS, g.to_format(), label="t.csv")
    assert (b.n_models, b.n_folds, b.n_datasets) == (3, 2, 3)


def test_derived_columns_checked_numerically() -> None:
    t = "model,x,a,b,c\nm1,0.2,0.1,0.2,0.3\nm2,0.2,0.2,0.3,0.1\nm3,0.2667,0.5,0.1,0.2\nm4,0.3,0.3,0.3,0.3\nm5,0.4,0.6,0.2,0.4\n"
    assert aside(text_guess(t)) == {"x": "the row mean of the 3 task columns"}  # unnamed, but the row mean
    t2 = "Model,Average,a,b,c\nm1,20.0,0.1,0.2,0.3\nm2,20.0,0.2,0.3,0.1\nm3,26.7,0.5,0.1,0.2\n"
    assert aside(text_guess(t2))["Average"] == "the row mean, in percent"
    t3 = "Model,Average,a,b,c\nm1,0.9,0.1,0.2,0.3\nm2,0.1,0.2,0.3,0.1\nm3,0.5,0.5,0.1,0.2\n"
    assert aside(text_guess(t3))["Average"].startswith("named an average; not the row mean")
    t4 = "Model,Rank,a,b,c\nm1,3,0.1,0.2,0.3\nm2,2,0.2,0.3,0.4\nm3,1,0.5,0.6,0.7\n"
    g4 = text_guess(t4)
    assert aside(g4)["Rank"] == "a rank of the rows" and g4.higher_is_better
    t5 = "Model,Rank,a,b,c\nm1,1,0.1,0.2,0.3\nm2,2,0.2,0.3,0.4\nm3,3,0.5,0.6,0.7\n"
    g5 = text_guess(t5)
    assert aside(g5)["Rank"] == "a rank of the rows, 1 = lowest mean score" and not g5.higher_is_better


# --------------------------------------------------------------------------- direction per dataset

MIXED = ("Model,MMLU - EM,GSM8K - EM,Calibration - ECE\nm1,0.6,0.7,0.30\nm2,0.5,0.6,0.20\nm3,0.4,0.3,0.10\n"
         "m4,0.3,0.2,0.25\n")


def test_direction_per_dataset_guessed_from_the_metric_names() -> None:
    g = text_guess(MIXED)
    assert g.higher_is_better and g.lower_is_better_datasets == ("Calibration - ECE",)
    assert "except on 1 dataset(s): Calibration - ECE" in g.sentence()


def test_direction_per_dataset_ranks_right() -> None:
    df = read_table(MIXED.encode(), label="mixed.csv", object_text=True)
    g = guess_table(df, label="mixed.csv")
    b = load_scores(df, g.to_format(), label="mixed.csv")
    ece = b.datasets.index("Calibration - ECE")
    assert b.flipped == ("Calibration - ECE",)
    assert b.models[int(np.argmin(b.rank_vectors[ece]))] == "m3"  # lowest ECE ranks first
    mmlu = b.datasets.index("MMLU - EM")
    assert b.models[int(np.argmin(b.rank_vectors[mmlu]))] == "m1"
    long = b.to_long_frame()
    assert long[(long.dataset == "Calibration - ECE") & (long.model == "m3")]["score"].item() == pytest.approx(0.1)
    assert any(f.topic == "direction" for f in b.report.findings)
    assert b.subset(datasets=["MMLU - EM", "GSM8K - EM", "Calibration - ECE"]).flipped == ("Calibration - ECE",)
    same = load_scores(df, g.to_format(lower_is_better_datasets=()), label="mixed.csv")
    assert same.models[int(np.argmin(same.rank_vectors[ece]))] == "m1"


def test_placement_reads_a_new_model_in_the_datasets_own_direction() -> None:
    df = read_table(MIXED.encode(), label="mixed.csv", object_text=True)
    b = load_scores(df, guess_table(df, label="mixed.csv").to_format(), label="mixed.csv")
    best = place_model(b, ["MMLU - EM", "Calibration - ECE"], {"MMLU - EM": 0.9, "Calibration - ECE": 0.01},
                       name="new", n_boot=50)
    worst = place_model(b, ["MMLU - EM", "Calibration - ECE"], {"MMLU - EM": 0.1, "Calibration - ECE": 0.9},
                        name="new", n_boot=50)
    assert best.estimated_mean_rank < worst.estimated_mean_rank


def test_a_direction_naming_no_dataset_is_an_error_with_a_suggestion() -> None:
    with pytest.raises(InputError, match=r"'Calibration - EC' \(did you mean 'Calibration - ECE'\?\)") as e:
        text_guess(MIXED, lower_is_better_datasets=["Calibration - EC"])
    assert e.value.field == "dataset_directions"
    df = read_table(MIXED.encode(), label="mixed.csv", object_text=True)
    fmt = guess_table(df, label="mixed.csv").to_format(lower_is_better_datasets=("gsm8k",))
    with pytest.raises(InputError, match="not in the scores") as e:
        load_scores(df, fmt, label="mixed.csv")
    assert e.value.field == "dataset_directions"
    with pytest.raises(InputError, match="both as lower-is-better and as higher-is-better"):
        ScoreFormat(lower_is_better_datasets=("a",), higher_is_better_datasets=("a",))


# --------------------------------------------------------------------------- reading wide tables


def test_a_text_column_read_as_scores_is_named_in_the_error() -> None:
    fmt = ScoreFormat(layout="models-as-rows", model_column="Model", fold_column=None)
    with pytest.raises(InputError) as e:
        load_scores(BBH, fmt)
    msg = str(e.value)
    assert "columns 'Company', 'Release', 'Parameters' have" in msg and "'score'" not in msg and "set it aside" in msg
    assert e.value.field == "drop_columns"


def test_models_as_rows_model_column_matches_case_or_is_named() -> None:
    fmt = ScoreFormat(layout="models-as-rows", fold_column=None,
                      drop_columns=("Rank", "Company", "Release", "Parameters", "Average"), missing="drop-models")
    assert load_scores(BBH, fmt).n_models == 11  # 'model' finds 'Model'
    with pytest.raises(InputError, match="no model column 'name'") as e:
        load_scores(BBH, ScoreFormat(layout="models-as-rows", model_column="name"))
    assert e.value.field == "model_column"


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab,;\n0123456789.-%eE xyzNA7B")), max_size=200))
def test_random_text_never_crashes_the_guess(text: str) -> None:
    try:
        df = read_table(text.encode(), label="fuzz.csv", object_text=True)
        g = guess_table(df, label="fuzz.csv")
        g.to_json_dict()
        load_scores(df, g.to_format(), label="fuzz.csv")
    except InputError:
        pass
