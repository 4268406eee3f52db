"""Runs of one model as the tools name them: lighteval's files carry no date, so the time in the file's name orders
them; squadv2's f1 is on 0–100; Every Eval Ever's ``<board>.overall`` is an aggregate."""

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
