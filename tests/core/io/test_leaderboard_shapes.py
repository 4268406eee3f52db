"""Published leaderboard and result shapes of other fields, read as a user's file would be:
layout, model column, dataset count and direction right or ``unsure`` — never wrong and sure.

The files in ``tests/fixtures/leaderboards/shapes/`` copy the headers, extra columns, cell
conventions (percent signs, ``-``, ``**bold**``, ``85.2*``, ``±``, ``94.1/92.2`` pairs,
markdown pipes) of GLUE, SuperGLUE, Papers-with-Code, the Open LLM Leaderboard (v2 export),
the Open ASR leaderboard, BEIR, the Monash forecasting archive, Chronos, the AutoML benchmark,
TabRepo, OpenML's evaluations, HELM's efficiency table, SUPERB, Atari, D4RL, Chatbot Arena's
categories, LiveBench, a recommender table, OGB, MLPerf Training, XTREME, OpenCompass's summary, a
table of translation metrics, timm's results, BFCL, EvalPlus, LMArena's table, CleanRL's docs, the Open
Medical-LLM, BigCode and Open VLM leaderboards, GIFT-Eval, TabArena, and README tables of mmsegmentation, RULER,
Vectara's hallucination leaderboard, GenEval, ScienceQA, YOLOv7 and LongBench; the numbers are made up. Result
folders: the Open LLM Leaderboard's details files (an ``all`` task), lm-eval 0.4.0 files
with ``groups`` but no ``group_subtasks``, and lighteval's results (``<task>:_average|<shots>``
subset means, the model named in ``config_general``).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import leaderboard_shapes as shapes
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.metric_names import metric_of
from subsetsel_core.io.guess.table import TableGuess, guess_table
from subsetsel_core.io.result_folders import read_results
from subsetsel_core.io.tables import read_table

SHAPES = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards" / "shapes"
RESULTS = Path(__file__).resolve().parents[2] / "fixtures" / "results"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")


def read(name: str, text: str | None = None, **options: Any) -> TableGuess:
    raw = text.encode() if text is not None else (SHAPES / name).read_bytes()
    return guess_table(read_table(raw, label=name, object_text=True), label=name, **options)


def topics(g: TableGuess) -> set[str]:
    return {u.split(":")[0] for u in g.unsure}


# name → (layout, model column, datasets, direction: "higher" / "lower" / "unsure", topics that must be unsure)
CASES: dict[str, tuple[str, str | None, int, str, set[str]]] = {
    "glue.csv": ("models-as-rows", "Model", 11, "higher", set()),
    "superglue.md": ("models-as-rows", "Model", 10, "higher", set()),
    "pwc_imagenet.csv": ("models-as-rows", "Model", 2, "higher", set()),
    "pwc_marks.csv": ("models-as-rows", "Model", 4, "higher", set()),
    "open_asr.csv": ("models-as-rows", "model", 8, "lower", set()),
    "open_llm_v2.csv": ("models-as-rows", "eval_name", 7, "higher", {"set_aside"}),
    "helm_eff.csv": ("models-as-rows", "Model/adapter", 4, "lower", set()),
    "beir.csv": ("wide", None, 9, "higher", {"rows"}),
    "monash_mase.csv": ("wide", None, 7, "lower", set()),
    "chronos_long.csv": ("long", "model", 3, "lower", {"score_column"}),
    "amlb.csv": ("long", "framework", 3, "higher", set()),
    "amlb_wide.csv": ("wide", None, 10, "lower", set()),
    "generative_arrows.csv": ("models-as-rows", "Method", 6, "lower", set()),
    "vtab": ("models-as-rows", "Method", 19, "higher", set()),
    "mteb_v2_summary.csv": ("models-as-rows", "Model", 10, "higher", {"set_aside"}),
    "helm_groups_full.csv": ("models-as-rows", "Model/adapter", 12, "higher", set()),
    "tabrepo_long.csv": ("long", "framework", 4, "lower", set()),
    "openml_evals.csv": ("long", "flow_name", 5, "higher", set()),
    "superb.csv": ("models-as-rows", "Method", 11, "higher", set()),
    "atari.csv": ("wide", None, 21, "higher", {"rows"}),
    "d4rl.csv": ("wide", None, 10, "higher", {"rows"}),
    "arena_ranks.csv": ("models-as-rows", "Model", 7, "lower", {"direction"}),
    "livebench.csv": ("models-as-rows", "Model", 6, "higher", {"set_aside"}),
    "recsys.csv": ("wide", None, 5, "higher", {"dataset_column"}),
    "ogb_long.csv": ("long", "Method", 4, "higher", {"score_column"}),
    "mlperf.csv": ("models-as-rows", "System", 6, "lower", set()),
    "xtreme.csv": ("models-as-rows", "Model", 4, "higher", {"release_column"}),
    "wmt_metrics.csv": ("models-as-rows", "System", 5, "higher", {"set_aside"}),
    "opencompass.csv": ("wide", None, 16, "higher", {"rows"}),
    "timm_imagenet_r.csv": ("models-as-rows", "model", 2, "higher", {"set_aside"}),
    "bfcl.csv": ("models-as-rows", "Model", 19, "higher", set()),
    "evalplus.csv": ("models-as-rows", "Model", 4, "higher", {"model_column", "set_aside"}),
    "lmsys_table.csv": ("models-as-rows", "Model", 2, "higher", set()),
    "cleanrl_procgen.md": ("wide", None, 10, "higher", set()),
    "open_medical.csv": ("models-as-rows", "Model", 9, "higher", set()),
    "bigcode.csv": ("models-as-rows", "Model", 14, "higher", {"set_aside"}),
    "openvlm.csv": ("models-as-rows", "Method", 10, "higher", {"set_aside"}),
    "gift_eval.csv": ("long", "model", 4, "lower", {"score_column"}),
    "tabarena.csv": ("long", "method", 3, "lower", set()),
    "segformer.md": ("models-as-rows", "Method", 3, "higher", {"model_column", "set_aside"}),
    "ruler.md": ("models-as-rows", "Models", 6, "higher", set()),
    "vectara.md": ("models-as-rows", "Model", 2, "higher", set()),
    "geneval.md": ("models-as-rows", "Model", 6, "higher", set()),
    "scienceqa.md": ("models-as-rows", "Method", 8, "higher", {"direction"}),
    "yolov7.md": ("models-as-rows", "Model", 3, "higher", {"set_aside"}),
    "longbench.md": ("models-as-rows", "", 6, "higher", set()),
    "proteingym_summary.csv": ("models-as-rows", "Model_name", 17, "higher", set()),
    "proteingym_dms_ndcg.csv": ("wide", None, 16, "higher", {"layout"}),
    "weatherbench.md": ("models-as-rows", "Model", 3, "lower", set()),
}


@pytest.mark.parametrize("name", list(CASES))
def test_published_shapes_are_read_right_or_unsure(name: str) -> None:
    layout, model, n, direction, doubts = CASES[name]
    g = read(name, shapes.vtab_with_group_means() if name == "vtab" else None)
    assert g.layout == layout
    if model is not None:
        assert g.model_column == model
    assert g.n_datasets == n
    assert doubts <= topics(g)
    if g.direction != "unsure":  # right, or unsure: never wrong and sure
        assert g.direction == direction
        if g.direction_from == "assumed":
            assert direction == "higher"  # an assumption stated as one
    assert (g.direction == "unsure") == ("direction" in topics(g))


def test_aggregate_columns_are_direction_evidence_and_set_aside() -> None:
    glue = read("glue.csv")
    assert "Score" in {s.column for s in glue.set_aside}
    assert any("two numbers per cell" in c and "MRPC" in c for c in glue.cells_read)
    sg = read("superglue.md")
    assert sg.direction_from == "evidence" and "'Score'" in sg.direction_because and "'Rank'" in sg.direction_because
    assert {s.column for s in sg.set_aside} >= {"Rank", "Score"} and "---" not in sg.models
    vtab = read("vtab", shapes.vtab_with_group_means())
    why = {s.column: s.reason for s in vtab.set_aside}
    assert set(shapes.VTAB_GROUPS) <= set(why) and "group of tasks" in why["Natural"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [7, 8, 9])
def test_category_means_spread_over_the_table_are_set_aside(weighted: bool, seed: int) -> None:
    mmlu = read("mmlu.csv", shapes.mmlu_with_categories(weighted=weighted, seed=seed))
    why = {s.column: s.reason for s in mmlu.set_aside}
    for group, members in shapes.MMLU_CATEGORIES.items():
        assert f"of the {len(members)} columns '{sorted(members)[0]}'" in why[group], why
        assert ("a weighted mean" in why[group]) == weighted and "group of tasks" in why[group]
    assert mmlu.n_datasets == sum(map(len, shapes.MMLU_CATEGORIES.values())) and mmlu.direction == "higher"


@pytest.mark.parametrize("n_models", [6, 12, 40])
def test_no_task_column_is_taken_for_a_mean_of_others(n_models: int) -> None:
    # the subjects alone: a subject may lie among the others, by chance with few rows
    text = shapes.mmlu_with_categories(n_models=n_models, weighted=True)
    df = pd.read_csv(io.StringIO(text)).drop(columns=[*shapes.MMLU_CATEGORIES, "Average"])
    g = read("subjects.csv", df.to_csv(index=False))
    assert g.n_datasets == 24 and not [s for s in g.set_aside if "group of tasks" in s.reason]


def test_the_mteb_leaderboard_export_sets_aside_both_means() -> None:
    """Mean (Task) weights a task type by its tasks (Instruction Retrieval: 3 of 132, a quarter of an
    equal share): a weighted mean of the columns, set aside as one; Mean (TaskType) is their plain mean."""
    g = read("mteb.csv", shapes.mteb_leaderboard())
    why = {s.column: s.reason for s in g.set_aside}
    assert why["Mean (Task)"] == "a weighted mean of the score columns (weights summing to one)"
    assert why["Mean (TaskType)"] == "the row mean"
    assert why["Rank (Borda)"] == "a rank of the rows" and why["Number of Parameters"] == "sizes"
    assert {"Memory Usage (MB)", "Embedding Dimensions", "Max Tokens"} <= set(why)
    assert set(shapes.MTEB_TYPES) <= set(g.datasets) and g.direction == "higher" and g.direction_from == "evidence"
    assert any(u.startswith("set_aside: 'Zero-shot'") for u in g.unsure)  # a percent column among the tasks


def test_named_category_averages_say_which_tasks_they_average() -> None:
    g = read("livebench.csv", shapes.livebench())
    why = {s.column: s.reason for s in g.set_aside}
    for cat, tasks in shapes.LIVEBENCH.items():
        assert why[f"{cat} Average"] == (f"the row mean of the {len(tasks)} columns '{tasks[0]}' … '{tasks[-1]}' "
                                         "(a mean of a group of tasks)")
    assert why["Global Average"].startswith("named an average") and why["Organization"] == "text"
    assert g.n_datasets == 17 and g.direction == "higher" and not g.unsure


def test_a_percent_column_among_the_tasks_is_named_when_kept() -> None:
    """Zero-shot kept as a task: the load names it as the one column with percent signs, and the fix."""
    from subsetsel_core.benchmark import load_scores

    text = shapes.mteb_leaderboard()
    g = read("mteb.csv", text, keep_columns=["Zero-shot"])
    with pytest.raises(InputError, match=r"'Zero-shot' has percent signs and 'Bitext Mining', .* have none\. "
                                         r"Set aside the column\(s\) that hold no scores") as err:
        load_scores(text.encode(), g.to_format(), label="mteb.csv")
    assert err.value.field == "drop_columns"
    aside = read("mteb.csv", text, drop_columns=["Zero-shot"])
    assert load_scores(text.encode(), aside.to_format(), label="mteb.csv").n_datasets == 9


def test_rank_and_average_both_count_and_a_conflict_is_unsure() -> None:
    bbh = read("bbh.csv", shapes.bbh_with_error_detection())
    assert bbh.direction_from == "evidence"
    assert "'Rank'" in bbh.direction_because and "'Average'" in bbh.direction_because
    # the rows listed from the lowest Average up, with accuracy headers: conflicting evidence
    rows = ["Model,Average,MMLU - acc,ARC - acc,GSM8K - acc"] + [
        f"m{i},{(a + b + c) / 3:.4f},{a},{b},{c}" for i, (a, b, c) in
        enumerate([(0.2, 0.25, 0.3), (0.3, 0.35, 0.4), (0.5, 0.45, 0.4), (0.6, 0.65, 0.7), (0.8, 0.85, 0.9)])]
    g = read("up.csv", "\n".join(rows) + "\n")
    assert g.direction == "unsure" and "'Average'" in g.direction_because and "lowest first" in g.direction_because
    assert read("up.csv", "\n".join(rows) + "\n", higher_is_better=True).unsure == ()


def test_the_loader_reads_cells_as_the_guess_does() -> None:
    """Pair cells per column (other columns hold plain numbers), marks and spreads: the scores
    loaded are those the reading describes."""
    from subsetsel_core.benchmark import load_scores

    raw = read_table((SHAPES / "glue.csv").read_bytes(), label="glue.csv", object_text=True)
    bench = load_scores(raw, read("glue.csv").to_format(missing="drop-models"), label="glue.csv")
    d, m = list(bench.datasets).index("MRPC"), list(bench.models).index("TernNet v2")
    assert bench.scores[d, 0, m] == pytest.approx((93.8 + 91.7) / 2)
    assert "GLUE Human Baselines" not in bench.models  # its AX is '-': a gap, dropped as asked
    raw = read_table((SHAPES / "pwc_marks.csv").read_bytes(), label="pwc_marks.csv", object_text=True)
    marks = load_scores(raw, read("pwc_marks.csv").to_format(missing="drop-models"), label="pwc_marks.csv")
    d, m = list(marks.datasets).index("CIFAR-100"), list(marks.models).index("EfficientNet-L2")
    assert marks.scores[d, 0, m] == pytest.approx(91.7)


def test_cell_marks_are_read_and_said() -> None:
    g = read("pwc_marks.csv")
    assert g.missing_cells == 3
    said = " ".join(g.cells_read)
    assert "footnote marks" in said and "spreads" in said and "bold" in said
    assert "footnote marks" in g.sentence()


def test_negated_metrics_and_the_metric_column_of_a_long_table() -> None:
    g = read("amlb.csv")
    assert (g.score_column, g.dataset_column, g.fold_column) == ("result", "task", "fold")
    assert g.direction_from == "evidence" and "neg_rmse" in g.direction_because
    assert g.lower_is_better_datasets == () and g.higher_is_better_datasets == ()


def test_a_long_table_of_many_error_metrics_asks_which_and_reads_each_lower() -> None:
    """GIFT-Eval: eleven metric columns, every one lower-is-better; the one taken is said to be a choice."""
    g = read("gift.csv", shapes.gift_eval())
    assert (g.layout, g.dataset_column, g.model_column, g.n_datasets) == ("long", "dataset", "model", 12)
    assert "score_column" in topics(g) and g.direction == "lower"
    for metric in shapes.GIFT_METRICS:
        one = read("gift.csv", shapes.gift_eval(), score_column=f"eval_metrics/{metric}")
        assert (one.direction, one.direction_from) == ("lower", "evidence"), metric
        assert "score_column" not in topics(one)


ARENA = ("Rank* (UB),Model,Arena Elo,95% CI,Votes,Organization,License,Knowledge Cutoff\n"
         "1,GPT-4o-2024-05-13,1287,+3/-3,90695,OpenAI,Proprietary,2023/10\n"
         "1,Claude 3.5 Sonnet,1272,+3/-4,58820,Anthropic,Proprietary,2024/4\n"
         "3,Gemini-1.5-Pro,1268,+4/-4,48990,Google,Proprietary,2023/11\n"
         "4,Llama-3-70b-Instruct,1208,+2/-2,163629,Meta,Llama 3 Community,2023/12\n"
         "5,Mixtral-8x7b-Instruct,1114,+2/-3,76126,Mistral,Apache 2.0,2023/12\n")


def test_a_column_the_user_sets_aside_is_no_evidence() -> None:
    """Chatbot Arena's export: Votes is in doubt (a model attribute by its name); set aside by the user,
    it no longer enters the row means the Rank column is checked against."""
    g = read("arena.csv", ARENA)
    assert any(u.startswith("set_aside: 'Votes'") for u in g.unsure) and g.direction_from != "evidence"
    dropped = read("arena.csv", ARENA, drop_columns=["Votes"])
    why = {s.column: s.reason for s in dropped.set_aside}
    assert why["Rank* (UB)"] == "a rank of the rows" and why["Votes"] == "set aside as asked"
    assert (dropped.direction, dropped.direction_from) == ("higher", "evidence") and not dropped.unsure


def test_helm_groups_counts_are_set_aside_and_a_constant_task_is_in_doubt() -> None:
    """HELM's full group table: ``<scenario> - # eval``, ``# train``, ``truncated``, ``# trials``,
    ``# prompt tokens`` (counts: model attributes), ECE lower-is-better per scenario."""
    g = read("helm_groups_full.csv")
    why = {s.column: s.reason for s in g.set_aside}
    assert "model attribute" in why["MMLU - # eval"] and "model attribute" in why["MMLU - # prompt tokens"]
    assert "model attribute" in why["MMLU - truncated"] and g.unsure == ()
    # a task every model aces is a task, but it ranks nothing: in doubt, never set aside unasked
    sat = read("sat.csv", "Model,boolean_expressions,navigate,snarks,word_sorting\n" + "".join(
        f"m{i},100.0,{50 + 7 * i:.1f},{40 + 5 * i:.1f},{30 + 3 * i:.1f}\n" for i in range(6)))
    assert sat.n_datasets == 4 and any(u.startswith("set_aside: 'boolean_expressions' holds the same number")
                                       for u in sat.unsure)
    assert g.lower_is_better_datasets == ("BoolQ - ECE (10-bin)", "MMLU - ECE (10-bin)", "NarrativeQA - ECE (10-bin)")


