"""Command line: outputs, formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.text.safe_csv import split_comments


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
    df = pd.read_csv(pd.io.common.StringIO(out), comment="#")
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
    assert len([line for line in capsys.readouterr().out.strip().splitlines() if not line.startswith("#")]) == 4


def test_evaluate_json(files: dict[str, Path]) -> None:
    out = files["dir"] / "res.json"
    rc = main(["evaluate", "--scores", str(files["scores"]), "--features", str(files["features"]),
               "--strategies", "random,fafi-cosine,kmeans", "--trials", "5", "--alpha", "0.8", "--k-max", "6",
               "--lower-is-better", "--out", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["ks"] == [2, 3, 4, 5, 6]
    assert set(d["results"]) == {"random", "fafi-cosine", "kmeans"}
    assert set(d["results"]["kmeans"]["p_vs_random"]) == set(METRICS)
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
        (["--strategy", "fafi"], "is not one of its choices"),
    ],
)
def test_bad_input_exit_2(files: dict[str, Path], args: list[str], needle: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--scores": str(files["scores"]), "--features": str(files["features"]), "--strategy": "kmeans", "--k": "3"}
    argv = ["select", "--lower-is-better"]
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    with pytest.raises(SystemExit) if needle == "is not one of its choices" else _nullctx() as ex:
        rc = main(argv + args)
    if needle == "is not one of its choices":
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


# --------------------------------------------------------------------------- representation options, sidecars


TSC = Path(__file__).resolve().parents[3] / "sample_data" / "tsc_bakeoff"


@pytest.fixture(scope="module")
def tsc():  # type: ignore[no-untyped-def]
    from subsetsel_core.loading.folder import load_benchmark_folder

    lb = load_benchmark_folder(TSC)
    return lb, {r.name: r for r in lb.manifest.representations}


def _dashboard_files(tsc, recipe, choose, tmp_path: Path):  # type: ignore[no-untyped-def]
    """What the dashboard's downloads hold for a selection: CSV text, sidecar text, sidecar path."""
    from subsetsel_core.outputs import export
    from subsetsel_core.representations.recipe import build_recipe, recipe_columns

    lb, specs = tsc
    rep = build_recipe(recipe, lb.benchmark, lb.descriptors, specs, seed=3)
    sel, bs = choose(lb, specs, rep)
    table = export.subset_table(sel, recipe_columns(recipe, sel.datasets, lb.descriptors, specs), budget=bs)
    meta = export.sidecar(sel, lb.benchmark, recipe, title=lb.manifest.title, budget=bs)
    path = tmp_path / (export.file_stem(sel, None if bs is None else bs.budget) + ".json")
    path.write_text(export.sidecar_json(meta), encoding="utf-8")
    return export.subset_csv(table), export.sidecar_json(meta), path


