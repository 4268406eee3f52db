"""*Use this benchmark* is disabled, with the reason next to it, while any part of an upload is not usable:
a doubt of the reading not answered (layout, a column of names, the score column, a column that may be an
average, the direction), scores that cannot be loaded (too few models or datasets, no column of scores),
aliases that cannot be read. Every sentence and caption follows the choices as they are now (AppTest)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_app.views.upload_questions import CONFIRM

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "leaderboards"
PLAIN = b"name,a,b,c\nx1,0.1,0.2,0.3\nx2,0.2,0.3,0.1\nx3,0.5,0.1,0.2\nx4,0.3,0.3,0.3\n"
SERIES = ("Model," + ",".join(f"acc_{j}" for j in range(12)) + ",extra\n"
          + "".join(f"m{i}," + ",".join(f"{0.3 + 0.05 * ((i * 7 + j * 3) % 12):.2f}" for j in range(13)) + "\n"
                    for i in range(12))).encode()
PAIRS = (b"Family,Size,t1,t2,t3\na,s,0.1,0.3,0.6\na,l,0.2,0.2,0.5\nb,s,0.3,0.1,0.4\nb,l,0.4,0.5,0.3\n"
         b"c,s,0.5,0.4,0.2\nc,l,0.6,0.6,0.1\n")
TWO_NAMES = (b"name,id,t1,t2,t3\nm0,x0,0.1,0.3,0.6\nm1,x1,0.2,0.2,0.5\nm2,x2,0.3,0.1,0.4\nm3,x3,0.4,0.5,0.3\n"
             b"m4,x4,0.5,0.4,0.2\nm5,x5,0.6,0.6,0.1\n")


def upload_file(name: str, content: bytes, desc: bytes | None = None) -> Any:
    return H.upload_scores(name, content, desc)


def text(elements: Any) -> str:
    return " ".join(str(e.value) for e in elements).replace("\\", "")


def reading(at: Any) -> str:
    return next(str(i.value) for i in at.info if "I read this as" in str(i.value)).replace("\\", "")


def use(at: Any) -> Any:
    return at.button(key="use_upload_btn")


def confirm(at: Any) -> Any:
    return next(c for c in at.checkbox if c.label == CONFIRM)


def _tick(at: Any) -> None:
    confirm(at).check()


def _set_extra_aside(at: Any) -> None:
    at.multiselect(key="up_drop_cols").select("extra")


def _flip(at: Any) -> None:
    at.button(key="up_flip_btn").click()


#: (case, file, bytes, what the reason for the disabled Use names, how the user answers it).
DOUBTS: list[tuple[str, str, bytes, str, Callable[[Any], None]]] = [
    ("rows datasets or models, confirmed", "plain.csv", PLAIN, "not sure about the layout", _tick),
    ("rows datasets or models, flipped", "plain.csv", PLAIN, "not sure about the layout", _flip),
    ("a column outside the numbered series, set aside", "series.csv", SERIES,
     "not sure about the columns read as tasks", _set_extra_aside),
    ("a column outside the numbered series, kept", "series.csv", SERIES, "not sure about the columns read as tasks",
     _tick),
    ("which text column names the datasets", "pairs.csv", PAIRS, "not sure about the dataset column, the score column",
     _tick),
    ("two columns of unique names", "two.csv", TWO_NAMES, "not sure about the column of row names, the layout",
     _tick),
]


@pytest.mark.parametrize(("case", "name", "content", "reason", "answer"), DOUBTS, ids=[d[0] for d in DOUBTS])
def test_a_doubt_disables_use_until_it_is_answered(case: str, name: str, content: bytes, reason: str,
                                                   answer: Callable[[Any], None]) -> None:
    at = upload_file(name, content)
    assert "I am not sure about this reading" in text(at.warning)
    assert use(at).disabled and reason in str(use(at).help)
    assert f"Not usable yet: {reason}" in text(at.warning)  # said next to the button
    answer(at)
    at.run()
    assert not at.exception and not use(at).disabled, use(at).help
    assert "Not usable yet" not in text(at.warning)
    if answer is not _tick:  # answered by a choice: the doubt is gone from the page
        assert "I am not sure about this reading" not in text(at.warning)


def test_a_doubt_answered_by_a_choice_is_said_as_chosen() -> None:
    at = upload_file("series.csv", SERIES)
    assert "'extra' is outside the numbered series" in text(at.warning) and "extra" not in reading(at)
    _set_extra_aside(at)
    at.run()
    assert "extra (set aside as asked)" in reading(at) and "outside the numbered series" not in text(at.warning)
    assert "12 models (rows) × 12 datasets (columns)" in reading(at) and "12 datasets" in use(at).label


def test_the_direction_text_follows_a_changed_model_column() -> None:
    at = upload_file("bbh.csv", (FIXTURES / "bbh_style_leaderboard.csv").read_bytes())
    assert "the 'Rank' column: rank 1 has the highest mean score" in reading(at)
    assert not [b for b in at.selectbox if b.key in ("up_dataset_col", "up_score_col")]  # no stale column shown
    assert at.selectbox(key="up_dataset_col_unused").value == "— the column headers"
    assert at.selectbox(key="up_score_col_unused").disabled
    at.selectbox(key="up_model_col").select("Rank")
    at.run()
    assert "'Rank' column" not in reading(at) and "'Rank' column" not in text(at.caption)  # now the names
    assert "Model" in at.multiselect(key="up_drop_cols").value and "Model (text)" in reading(at)
    at.selectbox(key="up_model_col").select("Model")
    at.run()
    assert "Rank (a rank of the rows)" in reading(at)  # the old column set aside, with its reason
    assert "the 'Rank' column: rank 1 has the highest mean score" in reading(at)
    assert any("Guessed: higher is better (the 'Rank' column" in str(c.value).replace("\\", "") for c in at.caption)


@pytest.mark.parametrize(("name", "content", "needle"), [
    ("one_model.csv", b"dataset,model,score\nd1,m1,0.5\nd2,m1,0.6\nd3,m1,0.7\n", "only 1 model(s) left"),
    ("one_dataset.csv", b"dataset,model,score\nd1,m1,0.5\nd1,m2,0.6\nd1,m3,0.7\n", "only 1 dataset(s) left"),
    ("names_only.csv", b"Model,Company\nm1,a\nm2,b\nm3,c\n", None),
])
def test_scores_that_cannot_be_used_disable_use_with_the_reason(name: str, content: bytes, needle: str | None) -> None:
    at = upload_file(name, content)
    assert at.error and (needle is None or needle in text(at.error))
    assert use(at).disabled and use(at).label == "Use this benchmark"
    assert "Not usable yet: the" in text(at.warning) and "the error above says" in str(use(at).help)


def test_aliases_that_cannot_be_read_disable_use() -> None:
    at = upload_file("s.csv", H.tiny_long_csv(), H.tiny_descriptors_csv())
    at.radio(key="up_higher").set_value("higher is better")
    at.run()
    assert not use(at).disabled
    at.text_area(key="up_aliases").input("this line has no separator")
    at.run()
    assert use(at).disabled and "the aliases cannot be read" in str(use(at).help)
    at.text_area(key="up_aliases").input("")
    at.run()
    assert not use(at).disabled


def test_a_direction_chosen_against_the_evidence_is_said_so_everywhere() -> None:
    mixed = (b"Model,MMLU - EM,GSM8K - EM,ARC - EM,Calibration - ECE\nm1,0.6,0.7,0.5,0.30\nm2,0.5,0.6,0.4,0.20\n"
             b"m3,0.4,0.3,0.45,0.10\nm4,0.3,0.2,0.2,0.25\n")
    at = upload_file("mixed.csv", mixed)
    assert "except on 1 dataset(s): Calibration - ECE" in reading(at)
    assert any(e.label.startswith("Direction per dataset (4 datasets; 1 lower-is-better)") for e in at.expander)
    at.radio(key="up_higher").set_value("lower is better")
    at.run()
    assert "lower is better (as chosen, on every dataset not ticked otherwise)" in reading(at)
    assert "except on" not in reading(at) and "Guessed" not in text(at.caption)
    assert "Chosen: lower is better, against what the file says (the metric names of 3 of 4" in text(at.caption)
    assert any(e.label == "Direction per dataset (4 datasets)" for e in at.expander)
    assert "(Calibration - ECE); their scores are negated" not in text(at.warning)
    assert not use(at).disabled and not use(at).help


def test_an_unanswered_direction_is_not_stated_in_the_validation_table() -> None:
    at = upload_file("scienceqa.md", (FIXTURES / "shapes" / "scienceqa.md").read_bytes())
    facts = [df.value for df in at.dataframe if "check" in getattr(df.value, "columns", [])]
    orientation = [str(v) for f in facts for k, v in zip(f["check"], f["value"], strict=True) if k == "orientation"]
    assert use(at).disabled
    assert orientation[-1].startswith("not decided yet"), orientation  # the upload's (the first: the active sample)