def test_a_score_column_naming_its_metric_wins_over_the_metric_column() -> None:
    """TabRepo: ``metric_error`` is the error of each dataset's metric (1 − AUC, log loss, RMSE):
    lower is better on every dataset, whatever the ``metric`` column names; times and the
    validation twin are not the score."""
    g = read("tabrepo_long.csv")
    assert (g.score_column, g.direction, g.direction_from) == ("metric_error", "lower", "evidence")
    assert g.lower_is_better_datasets == () and g.higher_is_better_datasets == () and g.unsure == ()
    o = read("openml_evals.csv")  # OpenML names each row's measure in 'function'
    assert o.score_column == "value" and "predictive_accuracy" in o.direction_because


def test_a_column_named_as_a_whole_wins_over_a_text_column_with_the_word() -> None:
    rows = "".join(f"{d},{'binary' if d % 2 else 'multiclass'},{m},{0.5 + 0.01 * d * (i + 1):.3f}\n"
                   for d in range(1, 7) for i, m in enumerate(("rf", "gbm", "knn")))
    g = read("ids.csv", "dataset,task,model,accuracy\n" + rows)
    assert (g.layout, g.dataset_column, g.model_column, g.n_datasets) == ("long", "dataset", "model", 6)


def test_lm_eval_040_groups_without_group_subtasks_are_set_aside() -> None:
    t = read_results(RESULTS / "lm_eval_040_groups", label="lm040")
    assert {"mmlu", "mmlu_humanities", "mmlu_stem"} <= {a for a, _ in t.set_aside}
    assert {"mmlu_formal_logic", "mmlu_astronomy", "lambada_openai", "wikitext"} <= set(t.metrics)
    assert not t.task_higher("lambada_openai") and not t.task_higher("wikitext")
    assert t.metrics["wikitext"] == "word_perplexity,none"


