"""The Benchmark page never resolves an undecided reading silently: the direction question with
nothing preselected and *Use this benchmark* disabled until answered; an assumption said and
stated on the button; changing the model column sets the old one aside; a descriptor table
that cannot be used disables *Use* with the reason (AppTest)."""

from __future__ import annotations

from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import leaderboard_shapes as shapes

CONFLICT = (b"Model,Rank,MMLU - acc,ARC - acc,GSM8K - acc,HellaSwag - acc\n"
            b"a,1,0.21,0.25,0.22,0.30\nb,2,0.41,0.45,0.42,0.50\nc,3,0.61,0.62,0.60,0.65\nd,4,0.81,0.85,0.82,0.90\n"
            b"e,5,0.91,0.93,0.95,0.94\n")


def upload_file(name: str, content: bytes, desc: bytes | None = None) -> Any:
    return H.upload_scores(name, content, desc)


def reading(at: Any) -> str:
    return next(str(i.value) for i in at.info if "I read this as" in str(i.value)).replace("\\", "")


def warnings_text(at: Any) -> str:
    return " ".join(str(w.value) for w in at.warning).replace("\\", "")


def test_an_undecided_direction_is_asked_and_blocks_use() -> None:
    at = upload_file("conflict.csv", CONFLICT)
    assert at.radio(key="up_higher").value is None  # nothing preselected
    assert "direction unsure" in reading(at)
    assert "Not usable yet: the direction is not decided" in warnings_text(at)
    assert at.button(key="use_upload_btn").disabled  # a browser user cannot click it
    at.radio(key="up_higher").set_value("higher is better")
    at.run()
    assert not at.button(key="use_upload_btn").disabled and "Not usable yet" not in warnings_text(at)
    assert "higher is better (as chosen" in reading(at)
    at.button(key="use_upload_btn").click()
    at.run()
    data = at.session_state["data"]
    assert data.source == "upload" and data.benchmark.higher_is_better


def test_a_task_name_does_not_turn_a_leaderboard() -> None:
    text = shapes.bbh_with_error_detection()
    at = upload_file("bbh.csv", text.encode())
    assert at.radio(key="up_higher").value == "higher is better"
    assert "the 'Rank' column: rank 1 has the highest mean score" in reading(at) and "except on" not in reading(at)
    b = H_use(at).benchmark
    rank = {line.split(",")[1]: int(line.split(",")[0]) for line in text.splitlines()[1:]}
    assert b.flipped == () and rank[b.leaderboard()["model"].iloc[0]] <= 3  # the file's own leader stays on top


def H_use(at: Any) -> Any:
    at.button(key="use_upload_btn").click()
    at.run()
    return at.session_state["data"]


def test_changing_the_model_column_sets_the_old_one_aside() -> None:
    at = upload_file("weights.csv", shapes.per_class_imagenet(n_weights=30, n_classes=20, n_archs=10).encode())
    assert at.selectbox(key="up_model_col").value == "Weight"
    assert "Model" in at.multiselect(key="up_drop_cols").value
    at.selectbox(key="up_model_col").select("Model")
    at.run()
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")
    assert "'Weight' is unique per row" in errors  # the repeated names say which column is unique
    assert "Weight" in at.multiselect(key="up_drop_cols").value
    at.selectbox(key="up_model_col").select("Weight")
    at.run()
    assert "Model" in at.multiselect(key="up_drop_cols").value and not at.error
    assert "30 models (rows) × 20 datasets (columns)" in reading(at)


def test_a_descriptor_table_that_cannot_be_used_disables_use() -> None:
    desc = H.tiny_descriptors_csv(rename={"ds_03": "DS-03"})
    at = upload_file("s.csv", H.tiny_long_csv(), desc)
    assert at.button(key="use_upload_btn").disabled
    assert "Not usable yet: the descriptor table features_x.csv cannot be used" in warnings_text(at)
    at.button(key="add_aliases_btn").click()
    at.run()
    assert not at.button(key="use_upload_btn").disabled


def test_a_direction_asked_for_a_second_metric_leaves_the_named_metrics_as_they_say() -> None:
    """``<task> Acc`` beside ``<task> Plasticity``: the question is about Plasticity; answering "lower" turns those
    columns only, the accuracies stay higher is better."""
    header = "Method," + ",".join(f"{t} Acc,{t} Plasticity" for t in ("CIFAR", "Tiny", "Mini"))
    rows = "".join(f"m{i}," + ",".join(f"{0.3 + 0.05 * i + 0.01 * j:.3f},{0.9 - 0.07 * i + 0.02 * j:.3f}"
                                       for j in range(3)) + "\n" for i in range(6))
    at = upload_file("cl.csv", (header + "\n" + rows).encode())
    assert at.radio(key="up_higher").value is None and "another metric ('Plasticity')" in warnings_text(at)
    at.radio(key="up_higher").set_value("lower is better")
    at.run()
    data = H_use(at)
    b = data.benchmark
    assert not b.higher_is_better and set(b.flipped) == {"CIFAR Acc", "Tiny Acc", "Mini Acc"}
