"""The guess decides by evidence only: tables in the shapes of real published leaderboards
(built in code by ``tests/support/leaderboard_shapes.py``) and small hand-written ones. Every
case's layout, model column, dataset count and direction is right or ``unsure`` — never
wrong and sure."""

from __future__ import annotations

import warnings
from typing import Any

import leaderboard_shapes as shapes
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.column_kinds import read_column
from subsetsel_core.io.guess.column_scan import read_columns
from subsetsel_core.io.guess.metric_names import metric_of
from subsetsel_core.io.guess.table import TableGuess, guess_table
from subsetsel_core.io.tables import read_table


def read(text: str, label: str = "t.csv", **options: Any) -> TableGuess:
    return guess_table(read_table(text.encode(), label=label, object_text=True), label=label, **options)


def aside(g: TableGuess) -> dict[str, str]:
    return {s.column: s.reason for s in g.set_aside}


def topics(g: TableGuess) -> list[str]:
    return [u.split(":")[0] for u in g.unsure]


# a table whose headers say higher is better and whose Rank says rank 1 has the lowest mean
CONFLICT = ("Model,Rank,MMLU - acc,ARC - acc,GSM8K - acc,HellaSwag - acc\n"
            "a,1,0.21,0.25,0.22,0.30\nb,2,0.41,0.45,0.42,0.50\nc,3,0.61,0.62,0.60,0.65\nd,4,0.81,0.85,0.82,0.90\n"
            "e,5,0.91,0.93,0.95,0.94\n")
# one of six columns names a lower-is-better metric; the others name none
MINORITY = ("model,alpha,beta,gamma,delta,epsilon,zeta - rmse\n"
            "m1,0.2,0.3,0.4,0.1,0.5,2.0\nm2,0.4,0.2,0.5,0.3,0.6,1.5\nm3,0.6,0.7,0.2,0.5,0.4,1.0\n"
            "m4,0.8,0.6,0.9,0.7,0.8,0.5\n")

# MTEB's leaderboard tab: model attributes next to the tasks (sizes, memory, dimensions, tokens)
MTEB_TAB = ("Rank,Model,Model Size (Million Parameters),Memory Usage (GB; fp32),Embedding Dimensions,Max Tokens,"
            "Average,STS12,STS13,STS14,STS15,BIOSSES,SICK-R\n"
            "1,gte-large,335,1.25,1024,512,82.1,77.2,86.3,81.9,88.1,80.2,79.0\n"
            "2,bge-base-en,109,0.41,768,512,80.6,75.1,84.9,80.2,87.0,79.8,76.4\n"
            "3,e5-small,33,0.12,384,512,78.0,72.0,82.1,78.4,85.2,76.9,73.2\n"
            "4,all-MiniLM-L6-v2,23,0.09,384,256,75.9,70.1,80.2,75.9,83.4,75.1,70.5\n"
            "5,sentence-t5-base,110,0.41,768,512,73.7,68.2,78.1,73.2,81.0,73.0,68.5\n")
# Open LLM Leaderboard style: an arrow in a header, likes, flags and hashes
OPEN_LLM = ("T,Model,Average ⬆️,ARC,HellaSwag,MMLU,TruthfulQA,Winogrande,GSM8K,Type,#Params (B),Hub ❤️,Model sha\n"
            "g,org/llama-70b,73.4,70.1,87.3,70.0,60.2,83.1,69.7,pretrained,68.98,512,abc123\n"
            "f,org/mistral-7b-instruct,65.7,63.1,84.9,60.8,68.3,77.9,39.2,fine-tuned,7.24,1821,def456\n"
            "g,org/falcon-40b,58.1,61.9,85.3,57.0,41.7,81.3,21.5,pretrained,41.3,2402,aa11\n"
            "c,org/zephyr-7b-beta,61.0,62.0,84.4,61.1,57.4,77.7,23.3,chat,7.24,1400,bb22\n"
            "g,org/phi-2,61.3,61.1,75.1,58.1,44.5,74.4,54.8,pretrained,2.78,3011,cc33\n"
            "f,org/qwen-14b-chat,65.9,56.9,79.2,65.9,47.4,74.9,60.0,fine-tuned,14.17,801,dd44\n")