def test_a_two_row_header_is_refused_with_one_line() -> None:
    with pytest.raises(InputError, match="duplicate column names"):
        read("multirow.csv")


def test_open_llm_details_set_aside_the_all_task() -> None:
    t = read_results(RESULTS / "open_llm_details", label="details")
    assert "all" not in t.metrics and any(a == "all" for a, _ in t.set_aside)
    assert t.task_higher("harness|truthfulqa:mc|0") and t.direction_from["harness|truthfulqa:mc|0"] == "metric name"
    assert len(t.metrics) == 5


def test_lighteval_results_set_aside_its_subset_averages_and_name_the_model_from_its_config() -> None:
    t = read_results(RESULTS / "lighteval", label="lighteval")  # results/<org>/<model>/results_<time>.json
    assert {a for a, _ in t.set_aside} == {"all", "mmlu:_average|5"}
    assert len(t.metrics) == 7 and t.metrics["gsm8k|5"] == "extractive_match"
    assert not t.task_higher("wikitext|0")
    assert sorted(t.frame["model"].unique()) == ["lab/model-c", "lab/model-d", "lab/model-e", "org/model-a",
                                                 "org/model-b"]  # config_general.model_name, not the folder


@pytest.mark.parametrize("row", ["Avg. w/o CQA", "Average (excl. MS MARCO)", "Mean without CQADupStack", "Avg. Rank"])
def test_an_aggregate_row_that_names_what_it_leaves_out_is_unsure(row: str) -> None:
    text = (SHAPES / "beir.csv").read_text(encoding="utf-8").splitlines()
    body = [line for line in text[1:] if not line.lower().startswith("avg")]
    cells = ",".join(["0.4"] * (text[0].count(",")))
    g = read("beir.csv", "\n".join([text[0], *body, f'"{row}",{cells}']) + "\n")
    assert f"rows: the row '{row}' is a summary row" in " ".join(g.unsure)


