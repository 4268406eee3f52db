"""Results folders: lm-evaluation-harness, MTEB and Every Eval Ever files → a benchmark.

The fixtures under ``tests/fixtures/results`` are written for these tests (made-up scores in
each format's layout); the error cases build their folders in ``tmp_path``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.result_files import collect_json
from subsetsel_core.io.result_folders import parse_metric_choice, read_results
from subsetsel_core.io.source_kind import is_result_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "results"
LM_EVAL, MTEB, EEE = FIXTURES / "lm_eval", FIXTURES / "mteb", FIXTURES / "eee"


def _pivot(table):  # type: ignore[no-untyped-def]
    return table.frame.pivot(index="dataset", columns="model", values="score")


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, Path(folder.name) / p.relative_to(folder))
    return buf.getvalue()


def _lm_file(model: str, tasks: dict[str, dict[str, float]], **extra: object) -> dict[str, object]:
    return {"results": {t: {"alias": t, **m} for t, m in tasks.items()}, "versions": {t: 1 for t in tasks},
            "higher_is_better": {t: {k.split(",")[0]: True for k in m} for t, m in tasks.items()},
            "config": {"model": "hf", "model_args": f"pretrained={model}"}, **extra}


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- lm-evaluation-harness


def test_lm_eval_folder_reads_models_tasks_metrics_and_directions():
    t = read_results(LM_EVAL, label="lm_eval")
    assert t.format == "lm-eval"
    wide = _pivot(t)
    assert sorted(wide.columns) == ["org/model-a", "org/model-b", "org/model-c", "org/model-d"]
    assert sorted(wide.index) == ["arc_easy", "gsm8k", "hellaswag", "wikitext", "winogrande"]
    # the default: each task's first metric as the harness lists it
    assert t.metrics["arc_easy"] == "acc,none" and t.metrics["gsm8k"] == "exact_match,strict-match"
    assert t.available["arc_easy"] == ("acc,none", "acc_norm,none")
    assert wide.loc["arc_easy", "org/model-a"] == pytest.approx(0.712)
    # wikitext (perplexity, lower is better) is negated; the rest stays as written
    assert t.higher_is_better and t.negated == ("wikitext",)
    assert wide.loc["wikitext", "org/model-a"] == pytest.approx(-11.8)
    # model-d was not run on wikitext: a gap, not an error
    assert wide["org/model-d"].isna().sum() == 1
    text = " ".join(t.notes + t.warnings)
    assert "folder or file name" in text and "negated" in text and "missing" in text


def test_lm_eval_metric_choice_global_and_per_task():
    t = read_results(LM_EVAL, metric="acc_norm", label="lm_eval")
    assert t.metrics["arc_easy"] == "acc_norm,none" and t.metrics["hellaswag"] == "acc_norm,none"
    assert t.metrics["winogrande"] == "acc,none"  # no acc_norm: keeps its default, said so
    assert any("keep their default metric" in n for n in t.notes)
    assert _pivot(t).loc["arc_easy", "org/model-a"] == pytest.approx(0.712 + 0.031)
    t2 = read_results(LM_EVAL, metric="gsm8k=exact_match,flexible-extract; arc_easy=acc_norm", label="x")
    assert t2.metrics["gsm8k"] == "exact_match,flexible-extract" and t2.metrics["arc_easy"] == "acc_norm,none"
    assert t2.metrics["hellaswag"] == "acc,none"
    assert parse_metric_choice("a=b; c") == {"a": "b", "*": "c"}
    with pytest.raises(InputError, match="has no metric 'f1'; its metrics are acc,none, acc_norm,none") as e:
        read_results(LM_EVAL, metric="arc_easy=f1", label="x")
    assert e.value.field == "score_column"
    with pytest.raises(InputError, match="no task 'arc_esay'.*did you mean 'arc_easy'"):
        read_results(LM_EVAL, metric="arc_esay=acc", label="x")


def test_lm_eval_model_names_groups_duplicates_and_mixed_metrics(tmp_path: Path):
    a = {"t1": {"acc,none": 0.5, "acc_stderr,none": 0.1}, "t2": {"acc,none": 0.6}}
    _write(tmp_path / "run" / "a.json", _lm_file("org/a", a, model_name="org/named-a", date=1.0))
    _write(tmp_path / "run" / "a_later.json", _lm_file("org/a", {"t1": {"acc,none": 0.9}}, model_name="org/named-a",
                                                         date=2.0))
    b = _lm_file("x", {"t1": {"acc,none": 0.4}, "t2": {"acc,none": 0.3}})
    b["config"] = {"model": "hf", "model_args": {"peft": "org/adapter-b", "pretrained": "org/base"}}
    _write(tmp_path / "run" / "b.json", b)
    grouped = _lm_file("org/c", {"grp": {"acc,none": 0.45}, "t1": {"acc,none": 0.3}, "t2": {"acc,none": 0.6}},
                       group_subtasks={"grp": ["t1", "t2"]})
    _write(tmp_path / "run" / "c.json", grouped)
    _write(tmp_path / "run" / "notes.json", {"comment": "not a result file"})
    with pytest.raises(InputError, match=r"run/notes.json: is not an lm-evaluation-harness results file.*"
                                         "--skip-unreadable"):
        read_results(tmp_path / "run", "lm-eval", label="run")
    t = read_results(tmp_path / "run", "lm-eval", label="run", skip_unreadable=True)
    wide = _pivot(t)
    assert sorted(wide.columns) == ["org/adapter-b", "org/c", "org/named-a"]  # peft names the run
    assert sorted(wide.index) == ["t1", "t2"]  # the group 'grp' is set aside
    assert wide.loc["t1", "org/named-a"] == pytest.approx(0.9)  # the later run wins
    text = " ".join(t.notes + t.warnings)
    assert "group" in text and "grp" in text and "several files" in text and "skipped 1 unreadable file(s): notes.json" in text
    # one model reports t3 as acc, the other as exact_match: no common metric
    _write(tmp_path / "mixed" / "a.json", _lm_file("org/a", {"t3": {"acc,none": 0.5}}))
    _write(tmp_path / "mixed" / "b.json", _lm_file("org/b", {"t3": {"exact_match,none": 0.2}}))
    with pytest.raises(InputError, match="task 't3' is reported under different metrics") as e:
        read_results(tmp_path / "mixed", label="mixed")
    assert e.value.field == "score_column"
    t = read_results(tmp_path / "mixed", metric="t3=acc", label="mixed")
    assert _pivot(t)["org/b"].isna().all()  # the choice leaves a gap


# --------------------------------------------------------------------------- MTEB


def test_mteb_folder_joins_revisions_and_averages_subsets():
    t = read_results(MTEB, label="mteb")
    assert t.format == "mteb" and t.higher_is_better and not t.negated
    wide = _pivot(t)
    assert sorted(wide.columns) == ["org/embed-base", "org/embed-small", "other/embed-large"]
    assert set(t.metrics.values()) == {"main_score"}
    assert wide.loc["STS22", "org/embed-base"] == pytest.approx((0.684 + 0.561) / 2)  # mean over subsets
    # the known revision beats no_revision_available (whose scores are 0.9 ×)
    assert wide.loc["Banking77Classification", "org/embed-small"] == pytest.approx(0.801)
    assert any("results for 2 revisions; used '1a2b3c4d" in n for n in t.warnings)
    t2 = read_results(MTEB, "mteb", metric="SciFact=map_at_10", label="mteb")
    assert _pivot(t2).loc["SciFact", "org/embed-base"] == pytest.approx(0.652)


def test_mteb_files_of_mteb_before_1_11_are_read(tmp_path: Path):
    for model, x in (("org__m1", 0.5), ("org__m2", 0.7)):
        _write(tmp_path / model / "rev" / "Old.json",
               {"mteb_version": "1.7.39", "mteb_dataset_name": "Old", "test": {"accuracy": x, "main_score": x}})
        _write(tmp_path / model / "rev" / "Multi.json",
               {"mteb_version": "1.7.39", "mteb_dataset_name": "Multi",
                "test": {"en": {"main_score": x}, "de": {"main_score": x + 0.1}}})
    wide = _pivot(read_results(tmp_path, label="old"))
    assert wide.loc["Old", "org/m2"] == pytest.approx(0.7)
    assert wide.loc["Multi", "org/m1"] == pytest.approx(0.55)


# --------------------------------------------------------------------------- Every Eval Ever


def test_eee_records_folder_and_single_file():
    t = read_results(EEE, label="eee")
    assert t.format == "eee"
    wide = _pivot(t)
    assert sorted(wide.columns) == ["acme/chat-13b", "acme/chat-7b", "bravo/lm-70b"]
    assert sorted(wide.index) == ["GSM8K", "HumanEval", "MMLU", "TruthfulQA"]
    assert t.metrics["TruthfulQA"] == "mc1" and t.available["TruthfulQA"] == ("mc1", "mc2")
    t2 = read_results(EEE, metric="TruthfulQA=mc2", label="eee")
    assert _pivot(t2).loc["TruthfulQA", "bravo/lm-70b"] == pytest.approx(0.566)
    one = next(EEE.rglob("*.json"))
    single = read_results(one, label=one.name)
    assert len(single.frame) == 4


def test_eee_lower_is_better_everywhere_sets_the_direction(tmp_path: Path):
    for i, m in enumerate(("a", "b", "c")):
        rec = json.loads(next(EEE.rglob("*.json")).read_text())
        rec["model_info"]["id"] = f"org/{m}"
        for r in rec["evaluation_results"]:
            r["metric_config"]["lower_is_better"] = True
            r["score_details"]["score"] += i / 10
        _write(tmp_path / f"{m}.json", rec)
    t = read_results(tmp_path, label="low")
    assert t.higher_is_better is False and not t.negated


# --------------------------------------------------------------------------- bounded, readable errors


def test_detection_errors(tmp_path: Path):
    with pytest.raises(InputError, match="holds no JSON file"):
        read_results(tmp_path, label="empty")
    _write(tmp_path / "x.json", {"a": 1, "b": 2})
    with pytest.raises(InputError, match="none of its 1 JSON file.*x.json has the keys a, b"):
        read_results(tmp_path, label="other")
    shutil.copy(next(EEE.rglob("*.json")), tmp_path / "eee.json")
    shutil.copy(next(MTEB.rglob("SciFact.json")), tmp_path / "SciFact.json")
    with pytest.raises(InputError, match="several formats"):
        read_results(tmp_path, label="mix")
    with pytest.raises(InputError, match="its JSON files are MTEB results. Name that format"):
        read_results(MTEB, "lm-eval", label="mteb")
    with pytest.raises(InputError, match="unknown results format"):
        read_results(MTEB, "helm", label="mteb")


def test_bad_json_names_the_file_and_line(tmp_path: Path):
    shutil.copytree(LM_EVAL, tmp_path / "lm")
    (tmp_path / "lm" / "org__model-b" / "broken.json").write_text('{"results": {\n  "arc": 0.5,\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"lm/org__model-b/broken\.json: is not valid JSON \(.* line 3") as e:
        read_results(tmp_path / "lm", label="lm")
    assert e.value.field == "scores_file"
    (tmp_path / "lm" / "org__model-b" / "broken.json").write_bytes(b"\xff\xfe\x00{")
    with pytest.raises(InputError, match="not UTF-8"):
        read_results(tmp_path / "lm", label="lm")


def test_size_and_count_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SUBSETSEL_MAX_JSON_MB", "0.001")
    with pytest.raises(InputError, match="over the limit of .* for one result file.*SUBSETSEL_MAX_JSON_MB"):
        read_results(LM_EVAL, label="lm")
    with pytest.raises(InputError, match="SUBSETSEL_MAX_JSON_MB"):
        read_results(_zip(LM_EVAL), label="lm.zip")
    monkeypatch.delenv("SUBSETSEL_MAX_JSON_MB")
    monkeypatch.setenv("SUBSETSEL_MAX_RESULT_FILES", "3")
    with pytest.raises(InputError, match="more than 3 JSON files.*SUBSETSEL_MAX_RESULT_FILES"):
        read_results(MTEB, label="mteb")


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_symlinks_out_of_the_folder_are_not_followed(tmp_path: Path):
    outside = tmp_path / "outside"
    shutil.copytree(LM_EVAL / "org__model-d", outside / "org__model-d")
    root = tmp_path / "lm"
    shutil.copytree(LM_EVAL, root, ignore=shutil.ignore_patterns("org__model-d"))
    (root / "org__model-x").symlink_to(outside / "org__model-d", target_is_directory=True)
    (root / "org__model-a" / "linked.json").symlink_to(outside / "org__model-d" / next(
        p.name for p in (outside / "org__model-d").iterdir()))
    (root / "inside.json").symlink_to(root / "org__model-b" / next(p.name for p in (root / "org__model-b").iterdir()))
    got = collect_json(root, "lm")
    assert all("model-d" not in f.path and "linked" not in f.path for f in got.files)
    assert "inside.json" in {f.path for f in got.files}  # a link inside the folder is read
    assert any("2 symbolic link(s) that lead out of the folder" in n for n in got.notes)
    t = read_results(root, label="lm")
    assert "org/model-d" not in set(t.frame["model"])


def test_mteb_files_without_their_folders_are_refused():
    pairs = [(p.name, p.read_bytes()) for p in sorted(MTEB.rglob("SciFact.json"))]
    with pytest.raises(InputError, match="cannot be told apart.*as a zip"):
        read_results(pairs, label="upload")


def test_zip_archives_and_uploaded_files():
    raw = _zip(MTEB)
    assert is_result_source(raw) and is_result_source(MTEB) and not is_result_source(b"dataset,model\n")
    t = read_results(raw, label="mteb.zip")
    assert sorted(set(t.frame["model"])) == ["org/embed-base", "org/embed-small", "other/embed-large"]
    pairs = [(p.name, p.read_bytes()) for p in sorted(EEE.rglob("*.json"))]
    assert len(read_results(pairs, label="upload").frame) == 12
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("../evil.json", "{}")
        z.writestr("__MACOSX/._x.json", "junk")
    with pytest.raises(InputError, match="holds no JSON file"):
        collect_json(buf.getvalue(), "evil.zip")
    with pytest.raises(InputError, match="not a readable zip"):
        collect_json(b"PK\x03\x04broken", "bad.zip")


# --------------------------------------------------------------------------- load_scores and the CLI


def test_load_scores_reads_results_and_reports_the_metric():
    b = load_scores(LM_EVAL, result_format="auto", missing="drop-models")
    assert (b.n_datasets, b.n_models) == (5, 3) and b.name == "lm_eval" and b.higher_is_better
    facts = dict(b.report.facts)
    assert facts["format"] == "lm-evaluation-harness" and "acc,none (3 datasets)" in facts["metrics"]
    assert any(f.topic == "results" and "negated" in f.message for f in b.report.findings)
    assert load_scores(LM_EVAL, result_format="lm-eval", result_metric="acc_norm",
                       missing="drop-datasets").n_datasets == 4
    with pytest.raises(InputError, match="scores are missing") as e:
        load_scores(LM_EVAL, result_format="auto")
    assert e.value.field == "missing"
    with pytest.raises(InputError, match="is a folder"):
        load_scores(LM_EVAL, result_format="table")


@pytest.mark.parametrize(("folder", "extra", "n_models"), [
    (LM_EVAL, ["--missing", "drop-models"], 3),
    (MTEB, [], 3),
    (EEE, ["--score-column", "TruthfulQA=mc2"], 3),
])
def test_cli_select_on_a_results_folder(folder: Path, extra: list[str], n_models: int, tmp_path: Path):
    out = tmp_path / "sel.json"
    rc = main(["select", "--scores", str(folder), "--strategy", "random", "--k", "2", "--format", "json",
               "--out", str(out), *extra])
    assert rc == 0
    d = json.loads(out.read_text())
    assert len(d["subset"]) == 2 and d["n_models"] == n_models


def test_cli_results_errors_name_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["select", "--scores", str(LM_EVAL), "--strategy", "random", "--k", "2"]) == 2
    assert "[--missing POLICY]" in capsys.readouterr().err
    assert main(["select", "--scores", str(LM_EVAL), "--score-column", "arc_easy=f1", "--strategy", "random",
                 "--k", "2"]) == 2
    assert "[--score-column COL]" in capsys.readouterr().err
    assert main(["select", "--scores", str(EEE), "--scores-format", "mteb", "--strategy", "random", "--k", "2"]) == 2
    assert "Every Eval Ever results" in capsys.readouterr().err
    rc = main(["evaluate", "--scores", str(MTEB), "--strategies", "random", "--trials", "3", "--k-max", "3",
               "--out", str(tmp_path / "ev.json")])
    assert rc == 0 and json.loads((tmp_path / "ev.json").read_text())
