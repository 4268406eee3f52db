"""Result folders read as their tools define them: MTEB splits and subsets the same for every
model (mteb's metadata when installed, else the common ones), one revision per model; old
lm-eval files with lower-is-better and bias metrics; Every Eval Ever aggregates set aside;
``inspect`` and the result cache.

Fixtures (written for these tests in the shapes of embeddings-benchmark/results, the
published Pythia evaluations of EleutherAI/pythia ``evals/pythia-v1`` and HELM records of
Every Eval Ever): ``tests/fixtures/results/{mteb_subsets,lm_eval_old,eee_helm}``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.io import mteb_tasks, result_cache
from subsetsel_core.io.result_folders import describe_results, read_results

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "results"
MTEB, OLD, HELM = FIXTURES / "mteb_subsets", FIXTURES / "lm_eval_old", FIXTURES / "eee_helm"
STS22_SUBSETS = ("en", "de", "es", "pl", "tr", "ar", "ru", "zh", "fr", "de-en", "es-en", "it", "pl-en", "zh-en",
                 "es-it", "de-fr", "de-pl", "fr-pl")


def _wide(t):  # type: ignore[no-untyped-def]
    return t.frame.pivot(index="dataset", columns="model", values="score")


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")


def test_mteb_without_the_package_uses_the_subsets_most_models_have(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    t = read_results(MTEB, label="mteb")
    wide = _wide(t)
    # STS22: two models have German only, two have 18 pairs (no majority): every model is scored on German
    assert t.readings["STS22"]["subsets"] == ["de"] and t.readings["STS22"]["splits"] == ["test"]
    assert wide.loc["STS22", "beta/multi-large"] == pytest.approx(0.60)  # its de score, not the 18-pair mean
    assert wide.loc["STS22", "acme/de-small"] == pytest.approx(0.80)
    assert any(w.startswith("STS22: scored on test/de for every model") and "17 in all" in w for w in t.warnings)
    assert t.readings["STS22"].get("models_with_a_gap") is None
    # SciFact: the train/validation splits some files add never enter the score
    assert t.readings["SciFact"]["splits"] == ["test"]
    assert wide.loc["SciFact", "beta/multi-xl"] == pytest.approx(0.75)
    assert any(w.startswith("SciFact:") and "train/default" in w and "validation/default" in w for w in t.warnings)
    # two revisions of beta/multi-xl: the one with more tasks, never a mix
    assert wide.loc["SciFact", "beta/multi-xl"] != pytest.approx(0.10)
    assert any("beta/multi-xl: results for 2 revisions; used '4444" in w and "'external'" in w for w in t.warnings)
    rows = describe_results(t)
    sts = next(r for r in rows if r.get("task") == "STS22")
    assert sts["subsets_from"] == "the subsets most models have" and sts["direction_from"] == "format"
    aside = [r for r in rows if r["kind"] == "set_aside"]
    assert any(r["what"].endswith("external/SciFact.json") and "another revision" in r["reason"] for r in aside)
    assert any(r["what"].startswith("STS22: 17 split/subset(s)") for r in aside)


def test_mteb_without_the_package_a_model_lacking_subsets_most_models_have_has_a_gap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """As mteb's leaderboard does (``TaskResult.validate_and_filter_scores`` fills a missing
    declared subset with NaN, so the task's mean is NaN): three models with 18 STS22 pairs and
    two with German only — the task is scored on the 18 pairs, the German-only models have a
    gap on it (named), and no model's score is a mean over other subsets than another's."""
    import shutil

    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    shutil.copytree(MTEB, tmp_path / "m")
    shutil.rmtree(tmp_path / "m" / "results" / "beta__multi-xl" / "external")
    src = tmp_path / "m" / "results" / "beta__multi-large"
    third = tmp_path / "m" / "results" / "gamma__multi-base"
    shutil.copytree(src, third)
    rev = next(third.iterdir())
    meta = json.loads((rev / "model_meta.json").read_text())
    (rev / "model_meta.json").write_text(json.dumps({**meta, "name": "gamma/multi-base"}))
    t = read_results(tmp_path / "m", label="mteb")
    wide = _wide(t)
    assert t.readings["STS22"]["subsets"] == sorted(STS22_SUBSETS)
    assert t.readings["STS22"]["models_with_a_gap"] == ["acme/de-base", "acme/de-small"]
    assert pd_isna(wide.loc["STS22", "acme/de-small"]) and pd_isna(wide.loc["STS22", "acme/de-base"])
    assert wide.loc["STS22", "beta/multi-large"] == pytest.approx((0.60 + 17 * 0.70) / 18)
    assert wide.loc["STS22", "gamma/multi-base"] == wide.loc["STS22", "beta/multi-large"]
    assert any(w.startswith("STS22: 2 of the 5 models lack subsets most models have") and "acme/de-small" in w
               for w in t.warnings)
    row = next(r for r in describe_results(t) if r.get("task") == "STS22")
    assert row["models_with_a_gap"] == ["acme/de-base", "acme/de-small"] and row["models"] == 3
    # the other tasks are untouched: every model has a score on them
    assert wide.loc["Banking77Classification"].notna().all()


def test_mteb_with_task_metadata_uses_the_declared_splits_and_subsets(monkeypatch: pytest.MonkeyPatch):
    declared = {"STS22": mteb_tasks.Declared(("test",), STS22_SUBSETS, "cosine_spearman"),
                "SciFact": mteb_tasks.Declared(("test",), ("default",), "ndcg_at_10")}
    monkeypatch.setattr(mteb_tasks, "declared", declared.get)
    t = read_results(MTEB, label="mteb")
    wide = _wide(t)
    assert t.readings["STS22"]["subsets"] == sorted(STS22_SUBSETS)
    assert t.readings["STS22"]["subsets_from"] == "mteb task metadata"
    # the German-only models lack 17 declared subsets: a gap (mteb scores them NaN), never a German-only mean
    assert wide["acme/de-small"].isna().sum() == 1 and pd_isna(wide.loc["STS22", "acme/de-base"])
    assert wide.loc["STS22", "beta/multi-large"] == pytest.approx((0.60 + 17 * 0.70) / 18)
    assert any("STS22: 2 model(s) lack subsets mteb declares" in w for w in t.warnings)
    assert t.readings["SciFact"]["splits"] == ["test"] and wide.loc["SciFact", "beta/multi-large"] == pytest.approx(0.70)
    # a task mteb does not know falls back on the common subsets
    assert t.readings["Banking77Classification"]["subsets_from"] == "the subsets most models have"


def pd_isna(x: object) -> bool:
    return x != x


def test_old_lm_eval_files_perplexity_is_lower_is_better_and_bias_is_set_aside():
    t = read_results(OLD, label="pythia")
    assert t.format == "lm-eval"
    assert t.metrics["lambada_openai"] == "ppl" and not t.task_higher("lambada_openai")
    assert t.direction_from["lambada_openai"] == "metric name"
    assert not t.task_higher("wikitext") and t.metrics["wikitext"] == "word_perplexity"
    # the 70M model (ppl 142) is last on lambada, the 410M model (ppl 10.8) first
    lam = _wide(t).loc["lambada_openai"].sort_values(ascending=False)
    assert list(lam.index) == ["EleutherAI/pythia-v1.1-410m", "EleutherAI/pythia-v1.1-160m",
                               "EleutherAI/pythia-v1.1-70m"]
    # crows_pairs is a bias score: set aside with its reason, unless its metric is chosen
    assert "crows_pairs_english" not in t.metrics
    assert any(a == "crows_pairs_english" and "bias score" in r for a, r in t.set_aside)
    assert any("crows_pairs_english" in w and "undecided" in w for w in t.warnings)
    chosen = read_results(OLD, metric="crows_pairs_english=pct_stereotype", label="pythia")
    assert chosen.metrics["crows_pairs_english"] == "pct_stereotype"
    assert chosen.direction_from["crows_pairs_english"] == "chosen bias metric"
    assert not chosen.task_higher("crows_pairs_english")


def test_lm_eval_04_declared_direction_wins_over_the_name(tmp_path: Path):
    for name, x in (("org/a", 2.0), ("org/b", 3.0)):
        (tmp_path / name.replace("/", "__")).mkdir()
        (tmp_path / name.replace("/", "__") / "results_2026-01-01.json").write_text(json.dumps({
            "results": {"t": {"alias": "t", "odd_loss,none": x}, "u": {"acc,none": x / 4}},
            "higher_is_better": {"t": {"odd_loss": True}, "u": {"acc": True}}, "versions": {"t": 1, "u": 1},
            "config": {"model": "hf", "model_args": f"pretrained={name}"}, "date": 1.0}))
    t = read_results(tmp_path, label="x")
    assert t.task_higher("t") and t.direction_from["t"] == "file"


def test_eee_derived_aggregates_are_set_aside():
    t = read_results(HELM, label="helm")
    assert sorted(t.metrics) == ["GSM8K", "MATH", "NarrativeQA", "WMT 2014"]
    assert {a for a, _ in t.set_aside} >= {"Mean win rate", "MMLU All Subjects"}
    assert any("derived evaluation(s)" in w and "Mean win rate" in w for w in t.warnings)


def test_inspect_prints_the_reading_of_a_results_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    out = tmp_path / "inspect.json"
    assert main(["inspect", str(MTEB), "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["format"] == "mteb" and {t["task"] for t in got["tasks"]} == {"STS22", "SciFact",
                                                                            "Banking77Classification"}
    sts = next(t for t in got["tasks"] if t["task"] == "STS22")
    assert sts["subsets"] == ["de"] and sts["direction"] == "higher" and sts["direction_from"] == "format"
    assert any("another revision" in a["reason"] for a in got["set_aside"])
    assert "warning: STS22: scored on test/de" in capsys.readouterr().err


def test_commands_print_what_changed_the_benchmark(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["select", "--scores", str(OLD), "--k", "2", "--strategy", "random", "--seed", "1",
                 "--out", str(tmp_path / "s.csv")]) == 0
    err = capsys.readouterr().err
    assert "warning: set aside 1 task(s) whose direction is undecided: crows_pairs_english" in err
    assert "warning: 2 task(s) have a lower-is-better metric (lambada_openai, wikitext)" in err
    assert err.count("lower-is-better metric (lambada_openai") == 1  # each warning once


def test_the_second_read_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("SUBSETSEL_NO_CACHE")
    monkeypatch.setenv("SUBSETSEL_CACHE_DIR", str(tmp_path / "cache"))
    first = read_results(OLD, label="pythia")
    calls = []
    import subsetsel_core.io.result_folders as rf

    real = rf.parse_files
    monkeypatch.setattr(rf, "parse_files", lambda *a, **k: calls.append(1) or real(*a, **k))
    second = read_results(OLD, label="pythia")
    assert not calls  # nothing parsed
    assert second.frame.equals(first.frame) and second.metrics == first.metrics
    assert second.warnings == first.warnings and second.set_aside == first.set_aside
    assert second.negated == first.negated and second.direction_from == first.direction_from
    # another option, or changed bytes, is another key
    read_results(OLD, metric="acc", label="pythia")
    assert calls
    assert len(list((tmp_path / "cache").glob("*.results.json"))) == 2
    assert result_cache.load("0" * 64, type(first)) is None


def test_mteb_files_before_1_11_without_main_score_take_it_from_the_other_files(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch):
    """A file of mteb 1.2 (``mteb_dataset_name``, the split at the top, no ``main_score``)
    next to current files of the same task: its main score is the metric the current files'
    main_score is (ndcg_at_10 for SciFact), not its first metric."""
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    old = {"dataset_revision": "0228b52c", "mteb_dataset_name": "SciFact", "mteb_version": "1.2.0",
           "test": {"evaluation_time": 34.6, "map_at_1": 0.58, "ndcg_at_10": 0.75, "ndcg_at_1": 0.61}}
    (tmp_path / "org__old" / "no_revision_available").mkdir(parents=True)
    (tmp_path / "org__old" / "no_revision_available" / "SciFact.json").write_text(json.dumps(old))
    for m, x in (("org__a", 0.70), ("org__b", 0.72)):
        (tmp_path / m / "rev").mkdir(parents=True)
        (tmp_path / m / "rev" / "SciFact.json").write_text(json.dumps({
            "task_name": "SciFact", "mteb_version": "1.20.0", "scores": {"test": [
                {"hf_subset": "default", "languages": ["eng-Latn"], "map_at_1": 0.5, "ndcg_at_10": x,
                 "main_score": x}]}}))
    t = read_results(tmp_path, label="mteb")
    assert t.metrics["SciFact"] == "main_score"
    assert _wide(t).loc["SciFact", "org/old"] == pytest.approx(0.75)
    assert any("layout of mteb before 1.11" in n for n in t.notes)


def test_table_rows_give_the_scores_as_read_with_splits_and_subsets(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    rows = read_results(MTEB, label="mteb").table_rows()
    assert list(rows.columns) == ["model", "dataset", "fold", "score", "direction", "metric", "splits", "subsets"]
    sts = rows[rows["dataset"] == "STS22"]
    assert set(sts["subsets"]) == {"de"} and set(sts["splits"]) == {"test"}
    old = read_results(OLD, label="pythia").table_rows()
    lam = old[old["dataset"] == "lambada_openai"].set_index("model")["score"]
    assert lam["EleutherAI/pythia-v1.1-70m"] == pytest.approx(142.4)  # as in the file, not negated
    assert set(old.loc[old["dataset"] == "lambada_openai", "direction"]) == {"lower"}


def test_mteb_task_metadata_through_the_mteb_package(monkeypatch: pytest.MonkeyPatch):
    """``declared`` asks the installed mteb (its public ``get_task``): here a stand-in module
    with mteb's attributes, as ``AbsTask`` has them."""
    import importlib.machinery
    import sys
    import types

    class Task:
        eval_splits = ["test"]
        hf_subsets = list(STS22_SUBSETS)
        metadata = types.SimpleNamespace(main_score="cosine_spearman")

    def get_task(name: str) -> Task:
        if name != "STS22":
            raise KeyError(name)
        return Task()

    fake = types.ModuleType("mteb")
    fake.__spec__ = importlib.machinery.ModuleSpec("mteb", None)
    fake.get_task = get_task  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mteb", fake)
    mteb_tasks.mteb_version.cache_clear()
    mteb_tasks.declared.cache_clear()
    try:
        assert mteb_tasks.mteb_version() == "unknown"
        got = mteb_tasks.declared("STS22")
        assert got == mteb_tasks.Declared(("test",), STS22_SUBSETS, "cosine_spearman")
        assert mteb_tasks.declared("NoSuchTask") is None
        t = read_results(MTEB, label="mteb")
        assert t.readings["STS22"]["subsets_from"] == "mteb task metadata"
        assert t.readings["SciFact"]["subsets_from"] == "the subsets most models have"
    finally:
        mteb_tasks.mteb_version.cache_clear()
        mteb_tasks.declared.cache_clear()