@pytest.mark.parametrize("row", ["Total Recall", "Mean Shift 2", "Average Joe"])
def test_a_dataset_whose_name_starts_with_an_aggregate_word_stays_a_dataset(row: str) -> None:
    text = (SHAPES / "beir.csv").read_text(encoding="utf-8").splitlines()
    body = [line for line in text[1:] if not line.lower().startswith("avg")]
    cells = ",".join(["0.4"] * (text[0].count(",")))
    g = read("beir.csv", "\n".join([text[0], *body, f'"{row}",{cells}']) + "\n")
    assert "rows" not in topics(g)


def _with_spreads(names: dict[str, str], n: int = 12, seed: int = 0) -> str:
    """Models as rows: each task's score and, under the name ``names[task]``, its spread."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0, 1, n)
    cols: dict[str, Any] = {"model": [f"m{i}" for i in range(n)]}
    for task, spread in names.items():
        cols[task] = (0.4 + 0.4 * skill + rng.normal(0, 0.03, n)).round(4)
        cols[spread] = rng.uniform(0.004, 0.015, n).round(4)
    return pd.DataFrame(cols).to_csv(index=False)


@pytest.mark.parametrize("spread", ["{t}_stderr", "{t} ± std", "{t} (SE)", "{t} standard error", "{t} 95% CI",
                                    "{t}_sd", "StdDev {t}"])
def test_the_spread_of_each_score_is_set_aside(spread: str) -> None:
    tasks = ["arc_easy acc", "hellaswag acc", "piqa acc", "winogrande acc", "boolq acc"]
    g = read("spreads.csv", _with_spreads({t: spread.format(t=t) for t in tasks}))
    assert sorted(g.datasets) == sorted(tasks) and g.direction == "higher"
    assert all(why.startswith("the spread of a score") for why in
               (a.reason for a in g.set_aside if a.column not in tasks))


def test_a_short_spread_word_alone_is_not_a_spread() -> None:
    text = _with_spreads({"MMLU": "SE", "ARC": "Var", "GSM8K": "CI"}, seed=1)  # no task of that name before it
    assert {"SE", "Var", "CI"} & set(read("short.csv", text).datasets) == {"SE", "Var", "CI"}


def test_a_metric_column_of_a_table_with_datasets_as_rows_gives_each_its_direction() -> None:
    g = read("amlb_wide.csv")  # AUC, log loss and RMSE rows side by side, an RMSE of 22 among them
    assert sorted(g.higher_is_better_datasets) == ["blood-transfusion", "credit-g", "kc1", "phoneme"]
    assert not g.higher_is_better and g.direction_from == "evidence"
    assert {a.column: a.reason for a in g.set_aside} == {"metric": "each dataset's metric, which decides its direction"}
    assert g.unsure == ()  # no model column is taken for an average because the rows' scales differ
    lines = (SHAPES / "amlb_wide.csv").read_text(encoding="utf-8").splitlines()
    words = "\n".join([lines[0].replace("metric", "kind"), *lines[1:]]) + "\n"  # unnamed, but every cell a metric
    assert sorted(read("amlb_wide.csv", words).higher_is_better_datasets) == sorted(g.higher_is_better_datasets)


def test_a_column_with_an_arrow_is_a_score_whatever_its_scale() -> None:
    g = read("generative_arrows.csv")  # FID↓ in 2–12 next to IS↑ near 9 and Recall↑ in 0–1
    assert g.n_datasets == 6 and g.unsure == () and g.set_aside == ()
    assert sorted(g.higher_is_better_datasets) == ["CIFAR-10 IS↑", "ImageNet-64 Recall↑"] and not g.higher_is_better


def test_a_task_scored_with_two_metrics_is_in_doubt() -> None:
    rng = np.random.default_rng(0)
    skill = rng.uniform(0, 1, 12)
    cols: dict[str, Any] = {"model": [f"m{i}" for i in range(12)]}
    for task, metrics in (("arc_challenge", ("acc", "acc_norm")), ("hellaswag", ("acc", "acc_norm")),
                          ("MMLU -", ("EM", "F1")), ("boolq", ("acc",)), ("winogrande", ("acc",))):
        for m in metrics:
            cols[f"{task} {m}"] = (0.4 + 0.4 * skill + rng.normal(0, 0.03, 12)).round(4)
    g = read("two.csv", pd.DataFrame(cols).to_csv(index=False))
    doubts = [u for u in g.unsure if "with another metric" in u]
    assert [u.split("'")[1] for u in doubts] == ["arc_challenge acc_norm", "hellaswag acc_norm", "MMLU - F1"]
    assert "the task would count twice" in doubts[0] and g.n_datasets == 8
    assert read("helm_groups_full.csv").unsure == ()  # EM (Robustness) is EM; ECE (lower) measures another thing
    decided = read("two.csv", pd.DataFrame(cols).to_csv(index=False),
                   drop_columns=["arc_challenge acc_norm", "hellaswag acc_norm", "MMLU - F1"])
    assert decided.n_datasets == 5 and not decided.unsure


def test_per_column_arrows_give_each_task_its_direction() -> None:
    g = read("superb.csv")
    assert set(g.lower_is_better_datasets) == {"PR (PER↓)", "ASR (WER↓)", "SF (CER↓)", "ASV (EER↓)", "SD (DER↓)"}
    assert {a.column: a.reason for a in g.set_aside}["Params"] == "sizes"


def test_a_column_of_ids_shaped_like_dates_is_not_release_dates() -> None:
    g = read("mlperf.csv")  # 'ID' holds 3.0-2001 …: matches a d.m-yyyy shape, but no cell is a date
    assert g.release_column is None and {a.column: a.reason for a in g.set_aside}["ID"] == "text"
    assert g.direction_because.endswith("('minutes') say lower is better")


@pytest.mark.parametrize("row", ["Median human-normalised (%)", "Mean HNS", "Geomean", "Sum"])
def test_summary_rows_named_by_other_statistics_are_unsure(row: str) -> None:
    text = (SHAPES / "atari.csv").read_text(encoding="utf-8").splitlines()
    g = read("atari.csv", "\n".join([*text[:-1], f'"{row}",' + ",".join(["50"] * 8)]) + "\n")
    assert [u for u in g.unsure if u.startswith("rows:")] == [
        f"rows: the row '{row}' is a summary row, not one of the datasets (named so); set the row aside to read the table"]


def test_ranks_in_every_column_make_the_direction_unsure_not_assumed() -> None:
    g = read("arena_ranks.csv")
    assert g.direction == "unsure" and "they look like ranks (lower is better)" in g.direction_because
    assert read("arena_ranks.csv", lower_is_better_datasets=(), higher_is_better=False).direction == "lower"
    ratings = pd.DataFrame({"model": [f"m{i}" for i in range(20)],
                            **{f"q{j}": np.random.default_rng(j).integers(1, 6, 20) for j in range(6)}})
    assert read("ratings.csv", ratings.to_csv(index=False)).direction_from == "assumed"  # 1–5 ratings of 20 models


def test_a_table_of_category_averages_reads_them_as_the_tasks_in_doubt() -> None:
    g = read("livebench.csv")
    assert {a.column: a.reason for a in g.set_aside}["Global Average"] == "the row mean of the 6 task columns"
    assert "Reasoning Average" in g.datasets
    assert any(u.startswith("set_aside: every score column is named as an average") for u in g.unsure)
    assert not read("livebench.csv", keep_columns=("Reasoning Average",)).unsure


def test_datasets_repeated_once_per_metric_name_the_metric_column() -> None:
    g = read("recsys.csv")
    assert g.layout == "wide" and g.dataset_column == "Dataset"
    assert any("its rows differ in 'Metric': keep one Metric per dataset" in u for u in g.unsure)


def test_columns_that_are_all_metric_names_are_in_doubt() -> None:
    g = read("wmt_metrics.csv")
    assert g.lower_is_better_datasets == ("TER",)
    assert any(u.startswith("set_aside: every task column names a metric") for u in g.unsure)
    per_class = pd.DataFrame({"model": [f"m{i}" for i in range(8)],
                              **{f"acc_{j}": np.linspace(0.5, 0.9, 8) + 0.01 * j for j in range(12)}})
    assert not any("every task column names a metric" in u for u in read("c.csv", per_class.to_csv(index=False)).unsure)


def test_section_rows_without_a_score_are_unsure_and_set_aside_by_name() -> None:
    g = read("opencompass.csv")
    rows = [u for u in g.unsure if u.startswith("rows:")]
    assert len(rows) == 4 and all("holds no score, so it is not one of the datasets" in u for u in rows)
    heads = [r for r in g.datasets if r.startswith("---")]
    g2 = read("opencompass.csv", drop_rows=tuple(heads))
    assert g2.n_datasets == 12 and not g2.unsure and g2.missing_cells == 0


def test_timm_results_set_aside_errors_differences_and_preprocessing() -> None:
    g = read("timm_imagenet_r.csv")
    why = {a.column: a.reason for a in g.set_aside}
    assert why["top1_err"].startswith("100 − 'top1' in every row") and why["top5_err"].startswith("100 − 'top5'")
    assert "difference of 'top1'" in why["top1_diff"] and "difference of 'top5'" in why["top5_diff"]
    assert why["crop_pct"].startswith("a model attribute") and why["param_count"] == "sizes"
    assert any("every task column names a metric ('top1', 'top5')" in u for u in g.unsure)


def test_an_error_column_that_is_no_complement_stays_a_task() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"model": [f"m{i}" for i in range(8)], "acc": rng.uniform(50, 90, 8).round(2),
                       "err": rng.uniform(10, 50, 8).round(2), "mmlu": rng.uniform(40, 80, 8).round(2)})
    assert "err" not in {a.column for a in read("e.csv", df.to_csv(index=False)).set_aside}
    df["err"] = (100 - df["acc"]).round(2)
    assert "err" in {a.column for a in read("e.csv", df.to_csv(index=False)).set_aside}


def test_bfcl_percent_columns_named_param_are_scores_and_group_means_set_aside() -> None:
    g = read("bfcl.csv")
    why = {a.column: a.reason for a in g.set_aside}
    assert "Multi Turn Miss Param" not in why
    for group in ("Non-Live AST Acc", "Live Acc", "Multi Turn Acc", "Web Search Acc", "Memory Acc"):
        assert "a mean of a group of tasks" in why[group], group


def test_a_yes_no_column_names_no_datasets() -> None:
    g = read("evalplus.csv")
    assert g.layout == "models-as-rows" and g.dataset_column != "prompted"
    assert {a.column: a.reason for a in g.set_aside}["prompted"] == "text"


def test_a_knowledge_cutoff_is_no_release_date() -> None:
    g = read("lmsys_table.csv")
    assert g.release_column is None
    assert "training-data cutoff" in {a.column: a.reason for a in g.set_aside}["Knowledge cutoff date"]


def test_a_markdown_table_below_a_sentence_reads_as_the_table() -> None:
    with_prose = read("cleanrl_procgen.md")
    alone = read("t.md", "\n".join(line for line in (SHAPES / "cleanrl_procgen.md").read_text().splitlines()
                                    if line.startswith("|")) + "\n")
    assert (with_prose.layout, with_prose.n_datasets, with_prose.n_models) == (alone.layout, 10, 3)
    with pytest.raises(InputError, match="holds 2 markdown tables"):
        read_table(b"| a | b |\n|---|---|\n| x | 1 |\n\nmore\n\n| c | d |\n|---|---|\n| y | 2 |\n", label="t.md")


def test_model_names_written_as_links_are_read_as_their_text() -> None:
    from subsetsel_core.benchmark import load_scores

    raw = read_table(SHAPES / "open_medical.csv", object_text=True)
    bench = load_scores(raw, read("open_medical.csv").to_format(missing="drop-models"), label="open_medical.csv")
    assert "BioMistral/BioMistral-7B" in bench.models
    assert not any("<" in m for m in bench.models)
    assert any("written with markup (HTML or markdown links" in f.message for f in bench.report.findings)


def test_readme_tables_read_as_github_reads_them() -> None:
    seg = read_table(SHAPES / "segformer.md", object_text=True)  # escaped bars inside a cell, headings above
    assert list(seg.columns)[:3] == ["Method", "Backbone", "Crop Size"] and "\\|" not in seg["download"].iloc[0]
    assert seg["download"].iloc[0] == "model | log"  # two links with a bar between, their text
    ruler = read_table(SHAPES / "ruler.md", object_text=True)  # rows without edge bars, a sentence above
    assert list(ruler.columns)[:4] == ["Models", "Claimed Length", "Effective Length", "4K"] and len(ruler) == 11
    g = read("ruler.md")
    assert {a.column: a.reason for a in g.set_aside}["Avg."] == "the row mean"
    assert "Llama2 (7B)" in names_of_models("ruler.md", g)
    yolo = read_table(SHAPES / "yolov7.md", object_text=True)  # the empty separator row is no model
    assert len(yolo) == 6 and list(yolo.columns)[2:5] == ["AP test", "AP 50 test", "AP 75 test"]
    with pytest.raises(InputError, match="line 4 of the markdown table has 3 cells but its header"):
        read_table(b"| a | b |\n|:-:|--|\n| x | 1 |\n| y | 2 | 3 |\n", label="t.md")


def names_of_models(name: str, g: TableGuess) -> list[str]:
    from subsetsel_core.io.guess.result import names_of

    assert g.model_column is not None
    return list(names_of(read_table(SHAPES / name, object_text=True)[g.model_column]))


def test_a_score_and_its_complement_are_one_task() -> None:
    g = read("vectara.md")
    why = {a.column: a.reason for a in g.set_aside}
    assert why["Hallucination Rate"].startswith("1 − 'Factual Consistency Rate' in every row")
    rng = np.random.default_rng(5)
    a = rng.uniform(20, 80, 8).round(1)
    df = pd.DataFrame({"model": [f"m{i}" for i in range(8)], "Pass": a, "Fail share": (100 - a).round(1),
                       "other": rng.uniform(20, 80, 8).round(1)})
    g2 = read("c.csv", df.to_csv(index=False))
    assert any(u.startswith("set_aside: 'Fail share' is 100 − 'Pass' in every row") for u in g2.unsure)


def test_a_word_that_may_name_a_rank_is_a_task_when_it_holds_no_ranks() -> None:
    g = read("geneval.md")  # GenEval's "Position" holds scores 0–1
    assert "Position" not in {a.column for a in g.set_aside} and not any("'Position'" in u for u in g.unsure)
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"model": [f"m{i}" for i in range(6)], "Place": [3, 1, 6, 2, 5, 4],
                       **{t: rng.uniform(0.2, 0.9, 6).round(3) for t in ("a", "b", "c")}})
    g2 = read("p.csv", df.to_csv(index=False))  # whole numbers that order nothing: in doubt
    assert any(u.startswith("set_aside: 'Place' may name a rank") for u in g2.unsure)


def test_rows_listed_lowest_first_alone_leave_the_direction_unsure() -> None:
    g = read("scienceqa.md")
    assert g.direction == "unsure" and "a paper's table often lists its baselines first" in g.direction_because
    ranked = "Model,Rank,a,b,c\nm1,1,0.1,0.2,0.3\nm2,2,0.2,0.3,0.4\nm3,3,0.5,0.6,0.7\n"
    assert read("r.csv", ranked).direction == "lower"  # a column named Rank is a leaderboard's own word


def test_times_in_brackets_are_lower_is_better() -> None:
    g = read("llm_perf.csv")
    assert {"Prefill (s)", "End-to-End (s)"} <= set(g.lower_is_better_datasets) | {
        a.column for a in g.set_aside}


def test_metric_words_of_other_fields_decide_and_a_metric_off_scale_is_in_doubt() -> None:
    molnet = read("m.csv", "Model,ESOL RMSE,Lipo RMSE,FreeSolv RMSE,BBBP AUC\nA,0.8,0.7,2.0,0.9\nB,0.9,0.6,2.2,0.8\n"
                           "C,0.7,0.65,1.9,0.85\n")
    assert molnet.direction == "lower" and molnet.higher_is_better_datasets == ("BBBP AUC",)
    depth = read("d.csv", "Model,Abs Rel.,Sq Rel.,RMSE,RMSElog,SI-SDR\nA,0.115,0.903,4.863,0.193,12.1\n"
                          "B,0.109,0.873,4.960,0.209,13.0\nC,0.120,0.95,4.70,0.2,11.0\nD,0.1,0.8,4.4,0.18,14.0\n")
    assert "RMSE" not in {a.column for a in depth.set_aside}
    assert any(u.startswith("set_aside: 'RMSE' holds numbers") for u in depth.unsure)
    assert depth.direction == "lower" and depth.higher_is_better_datasets == ("SI-SDR",)
    for header, higher in (("LPIPS", False), ("EPE", False), ("Fl-all", False), ("PESQ", True), ("STOI", True)):
        assert metric_of(header) is not None and metric_of(header).higher_is_better is higher, header
    assert metric_of("Hearing Loss") is None and metric_of("Word in Context Accuracy") is None


def test_a_rank_column_is_no_model_column() -> None:
    g = read("proteingym_summary.csv")
    assert g.model_column == "Model_name"
    assert {a.column: a.reason for a in g.set_aside}["Model_rank"].startswith("a rank of the rows")


def test_a_column_named_no_that_holds_decimals_is_a_task() -> None:
    g = read("scienceqa.md")
    assert "NO" not in {a.column for a in g.set_aside} and g.n_datasets == 8
    ranked = "Model,No.,a,b,c\nm1,1,0.5,0.6,0.7\nm2,2,0.2,0.3,0.4\nm3,3,0.1,0.2,0.3\n"
    assert {a.column: a.reason for a in read("r.csv", ranked).set_aside}["No."].startswith("a rank of the rows")


def test_too_few_task_columns_names_the_columns_set_aside() -> None:
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.io.score_format import ScoreFormat

    raw = b"model,a,b,Notes\nm1,1,2,x\nm2,2,3,y\nm3,3,1,z\n"
    with pytest.raises(InputError, match="Check the columns set aside") as err:
        load_scores(raw, ScoreFormat(layout="models-as-rows", dataset_column="dataset", model_column="model",
                                     drop_columns=("Notes",)), label="t.csv")
    assert err.value.field == "keep_columns"


def test_whole_number_pairs_are_two_scores_unless_a_fraction_or_a_date() -> None:
    """WeatherBench's ``154 / 334`` (RMSE at 3 and 5 days) is two scores; ``3/5`` over one total counts what was
    solved, and ``3/12`` may be a date: those stay text."""
    from subsetsel_core.io.numeric_cells import two_numbers

    def pairs(cells: list[str]) -> bool:
        s = pd.Series(cells).str.extract(r"^(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)$")
        return two_numbers(s[0], s[1])

    assert pairs(["154 / 334", "268 / 499", "816 / 816"]) and pairs(["94.1/92.2", "88.0/87.5"])
    assert not pairs(["3/5", "4/5", "1/5"]) and not pairs(["17/40", "22/40"])  # one total: counts solved
    assert not pairs(["3/12", "28/2", "14/7"]) and not pairs(["09/2022", "11/2023"])  # dates
    assert not pairs(["2022/09", "2023/11"])
    assert not pairs(["39.10/0.9773", "37.54/0.9587"])  # PSNR/SSIM: two metrics on other scales
    g = read("weatherbench.md")
    assert set(g.datasets) == {"Z500 RMSE (3 / 5 days) [m 2/s 2]", "T850 RMSE (3 / 5 days) [K]",
                                           "T2M RMSE (3 / 5 days) [K]"}
    assert g.direction == "lower" and not g.unsure


def test_a_unit_in_square_brackets_after_the_metric_leaves_the_metric_to_decide() -> None:
    assert metric_of("T850 RMSE (3 / 5 days) [K]").higher_is_better is False  # type: ignore[union-attr]
    assert metric_of("ESOL RMSE [log mol/L]").higher_is_better is False  # type: ignore[union-attr]
    assert metric_of("Decoding [ms]").higher_is_better is False  # type: ignore[union-attr]
    assert metric_of("MMLU [5-shot]") is None and metric_of("Salient Translation Error Detection [BBH]") is None


def _table(header: str, rows: int = 6, seed: int = 0) -> str:
    """A models-as-rows table with the given header: a model name, then made-up scores in (0, 1)."""
    rng = np.random.default_rng(seed)
    cols = header.split(",")
    lines = [header] + [",".join([f"method-{i}"] + [f"{x:.3f}" for x in rng.uniform(0.1, 0.9, len(cols) - 1)])
                        for i in range(rows)]
    return "\n".join(lines) + "\n"


def test_detection_errors_and_complements_of_a_metric_are_lower_is_better() -> None:
    """nuScenes: mATE, mASE, mAOE, mAVE, mAAE are errors (``(1-acc)``, ``(1-IoU)``: one less a metric; ``(m/s)`` a
    velocity, no throughput); NDS and mAP higher."""
    g = read("nus.csv", _table("Method,mAP,mATE (m),mASE (1-IoU),mAOE (rad),mAVE (m/s),mAAE (1-acc),NDS"))
    assert g.direction == "lower" and not g.unsure
    assert set(g.higher_is_better_datasets) == {"mAP", "NDS"}
    assert metric_of("Decode (tokens/s)").higher_is_better is True  # type: ignore[union-attr]
    assert metric_of("Speed (images / s)").higher_is_better is True  # type: ignore[union-attr]


def test_accuracy_at_rank_k_is_a_score_not_a_rank() -> None:
    """Re-identification's ``Rank-1`` is the share of queries matched first: higher is better, never a rank column."""
    g = read("reid.csv", _table("Method,Market-1501 Rank-1,Market-1501 mAP,Duke Rank-1,Duke mAP,MSMT17 Rank-1,MSMT17 mAP"))
    assert g.n_datasets == 6 and g.direction == "higher" and g.direction_from == "evidence"
    assert metric_of("R@5").higher_is_better is True and metric_of("Rank") is None  # type: ignore[union-attr]


