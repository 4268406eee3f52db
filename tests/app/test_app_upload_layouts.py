"""The Benchmark page reads uploads in every layout: the guess shown before anything runs, the
orientation flip, the columns set aside, the direction (per dataset too), through AppTest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pandas as pd

from subsetsel_app import upload

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "leaderboards"
MIXED = (b"Model,MMLU - EM,GSM8K - EM,ARC - EM,Calibration - ECE\nm1,0.6,0.7,0.5,0.30\nm2,0.5,0.6,0.4,0.20\n"
         b"m3,0.4,0.3,0.45,0.10\nm4,0.3,0.2,0.2,0.25\n")
PLAIN = b"name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\nx4,0.3,0.3,0.3\n"


def upload_file(name: str, content: bytes | None = None) -> Any:
    return H.upload_scores(name, content if content is not None else (FIXTURES / name).read_bytes())


def reading(at: Any) -> str:
    """The page's "I read this as" sentence (markdown escapes removed)."""
    return next(str(i.value) for i in at.info if "I read this as" in str(i.value)).replace("\\", "")


def use(at: Any) -> Any:
    at.button(key="use_upload_btn").click()
    at.run()
    return at.session_state["data"]


def test_bbh_style_leaderboard_is_read_as_models_in_rows() -> None:
    at = upload_file("bbh_style_leaderboard.csv")
    assert at.radio(key="up_layout").value == "models-as-rows"
    assert at.selectbox(key="up_model_col").value == "Model"
    assert set(at.multiselect(key="up_drop_cols").value) == {"Rank", "Company", "Parameters", "Average"}
    assert at.selectbox(key="up_release_col").value == "Release"
    assert reading(at).startswith("I read this as: 12 models (rows) × 10 datasets (columns); set aside: Rank (a rank "
                                  "of the rows), Company (text), Release (dates → release dates), Parameters "
                                  "(sizes), Average (the row mean)")
    assert any("1 of 120" in str(e.value) and "Missing scores" in str(e.value) for e in at.error)  # the gap
    at.selectbox(key="up_missing").select("drop-models")
    at.run()
    assert not at.error
    data = use(at)
    b = data.benchmark
    assert (b.n_models, b.n_datasets) == (11, 10) and "kestrel-13b-chat" in b.models and "Average" not in b.datasets
    assert data.model_dates is not None and data.model_dates["tern-9b-it"] == "2024-06-27"
    assert any(f.topic == "reading" for f in data.report.findings)


def test_helm_style_leaderboard_is_not_transposed_and_flips_in_one_click() -> None:
    at = upload_file("helm_style_leaderboard.csv")
    assert at.radio(key="up_layout").value == "models-as-rows"
    assert "set aside: Mean win rate (a win rate of the rows)" in reading(at)
    at.button(key="up_flip_btn").click()
    at.run()
    assert at.radio(key="up_layout").value == "wide"
    assert reading(at).startswith("I read this as: 9 datasets (rows) × 10 models (columns)")
    at.button(key="up_flip_btn").click()
    at.run()
    assert at.radio(key="up_layout").value == "models-as-rows"
    at.selectbox(key="up_missing").select("drop-datasets")
    at.run()
    b = use(at).benchmark
    assert b.n_models == 9 and "Aurora (52B)" in b.models and "Mean win rate" not in b.datasets
    assert b.n_datasets == 7


def test_long_rmse_table_is_long_and_lower_is_better() -> None:
    at = upload_file("long_rmse.csv")
    assert at.radio(key="up_layout").value == "long"
    assert [at.selectbox(key=k).value for k in ("up_dataset_col", "up_model_col", "up_score_col", "up_fold_col")] == [
        "dataset", "model", "rmse", "fold"]
    assert at.radio(key="up_higher").value == "lower is better"
    assert any("Guessed: lower is better (the score column 'rmse' names a metric where lower is better"
               in str(c.value).replace("\\", "") for c in at.caption)
    b = use(at).benchmark
    assert (b.n_datasets, b.n_models, b.n_folds, b.higher_is_better) == (7, 5, 3, False)