def test_a_metric_name_that_says_nothing_is_an_assumption_stated_as_one(tmp_path: Path):
    for name, x in (("org/a", 2.0), ("org/b", 3.0), ("org/c", 1.0)):
        folder = tmp_path / name.replace("/", "__")
        folder.mkdir()
        (folder / "r.json").write_text(json.dumps({
            "results": {"t1": {"score": x}, "t2": {"acc": x / 4}, "t3": {"acc": x / 5}}, "versions": {},
            "config": {"model_args": f"pretrained={name}"}}))
    t = read_results(tmp_path, label="x")
    assert t.direction_from["t1"] == "assumed" and t.task_higher("t1")
    row = next(r for r in describe_results(t) if r.get("task") == "t1")
    assert row["direction_words"].startswith("assumed")
    assert any(w.startswith("assumed higher is better for 1 task(s)") and "t1" in w for w in t.warnings)


def _v2(root: Path, model: str, task: str, scores: dict[str, list[dict[str, object]]]) -> None:
    folder = root / model.replace("/", "__") / "rev1"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{task}.json").write_text(json.dumps({"task_name": task, "mteb_version": "1.18.0",
                                                     "dataset_revision": "x", "scores": scores}))


def test_mteb_without_the_package_takes_the_split_every_model_has_over_a_test_some_add(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MSMARCO: every file has ``dev`` (its declared split); four of six add ``test`` (TREC-DL19): dev it is."""
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    for i in range(6):
        splits = {"dev": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.4 + i / 100}]}
        if i < 4:
            splits["test"] = [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.7 - i / 50}]
        _v2(tmp_path, f"org/m{i}", "MSMARCO", splits)
        _v2(tmp_path, f"org/m{i}", "SciFact", {"test": [{"hf_subset": "default", "languages": ["eng-Latn"],
                                                          "main_score": 0.6 + i / 100}]})
    t = read_results(tmp_path, label="r")
    assert t.readings["MSMARCO"]["splits"] == ["dev"] and t.readings["SciFact"]["splits"] == ["test"]
    assert _wide(t).loc["MSMARCO", "org/m5"] == pytest.approx(0.45)


def test_an_mteb_main_score_written_as_text_is_refused_by_name(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mteb_tasks, "declared", lambda task: None)
    from subsetsel_core.errors import InputError

    for i, value in enumerate([0.5, 0.6, "0.46"]):
        _v2(tmp_path, f"org/m{i}", "TwentyNewsgroupsClustering",
            {"test": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": value, "v_measure": 0.5}]})
    with pytest.raises(InputError, match=r"'scores.test\[0\].main_score' is text \('0.46'\), not a score"):
        read_results(tmp_path, label="r")


def test_a_folder_of_mixed_formats_is_read_by_the_one_named_and_a_results_folder_is_no_benchmark_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``inspect`` takes ``--scores-format`` as the other commands do; ``--benchmark`` on a results folder points
    at ``--scores``."""
    for i in range(3):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "results.json").write_text(json.dumps({
            "results": {"arc_easy": {"acc,none": 0.5 + i / 10}, "piqa": {"acc,none": 0.6}},
            "config": {"model_args": f"pretrained=org/m{i}"}, "versions": {}}))
    shutil.copy(next(HELM.rglob("*.json")), tmp_path / "eee.json")
    assert main(["inspect", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "several formats" in err and "[--scores-format FORMAT (with --skip-unreadable)]" in err
    out = tmp_path / "r.json"
    assert main(["inspect", str(tmp_path), "--scores-format", "lm-eval", "--skip-unreadable", "--out", str(out)]) == 0
    assert {t["task"] for t in json.loads(out.read_text())["tasks"]} == {"arc_easy", "piqa"}
    (tmp_path / "eee.json").unlink()
    out.unlink()
    assert main(["select", "--benchmark", str(tmp_path), "--k", "1"]) == 2
    assert f"holds lm-evaluation-harness result files, not a benchmark folder with a manifest.json. Give it as the " \
           f"scores: --scores {tmp_path}" in capsys.readouterr().err
