"""Dataset names as weak text descriptors: tokenisation, the builder, recipes,
the command line on a scores-only table and the dashboard's upload of scores alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError, MissingExtraError
from subsetsel_core.representations import BUILDERS, MANIFEST_KINDS, get_builder
from subsetsel_core.representations import names as N
from subsetsel_core.representations.recipe import RepresentationRecipe, build_recipe, make_recipe

SCORES = Path(__file__).resolve().parents[2] / "fixtures" / "names" / "accuracy_scores_only.csv"


@pytest.fixture(scope="module")
def bench():
    from subsetsel_core.io.score_format import ScoreFormat

    return load_scores(str(SCORES), ScoreFormat(layout="wide", dataset_column="dataset"), label=SCORES.name)


# --------------------------------------------------------------------------- tokenisation


@pytest.mark.parametrize(("name", "words"), [
    ("ArrowHead", "arrow head"),
    ("mmlu_high_school_physics", "mmlu high school physics"),
    ("ECGFiveDays", "ecg five days"),
    ("ECG200", "ecg 200"),
    ("NonInvasiveFetalECGThorax1", "non invasive fetal ecg thorax 1"),
    ("UWaveGestureLibraryX", "u wave gesture library x"),
    ("arc-easy", "arc easy"),
    ("arc.challenge", "arc challenge"),
    ("org/Model-7B", "org model 7 b"),
    ("hellaswag", "hellaswag"),
    ("Ünïcode_ÄbcDef", "ünïcode äbc def"),
    ("  spaced  out ", "spaced out"),
    ("---", ""),
])
def test_name_words(name, words):
    assert N.name_text(name) == words
    assert N.name_words(name) == (words.split() if words else [])


# --------------------------------------------------------------------------- the builder


def test_registered_once_and_not_a_manifest_kind():
    assert BUILDERS["names"].build is N.name_representation
    assert BUILDERS["names-sentence"].build is N.sentence_name_representation
    assert get_builder("names").title == N.NAME_TITLES["names"]
    assert not set(N.NAME_KINDS) & set(MANIFEST_KINDS)


def test_builder_shape_deterministic_constant_free(bench):
    ds = bench.datasets
    rep = N.name_representation(ds, seed=0)
    assert rep.X.shape[0] == len(ds) == 12 and 1 <= rep.X.shape[1] <= 11
    assert rep.datasets == tuple(ds) and len(rep.feature_names) == rep.X.shape[1]
    assert np.isfinite(rep.X).all()
    assert (rep.X.max(axis=0) > rep.X.min(axis=0)).all()  # no constant column
    again = N.name_representation(list(ds), seed=0)
    assert np.array_equal(rep.X, again.X)
    assert N.uses_names(rep) and any(N.WEAK_NOTE in f.message for f in rep.report.findings)
    # related names are closer than unrelated ones
    i = {d: k for k, d in enumerate(ds)}
    sim = rep.X @ rep.X.T
    assert sim[i["ECG200"], i["ECGFiveDays"]] > sim[i["ECG200"], i["mmlu_college_biology"]]
    assert sim[i["mmlu_high_school_physics"], i["mmlu_college_physics"]] > sim[i["mmlu_college_physics"], i["ArrowHead"]]


def test_info_text_columns_are_appended_numbers_are_not(bench):
    ds = list(bench.datasets)
    info = pd.DataFrame({"domain": ["exam"] * 4 + ["image", "ecg", "ecg", "ecg", "motion", "motion"] + ["exam"] * 2,
                         "size": np.arange(12) * 10.0}, index=ds)
    plain = N.name_representation(ds)
    rep = N.name_representation(ds, info)
    assert rep.X.shape[0] == 12 and not np.array_equal(plain.X, rep.X)
    msgs = {f.topic: f.message for f in rep.report.findings}
    assert "domain" in msgs["names-text"] and "size" in msgs["names-numeric"]
    assert N.name_representation(ds, info[["size"]]).X.tolist() == plain.X.tolist()


def test_no_usable_feature_is_a_clear_error():
    with pytest.raises(InputError, match="no usable feature"):
        N.name_representation(["-", "--", "_"])


def test_sentence_encoder_needs_the_extra(bench):
    if N.sentence_available():
        pytest.skip("the sentence encoder is installed")
    with pytest.raises(MissingExtraError):
        N.sentence_name_representation(bench.datasets)


def test_recipe_round_trip_and_join(bench):
    tables, specs = N.add_name_tables({}, {}, bench.datasets)
    rec = make_recipe(tables, specs, ["names"])
    assert rec.label == "names" and rec.tables == ("names",)
    back = RepresentationRecipe.from_dict(json.loads(json.dumps(rec.to_dict())))
    a = build_recipe(rec, bench, tables, specs, seed=3)
    b = build_recipe(back, bench, tables, specs, seed=3)
    assert np.array_equal(a.X, b.X) and N.uses_names(a)
    info = pd.DataFrame({"about": [f"topic {d[:3]}" for d in bench.datasets]}, index=list(bench.datasets))
    joined = make_recipe({**tables, "info": info}, specs, ["names", "info"])
    rep = build_recipe(joined, bench, {**tables, "info": info}, specs)
    assert rep.name == "names+info" and any(f.topic == "names-text" for f in rep.report.findings)
    off = make_recipe({**tables, "info": info}, specs, ["names", "info"], text=False)
    assert np.array_equal(build_recipe(off, bench, {**tables, "info": info}, specs).X,
                          build_recipe(rec, bench, tables, specs).X)
    assert build_recipe(make_recipe(tables, specs, ["names"], pca=0.9), bench, tables, specs).feature_names[0] == "pc1"
    real = {"names": info}  # a real table called 'names' keeps its place
    assert N.add_name_tables(real, {}, bench.datasets)[0]["names"] is info


# --------------------------------------------------------------------------- command line


def test_cli_without_descriptors_suggests_names(capsys):
    for argv in (["evaluate", "--trials", "2"], ["check"], ["select", "--strategy", "kmeans", "--k", "3"]):
        assert main([argv[0], "--scores", str(SCORES), *argv[1:]]) == 2
        err = capsys.readouterr().err
        assert "no descriptor table" in err and "--representation names" in err, err
    assert main(["select", "--scores", str(SCORES), "--strategy", "random", "--k", "3"]) == 0


def test_cli_evaluate_with_names(tmp_path, capsys):
    out = tmp_path / "ev.json"
    rc = main(["evaluate", "--scores", str(SCORES), "--representation", "names", "--strategies", "random,kmeans",
               "--trials", "3", "--k-max", "4", "--resamples", "20", "--metrics", "spearman", "--permutations", "0",
               "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "weak descriptors" in err
    res = json.loads(out.read_text())
    assert set(res["results"]) == {"random", "kmeans"}
    assert "not tested" in res["note"] and "'names': dataset names are weak descriptors" in res["note"]


def test_cli_select_sidecar_replays_names(tmp_path, capsys):
    side, first = tmp_path / "side.json", tmp_path / "a.csv"
    assert main(["select", "--scores", str(SCORES), "--representation", "names", "--strategy", "fafi-cosine",
                 "--k", "4", "--out", str(first), "--sidecar", str(side)]) == 0
    assert json.loads(side.read_text())["representation_recipe"]["tables"] == ["names"]
    again = tmp_path / "b.csv"
    assert main(["select", "--scores", str(SCORES), "--recipe", str(side), "--out", str(again)]) == 0
    from subsetsel_core.text.safe_csv import split_comments

    a_meta, a_table = split_comments(first.read_text(encoding="utf-8"))
    b_meta, b_table = split_comments(again.read_text(encoding="utf-8"))
    assert b_table == a_table  # the same table; the provenance says which command made each file
    assert a_meta["recipe"] == b_meta["recipe"] if "recipe" in a_meta else a_meta.keys() == b_meta.keys()
    capsys.readouterr()
    assert main(["select", "--scores", str(SCORES), "--representation", "names", "--strategy", "kmeans", "--k", "3",
                 "--format", "json"]) == 0
    assert "weak descriptors" in json.loads(capsys.readouterr().out)["note"]


# --------------------------------------------------------------------------- dashboard


def test_upload_of_scores_alone_offers_and_selects_names():
    import apphelpers as H

    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value((SCORES.name, SCORES.read_bytes(), "text/csv"))
    at.run()
    assert not H.errors(at), H.errors(at)
    at.button(key="use_upload_btn").click()
    at.run()
    data = at.session_state["data"]
    assert data.source == "upload" and data.only_names and list(data.tables)[0] == "names"
    assert any("weak descriptors" in i.value for i in at.info)
    H.goto(at, "representation")
    assert not H.errors(at), H.errors(at)
    box = at.multiselect(key="rep_tables")
    assert box.value == ["names"] and "Dataset names (text, weak)" in box.options[0]
    assert any("weak descriptors" in i.value and "permutation test" in i.value for i in at.info)
    assert any("Map of the datasets — names" in m.value for m in at.markdown)
    H.goto(at, "evaluate")
    assert not H.errors(at), H.errors(at)
    assert at.multiselect(key="ev_reps").value == ["names"]
    assert "kmeans" in at.multiselect(key="ev_strategies").options
    assert any("weak descriptors" in i.value for i in at.info)
