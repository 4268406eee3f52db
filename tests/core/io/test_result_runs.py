"""Runs as the tools write them: lighteval's files carry no date, so the time in the file's name orders them;
squadv2's f1 is on 0–100; Every Eval Ever's ``<board>.overall`` is an aggregate; runs with other few-shot counts
are said not comparable; MTEB files before 1.11 take their task type's main score, said, from ``<model>/`` folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from subsetsel_core.io.eee_results import is_aggregate
from subsetsel_core.io.lm_eval_results import name_time
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