def test_a_second_metric_of_the_same_tasks_that_names_no_direction_is_unsure() -> None:
    """Continual learning: ``<task> Acc`` (higher) beside ``<task> Forgetting`` (lower); a second metric whose word
    says nothing does not take the first one's direction."""
    header = "Method,Split CIFAR-100 Acc,Split CIFAR-100 {w},Split Tiny Acc,Split Tiny {w},Split mini Acc,Split mini {w}"
    known = read("cl.csv", _table(header.format(w="Forgetting")))
    assert known.direction == "higher" and not known.unsure
    assert set(known.lower_is_better_datasets) == {"Split CIFAR-100 Forgetting", "Split Tiny Forgetting",
                                                  "Split mini Forgetting"}
    unknown = read("cl.csv", _table(header.format(w="Plasticity")))
    assert unknown.direction == "unsure"
    assert any("another metric ('Plasticity')" in u for u in unknown.unsure)


def test_counts_named_n_something_and_links_and_flags_are_never_scores_or_names() -> None:
    """AlpacaEval's ``n_wins``, ``n_draws``, ``n_total`` are counts; SWE-bench's ``site`` (links) and ``os_model``
    (true/false) name no models."""
    rows = "".join(f"m{i},{40 + i}.5,{400 + i},{i},805,{50 + i}.2,{55 - i}.1\n" for i in range(6))
    g = read("alpaca.csv", "model,win_rate,n_wins,n_draws,n_total,bench_a,bench_b\n" + rows)
    why = {s.column: s.reason for s in g.set_aside}
    assert all("a count" in why[c] for c in ("n_wins", "n_draws", "n_total"))
    recs = "".join(f"{b},agent-{i},{30 + i + 5 * j},https://example.org/{b}/{i},{'true' if i % 2 else 'false'}\n"
                   for j, b in enumerate(["Verified", "Lite", "Full"]) for i in range(5))
    swe = read("swe.csv", "leaderboard,name,resolved,site,os_model\n" + recs)
    assert swe.model_column not in ("site", "os_model")