def test_a_column_is_never_mapped_twice() -> None:
    at = upload_file("long_rmse.csv")
    at.selectbox(key="up_model_col").select("dataset")
    at.run()
    assert any("mapped twice" in str(e.value) for e in at.error)
    use = at.button(key="use_upload_btn")
    assert use.disabled and "cannot be read with the choices above" in str(use.help)  # the reason beside it
    at2 = upload_file("tsc_accuracy_wide.csv")
    at2.radio(key="up_layout").set_value("long")
    at2.run()
    picked = [at2.selectbox(key=k).value for k in ("up_dataset_col", "up_model_col", "up_score_col")]
    assert len(set(picked)) == 3


def test_wide_table_with_datasets_as_rows() -> None:
    at = upload_file("tsc_accuracy_wide.csv")
    assert at.radio(key="up_layout").value == "wide" and at.multiselect(key="up_drop_cols").value == []
    assert reading(at).startswith("I read this as: 10 datasets (rows) × 6 models (columns)")
    b = use(at).benchmark
    assert (b.n_datasets, b.n_models) == (10, 6)


def test_set_aside_columns_can_be_changed() -> None:
    at = upload_file("bbh_style_leaderboard.csv")
    at.multiselect(key="up_drop_cols").unselect("Average")
    at.run()
    assert "12 models (rows) × 11 datasets (columns)" in reading(at)
    at.multiselect(key="up_drop_cols").select("Average").select("snarks")
    at.run()
    assert "12 models (rows) × 9 datasets (columns)" in reading(at) and "snarks (set aside as asked)" in reading(at)


def test_an_unsure_guess_says_so_and_asks() -> None:
    at = upload_file("plain.csv", PLAIN)
    warn = " ".join(str(w.value) for w in at.warning)
    assert "not sure" in warn and "Are the rows models or datasets?" in warn
    assert any(str(c.value).replace("\\", "").startswith("Assumed higher is better: nothing in the file")
               for c in at.caption)  # said as an assumption
    assert "an assumption" in reading(at)
    assert "higher is better, assumed" in at.button(key="use_upload_btn").label  # using it confirms it
    at.button(key="up_flip_btn").click()
    at.run()
    assert at.radio(key="up_layout").value == "models-as-rows"
    assert "Are the rows models or datasets?" not in " ".join(str(w.value) for w in at.warning)
    at.radio(key="up_higher").set_value("lower is better")
    at.run()
    assert not at.warning and "lower is better (as chosen" in reading(at)
    assert "assumed" not in at.button(key="use_upload_btn").label


def test_direction_per_dataset() -> None:
    at = upload_file("mixed.csv", MIXED)
    table = next(d.value for d in at.dataframe if upload.LOWER in getattr(d.value, "columns", ()))
    assert dict(zip(table["dataset"], table[upload.LOWER], strict=True))["Calibration - ECE"]
    assert "except on 1 dataset(s): Calibration - ECE" in reading(at)
    b = use(at).benchmark
    assert b.flipped == ("Calibration - ECE",) and b.higher_is_better


def test_directions_table_round_trip() -> None:
    g = upload.guess(upload.read_header(upload.UploadedTable("m.csv", MIXED)), "m.csv")
    frame = upload.directions_frame(g)
    assert upload.directions_from_frame(frame, True) == (("Calibration - ECE",), ())
    frame.loc[frame["dataset"] == "ARC - EM", upload.LOWER] = True
    assert upload.directions_from_frame(frame, True) == (("ARC - EM", "Calibration - ECE"), ())
    assert upload.directions_from_frame(pd.DataFrame({"dataset": ["a", "b"], upload.LOWER: [True, False]}),
                                        False) == ((), ("b",))
