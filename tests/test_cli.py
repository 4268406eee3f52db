"""Command line: outputs, formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from subsetsel_core.cli import main
from subsetsel_core.synthetic import make_synthetic


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    s = make_synthetic(n_datasets=30, n_models=8, n_folds=2, seed=3)
    s.scores.to_csv(d / "scores.csv", index=False)
    feat = s.oracle.iloc[:, :6].copy()
    feat["family"] = ["a", "b", "c"] * 10
    feat.to_csv(d / "features.csv", index=False)
    wide = s.scores.groupby(["dataset", "model"])["score"].mean().unstack()
    wide.to_csv(d / "wide.csv")
    s.scores.to_parquet(d / "scores.parquet")
    return {"dir": d, "scores": d / "scores.csv", "features": d / "features.csv", "wide": d / "wide.csv",
            "parquet": d / "scores.parquet"}


def test_select_csv(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["select", "--scores", str(files["scores"]), "--features", str(files["features"]),
               "--strategy", "fafi-cosine", "--k", "5", "--lower-is-better", "--include", "syn_003"])
    assert rc == 0
    out = capsys.readouterr().out
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert list(df.columns[:2]) == ["order", "dataset"]
    assert "family" in df.columns and len(df) == 5
    assert df["order"].tolist() == [1, 2, 3, 4, 5] and df["dataset"].iloc[0] == "syn_003"


def test_select_json_to_file(files: dict[str, Path]) -> None:
    out = files["dir"] / "sel.json"
    rc = main(["select", "--scores", str(files["parquet"]), "--features", str(files["features"]),
               "--strategy", "kmeans", "--k", "4", "--lower-is-better", "--format", "json", "--out", str(out),
               "--seed", "2"])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["strategy"] == "kmeans" and d["k"] == 4 and len(d["subset"]) == 4
    assert set(d["agreement"]) >= {"spearman", "kendall", "mae"}


def test_select_wide_random_without_features(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["select", "--scores", str(files["wide"]), "--wide", "--strategy", "random", "--k", "3"])
    assert rc == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 4


def test_evaluate_json(files: dict[str, Path]) -> None:
    out = files["dir"] / "res.json"
    rc = main(["evaluate", "--scores", str(files["scores"]), "--features", str(files["features"]),
               "--strategies", "random,fafi-cosine,kmeans", "--trials", "5", "--alpha", "0.8", "--k-max", "6",
               "--lower-is-better", "--out", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["ks"] == [2, 3, 4, 5, 6]
    assert set(d["results"]) == {"random", "fafi-cosine", "kmeans"}
    assert set(d["results"]["kmeans"]["p_vs_random"]) == {"mae", "spearman", "kendall", "ndcg5", "mrr"}
    assert d["config"]["trials"] == 5 and d["config"]["alpha"] == 0.8


def test_evaluate_table(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["evaluate", "--scores", str(files["scores"]), "--features", str(files["features"]),
               "--strategies", "fafi-euclidean", "--trials", "3", "--k-max", "4", "--lower-is-better"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Spearman" in out and "fafi-euclidean" in out and "random" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--score-column", "acc"], "no score column 'acc'"),
        (["--k", "999"], "k = 999 is out of range"),
        (["--include", "nope"], "unknown datasets: 'nope'"),
        (["--strategy", "fafi"], "invalid choice"),
    ],
)
def test_bad_input_exit_2(files: dict[str, Path], args: list[str], needle: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--scores": str(files["scores"]), "--features": str(files["features"]), "--strategy": "kmeans", "--k": "3"}
    argv = ["select", "--lower-is-better"]
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    with pytest.raises(SystemExit) if needle == "invalid choice" else _nullctx() as ex:
        rc = main(argv + args)
    if needle == "invalid choice":
        assert ex.value.code == 2  # type: ignore[union-attr]
    else:
        assert rc == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


class _nullctx:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: object) -> bool:
        return False


def test_missing_file_via_subprocess(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "subsetsel_core", "select", "--scores", str(tmp_path / "x.csv"),
                        "--strategy", "random", "--k", "2"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "x.csv: file not found" in r.stderr and "Traceback" not in r.stderr