def test_a_cell_the_load_refuses_is_said_by_the_guess_first() -> None:
    """A video table's ``Frames`` holds ``16×8`` once among numbers: the reading says so (the load refuses it)."""
    from subsetsel_core.benchmark import load_scores

    text = ("Method,Frames,K400 Top-1,K400 Top-5,SSv2 Top-1\nI3D,32,72.1,90.3,50.1\nSlowFast,16×8,79.8,93.9,61.2\n"
            "X3D,16,79.1,93.9,60.0\nTimeSformer,96,80.7,94.7,62.4\nMViT,32,81.2,95.1,68.7\n")
    g = read("video.csv", text)
    assert any(u.startswith("cells: 'Frames' holds cells that are not numbers (line 3: '16×8')") for u in g.unsure)
    with pytest.raises(InputError, match="'Frames' has values that are not numbers in rows 3"):
        load_scores(text.encode(), label="video.csv", layout="models-as-rows", model_column="Method",
                    higher_is_better=True)
    assert read("mot.csv", _table("Tracker,HOTA,MOTA,IDF1")).model_column == "Tracker"


def test_an_averages_arrow_adds_nothing_when_every_column_says_its_direction() -> None:
    """OOD detection: ``<set> FPR95↓`` and ``<set> AUROC↑`` per set, with ``Average FPR95↓`` and ``Average AUROC↑``
    set aside: each column's arrow decides, the averages' arrows are no conflict."""
    sets = ["SVHN", "LSUN", "iSUN", "Texture"]
    header = "Method," + ",".join(f"{s} FPR95↓,{s} AUROC↑" for s in sets) + ",Average FPR95↓,Average AUROC↑"
    rng = np.random.default_rng(3)
    rows = []
    for i in range(8):
        fpr, auc = rng.uniform(10, 80, 4), rng.uniform(60, 99, 4)
        cells = [f"{x:.2f}" for pair in zip(fpr, auc, strict=True) for x in pair]
        rows.append(",".join([f"m{i}", *cells, f"{fpr.mean():.2f}", f"{auc.mean():.2f}"]))
    g = read("ood.csv", header + "\n" + "\n".join(rows) + "\n")
    assert g.direction == "higher" and not any(u.startswith("direction") for u in g.unsure)
    assert set(g.lower_is_better_datasets) == {f"{s} FPR95↓" for s in sets}