# (name, table, expected): expected direction "higher" / "lower" / "unsure"; a layout or model
# column of None is not checked.
CASES = [
    ("bbh", shapes.bbh_with_error_detection(), {"layout": "models-as-rows", "model": "Model", "datasets": 23,
                                                "direction": "higher"}),
    ("imagenet", shapes.per_class_imagenet(n_weights=40, n_classes=60, n_archs=15),
     {"layout": "models-as-rows", "model": "Weight", "datasets": 60, "direction": "higher"}),
    ("helm", shapes.helm_with_time(), {"layout": "models-as-rows", "model": "Model", "datasets": 7,
                                      "direction": "higher"}),
    ("bare score", shapes.bare_score(), {"layout": "long", "model": "model", "datasets": 6, "direction": "higher"}),
    ("code column", shapes.with_code_column(), {"layout": "models-as-rows", "model": "model", "datasets": 7,
                                               "direction": "higher"}),
    ("conflict", CONFLICT, {"layout": "models-as-rows", "model": "Model", "datasets": 4, "direction": "unsure"}),
    ("one name", MINORITY, {"layout": "models-as-rows", "model": "model", "datasets": 6, "direction": "unsure"}),
    ("mteb tab", MTEB_TAB, {"layout": "models-as-rows", "model": "Model", "datasets": 6, "direction": "higher"}),
    ("open llm", OPEN_LLM, {"layout": "models-as-rows", "model": "Model", "datasets": 6, "direction": "higher"}),
]


@pytest.mark.parametrize(("name", "table", "expected"), CASES, ids=[c[0] for c in CASES])
def test_right_or_unsure_never_wrong_and_sure(name: str, table: str, expected: dict[str, Any]) -> None:
    g = read(table, f"{name.replace(' ', '_')}.csv")
    assert (g.layout, g.model_column, g.n_datasets) == (expected["layout"], expected["model"], expected["datasets"])
    assert g.direction == expected["direction"]
    assert (g.direction == "unsure") == ("direction" in topics(g))


def test_a_task_name_is_never_a_metric_name() -> None:
    g = read(shapes.bbh_with_error_detection(), "bbh.csv")
    assert "Salient Translation Error Detection" in g.datasets
    assert g.lower_is_better_datasets == () and g.higher_is_better_datasets == ()
    assert g.direction_from == "evidence" and "'Rank'" in g.direction_because
    assert aside(g) == {"Rank": "a rank of the rows", "Average": "the row mean"}
    assert metric_of("Salient Translation Error Detection") is None
    assert metric_of("MMLU - Denoised inference time (s)").higher_is_better is False  # type: ignore[union-attr]
    assert metric_of("acc_17").higher_is_better and metric_of("lambada/ppl").higher_is_better is False  # type: ignore[union-attr]


def test_a_global_direction_applies_to_every_dataset_unless_named() -> None:
    helm = shapes.helm_with_time()
    g = read(helm)
    assert g.lower_is_better_datasets == ("MMLU - Denoised inference time (s)",)
    given = read(helm, higher_is_better=True)
    assert given.direction_from == "given" and given.lower_is_better_datasets == ()
    own = read(helm, higher_is_better=True, lower_is_better_datasets=["MMLU - Denoised inference time (s)"])
    assert own.lower_is_better_datasets == ("MMLU - Denoised inference time (s)",)


def test_conflicting_evidence_is_unsure_with_both_reasons() -> None:
    g = read(CONFLICT)
    text = next(u for u in g.unsure if u.startswith("direction"))
    assert "metric names" in text and "'Rank'" in text and "(higher)" in text and "(lower)" in text
    assert "direction unsure" in g.sentence()
    assert read(CONFLICT, higher_is_better=True).unsure == ()  # the user decides


def test_one_name_does_not_turn_the_table() -> None:
    g = read(MINORITY)
    assert g.direction == "unsure" and "only 1 of 6" in g.direction_because
    assert g.lower_is_better_datasets == ("zeta - rmse",)  # its own metric, whatever the rest