def test_recipe_reproduces_a_dashboard_subset_byte_for_byte(tsc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.representations.recipe import make_recipe
    from subsetsel_core.selection.subsets import select_datasets

    lb, specs = tsc
    recipe = make_recipe(lb.descriptors, specs, ["ucr_info", "description"], ["type", "n_classes", "series_length",
                         "description"], text=True, log=True, pca=0.9)
    csv_text, side_text, path = _dashboard_files(
        tsc, recipe, lambda lb, specs, rep: (select_datasets(lb.benchmark, rep, "kmeans", 7, seed=3,
                                                             include=["Coffee"], exclude=["Beef"]), None), tmp_path)
    out, side = tmp_path / "cli.csv", tmp_path / "cli.json"
    assert main(["select", "--benchmark", str(TSC), "--recipe", str(path), "--out", str(out), "--sidecar", str(side)]) == 0
    # the same table and recipe; the provenance says what made each file
    assert split_comments(out.read_text(encoding="utf-8"))[1] == csv_text
    written = json.loads(side.read_bytes())
    assert written.pop("provenance")["command"].startswith("subsetsel select") and written == json.loads(side_text)
    df = pd.read_csv(out, comment="#")
    assert df["dataset"].tolist() == json.loads(side_text)["datasets"] and df["dataset"].iloc[0] == "Coffee"
    assert list(df.columns) == ["order", "dataset", "type", "n_classes", "series_length", "description"]


def test_recipe_reproduces_a_budget_subset(tsc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.representations.recipe import make_recipe
    from subsetsel_core.selection.costs import dataset_costs, select_within_budget

    lb, specs = tsc

    def choose(lb, specs, rep):  # type: ignore[no-untyped-def]
        costs = dataset_costs(lb.benchmark, lb.descriptors, specs, "train_size")
        bs = select_within_budget(lb.benchmark, rep, "fafi-cosine", costs, 0.1 * costs.total, seed=3)
        return bs.selection, bs

    csv_text, side_text, path = _dashboard_files(tsc, make_recipe(lb.descriptors, specs, ["ucr_info"]), choose,
                                                 tmp_path)
    assert "_budget" in path.name
    out = tmp_path / "cli.csv"
    assert main(["select", "--benchmark", str(TSC), "--recipe", str(path), "--out", str(out)]) == 0
    assert split_comments(out.read_text(encoding="utf-8"))[1] == csv_text  # the table; the block adds provenance
    assert list(pd.read_csv(out, comment="#").columns[:4]) == ["order", "dataset", "cost", "cumulative_cost"]


def test_recipe_fixes_the_selection_options(tsc, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.representations.recipe import make_recipe
    from subsetsel_core.selection.subsets import select_datasets

    lb, specs = tsc
    _, _, path = _dashboard_files(tsc, make_recipe(lb.descriptors, specs, ["ucr_info"]),
                                  lambda lb, specs, rep: (select_datasets(lb.benchmark, rep, "random", 3), None), tmp_path)
    assert main(["select", "--benchmark", str(TSC), "--recipe", str(path), "--k", "4"]) == 2
    assert "--k" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"benchmark": "x"}')
    assert main(["select", "--benchmark", str(TSC), "--recipe", str(tmp_path / "bad.json")]) == 2
    assert "give the JSON sidecar" in capsys.readouterr().err


def test_representation_options(files: dict[str, Path], tmp_path: Path) -> None:
    out, side = tmp_path / "s.csv", tmp_path / "s.json"
    rc = main(["select", "--scores", str(files["scores"]), "--features", str(files["features"]), "--lower-is-better",
               "--strategy", "kmeans", "--k", "4", "--columns", "family,x_00", "--no-text", "--log", "--pca", "0.8",
               "--out", str(out), "--sidecar", str(side)])
    assert rc == 0
    assert list(pd.read_csv(out, comment="#").columns) == ["order", "dataset", "family", "x_00"]
    recipe = json.loads(side.read_text())["representation_recipe"]
    assert recipe == {"tables": ["features"], "columns": ["family", "x_00"], "text": False, "log": True, "pca": 0.8,
                      "name": "features/2 cols,no text,log,PCA 80%"}


def test_tables_join_with_plus(tsc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "r.json"
    rc = main(["evaluate", "--benchmark", str(TSC), "--representation", "ucr_info+description,minilm",
               "--strategies", "kmeans", "--trials", "2", "--k-max", "4", "--metrics", "spearman", "--out", str(out)])
    assert rc == 0
    assert set(json.loads(out.read_text())["results"]) >= {"kmeans [ucr_info+description]", "kmeans [minilm]"}


def test_every_error_field_has_a_flag() -> None:
    from subsetsel_core.cli.main import FLAGS, error_text
    from subsetsel_core.errors import FIELDS, InputError

    assert set(FIELDS) - set(FLAGS) <= {"workspace"} and set(FLAGS) <= set(FIELDS)
    assert error_text("select", InputError("no column 'f'.", field="fold_column")) == "no column 'f'. [--fold-column COL]"
    assert error_text("evaluate", InputError("bad.", field="strategy")) == "bad. [--strategies S1,S2]"
    assert error_text("place", InputError("x.", field="scores_file")).endswith("[--reference FILE or --benchmark FOLDER]")
    assert error_text("select", InputError("use --k K.", field="k")) == "use --k K."


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["select", "--strategy", "kmeans", "--k", "3", "--columns", "nope"], "--columns A,B"),
        (["select", "--strategy", "kmeans"], "--k K"),
        (["evaluate", "--strategies", "kmeans,nope"], "--strategies S1,S2"),
        (["evaluate", "--metrics", "auc"], "--metrics M1,M2"),
        (["select", "--strategy", "kmeans", "--k", "3", "--representation", "other"], "--representation"),
    ],
)
def test_errors_name_the_flag(files: dict[str, Path], argv: list[str], needle: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--scores", str(files["scores"]), "--features", str(files["features"]), "--lower-is-better"]
    assert main(argv[:1] + base + argv[1:]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_strategy_and_metric_choices_come_from_the_registries(capsys: pytest.CaptureFixture[str]) -> None:
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import SCORE_AWARE, STRATEGIES

    for argv, names in ((["select", "--strategy", "nope"], STRATEGIES), (["advise", "--metric", "nope"], METRICS)):
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert "is not one of its choices" in err and len(err.strip().splitlines()) == 1
        listed = err.split("Use one of: ")[1].rstrip(".\n").split(", ")
        assert set(listed) == set(names)
        assert not any(n in listed for n in SCORE_AWARE)  # only `subsetsel headroom` runs them


@pytest.mark.parametrize("extra", [["--no-text"], ["--seed", "0"], ["--k", "3"], ["--log"]])
def test_recipe_refuses_options_it_fixes(tmp_path: Path, capsys, extra) -> None:  # type: ignore[no-untyped-def]
    side = tmp_path / "s.json"
    assert main(["select", "--benchmark", "sample_data/tsc_bakeoff", "--strategy", "kmeans", "--k", "4",
                 "--out", str(tmp_path / "a.csv"), "--sidecar", str(side)]) == 0
    capsys.readouterr()
    assert main(["select", "--benchmark", "sample_data/tsc_bakeoff", "--recipe", str(side), *extra]) == 2
    err = capsys.readouterr().err
    assert "fixes" in err and "--recipe" in err and err.count("\n") == 1


def test_recipe_budget_sidecar_without_cost_source(tmp_path: Path) -> None:
    import json

    from subsetsel_core.outputs.export import read_sidecar

    side = tmp_path / "s.json"
    assert main(["select", "--benchmark", "sample_data/tsc_bakeoff", "--strategy", "fafi-cosine", "--budget", "0.05",
                 "--out", str(tmp_path / "a.csv"), "--sidecar", str(side)]) == 0
    meta = json.loads(side.read_text())
    meta["budget"].pop("cost_source", None)
    side.write_text(json.dumps(meta))
    assert read_sidecar(side).cost_source is None