def test_rows_named_by_two_columns_with_methods_as_columns_may_be_wide() -> None:
    """A calibration table (``Dataset, Model`` then one ECE column per calibration method, one row per pair): the
    long reading is in doubt on its layout too, and the file name's ``ece`` says lower is better."""
    methods = ["Uncalibrated", "Hist. Binning", "Isotonic", "Temp. Scaling"]
    rows = "".join(f"{d},net-{j}," + ",".join(f"{(i + 1) * (j + 2) * 0.7:.2f}%" for i in range(len(methods))) + "\n"
                   for d in ("Birds", "Cars", "CIFAR-10", "ImageNet") for j in range(3))
    g = read("calibration_ece.csv", "Dataset,Model," + ",".join(methods) + "\n" + rows)
    assert g.layout == "long" and any(u.startswith("layout: each ('Dataset', 'Model') pair has one row") for u in g.unsure)
    assert g.direction == "lower"


def test_numbers_with_an_unsettled_comma_are_set_aside_aloud_and_the_tables_points_or_two_separators_settle_it(
        ) -> None:
    """MOTChallenge writes counts as ``"22,521"``: next to decimals written with a point they are thousands, as the
    load reads them; in a table of whole numbers only, 22521 or 22.521 is not settled: set aside, said."""
    rows = "".join(f'T{i},{60 + i}.1,{75 + i}.5,"{20 + i},{100 + i}","{80 + i},0{10 + i}"\n' for i in range(6))
    g = read("mot.csv", "Tracker,HOTA,MOTA,FP,FN\n" + rows)
    assert {"FP", "FN"} <= set(g.datasets) and any("commas read as thousands separators" in c for c in g.cells_read)
    whole = "".join(f'T{i},{60 + i},"{20 + i},{100 + i}","{80 + i},0{10 + i}","1{i},200"\n' for i in range(6))
    w = read("counts.csv", "Tracker,IDs,FP,FN,Frag\n" + whole)
    assert {"FP", "FN"} <= {s.column for s in w.set_aside}
    assert any(u.startswith("set_aside: 'FP' was set aside as text, but its cells are numbers") for u in w.unsure)
    from subsetsel_core.io.numeric_cells import parse_numbers

    num, bad, _ = parse_numbers(pd.Series(["22,521", "1,086,037", "912"]))
    assert num.tolist() == [22521.0, 1086037.0, 912.0] and not bad.any()