def test_per_class_imagenet_sets_aside_everything_that_is_not_a_class() -> None:
    g = read(shapes.per_class_imagenet(), "imagenet.csv")
    assert (g.layout, g.model_column, g.n_models, g.n_datasets) == ("models-as-rows", "Weight", 112, 1000)
    why = aside(g)
    assert set(why) == {"Model", "Acc@1", "Acc@5", "Params", "GFLOPS", "Recipe", "acc"}
    assert why["acc"].startswith("the row mean") and why["Acc@1"].endswith("in percent")
    assert "model attribute" in why["GFLOPS"] and "another scale" in why["Acc@5"]
    assert "'Weight' is unique per row" in why["Model"]
    assert g.direction == "higher" and g.unsure == ()


def test_the_model_column_must_be_unique_and_the_error_names_the_unique_one() -> None:
    text = shapes.per_class_imagenet(n_weights=30, n_classes=12, n_archs=10)
    raw = read_table(text.encode(), label="w.csv", object_text=True)
    g = guess_table(raw, label="w.csv", layout="models-as-rows", model_column="Model")
    with pytest.raises(InputError, match="'Weight' is unique per row") as exc:
        load_scores(raw, g.to_format(), label="w.csv")
    assert exc.value.field == "model_column"
    repeats = read("model,a,b,c,d\nx,0.1,0.2,0.3,0.4\nx,0.2,0.3,0.4,0.5\ny,0.3,0.2,0.1,0.2\ny,0.5,0.4,0.3,0.2\n")
    assert "model_column" in topics(repeats)  # repeated names and no unique column: not decided


def test_numeric_codes_and_other_scales() -> None:
    g = read(shapes.with_code_column())  # six tasks: a column on another scale may be a task on its own scale
    doubt = next(u for u in g.unsure if u.startswith("set_aside: 'code'"))
    assert "codes or ids" in doubt and "a task scored on its own scale, or not a task" in doubt
    assert "follows the rows' mean scores" not in doubt  # random codes follow nothing
    kept = read(shapes.with_code_column(), keep_columns=["code"])
    assert kept.n_datasets == 7 and "code" not in aside(kept) and not kept.unsure
    dropped = read(shapes.with_code_column(), drop_columns=["code"])
    assert dropped.n_datasets == 6 and not dropped.unsure
    few = read("model,a,b,code\nm1,0.1,0.2,1001\nm2,0.3,0.4,1002\nm3,0.5,0.6,1003\nm4,0.2,0.9,1004\n"
               "m5,0.7,0.1,1005\n")
    assert "code" in aside(few) or "set_aside" in topics(few)  # set aside, or said to be in doubt


def test_equal_release_dates_are_not_release_dates() -> None:
    t = "Model,Release,a,b,c\nm1,2024-01-01,0.1,0.2,0.3\nm2,2024-01-01,0.4,0.5,0.6\nm3,2024-01-01,0.2,0.3,0.1\n"
    g = read(t)
    assert g.release_column is None and "all the same" in aside(g)["Release"] and "release_column" in topics(g)
    with pytest.raises(InputError, match="same release date") as exc:
        read(t, release_column="Release")
    assert exc.value.field == "release_column"


def test_bare_score_is_an_assumption_said_as_one() -> None:
    g = read(shapes.bare_score())
    assert (g.direction_from, g.direction, g.unsure) == ("assumed", "higher", ())
    assert "an assumption" in g.sentence() and g.to_json_dict()["direction_from"] == "assumed"


def test_every_column_classified_at_once_as_one_at_a_time() -> None:
    rng = np.random.default_rng(0)
    cols = {f"x{j}": [f"{v:.3f}" for v in rng.uniform(0, 1, 12)] for j in range(10)}
    cols.update({"pct": [f"{v}%" for v in range(12)], "comma": [f"0,{v}" for v in range(12)],
                 "gaps": ["", "NA", "-", *[str(v) for v in range(9)]], "name": [f"m{v}" for v in range(12)],
                 "when": [f"2024-01-{v + 1:02d}" for v in range(12)], "Params": [str(v) for v in range(12)],
                 "year": [str(2000 + v) for v in range(12)], "empty": [""] * 12})
    df = pd.DataFrame(cols).astype(object)
    fast = read_columns(df)
    for c in df.columns:
        one = read_column(c, df[c])
        got = fast[c]
        assert (got.kind, got.present, got.distinct, got.decimals) == (one.kind, one.present, one.distinct,
                                                                       one.decimals), c
        assert np.array_equal(got.numbers, one.numbers, equal_nan=True), c


