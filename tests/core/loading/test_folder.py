"""Tests of benchmark folders: manifest validation, loading and listing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.loading.folder import (
    BenchmarkFolderWarning,
    LoadedBenchmark,
    list_benchmarks,
    load_benchmark_folder,
    scan_benchmarks,
)
from subsetsel_core.loading.manifest import Manifest, read_manifest

DATASETS = ["alpha", "beta", "delta", "gamma", "omega"]
MODELS = ["m1", "m2", "m3"]


def _scores_long(folds: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [
        (d, m, f, round(float(rng.uniform(0.5, 1.0)), 3))
        for d in DATASETS
        for m in MODELS
        for f in range(folds)
    ]
    return pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"])


def _manifest(**overrides) -> dict:
    data = {
        "format_version": 1,
        "name": "mine",
        "title": "My benchmark",
        "description": "A user-made benchmark.",
        "metric": "accuracy",
        "higher_is_better": True,
        "source": "made in a test",
        "licence": "CC0",
        "citation": "",
        "scores": {"file": "scores.csv", "layout": "long", "fold_column": "fold"},
        "representations": [
            {
                "name": "facts",
                "title": "Facts",
                "kind": "tabular",
                "files": ["features.csv"],
                "aliases": {"Alpha ": "alpha", "GAMMA": "gamma"},
            },
            {"name": "blurb", "kind": "text", "files": ["text.csv"], "columns": ["text"]},
        ],
    }
    data.update(overrides)
    return data


def make_folder(root: Path, name: str = "mine", manifest: dict | None = None) -> Path:
    """A user's benchmark folder: long scores, a tabular and a text descriptor table."""
    folder = root / name
    folder.mkdir(parents=True)
    _scores_long().to_csv(folder / "scores.csv", index=False)
    pd.DataFrame(
        {
            # Two names spelled differently from the scores, mapped by the aliases.
            "dataset": ["Alpha ", "beta", "delta", "GAMMA", "omega"],
            "n_classes": [2, 3, 2, 5, 4],
            "length": [100, 250, 80, 1000, 60],
            "domain": ["image", "sensor", "image", "ecg", "sensor"],
        }
    ).to_csv(folder / "features.csv", index=False)
    pd.DataFrame(
        {
            "dataset": DATASETS,
            "text": [
                "images of leaves",
                "accelerometer readings",
                "outlines of shapes",
                "heart beats",
                "gyroscope traces",
            ],
        }
    ).to_csv(folder / "text.csv", index=False)
    data = _manifest() if manifest is None else manifest
    (folder / "manifest.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def rewrite(folder: Path, data: dict) -> None:
    (folder / "manifest.json").write_text(json.dumps(data), encoding="utf-8")


# ----------------------------------------------------------------------------- valid folders


def test_user_folder_loads_through_the_same_loader(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    m = read_manifest(folder)
    assert isinstance(m, Manifest)
    assert m.folder == folder.resolve()
    assert (m.name, m.title, m.metric, m.higher_is_better) == (
        "mine",
        "My benchmark",
        "accuracy",
        True,
    )
    assert m.scores_file == "scores.csv"
    assert m.scores == ScoreFormat(layout="long", fold_column="fold", higher_is_better=True)
    assert m.representation_names == ("facts", "blurb")
    assert m.representation("facts").files == ("features.csv",)
    assert m.representation("blurb").columns == ("text",)
    hash(m)  # usable as a cache key

    loaded = load_benchmark_folder(folder)
    assert isinstance(loaded, LoadedBenchmark)
    b = loaded.benchmark
    assert b.datasets == tuple(DATASETS)
    assert b.models == tuple(MODELS)
    assert b.scores.shape == (5, 2, 3)
    assert b.higher_is_better is True and b.name == "mine"
    # Aliases: the descriptor names were mapped onto the score names.
    assert sorted(loaded.descriptors["facts"].index) == DATASETS
    assert not loaded.report.warnings

    facts = loaded.representation("facts")
    assert facts.X.shape[0] == 5 and facts.datasets == tuple(DATASETS)
    blurb = loaded.representation("blurb")
    assert blurb.X.shape[0] == 5
    only = loaded.representation("facts", columns=["n_classes"])
    assert only.X.shape == (5, 1)


def test_load_from_manifest_object_and_defaults(tmp_path: Path) -> None:
    data = {"higher_is_better": False, "scores": "scores.csv"}
    folder = make_folder(tmp_path, "minimal", data)
    m = read_manifest(folder / "manifest.json")
    assert m.name == "minimal" and m.title == "minimal" and m.metric == "score"
    assert m.representations == () and m.scores.fold_column == "fold"
    loaded = load_benchmark_folder(m)
    assert loaded.benchmark.higher_is_better is False
    assert loaded.descriptors == {}


def test_wide_layout_without_folds(tmp_path: Path) -> None:
    data = _manifest(scores={"file": "wide.csv", "layout": "wide", "fold_column": None})
    folder = make_folder(tmp_path, manifest=data)
    long = _scores_long(folds=1)
    long.pivot(index="dataset", columns="model", values="score").reset_index().to_csv(
        folder / "wide.csv", index=False
    )
    rewrite(folder, data)
    loaded = load_benchmark_folder(folder)
    assert loaded.benchmark.scores.shape == (5, 1, 3)
    assert loaded.manifest.scores.fold_column is None


def test_to_dict_round_trips(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    m = read_manifest(folder)
    copy = make_folder(tmp_path, "copy", m.to_dict())
    m2 = read_manifest(copy)
    assert m2.to_dict() == m.to_dict()
    assert m2.representations == m.representations


# ----------------------------------------------------------------------------- bad manifests


def _error(tmp_path: Path, data: dict | str) -> str:
    folder = make_folder(tmp_path, "bad")
    if isinstance(data, str):
        (folder / "manifest.json").write_text(data, encoding="utf-8")
    else:
        rewrite(folder, data)
    with pytest.raises(InputError) as info:
        read_manifest(folder)
    msg = str(info.value)
    assert "manifest.json" in msg or "bad" in msg
    return msg


def test_missing_required_field(tmp_path: Path) -> None:
    data = _manifest()
    del data["higher_is_better"]
    msg = _error(tmp_path, data)
    assert "manifest.json" in msg and "'higher_is_better'" in msg and "is missing" in msg
    assert "true" in msg and "false" in msg  # the fix


def test_missing_scores(tmp_path: Path) -> None:
    data = _manifest()
    del data["scores"]
    msg = _error(tmp_path, data)
    assert "'scores'" in msg and "is missing" in msg and '"file"' in msg


def test_missing_file_names_it_and_suggests(tmp_path: Path) -> None:
    data = _manifest(scores={"file": "score.csv"})
    msg = _error(tmp_path, data)
    assert "'scores.file'" in msg and "'score.csv'" in msg
    assert "did you mean 'scores.csv'" in msg
    assert "features.csv" in msg  # lists what is there


def test_missing_descriptor_file(tmp_path: Path) -> None:
    data = _manifest()
    data["representations"][1]["files"] = ["texts.csv"]
    msg = _error(tmp_path, data)
    assert "representations[1] ('blurb').files[0]" in msg and "'texts.csv'" in msg


def test_bad_layout(tmp_path: Path) -> None:
    msg = _error(tmp_path, _manifest(scores={"file": "scores.csv", "layout": "tall"}))
    assert "'scores.layout'" in msg and "'tall'" in msg
    assert '"long"' in msg and '"wide"' in msg


def test_bad_kind(tmp_path: Path) -> None:
    data = _manifest()
    data["representations"][0]["kind"] = "tabluar"
    msg = _error(tmp_path, data)
    assert "('facts').kind" in msg and "did you mean 'tabular'" in msg and "embedding" in msg


def test_unknown_field_suggests_the_known_one(tmp_path: Path) -> None:
    data = _manifest()
    data["license"] = data.pop("licence")
    msg = _error(tmp_path, data)
    assert "'license'" in msg and "did you mean 'licence'" in msg


def test_wrong_types(tmp_path: Path) -> None:
    msg = _error(tmp_path, _manifest(higher_is_better="yes"))
    assert "'higher_is_better'" in msg and "true or false" in msg
    msg = _error(tmp_path / "2", _manifest(representations={"name": "x"}))
    assert "'representations'" in msg and "list" in msg


def test_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    msg = _error(tmp_path, '{"name": "x",\n "higher_is_better": true,\n}')
    assert "not valid JSON" in msg and re.search(r"line \d+, column \d+", msg)


def test_file_outside_folder_is_refused(tmp_path: Path) -> None:
    msg = _error(tmp_path, _manifest(scores={"file": "../elsewhere/scores.csv"}))
    assert "outside the benchmark folder" in msg


def test_unsupported_extension(tmp_path: Path) -> None:
    msg = _error(tmp_path, _manifest(scores={"file": "scores.xlsx"}))
    assert "not a supported table file" in msg and ".parquet" in msg


def test_duplicate_representation_names(tmp_path: Path) -> None:
    data = _manifest()
    data["representations"][1]["name"] = "facts"
    msg = _error(tmp_path, data)
    assert "repeats the name 'facts'" in msg


def test_folder_without_manifest(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no manifest\.json"):
        read_manifest(tmp_path / "empty")
    with pytest.raises(InputError, match="no such benchmark folder"):
        read_manifest(tmp_path / "absent")


def test_unknown_representation_lists_names(tmp_path: Path) -> None:
    loaded = load_benchmark_folder(make_folder(tmp_path))
    with pytest.raises(InputError, match="no representation 'fact'.*did you mean 'facts'.*blurb"):
        loaded.representation("fact")


def test_unknown_columns_raise_at_load(tmp_path: Path) -> None:
    data = _manifest()
    data["representations"][0]["columns"] = ["n_class"]
    folder = make_folder(tmp_path, manifest=data)
    with pytest.raises(InputError, match=r"columns.*'n_class'.*did you mean 'n_classes'"):
        load_benchmark_folder(folder)


def test_uncovered_datasets_are_reported_then_raise(tmp_path: Path) -> None:
    data = _manifest()
    del data["representations"][0]["aliases"]
    loaded = load_benchmark_folder(make_folder(tmp_path, manifest=data))
    (warning,) = loaded.report.warnings
    assert "'facts'" in warning.message and "aliases" in warning.message
    assert "'alpha'" in warning.message and "did you mean 'Alpha'" in warning.message
    with pytest.raises(InputError, match="no row"):
        loaded.representation("facts")
    assert loaded.representation("blurb").X.shape[0] == 5  # the other one still works


def test_bad_table_content_names_the_file(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    (folder / "scores.csv").write_text("dataset,model,fold,score\nalpha,m1,0,abc\n")
    with pytest.raises(InputError, match="mine/scores.csv"):
        load_benchmark_folder(folder)


# ----------------------------------------------------------------------------- listing


def test_list_benchmarks_reports_broken_folders(tmp_path: Path) -> None:
    make_folder(tmp_path, "zeta", _manifest(name="zeta"))
    make_folder(tmp_path, "alpha", _manifest(name="alpha"))
    broken = make_folder(tmp_path, "broken", _manifest(name="broken"))
    (broken / "scores.csv").unlink()
    (tmp_path / "not_a_benchmark").mkdir()
    (tmp_path / "stray.txt").write_text("x")

    with pytest.warns(BenchmarkFolderWarning, match=r"broken.*scores\.file"):
        listed = list_benchmarks(tmp_path)
    assert [m.name for m in listed] == ["alpha", "zeta"]

    catalog = scan_benchmarks(tmp_path)
    assert [m.name for m in catalog.manifests] == ["alpha", "zeta"]
    ((folder, message),) = catalog.problems
    assert folder.name == "broken" and "scores.csv" in message
    frame = catalog.to_frame()
    assert list(frame["status"]) == ["ok", "ok", "error"]


def test_list_benchmarks_duplicate_names(tmp_path: Path) -> None:
    make_folder(tmp_path, "a", _manifest(name="same"))
    make_folder(tmp_path, "b", _manifest(name="same"))
    catalog = scan_benchmarks(tmp_path)
    assert len(catalog.manifests) == 1
    assert "Give each benchmark its own name" in catalog.problems[0][1]


def test_list_benchmarks_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such benchmark directory"):
        list_benchmarks(tmp_path / "nope")


def test_a_file_given_as_a_benchmark_folder_says_to_give_it_as_scores(tmp_path: Path) -> None:
    (tmp_path / "scores.csv").write_text("dataset,model,score\nd,m,1\n")
    with pytest.raises(InputError, match=r"is a file, not a benchmark folder .*--scores"):
        read_manifest(tmp_path / "scores.csv")
