"""Loading and validating scores and descriptors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.representations.descriptors import build_representation, load_descriptors


def _long(tmp_path: Path, text: str, name: str = "scores.csv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


LONG = "dataset,model,fold,score\n" + "".join(
    f"{d},{m},{f},{s}\n"
    for d, base in (("d1", 0.9), ("d2", 0.7), ("d3", 0.5))
    for m, off in (("A", 0.0), ("B", -0.1), ("C", 0.05))
    for f, s in ((0, base + off), (1, base + off + 0.01))
)


def test_long_with_folds(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG))
    assert b.scores.shape == (3, 2, 3)
    assert b.datasets == ("d1", "d2", "d3") and b.models == ("A", "B", "C")
    # C best, then A, then B on every dataset
    np.testing.assert_allclose(b.rank_vectors, [[2, 3, 1]] * 3)
    assert b.leaderboard()["model"].tolist() == ["C", "A", "B"]


def test_lower_is_better_flips(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG), higher_is_better=False)
    np.testing.assert_allclose(b.rank_vectors, [[2, 1, 3]] * 3)


def test_average_ties(tmp_path: Path) -> None:
    text = "dataset,model,score\n" + "".join(f"d{i},{m},{s}\n" for i in range(3) for m, s in (("A", 1), ("B", 1), ("C", 0)))
    b = load_scores(_long(tmp_path, text))
    np.testing.assert_allclose(b.rank_vectors[0], [1.5, 1.5, 3])
    assert any(f.topic == "ties" for f in b.report.findings)


def test_wide_layout(tmp_path: Path) -> None:
    text = "task,A,B,C\nd1,0.9,0.8,0.95\nd2,0.7,0.6,0.75\nd3,0.5,0.4,0.55\n"
    b = load_scores(_long(tmp_path, text), wide=True)
    assert b.models == ("A", "B", "C") and b.n_folds == 1
    np.testing.assert_allclose(b.rank_vectors, [[2, 3, 1]] * 3)


def test_score_format_and_keywords_agree(tmp_path: Path) -> None:
    path = _long(tmp_path, "task,A,B,C\nd1,0.9,0.8,0.95\nd2,0.7,0.6,0.75\nd3,0.5,0.4,0.55\n")
    fmt = ScoreFormat(layout="wide", higher_is_better=False)
    a = load_scores(path, fmt, name="x")
    b = load_scores(path, wide=True, higher_is_better=False, name="x")
    np.testing.assert_array_equal(a.rank_sums, b.rank_sums)
    assert a.higher_is_better is False and a.name == "x"
    # Keywords replace fields of the format.
    assert load_scores(path, fmt, higher_is_better=True).higher_is_better is True
    with pytest.raises(TypeError):
        load_scores(path, colour="red")


def test_score_format_rejects_unknown_settings() -> None:
    with pytest.raises(InputError, match="layout 'tall'") as info:
        ScoreFormat(layout="tall")  # type: ignore[arg-type]
    assert info.value.field == "layout"
    with pytest.raises(InputError, match="missing-score policy 'drop'") as info:
        ScoreFormat(missing="drop")  # type: ignore[arg-type]
    assert info.value.field == "missing"


def test_errors_carry_field_and_rows(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no rows") as info:
        load_scores(_long(tmp_path, "dataset,model,score\n"))
    assert info.value.field == "scores_file"
    with pytest.raises(InputError, match="not numbers in rows 3, 5") as info:
        load_scores(_long(tmp_path, LONG.replace("d1,A,1,0.91", "d1,A,1,x").replace("d1,B,1,0.81", "d1,B,1,y")))
    assert info.value.rows == (3, 5) and info.value.field is None
    with pytest.raises(InputError, match="no model column 'clf'") as info:
        load_scores(_long(tmp_path, LONG), model_column="clf")
    assert info.value.field == "model_column"
    with pytest.raises(InputError, match="at least 2") as info:
        load_scores(_long(tmp_path, "dataset,model,score\nd1,A,1\nd2,A,1\nd3,A,2\n"))
    assert info.value.field == "model_column"


def test_custom_columns_and_dataframe() -> None:
    df = pd.DataFrame({"task": ["a", "a", "b", "b", "c", "c"], "clf": list("xyxyxy"), "acc": [1, 2, 3, 4, 5, 6]})
    b = load_scores(df, dataset_column="task", model_column="clf", score_column="acc")
    assert b.scores.shape == (3, 1, 2)


def test_missing_column_suggests(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no score column 'score'.*'Score'") as info:
        load_scores(_long(tmp_path, LONG.replace("score", "Score")))
    assert info.value.field == "score_column"


def test_wide_hint(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="wide table") as info:
        load_scores(_long(tmp_path, "dataset,A,B,C\nd1,1,2,3\nd2,1,2,3\nd3,1,2,3\n"))
    assert info.value.field == "layout"


def test_duplicates_named(tmp_path: Path) -> None:
    text = "dataset,model,score\nd1,A,1\nd1,A,2\nd1,B,1\nd2,A,1\nd2,B,2\nd3,A,1\nd3,B,1\n"
    with pytest.raises(InputError, match=r"rows 2, 3.*fold column") as info:
        load_scores(_long(tmp_path, text))
    assert info.value.field == "fold_column" and info.value.rows == (2, 3)


def test_repeats_that_differ_in_a_metric_column_name_it(tmp_path: Path) -> None:
    rows = [f"{d},{m},0.0{i},{0.1 * i:.1f},{metric}" for i, (d, m, metric) in enumerate(
        (d, m, metric) for d in ("d1", "d2", "d3") for m in ("A", "B") for metric in ("acc", "acc_norm"))]
    text = "dataset,model,stderr,score,metric\n" + "\n".join(rows) + "\n"  # stderr differs too, and comes first
    with pytest.raises(InputError, match=r"They differ in 'metric': keep one row per dataset and model") as info:
        load_scores(_long(tmp_path, text))
    assert info.value.field == "fold_column"


def test_non_numeric_and_inf(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"not numbers in rows 2.*'abc'"):
        load_scores(_long(tmp_path, LONG.replace("d1,A,0,0.9", "d1,A,0,abc")))
    with pytest.raises(InputError, match="infinite"):
        load_scores(_long(tmp_path, LONG.replace("d1,A,0,0.9", "d1,A,0,inf")))


def test_missing_cells_policies(tmp_path: Path) -> None:
    text = "\n".join(line for line in LONG.splitlines() if not line.startswith("d2,B,1")) + "\n"
    p = _long(tmp_path, text)
    with pytest.raises(InputError, match=r"1 of 18 .*'drop-models'") as info:
        load_scores(p)
    assert info.value.field == "missing"
    b = load_scores(p, missing="drop-models")
    assert b.models == ("A", "C")
    assert any("dropped 1 models" in f.message for f in b.report.findings)
    with pytest.raises(InputError, match="only 2 dataset") as info:
        load_scores(p, missing="drop-datasets")
    assert info.value.field == "missing"
    extra = "".join(f"d4,{m},{f},0.3\n" for m in "ABC" for f in (0, 1))
    b = load_scores(_long(tmp_path, text + extra, "four.csv"), missing="drop-datasets")
    assert b.datasets == ("d1", "d3", "d4")


def test_too_small(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="at least 3"):
        load_scores(_long(tmp_path, "dataset,model,score\nd1,A,1\nd1,B,2\nd2,A,1\nd2,B,2\n"))
    with pytest.raises(InputError, match="at least 2"):
        load_scores(_long(tmp_path, "dataset,model,score\nd1,A,1\nd2,A,1\nd3,A,2\n"))


def test_semicolon_and_empty(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG.replace(",", ";")))
    assert b.n_datasets == 3
    with pytest.raises(InputError, match="empty"):
        load_scores(_long(tmp_path, ""))
    with pytest.raises(InputError, match="not found"):
        load_scores(tmp_path / "nope.csv")


def test_whitespace_names_stripped(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG.replace("d1,", " d1 ,")))
    assert "d1" in b.datasets


def test_lookalike_names_warned(tmp_path: Path) -> None:
    text = LONG + "".join(f"D1,{m},{f},0.5\n" for m in "ABC" for f in (0, 1))
    b = load_scores(_long(tmp_path, text))
    assert any(f.topic == "lookalike-names" for f in b.report.findings)


def test_descriptors_mismatch_suggests_and_aliases(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG))
    f = tmp_path / "feat.csv"
    f.write_text("dataset,size,kind\nD1,10,a\nd2,20,b\nd3,30,a\n")
    with pytest.raises(InputError, match=r"'d1' \(did you mean 'D1'\?\).*alias") as err:
        build_representation(load_descriptors(f), b.datasets)
    assert err.value.field == "aliases"
    rep = build_representation(load_descriptors(f, aliases={"D1": "d1"}), b.datasets, name="feat")
    assert rep.X.shape == (3, 3)  # size + one-hot kind (2)
    assert rep.feature_names == ("size", "kind=a", "kind=b")


def test_descriptors_impute_constant_text(tmp_path: Path) -> None:
    b = load_scores(_long(tmp_path, LONG))
    f = tmp_path / "feat.csv"
    f.write_text(
        "dataset,size,const,desc\n"
        "d1,10,1,a long description of images\n"
        "d2,,1,sensor readings of a machine\n"
        "d3,30,1,spoken words in audio clips\n"
    )
    rep = build_representation(load_descriptors(f), b.datasets)
    msgs = " ".join(x.message for x in rep.report.findings)
    assert "median" in msgs and "constant" in msgs and "TF-IDF" in msgs
    assert rep.X[1, 0] == 20.0
    assert "const" not in rep.feature_names


def test_several_descriptor_tables_join(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("dataset,x\nd1,1\nd2,2\nd3,3\n")
    (tmp_path / "b.csv").write_text("dataset,x,y\nd1,5,1\nd2,6,0\nd3,8,1\n")
    d = load_descriptors([tmp_path / "a.csv", tmp_path / "b.csv"])
    assert list(d.columns) == ["x", "b.x", "y"]


def test_descriptor_duplicates(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("dataset,x\nd1,1\nd1,2\nd3,3\n")
    with pytest.raises(InputError, match="repeat in rows 2, 3"):
        load_descriptors(tmp_path / "a.csv")