def test_a_wide_table_is_read_without_warnings_and_as_its_cells_say() -> None:
    text = shapes.per_class_imagenet(n_weights=50, n_classes=1000, n_archs=20)
    raw = read_table(text.encode(), label="w.csv", object_text=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = guess_table(raw, label="w.csv")
        b = load_scores(raw, g.to_format(), label="w.csv")
    assert (b.n_datasets, b.n_models) == (1000, 50)
    frame = pd.read_csv(pd.io.common.StringIO(text)).set_index("Weight")
    got = b.scores[b.datasets.index("acc_7"), 0, b.models.index(frame.index[3])]
    assert got == frame["acc_7"].iloc[3]


def test_model_attributes_and_arrows() -> None:
    g = read(MTEB_TAB)
    why = aside(g)
    assert {"Memory Usage (GB; fp32)", "Embedding Dimensions", "Max Tokens"} <= set(why)
    assert why["Memory Usage (GB; fp32)"].startswith("a model attribute by its name")
    llm = read(OPEN_LLM)
    assert "the arrow in the 'Average ⬆️' header" in llm.direction_because and "Hub ❤️" in aside(llm)


def test_a_column_outside_the_numbered_series_is_in_doubt() -> None:
    frame = pd.read_csv(pd.io.common.StringIO(shapes.per_class_imagenet(n_weights=40, n_classes=100, n_archs=15)))
    classes = [c for c in frame.columns if c.startswith("acc_")]
    frame[classes] = frame[classes] * 100  # per-class accuracy in percent: Acc@5 is on the classes' scale now
    frame["acc"] = frame["acc"] * 100
    g = read(frame.to_csv(index=False), "pct.csv")
    assert aside(g)["acc"].startswith("the row mean") and aside(g)["Acc@1"].startswith("the row mean")
    assert "Acc@5" not in aside(g) and any(u.startswith("set_aside: 'Acc@5' is outside the numbered series")
                                           for u in g.unsure)
    assert metric_of("WER (dev-clean)").higher_is_better is False  # type: ignore[union-attr]


def test_a_long_tables_metric_column_gives_each_dataset_its_direction() -> None:
    t = ("task,model,metric,value\nlambada,m1,ppl,12.1\nlambada,m2,ppl,8.3\nlambada,m3,ppl,20.5\n"
         "hellaswag,m1,acc,0.51\nhellaswag,m2,acc,0.62\nhellaswag,m3,acc,0.40\narc,m1,acc,0.31\narc,m2,acc,0.42\n"
         "arc,m3,acc,0.25\n")
    g = read(t)
    assert g.layout == "long" and g.direction == "higher" and g.lower_is_better_datasets == ("lambada",)
    assert aside(g) == {"metric": "each dataset's metric, which decides its direction"}
    b = load_scores(read_table(t.encode(), object_text=True), g.to_format(), label="t.csv")
    assert b.flipped == ("lambada",) and b.leaderboard()["model"].iloc[0] == "m2"


def test_a_task_on_its_own_scale_among_few_is_in_doubt_and_among_many_set_aside() -> None:
    rng = np.random.default_rng(3)
    skill = rng.uniform(0, 1, 14)
    tasks = {f"bench{j}": (40 + 40 * skill + rng.normal(0, 4, 14)).round(1) for j in range(6)}
    ocr = (300 + 600 * skill + rng.normal(0, 30, 14)).round()  # OCRBench's 0–1000 next to 0–100 benchmarks
    few = pd.DataFrame({"Method": [f"vlm{i}" for i in range(14)], **tasks, "OCRBench": ocr})
    g = read(few.to_csv(index=False))
    doubt = next(u for u in g.unsure if u.startswith("set_aside: 'OCRBench'"))
    assert "follows the rows' mean scores" in doubt and "OCRBench" not in aside(g)
    many = pd.DataFrame({"Method": [f"vlm{i}" for i in range(14)],
                         **{f"bench{j}": (40 + 40 * skill + rng.normal(0, 4, 14)).round(1) for j in range(25)},
                         "OCRBench": ocr})
    assert "another scale" in aside(read(many.to_csv(index=False)))["OCRBench"]
