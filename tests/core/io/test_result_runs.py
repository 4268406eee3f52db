"""Runs as the tools write them: lighteval's files carry no date, so the time in the file's name orders them;
squadv2's f1 is on 0–100; Every Eval Ever's ``<board>.overall`` is an aggregate; runs with other few-shot counts
are said not comparable; MTEB files before 1.11 take their task type's main score, said, from ``<model>/`` folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.eee_results import is_aggregate
from subsetsel_core.io.lm_eval_runs import name_time
from subsetsel_core.io.result_folders import read_results

RESULTS = Path(__file__).resolve().parents[2] / "fixtures" / "results"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")


def test_the_time_in_a_results_file_name() -> None:
    assert name_time("results_2024-01-06T09-45-44.755529.json") == pytest.approx(1704534344.755529)
    assert name_time("org/m/results_2023-12-02T09:45:44.json") == pytest.approx(1701510344.0)
    assert name_time("results.json") is None and name_time("results_2024-13-40T99-00-00.json") is None
    # an hour (or a minute, a day) written without its leading zero, as some scripts write them
    assert name_time("results_2024-1-6T9-45-44.json") == name_time("results_2024-01-06T09-45-44.json")
    assert name_time("results_2024-01-06T9-45-44.json") < name_time("results_2024-01-06T10-00-00.json")


def test_a_later_lighteval_run_without_a_date_wins_by_its_name(tmp_path: Path) -> None:
    shutil.copytree(RESULTS / "lighteval", tmp_path / "r")
    model = tmp_path / "r" / "lab" / "model-c"
    first = next(model.glob("results_*.json"))
    later = json.loads(first.read_text())
    later["results"]["gsm8k|5"] = {**later["results"]["gsm8k|5"], "extractive_match": 0.987}
    (model / "results_2026-02-01T08-00-00.000000.json").write_text(json.dumps({**later, "results": {
        "gsm8k|5": later["results"]["gsm8k|5"]}}))
    table = read_results(tmp_path / "r")
    row = table.frame[(table.frame["model"] == "lab/model-c") & (table.frame["dataset"] == "gsm8k|5")]
    assert list(row["score"]) == [0.987]
    assert any("the time in its name" in w and "2026-02-01" in w for w in table.warnings)


def _lm(model: str, results: dict[str, dict[str, float]]) -> str:
    return json.dumps({"results": results, "config": {"model_args": f"pretrained={model}"},
                       "versions": {t: 1 for t in results}, "n-shot": {t: 0 for t in results}, "date": 1.0})


def test_squadv2_f1_on_its_own_scale_is_a_score(tmp_path: Path) -> None:
    for i, (f1, acc) in enumerate([(42.7, 0.4), (55.0, 0.5), (61.2, 0.6)]):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "results.json").write_text(_lm(f"org/m{i}", {
            "squadv2": {"exact,none": f1 - 3, "f1,none": f1}, "arc_easy": {"acc,none": acc}}))
    table = read_results(tmp_path, metric="squadv2=f1,none")
    squad = table.frame[table.frame["dataset"] == "squadv2"].sort_values("model")
    assert list(squad["score"]) == [42.7, 55.0, 61.2]


def test_a_board_overall_is_an_aggregate() -> None:
    assert is_aggregate("vectara-hallucination-leaderboard.overall") and is_aggregate("HELM total")
    assert not is_aggregate("vectara-hallucination-leaderboard.category.news")


def test_runs_with_other_shots_or_a_limit_are_said_not_comparable(tmp_path: Path) -> None:
    def run(model: str, shots: int, limit: int | None = None) -> str:
        data = json.loads(_lm(model, {"hellaswag": {"acc,none": 0.5 + shots / 100}, "arc_easy": {"acc,none": 0.6}}))
        data["n-shot"]["hellaswag"] = shots
        data["config"]["limit"] = limit
        return json.dumps(data)

    for i, (shots, limit) in enumerate([(0, None), (0, None), (10, None)]):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "results.json").write_text(run(f"org/m{i}", shots, limit))
    table = read_results(tmp_path)
    said = [w for w in table.warnings if "run differently" in w]
    assert len(said) == 1 and "hellaswag" in said[0] and "arc_easy" not in said[0]
    assert "10-shot for org/m2; 0-shot for org/m0, org/m1" in said[0]
    (tmp_path / "m2" / "results.json").write_text(run("org/m2", 0, 100))
    said = [w for w in read_results(tmp_path).warnings if "run differently" in w]
    assert "0-shot, limit 100 for org/m2" in said[0] and "arc_easy" in said[0]
    (tmp_path / "m2" / "results.json").write_text(run("org/m2", 0))
    assert not [w for w in read_results(tmp_path).warnings if "run differently" in w]


def test_old_lm_eval_files_name_their_shots_in_config(tmp_path: Path) -> None:
    for i, shots in enumerate([0, 0, 5]):
        (tmp_path / f"m{i}.json").write_text(json.dumps({
            "results": {"piqa": {"acc": 0.6 + i / 100, "acc_stderr": 0.01}}, "versions": {"piqa": 0},
            "config": {"model": "hf-causal", "model_args": f"pretrained=org/m{i}", "num_fewshot": shots}}))
    said = [w for w in read_results(tmp_path).warnings if "run differently" in w]
    assert "piqa" in said[0] and "5-shot for org/m2" in said[0]


def _legacy(folder: Path, model: str, task: str, test: dict[str, object]) -> None:
    (folder / model).mkdir(parents=True, exist_ok=True)
    (folder / model / f"{task}.json").write_text(json.dumps({"mteb_version": "1.1.1", "mteb_dataset_name": task,
                                                             "test": test}))


def test_mteb_files_before_1_11_take_the_main_score_of_their_task_type_said_in_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subsetsel_core.io import mteb_tasks

    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)  # as without the mteb package
    for i, model in enumerate(["a", "b", "c"]):
        _legacy(tmp_path / "results", model, "STS22", {"en": {"cos_sim": {"pearson": 0.9 - i / 10,
                                                                           "spearman": 0.5 + i / 10}}})
        _legacy(tmp_path / "results", model, "SciFact", {"ndcg_at_1": 0.5 - i / 10, "ndcg_at_10": 0.4 + i / 10,
                                                         "map_at_10": 0.3})
    table = read_results(tmp_path)  # the folder above results/: the models are results/<model>
    assert sorted(set(table.frame["model"])) == ["a", "b", "c"]
    wide = table.frame.pivot(index="dataset", columns="model", values="score")
    assert list(wide.loc["STS22"]) == pytest.approx([0.5, 0.6, 0.7])  # cosine_spearman, not cosine_pearson
    assert list(wide.loc["SciFact"]) == pytest.approx([0.4, 0.5, 0.6])  # ndcg_at_10, not ndcg_at_1
    said = [w for w in table.warnings if "before 1.11 give no main_score" in w]
    assert len(said) == 1 and "'cosine_spearman'" in said[0] and "STS22" in said[0] and "'ndcg_at_10'" in said[0]


@pytest.mark.parametrize(("shots", "said"), [(8.0, "8-shot for org/m2"), ("8", "8-shot for org/m2"),
                                             ({"x": 1}, "n-shot num_fewshot {'x': 1}")])
def test_shots_written_otherwise_are_read_or_said(tmp_path: Path, shots: object, said: str) -> None:
    for i in range(3):
        data = json.loads(_lm(f"org/m{i}", {"gsm8k": {"exact_match,strict-match": 0.3 + i / 10}}))
        data["n-shot"]["gsm8k"] = shots if i == 2 else 5
        (tmp_path / f"m{i}.json").write_text(json.dumps(data))
    warned = [w for w in read_results(tmp_path).warnings if "run differently" in w]
    assert said in warned[0] and "5-shot for org/m0, org/m1" in warned[0]


def test_a_lone_surrogate_in_a_result_file_or_a_table_is_named(tmp_path: Path) -> None:
    from subsetsel_core.errors import InputError
    from subsetsel_core.io.tables import read_table

    (tmp_path / "m.json").write_text(_lm("org/m\\ud800", {"arc": {"acc,none": 0.5}}).replace("\\\\ud800", "\\ud800"))
    with pytest.raises(InputError, match=r"holds \\ud800 at line 1, column \d+: half of a UTF-16 pair"):
        read_results(tmp_path)
    with pytest.raises(InputError, match=r"holds \\udc00 at line 1"):
        read_table(b'[{"model": "a\\udc00", "x": 1}]', label="t.json")


def test_lighteval_tasks_at_two_shot_counts_are_said(tmp_path: Path) -> None:
    shutil.copytree(RESULTS / "lighteval", tmp_path / "r")
    model = tmp_path / "r" / "lab" / "model-c"
    first = next(model.glob("results_*.json"))
    data = json.loads(first.read_text())
    data["results"] = {k.replace("gsm8k|5", "gsm8k|8"): v for k, v in data["results"].items()}
    first.write_text(json.dumps(data))
    said = [w for w in read_results(tmp_path / "r").warnings if "several few-shot counts" in w]
    assert len(said) == 1 and "gsm8k|5, |8" in said[0]


def test_a_model_name_written_as_a_link_and_lightevals_own_title(tmp_path: Path) -> None:
    for i in range(3):
        data = json.loads(_lm(f"org/m{i}", {"arc": {"acc,none": 0.4 + i / 10}}))
        data["model_name"] = f'<a href="https://hf.co/org/m{i}">org/m{i}</a>'
        (tmp_path / f"m{i}.json").write_text(json.dumps(data))
    assert sorted(set(read_results(tmp_path).frame["model"])) == ["org/m0", "org/m1", "org/m2"]
    notes = read_results(RESULTS / "lighteval").notes
    assert any(n.startswith("read 5 lighteval result file(s)") for n in notes), notes


def _eee_record(model: str, results: list[tuple[str, float, dict[str, object]]]) -> dict[str, object]:
    """An Every Eval Ever record (schema 0.3.0) of one model: (evaluation_name, score, metric_config extras)."""
    return {"schema_version": "0.3.0", "model_info": {"id": model, "name": model},
            "retrieved_timestamp": "1770000000.0",
            "evaluation_results": [{"evaluation_name": name, "metric_config": {"lower_is_better": False, **extra},
                                    "score_details": {"score": score}} for name, score, extra in results]}


def test_eee_results_whose_metric_kind_is_no_score_and_described_aggregates_are_set_aside(tmp_path: Path) -> None:
    """BFCL's and Artificial Analysis' adapters write ranks, costs, latencies, speeds and composite indices as
    results (``metric_kind``); RewardBench 2 writes its overall ``Score``, described as the mean of the others."""
    for i, m in enumerate(("org/a", "org/b", "org/c")):
        rec = _eee_record(m, [
            ("board.overall.rank", 1.0 + i, {"metric_kind": "rank", "metric_unit": "position", "lower_is_better": True}),
            ("board.overall.total_cost_usd", 20.0 * i, {"metric_kind": "cost", "metric_unit": "usd"}),
            ("board.overall.latency_mean_s", 1.5 + i, {"metric_kind": "latency", "metric_unit": "seconds"}),
            ("board.overall.overall_accuracy", 60.0 - i, {"metric_kind": "accuracy"}),
            ("board.intelligence_index", 50.0 - i, {"metric_kind": "index"}),
            ("tokens per second", 90.0 + i, {"metric_unit": "tokens_per_second"}),
            ("Score", 0.5 - i / 10, {"evaluation_description": "Overall Score (mean of all metrics)"}),
            *[(f"task{j}", 0.3 + 0.1 * j - i / 20, {"metric_kind": "accuracy"}) for j in range(3)]])
        (tmp_path / f"{m.split('/')[1]}.json").write_text(json.dumps(rec))
    t = read_results(tmp_path, label="eee")
    assert sorted(set(t.frame["dataset"])) == ["task0", "task1", "task2"]
    why = dict(t.set_aside)
    assert "a rank" in why["board.overall.rank"] and "a cost" in why["board.overall.total_cost_usd"]
    assert "a latency" in why["board.overall.latency_mean_s"] and "a throughput" in why["tokens per second"]
    assert all("aggregate" in why[d] for d in ("board.overall.overall_accuracy", "board.intelligence_index", "Score"))
    assert any("no task's score (metric_kind)" in w for w in t.warnings)


def _write_lm(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_revision_main_is_the_model_without_a_revision(tmp_path: Path) -> None:
    for i, args in enumerate(["pretrained=org/m,revision=main", "pretrained=org/m", "pretrained=org/n"]):
        data = json.loads(_lm("x", {f"task{i % 2}": {"acc,none": 0.5 + i / 10}}))
        data["config"]["model_args"] = args
        _write_lm(tmp_path / f"r{i}" / "results.json", data)
    assert sorted(set(read_results(tmp_path).frame["model"])) == ["org/m", "org/n"]


def test_harness_03_and_04_runs_of_one_task_compare_and_the_dated_one_is_named(tmp_path: Path) -> None:
    """0.3 writes ``acc`` and ``ppl``; 0.4 ``acc,none`` and ``perplexity,none``: the same metrics."""
    for m in ("org/a", "org/b"):
        _write_lm(tmp_path / "v03" / m.split("/")[1] / "piqa.json", {
            "results": {"piqa": {"acc": 0.56, "acc_stderr": 0.01}}, "versions": {"piqa": 0},
            "config": {"model": "hf-causal", "model_args": f"pretrained={m}"}})
    _write_lm(tmp_path / "v04" / "org__a" / "results_2024-08-01T10-00-00.json", json.loads(_lm("org/a", {
        "piqa": {"acc,none": 0.80}})))
    with pytest.raises(InputError, match=r"org/a has two results for task piqa .* says no time"):
        read_results(tmp_path)
    (tmp_path / "v03" / "a" / "piqa.json").unlink()
    t = read_results(tmp_path)
    assert t.metrics["piqa"] == "acc,none" and any("0.3's metric keys are read as 0.4's" in n for n in t.notes)


def test_relative_model_paths_are_named_by_their_experiment_folder(tmp_path: Path) -> None:
    """``pretrained=./outputs/final`` in three experiments: the harness writes ``<exp>/.__outputs__final/``."""
    for i, exp in enumerate(["sft-a", "sft-b", "dpo"]):
        data = json.loads(_lm("x", {"arc_easy": {"acc,none": 0.5 + i / 10}, "piqa": {"acc,none": 0.6 - i / 20}}))
        data["model_name"] = "./outputs/final"
        _write_lm(tmp_path / exp / ".__outputs__final" / f"results_2024-09-0{i + 1}T12-00-00.json", data)
    _write_lm(tmp_path / ".git" / "results.json", json.loads(_lm("org/hidden", {"arc_easy": {"acc,none": 0.1}})))
    t = read_results(tmp_path)
    assert sorted(set(t.frame["model"])) == ["dpo/outputs/final", "sft-a/outputs/final", "sft-b/outputs/final"]


def test_lighteval_task_names_with_and_without_the_suite_are_one_task(tmp_path: Path) -> None:
    for i, key in enumerate(["lighteval|gsm8k|5", "lighteval|gsm8k|5", "gsm8k|5", "gsm8k|5"]):
        _write_lm(tmp_path / "lab" / f"m{i}" / "results_2025-01-01T00-00-00.json", {
            "config_general": {"model_name": f"lab/m{i}"}, "results": {key: {"extractive_match": 0.2 + i / 10},
                                                                       "arc|25": {"acc": 0.5}},
            "versions": {}})
    t = read_results(tmp_path)
    assert sorted(set(t.frame["dataset"])) == ["arc|25", "gsm8k|5"]
    assert any("lighteval's suite in some files" in w for w in t.warnings)
    data = json.loads((tmp_path / "lab" / "m3" / "results_2025-01-01T00-00-00.json").read_text())
    data["results"]["gsm8k|5"]["extractive_match"] = 32.3  # a percent among fractions
    _write_lm(tmp_path / "lab" / "m3" / "results_2025-01-01T00-00-00.json", data)
    with pytest.raises(InputError, match="extractive_match' is 32.3, outside 0–1"):
        read_results(tmp_path)


def test_runs_that_all_used_a_limit_are_said(tmp_path: Path) -> None:
    for i in range(3):
        data = json.loads(_lm(f"org/m{i}", {"hellaswag": {"acc,none": 0.5 + i / 10}}))
        data["config"]["limit"] = 10
        _write_lm(tmp_path / f"m{i}" / "results.json", data)
    assert any("run with a limit on their examples (hellaswag)" in w for w in read_results(tmp_path).warnings)


def test_one_models_score_in_percent_among_fractions_is_refused(tmp_path: Path) -> None:
    for i, (m, x) in enumerate([("org/a", 0.13), ("org/b", 0.33), ("org/c", 26.8), ("org/d", 0.5)]):
        (tmp_path / f"{i}.json").write_text(json.dumps(_eee_record(m, [("BBH", x, {}), ("MATH", 0.2 + i / 20, {})])))
    with pytest.raises(InputError, match=r"is 26.8, where 3 of the task's 4 models' scores lie in 0–1 \(BBH\)"):
        read_results(tmp_path)
    for i, x in enumerate([0.82, 0.95, 1.12]):  # bits per byte cross 1 on one scale: no refusal
        (tmp_path / f"{i}.json").write_text(json.dumps(_eee_record(f"org/{i}", [("BBH", x, {}), ("MATH", 0.3, {})])))
    (tmp_path / "3.json").unlink()
    assert len(read_results(tmp_path).frame) == 6


def test_eee_metric_kind_of_the_wrong_type_is_refused_and_a_tasks_own_rank_is_named_apart(tmp_path: Path) -> None:
    bad = _eee_record("org/a", [("MMLU", 0.5, {"metric_kind": ["rank"]}), ("GSM8K", 0.4, {})])
    (tmp_path / "a.json").write_text(json.dumps(bad))
    with pytest.raises(InputError, match=r"metric_config\.metric_kind"):
        read_results(tmp_path)
    for i, m in enumerate(("org/a", "org/b", "org/c")):
        rec = _eee_record(m, [("MMLU", 0.5 + i / 10, {"metric_kind": "accuracy"}),
                              ("MMLU", 1.0 + i, {"metric_kind": "rank", "metric_id": "mmlu.rank"}),
                              ("GSM8K", 0.4 - i / 20, {})])
        (tmp_path / f"{i}.json").write_text(json.dumps(rec))
    (tmp_path / "a.json").unlink()
    t = read_results(tmp_path)
    assert sorted(set(t.frame["dataset"])) == ["GSM8K", "MMLU"]
    assert "MMLU (its rank result)" in dict(t.set_aside) and "MMLU" not in dict(t.set_aside)


def test_a_limit_written_as_text_is_said(tmp_path: Path) -> None:
    for i in range(3):
        data = json.loads(_lm(f"org/m{i}", {"hellaswag": {"acc,none": 0.5 + i / 10}}))
        data["config"]["limit"] = "100"
        _write_lm(tmp_path / f"m{i}" / "results.json", data)
    assert any("run with a limit on their examples" in w for w in read_results(tmp_path).warnings)