def test_words_of_an_aggregate_inside_a_tasks_or_a_metrics_name_name_no_aggregate() -> None:
    """VBench's ``overall consistency`` is a dimension; ``Average Precision`` and RL's ``Average Return`` are metrics;
    ``Overall w/ Style Control`` and ``Total Score`` are aggregates; a cost is never a task."""
    from subsetsel_core.io.guess.header_words import names_average

    assert not any(names_average(h) for h in ("overall consistency", "Average Precision", "Mean Reciprocal Rank",
                                              "HalfCheetah Average Return", "mAP"))
    assert all(names_average(h) for h in ("Average", "Avg.", "Overall", "Overall (%)", "Total Score", "Overall Acc",
                                          "Overall w/ Style Control", "Reasoning Average", "Mean win rate"))
    dims = ["subject consistency", "motion smoothness", "dynamic degree", "aesthetic quality", "overall consistency"]
    g = read("vbench.csv", _table("Model Name," + ",".join(dims) + ",Total Cost ($)", rows=8))
    assert "overall consistency" in g.datasets and "Total Cost ($)" not in g.datasets


def test_metric_words_of_other_fields_after_a_datasets_name_decide() -> None:
    """``Vox1-O EER``, ``SVHN FPR95``, ``ImageNet-C mCE`` lower; ``MOT17 HOTA``, ``ImageNet Top-1``, ``FB15k Hits@10``
    higher; ``mIoU (MS)`` is multi-scale, no milliseconds."""
    lower = ["Vox1-O EER", "SVHN FPR95", "ImageNet-C mCE", "Vox1 minDCF", "CASP15 RMSD (Å)"]
    higher = ["MOT17 HOTA", "ImageNet Top-1", "FB15k Hits@10", "HumanEval Pass@1", "ADE20K mIoU (MS)", "BLEU (MS)"]
    assert all(metric_of(h).higher_is_better is False for h in lower)  # type: ignore[union-attr]
    assert all(metric_of(h).higher_is_better is True for h in higher)  # type: ignore[union-attr]
    assert metric_of("Latency (ms)").higher_is_better is False  # type: ignore[union-attr]


def test_tasks_named_like_counts_and_an_arrow_on_an_average_and_name_columns() -> None:
    """reasoning-gym's ``count_bits``, ``n_queens`` are tasks; ``Average WER ⬇️`` says lower; a column of commit
    hashes names no model, and among columns unique per row the one shaped like model names is taken."""
    g = read("gym.csv", _table("model,count_bits,count_primes,n_queens,basic_arithmetic,n_shot"))
    assert {"count_bits", "count_primes", "n_queens"} <= set(g.datasets)
    rng = np.random.default_rng(5)
    rows = []
    for i in range(6):
        wer = rng.uniform(2, 20, 4)
        rows.append(",".join([f"org/asr-{i}", f"{wer.mean():.2f}", *[f"{x:.2f}" for x in wer]]))
    rows.sort(key=lambda r: float(r.split(",")[1]))
    asr = read("asr.csv", "model,Average WER ⬇️,ami,earnings22,gigaspeech,librispeech\n" + "\n".join(rows) + "\n")
    assert asr.direction == "lower" and not any(u.startswith("direction") for u in asr.unsure)
    sha = "".join(f"🟢,{'abcdef0123'[i]}{i}f3a9c1d2e4b5a6978,org/model-{i},{0.3 + i / 20:.2f},{0.5 - i / 30:.2f},"
                  f"{0.4 + i / 25:.2f}\n" for i in range(6))
    llm = read("llm.csv", "T,Model sha,fullname,IFEval,BBH,GPQA\n" + sha)
    assert llm.model_column == "fullname"
