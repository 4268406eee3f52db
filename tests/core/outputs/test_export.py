"""The core's one implementation of each result: recipes, builders, subset files, profiles, checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.check import (
    check_representation,
    geometry_agreement,
    mantel,
    rank_distance,
)
from subsetsel_core.evaluation.quick import quick_check
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.timing import check_seconds, estimate_seconds
from subsetsel_core.loading.folder import load_benchmark_folder
from subsetsel_core.outputs import export
from subsetsel_core.representations import BUILDERS, MANIFEST_KINDS, get_builder
from subsetsel_core.representations.descriptors import join_tables, representation_from_matrix
from subsetsel_core.representations.recipe import (
    RepresentationRecipe,
    build_recipe,
    default_columns,
    make_recipe,
    recipe_columns,
)
from subsetsel_core.selection.costs import COST_ESTIMATE, dataset_costs, select_within_budget
from subsetsel_core.selection.coverage import coverage
from subsetsel_core.selection.profiles import k_profile, random_profile
from subsetsel_core.selection.subsets import select_datasets

ROOT = Path(__file__).resolve().parents[3] / "sample_data"


@pytest.fixture(scope="module")
def mmlu():  # type: ignore[no-untyped-def]
    lb = load_benchmark_folder(ROOT / "mmlu")
    return lb.benchmark, lb.descriptors, {r.name: r for r in lb.manifest.representations}


@pytest.fixture(scope="module")
def tiny() -> tuple[Benchmark, dict[str, pd.DataFrame]]:
    scores = np.random.default_rng(0).random((6, 2, 4))
    names = ("=cmd()", "b", "c", "d", "e", "f")
    bench = Benchmark(scores, names, ("m1", "m2", "m3", "m4"), ("0", "1"), name="tiny / one")
    table = pd.DataFrame({"size": [1.0, 2, 3, 40, 500, 6000], "kind": list("xyxyxy"), "hours": [1.0, 2, 1, 2, 1, 3]},
                         index=pd.Index(names, name="dataset"))
    return bench, {"facts": table}


# --------------------------------------------------------------------------- builders and recipes


def test_builders_registry_names_every_kind_and_loads_lazily() -> None:
    assert MANIFEST_KINDS == ("tabular", "text", "embedding")
    assert [k for k, b in BUILDERS.items() if b.in_full] == ["embedding"]
    assert {"text-encoder", "summary", "catch22", "minirocket", "landmarking", "interactions"} <= set(BUILDERS)
    for b in BUILDERS.values():
        assert b.name and b.title and b.takes and callable(b.build)
    with pytest.raises(InputError, match="unknown representation kind 'nope'") as exc:
        get_builder("nope")
    assert exc.value.field == "representation"


def test_join_keeps_identical_columns_once_and_renames_others() -> None:
    a = pd.DataFrame({"x": [1, 2], "y": ["p", "q"]}, index=["d1", "d2"])
    b = pd.DataFrame({"x": [1, 2], "y": ["p", "r"], "e0": [0.1, 0.2]}, index=["d1", "d2"])
    j = join_tables({"a": a, "b": b}, in_full=["b"])
    assert list(j.table.columns) == ["x", "y", "b.y", "e0"]
    assert j.pickable == ["x", "y"] and j.embedding == ["b.y", "e0"]
    assert j.names[("b", "x")] == "x" and j.names[("b", "y")] == "b.y"


def test_recipe_defaults_names_and_round_trip(mmlu) -> None:  # type: ignore[no-untyped-def]
    bench, desc, specs = mmlu
    assert default_columns(desc, specs, ["subjects", "description"]) == ["category", "n_test_questions", "description"]
    r = make_recipe(desc, specs, ["subjects"], ["category", "n_test_questions"])
    assert r.columns is None and r.name == "subjects"
    r2 = make_recipe(desc, specs, ["subjects", "minilm"], ["category"], text=False, log=True, pca=0.9)
    assert r2.name == "subjects+minilm/1 cols,no text,log,PCA 90%"
    assert RepresentationRecipe.from_dict(json.loads(json.dumps(r2.to_dict()))) == r2 and hash(r2)
    rep = build_recipe(make_recipe(desc, specs, ["minilm"]), bench, desc, specs)
    assert rep.X.shape[0] == 57 and rep.X.shape[1] > 300 and rep.name == "minilm"
    assert recipe_columns(make_recipe(desc, specs, ["minilm"]), bench.datasets, desc, specs).shape == (57, 0)


@pytest.mark.parametrize(("bad", "needle"), [
    ({"tables": []}, "'tables'"), ({"tables": ["a"], "columns": "a"}, "'columns'"),
    ({"tables": ["a"], "log": "yes"}, "'text' and 'log'"), ({"tables": ["a"], "pca": 2}, "'pca'"),
    ({"tables": ["a"], "name": 3}, "'name'"), ([], "not a JSON object"),
])
def test_recipe_from_bad_dict(bad, needle: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=needle) as exc:
        RepresentationRecipe.from_dict(bad)
    assert exc.value.field == "representation"


def test_recipe_errors_point_at_the_setting(tiny) -> None:  # type: ignore[no-untyped-def]
    bench, desc = tiny
    with pytest.raises(InputError, match="unknown descriptor table 'nope'") as exc:
        make_recipe(desc, None, ["nope"])
    assert exc.value.field == "representation"
    with pytest.raises(InputError, match="unknown descriptor column") as exc:
        build_recipe(RepresentationRecipe(("facts",), ("zzz",)), bench, desc)
    assert exc.value.field == "descriptor_columns"


# --------------------------------------------------------------------------- the subset files


def test_subset_files(tiny) -> None:  # type: ignore[no-untyped-def]
    bench, desc = tiny
    recipe = make_recipe(desc, None, ["facts"], ["size", "kind"])
    rep = build_recipe(recipe, bench, desc)
    costs = dataset_costs(bench, desc, None, "hours")
    assert costs.unit == "hours" and costs.source == "hours" and costs.total == pytest.approx(10.0)
    bs = select_within_budget(bench, rep, "fafi-euclidean", costs, 4.0, seed=1)
    assert 0 < bs.spent <= 4.0 and bs.selection.k == len(bs.costs)
    cov = coverage(rep, list(bs.selection.datasets))
    table = export.subset_table(bs.selection, recipe_columns(recipe, bench.datasets, desc), budget=bs,
                                coverage=cov)
    assert list(table.columns) == ["order", "dataset", "cost", "cumulative_cost", "n_represented", "represents",
                                   "farthest_member_distance", "size", "kind"]
    csv_text = export.subset_csv(table)
    assert "'=cmd()" in csv_text or "=cmd()" not in csv_text
    meta = export.sidecar(bs.selection, bench, recipe, budget=bs, coverage=cov)
    assert meta["mode"] == "budget" and meta["representation_recipe"] == recipe.to_dict()
    assert meta["datasets"] == list(bs.selection.datasets) and meta["budget"]["cost_source"] == "hours"
    back = export.read_sidecar(export.sidecar_json(meta).encode())
    assert back.representation == recipe and back.datasets == bs.selection.datasets
    assert back.budget == pytest.approx(4.0) and back.cost_source == "hours"
    assert export.file_stem(bs.selection, bs.budget) == "subset_tiny-one_fafi-euclidean_budget4_seed1"
    sel = select_datasets(bench, rep, "kmeans", 3, seed=2)
    assert export.file_stem(sel) == "subset_tiny-one_kmeans_k3_seed2"
    assert export.sidecar(sel, bench)["mode"] == "k" and export.sidecar(sel, bench)["representation_recipe"] is None
    tmpl = pd.read_csv(io.StringIO(export.template_csv(["=cmd()", "b"])), keep_default_na=False)
    assert tmpl["dataset"].tolist() == ["'=cmd()", "b"] and tmpl["score"].tolist() == ["", ""]


def test_costs_estimate_and_uniform(tiny) -> None:  # type: ignore[no-untyped-def]
    bench, desc = tiny
    est = dataset_costs(bench, desc)
    assert est.source == COST_ESTIMATE and "size" in est.how and est.unit == "relative units"
    uniform = dataset_costs(bench, {})
    assert uniform.unit == "datasets" and (uniform.values == 1).all()
    with pytest.raises(InputError, match="every dataset is excluded") as exc:
        select_within_budget(bench, None, "random", est, 1.0, exclude=list(bench.datasets))
    assert exc.value.field == "exclude"


# --------------------------------------------------------------------------- profiles and checks


def test_k_profile_matches_single_selections(mmlu) -> None:  # type: ignore[no-untyped-def]
    bench, desc, specs = mmlu
    rep = build_recipe(make_recipe(desc, specs, ["subjects"]), bench, desc, specs)
    prof = k_profile(bench, rep.X, "kmeans", np.arange(1, 8), seed=3)
    for k in (2, 5, 7):
        sel = select_datasets(bench, rep, "kmeans", k, seed=3)
        assert prof["spearman"][k - 1] == pytest.approx(sel.agreement["spearman"])
    med, lo, hi = random_profile(bench, [1, 5, 57], draws=40, seed=0)["spearman"]
    assert (lo <= med).all() and (med <= hi).all() and med[-1] == pytest.approx(1.0)


def test_one_mantel_test() -> None:
    rng = np.random.default_rng(0)
    z = rng.normal(size=(30, 2))
    ranks = (((z[:, None, :] - rng.normal(size=(10, 2))[None]) ** 2).sum(-1)).argsort(1).argsort(1) + 1.0
    g = geometry_agreement(z, ranks, permutations=99)
    assert g.rho > 0.4 and g.p_value <= 0.02 and g.strength() == "strong" and g.permutations == 99
    from scipy.spatial.distance import squareform

    square = mantel(squareform(g.desc_dist), squareform(g.rank_dist), permutations=99)
    assert square == (pytest.approx(g.rho), g.p_value)
    np.testing.assert_allclose(rank_distance(np.array([[1, 2, 3], [3, 2, 1], [2, 2, 2]], float)), [2, 1, 1])
    bench = Benchmark(-ranks[:, None, :], tuple(f"d{i:02d}" for i in range(30)), tuple(f"m{j}" for j in range(10)))
    chk = check_representation(bench, representation_from_matrix(z, bench.datasets), permutations=99)
    assert chk.mantel_r == pytest.approx(g.rho) and chk.mantel_p == g.p_value


def test_quick_check_reports_progress_and_stops(mmlu) -> None:  # type: ignore[no-untyped-def]
    bench, desc, specs = mmlu
    rep = build_recipe(make_recipe(desc, specs, ["subjects"]), bench, desc, specs)
    seen: list[float] = []
    qc = quick_check(bench, rep, trials=10, permutations=19, mantel_permutations=49, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0) and len(seen) >= 3
    assert qc.result.complete and qc.best in {e.key for e in qc.result.entries} - {"random"} and qc.verdict
    assert qc.permutation.complete and set(qc.permutation.keys) == {e.key for e in qc.result.entries} - {"random"}
    gains = list(qc.table()["gain over random"])
    assert gains == sorted(gains, reverse=True)
    assert not qc.helps  # 19 shuffles: the smallest maxT p is 1 / 20, not below 0.05
    with pytest.raises(Cancelled):
        quick_check(bench, rep, trials=10, permutations=9, mantel_permutations=9, should_stop=lambda: True)


def test_time_estimates_grow_with_the_work() -> None:
    small = estimate_seconds(EvaluationConfig(trials=10), 1, 50)
    assert estimate_seconds(EvaluationConfig(trials=100), 1, 50) == pytest.approx(10 * small)
    assert estimate_seconds(EvaluationConfig(trials=10), 2, 50) > small
    assert check_seconds(224, 50) > check_seconds(112, 50) > 0
    assert check_seconds(112, 50, 199) > check_seconds(112, 50)
