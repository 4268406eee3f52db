"""Select page: budget mode, coverage, placing a new model (helpers and AppTest)."""

from __future__ import annotations

import html
import io
import json
import re

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_app import active_data, cache
from subsetsel_app.views import placement as P
from subsetsel_app.views import select as T
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.outputs.provenance import PROVENANCE_KEYS
from subsetsel_core.selection import profiles
from subsetsel_core.selection.costs import COST_ESTIMATE, Costs
from subsetsel_core.selection.subsets import select_datasets
from subsetsel_core.strategies import BUDGET_STRATEGIES
from subsetsel_core.text import rounding
from subsetsel_core.text.safe_csv import split_comments
from subsetsel_core.viz import maps, rankings

HOSTILE = ["=cmd|' /C calc'!A0", "<img src=x onerror=alert(1)>", "+1+2", "@SUM(A1)", "-x", "plain", "b", "c"]


@pytest.fixture(scope="module")
def tsc() -> active_data.ActiveData:
    return active_data.load_folder_data(H.ROOT / "sample_data" / "tsc_bakeoff")


@pytest.fixture(scope="module")
def hostile() -> active_data.ActiveData:
    rng = np.random.default_rng(0)
    scores = rng.random((len(HOSTILE), 2, 5))
    names = tuple(sorted(HOSTILE))
    bench = Benchmark(scores, names, tuple(f"m{i}" for i in range(5)), ("0", "1"), name="hostile")
    table = pd.DataFrame({"hours": np.arange(1.0, len(names) + 1), "size": rng.integers(10, 100, len(names)),
                          "x": rng.normal(size=len(names))}, index=pd.Index(names, name="dataset"))
    return active_data.ActiveData("hostile-token", "Hostile", "upload", bench, {"facts": table}, {}, bench.report)


# --------------------------------------------------------------------------- costs and budget (no page)


def test_cost_options_and_estimate_name_the_columns_used(tsc):
    opts = cache.cost_options(tsc)
    assert opts[0] == COST_ESTIMATE
    assert {"series_length", "train_size", "test_size", "n_classes"} <= set(opts)
    assert "type" not in opts and not any(o.startswith("emb_") for o in opts)
    c = cache.costs(tsc, COST_ESTIMATE)
    assert "series_length" in c.how and "train_size" in c.how and "test_size" in c.how
    assert c.values.shape == (112,) and (c.values > 0).all() and np.isclose(c.values.mean(), 1.0)
    col = cache.costs(tsc, "train_size")
    assert col.unit == "train_size" and col.total == pytest.approx(float(pd.to_numeric(tsc.tables["ucr_info"]["train_size"]).sum()))


def test_bad_cost_column_gives_a_clear_error(hostile):
    hostile.tables["facts"].loc[hostile.benchmark.datasets[0], "x"] = -1.0
    with pytest.raises(InputError, match="positive number for every dataset"):
        cache.costs(hostile, "x")


@pytest.mark.parametrize("strategy", BUDGET_STRATEGIES)
def test_budget_selection_stays_within_budget_with_costs_in_the_table(tsc, strategy):
    cfg = active_data.table_recipe(tsc, "ucr_info")
    rep = active_data.build_representation(tsc, cfg)
    c = cache.costs(tsc, "train_size")
    budget = 0.15 * c.total
    bs = cache.budget_selection(tsc, cfg, rep, strategy, "train_size", budget, 0)
    assert 0 < bs.selection.k == len(bs.costs) and bs.spent <= budget + 1e-9
    assert len(set(bs.selection.datasets)) == bs.selection.k
    table = T.subset_table(tsc, cfg, bs.selection, bs=bs)
    assert list(table.columns[:4]) == ["order", "dataset", "cost", "cumulative_cost"]
    assert np.allclose(np.diff(table["cumulative_cost"]), table["cost"].to_numpy()[1:])
    assert table["cumulative_cost"].iloc[-1] == pytest.approx(bs.spent)
    train = tsc.tables["ucr_info"]["train_size"]
    assert np.allclose(table["cost"], pd.to_numeric(train.reindex(table["dataset"])).to_numpy())
    assert set(bs.selection.agreement) >= {"spearman", "kendall", "mae"}
    stem = T.file_stem(bs.selection, bs)
    assert stem.startswith(f"subset_tsc_bakeoff_{strategy}_budget") and stem.endswith("_seed0")


def test_budget_excludes_and_tiny_budget_is_empty(tsc):
    cfg = active_data.table_recipe(tsc, "ucr_info")
    rep = active_data.build_representation(tsc, cfg)
    c = cache.costs(tsc, "train_size")
    bs = cache.budget_selection(tsc, cfg, rep, "fafi-cosine", "train_size", 0.1 * c.total, 0, ("Coffee", "Beef"))
    assert not {"Coffee", "Beef"} & set(bs.selection.datasets)
    empty = cache.budget_selection(tsc, cfg, rep, "fafi-cosine", "train_size", 0.5 * c.values.min(), 0)
    assert empty.selection.k == 0 and empty.cheapest == pytest.approx(c.values.min())


def test_budget_profile_curves_and_random_band(tsc):
    cfg = active_data.table_recipe(tsc, "ucr_info")
    rep = active_data.build_representation(tsc, cfg)
    prof = cache.budget_profile(tsc, cfg, rep, "fafi-cosine", "train_size", 0, profiles.shares_for(0.1))
    B = len(profiles.PROFILE_SHARES)
    assert prof.budgets.shape == (B,) and np.all(np.diff(prof.budgets) > 0)
    assert prof.k_used[-1] > prof.k_used[0] and np.all(prof.spent <= prof.budgets + 1e-9)
    med, lo, hi = prof.random_band["spearman"]
    assert med.shape == (B,) and np.all(lo <= med + 1e-12) and np.all(med <= hi + 1e-12)
    assert prof.random_band["spearman"][0][-1] > prof.random_band["spearman"][0][0]  # more budget, better agreement
    bs = cache.budget_selection(tsc, cfg, rep, "fafi-cosine", "train_size", prof.budgets[3], 0)
    fig = T.budget_profile_chart(prof, bs, "spearman")
    names = [t.name for t in fig.data]
    assert "fafi-cosine" in names and "this subset" in names
    assert "budget" in fig.layout.xaxis.title.text and "train_size" in fig.layout.xaxis.title.text
    wide = cache.budget_profile(tsc, cfg, rep, "random", "train_size", 0, profiles.shares_for(0.7))
    assert wide.budgets[-1] == pytest.approx(cache.costs(tsc, "train_size").total)


def test_budget_step_and_default():
    assert T.budget_step(112.0) == (1.0, "%.1f")  # the default 11.2 is shown in full
    assert T.budget_step(56779.0) == (500.0, "%.0f")
    assert T.budget_step(1.0)[0] == pytest.approx(0.005)
    c = Costs(np.array([5.0, 1.0, 4.0]), "column 'h'", "h")
    assert T.default_budget(c) == pytest.approx(1.0)  # at least the cheapest dataset


# --------------------------------------------------------------------------- coverage


def test_coverage_columns_and_csv_are_formula_safe(hostile):
    cfg = active_data.make_recipe(hostile, ["facts"], ["size", "hours"])
    rep = active_data.build_representation(hostile, cfg)
    sel = select_datasets(hostile.benchmark, rep, "fafi-euclidean", 3, seed=0)
    cov = cache.subset_coverage(hostile, cfg, rep, sel.datasets, 0)
    assert cov is not None
    table = T.subset_table(hostile, cfg, sel, cov=cov)
    assert list(table.columns[:5]) == ["order", "dataset", "n_represented", "represents", "farthest_member_distance"]
    assert table["n_represented"].sum() == len(HOSTILE) - 3
    members = cov.members()
    assert table["represents"].tolist() == ["; ".join(members[d]) for d in sel.datasets]
    csv_bytes, side = T.subset_files(hostile, cfg, sel, cov=cov)
    text = csv_bytes.decode()
    df = pd.read_csv(io.BytesIO(csv_bytes), keep_default_na=False, comment="#")
    for col in ("dataset", "represents"):
        for cell in df[col].astype(str):
            assert not cell.startswith(("=", "+", "-", "@")), (col, cell)
    # every name is in the file (chosen in 'dataset', the others in 'represents'), none as a live formula
    assert "=cmd|' /C calc'!A0" in text and "<img src=x onerror=alert(1)>" in text
    assert all(not str(c).startswith(("=", "+", "-", "@")) for c in df.columns)
    meta = json.loads(side)
    assert meta["mode"] == "k" and meta["coverage"]["covering_radius"] == pytest.approx(cov.radius)
    assert meta["coverage"]["poorly_covered"] == list(cov.poorly_covered)


def test_hostile_represents_cell_is_neutralised():
    from subsetsel_core.outputs.export import subset_csv

    df = pd.DataFrame({"order": [1], "dataset": ["ok"], "n_represented": [2],
                       "represents": ["=cmd|' /C calc'!A0; <img src=x onerror=alert(1)>"]})
    out = pd.read_csv(io.StringIO(subset_csv(df)))
    assert out["represents"][0].startswith("'=cmd")


def test_coverage_lines_trace_joins_each_unchosen_dataset_to_its_representative():
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    names = ["a", "b", "<c>", "d"]
    fig = maps.map_figure(coords, names, selected=[0, 3])
    maps.add_coverage_lines(fig, coords, names, [0, 0, 0, 3], poorly=[2])
    assert fig.data[0].name == "datasets"
    assert fig.data[1].name == maps.COVERAGE_TRACE and fig.data[1].mode == "lines"
    xs = list(fig.data[1].x)
    assert xs == [1.0, 0.0, None, 0.0, 0.0, None]
    assert [t.name for t in fig.data][-2:] == ["selected (in order)", maps.POORLY_COVERED_TRACE]
    assert "&lt;c&gt;" in fig.data[-1].customdata[0][0]


# --------------------------------------------------------------------------- a new model's scores


def test_parse_pasted_comma_tab_header_and_commas_in_names():
    p = P.parse_pasted("dataset,score\nCoffee,0.91\nBeef\t0.8\n\n# note\nA, B and C,75%\nX;0,5\n")
    assert not p.problems
    # numbers are read as in uploaded tables (subsetsel_core.io.numeric_cells): 75% is 0.75, 0,5 is 0.5
    assert p.rows == (("Coffee", None, 0.91), ("Beef", None, 0.8), ("A, B and C", None, 0.75), ("X", None, 0.5))


def test_parse_pasted_reports_bad_numbers_and_missing_separators():
    p = P.parse_pasted("Coffee,abc\nBeef\nGun_Point,\nWafer 0.8\n")
    assert p.rows == (("Wafer", None, 0.8),) and len(p.problems) == 2
    assert "line 2 has no score" in p.problems[0]
    assert "not a number" in p.problems[1] and "line 1" in p.problems[1] and "line 3" in p.problems[1]


def test_check_scores_suggests_close_names_and_lists_missing(tsc):
    subset = ["Coffee", "Beef", "GunPoint"]
    p = P.check_scores(P.parse_pasted("cofee,0.9\nBeef,0.8\nGunPoint,0.7\nWafer,0.9\n"), tsc, subset)
    text = " ".join(p.problems)
    assert "not datasets of this benchmark" in text and "did you mean 'Coffee'" in text
    assert "no score for 1 of the 3 chosen datasets" in text
    assert any("Wafer" in n and "ignored" in n for n in p.notes)
    dup = P.check_scores(P.parse_pasted("Coffee,0.9\nCoffee,0.8\nBeef,0.8\nGunPoint,0.7\n"), tsc, subset)
    assert any("more than once" in m for m in dup.problems)
    pct = P.check_scores(P.parse_pasted("Coffee,91\nBeef,80\nGunPoint,70\n"), tsc, subset)
    assert not pct.problems and any("scale" in n for n in pct.notes)
    assert P.check_scores(P.parse_pasted(""), tsc, subset).problems


def test_parse_upload_reads_dataset_score_and_two_column_files(tsc):
    ok = P.parse_upload("s.csv", b"dataset,score\nCoffee,0.9\nBeef,0.8\n")
    assert ok.rows == (("Coffee", None, 0.9), ("Beef", None, 0.8)) and not ok.problems
    two = P.parse_upload("s.csv", b"name,accuracy\nCoffee,0.9\nBeef,0.8\n")
    assert [r[0] for r in two.rows] == ["Coffee", "Beef"]
    bad = P.parse_upload("s.csv", b"a,b,c\n1,2,3\n")
    assert bad.problems and "'dataset' and a 'score' column" in bad.problems[0]
    nan = P.parse_upload("s.csv", b"dataset,score\nCoffee,x\n")
    assert nan.problems and "non-numeric" in nan.problems[0]


def test_placement_of_an_existing_model_lands_near_its_true_position(tsc):
    board = tsc.benchmark.leaderboard()
    held = board["model"].iloc[3]
    sub = tsc.benchmark.subset(models=[m for m in tsc.benchmark.models if m != held])
    data = active_data.ActiveData("tsc-minus-one", "tsc", "upload", sub, tsc.tables, tsc.specs, tsc.report)
    cfg = active_data.table_recipe(data, "ucr_info")
    rep = active_data.build_representation(data, cfg)
    subset = list(select_datasets(sub, rep, "kmeans", 15, seed=0).datasets)
    j = tsc.benchmark.models.index(held)
    text = "\n".join(f"{d},{tsc.benchmark.scores[tsc.benchmark.datasets.index(d), :, j].mean():.6f}" for d in subset)
    parsed = P.check_scores(P.parse_pasted(text), data, subset)
    assert not parsed.problems
    pl = cache.placement(data, tuple(subset), parsed.rows, "held out", 0)
    lo, hi = pl.position_interval
    assert lo <= 4 + 3 and hi >= 4 - 3 and lo <= pl.position <= hi
    fig = rankings.placement_figure(cache.leaderboard(data), pl.model, pl.estimated_mean_rank, pl.mean_rank_interval)
    assert [t.name for t in fig.data] == ["existing models", "held out (estimate, 95% interval)"]
    assert fig.layout.shapes and fig.layout.shapes[0].x0 == pytest.approx(pl.mean_rank_interval[0])
    assert "<b>→ held out</b>" in list(fig.layout.yaxis.categoryarray)


# --------------------------------------------------------------------------- the page (AppTest)


@pytest.fixture(scope="module")
def app():
    return H.goto(H.new_app(), "select")


def _table(at):
    return at.dataframe[0].value


def test_page_k_mode_has_coverage_lines_radius_and_columns(app):
    at = app
    assert not H.errors(at)
    svg = H.markup(at, "ss-map")
    lines = re.search(r'<path class="ss-cover" d="([^"]*)"', svg)
    assert lines is not None and lines.group(1).count("M") == 112 - 10  # one line per unchosen dataset
    table = _table(at)
    assert [d for _, d in H.svg_selection(svg)] == list(table["dataset"])
    rings = [html.unescape(r) for r in re.findall(r'<circle class="ss-poor" data-dataset="([^"]*)"', svg)]
    assert list(table.columns[:5]) == ["order", "dataset", "n_represented", "represents", "farthest_member_distance"]
    assert table["n_represented"].sum() == 112 - 10
    assert any(m.label == "Covering radius" for m in at.metric)
    assert any("Not covered well" in m.value for m in at.markdown)
    # the CSV of this subset (the button's callable uses the same function)
    data = at.session_state["data"]
    sel = select_datasets(data.benchmark, active_data.build_representation(data, active_data.table_recipe(data, "ucr_info")),
                          "fafi-cosine", 10, seed=0)
    cfg = active_data.table_recipe(data, "ucr_info")
    rep = active_data.build_representation(data, cfg)
    cov = cache.subset_coverage(data, cfg, rep, sel.datasets, 0)
    csv_bytes, side = T.subset_files(data, cfg, sel, cov=cov)
    df = pd.read_csv(io.BytesIO(csv_bytes), comment="#")
    assert list(df.columns[:4]) == ["order", "dataset", "n_represented", "represents"]
    assert list(df["dataset"]) == list(table["dataset"])
    assert json.loads(side)["coverage"]["covering_radius"] > 0
    assert rings and sorted(rings) == sorted(cov.poorly_covered)  # ringed on the map
    # the radius and the list are rounded by the registry (subsetsel_core.text.rounding), not a fixed format
    radius = next(m for m in at.metric if m.label == "Covering radius")
    assert radius.value == rounding.text(cov.radius, "distance")
    listed = next(m.value for m in at.markdown if "Not covered well" in m.value)
    assert f"farther than {rounding.text(cov.threshold, 'distance')}" in listed
    d = next(i for i, name in enumerate(cov.datasets) if name == cov.poorly_covered[0])
    assert f"({rounding.text(float(cov.distance[d]), 'distance')}, nearest " in listed
    # the toggle removes the lines
    at.toggle(key="sel_coverage").set_value(False)
    at.run()
    svg = H.markup(at, "ss-map")
    assert "ss-cover" not in svg.replace(".ss-cover{", "") and 'class="ss-poor"' not in svg
    # the zoomable map draws the same lines as a plotly trace
    at.toggle(key="sel_coverage").set_value(True)
    at.toggle(key="sel_zoom").set_value(True)
    at.run()
    mp = next(s for s in H.plotly_specs(at) if "selected (in order)" in H.trace_names(s))
    assert H.trace_names(mp)[:2] == ["datasets", maps.COVERAGE_TRACE]
    plotted = mp["data"][1]
    assert plotted["mode"] == "lines" and len(plotted["x"]) == 3 * (112 - 10)
    at.toggle(key="sel_zoom").set_value(False)
    at.run()


def test_page_budget_mode_changes_table_costs_and_agreement(app):
    at = app
    k_agree = {m.label: m.value for m in at.metric}
    at.radio(key="sel_mode").set_value("a total budget")
    at.run()
    assert not H.errors(at)
    assert at.selectbox(key="sel_cost").value == COST_ESTIMATE
    assert any("series_length, train_size, test_size" in c.value.replace("\\", "") for c in at.caption)
    at.selectbox(key="sel_cost").select("train_size")
    at.run()
    total = float(pd.to_numeric(at.session_state["data"].tables["ucr_info"]["train_size"]).sum())
    budget = at.number_input(key="sel_budget")
    assert budget.value == pytest.approx(float(f"{0.1 * total:.3g}"))
    whole = next(m for m in at.metric if m.label == "Whole benchmark's cost")  # the whole benchmark's cost is shown
    assert whole.value == f"{total:,.0f}" and "10.0%" in whole.proto.delta
    table = _table(at)
    assert list(table.columns[:4]) == ["order", "dataset", "cost", "cumulative_cost"]
    assert table["cumulative_cost"].iloc[-1] <= budget.value + 1e-9
    n_small = len(table)
    b_agree = {m.label: m.value for m in at.metric}
    assert b_agree["Spearman ρ"] != k_agree["Spearman ρ"] or n_small != 10
    assert len(H.svg_selection(H.markup(at, "ss-map"))) == n_small
    prof = next(s for s in H.plotly_specs(at) if "this subset" in H.trace_names(s))
    assert "random datasets that fit (median, 95% band)" in H.trace_names(prof)
    assert "budget" in prof["layout"]["xaxis"]["title"]["text"]
    # more budget: more datasets
    at.number_input(key="sel_budget").set_value(0.3 * total)
    at.run()
    assert not H.errors(at)
    assert len(_table(at)) > n_small and _table(at)["cumulative_cost"].iloc[-1] <= 0.3 * total + 1e-9
    for strategy in [s for s in BUDGET_STRATEGIES if s != "fafi-cosine"]:
        at.selectbox(key="sel_budget_strategy").select(strategy)
        at.run()
        assert not H.errors(at), strategy
        assert _table(at)["cumulative_cost"].iloc[-1] <= 0.3 * total + 1e-9
    names = {b.proto.label for b in at.get("download_button")}
    assert {"Subset CSV", "JSON sidecar"} <= names
    # too small a budget: a clear message, not a traceback
    at.number_input(key="sel_budget").set_value(0.5)
    at.run()
    assert not at.exception
    assert any("No dataset fits" in w.value for w in at.warning)
    at.selectbox(key="sel_budget_strategy").select("fafi-cosine")
    at.radio(key="sel_mode").set_value("k datasets")
    at.run()
    assert not H.errors(at) and len(_table(at)) == 10


def test_page_pasted_scores_place_a_new_model(app):
    at = app
    subset = list(_table(at)["dataset"])
    b = at.session_state["data"].benchmark
    j = b.models.index(b.leaderboard()["model"].iloc[0])
    text = "dataset,score\n" + "\n".join(f"{d}\t{b.scores[b.datasets.index(d), :, j].mean() + 0.01:.4f}" for d in subset)
    at.text_input(key="pl_name").input("my model")
    at.text_area(key="pl_text").input(text)
    at.run()
    assert not H.errors(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Estimated position"].endswith(f"of {b.n_models + 1}")
    assert int(metrics["Estimated position"].split()[0]) <= 5
    assert "–" in metrics["95 % interval"]
    fig = next(s for s in H.plotly_specs(at) if "existing models" in H.trace_names(s))
    assert "my model (estimate, 95% interval)" in H.trace_names(fig)


def test_page_bad_pasted_scores_give_clear_messages(app):
    at = app
    subset = list(_table(at)["dataset"])
    lines = [f"{d},0.9" for d in subset[1:]] + [f"{subset[0].lower()}x,0.9", "Wafer,abc"]
    at.text_area(key="pl_text").input("\n".join(lines))
    at.run()
    assert not at.exception
    errs = [e.value.lower() for e in at.error]
    assert any("not a number" in e and "wafer" in e for e in errs)
    assert any("not datasets of this benchmark" in e and "did you mean" in e for e in errs)
    assert any("no score for 1 of the 10 chosen datasets" in e for e in errs)
    assert not any(m.label == "Estimated position" for m in at.metric)
    at.text_input(key="pl_name").input(at.session_state["data"].benchmark.models[0])
    at.text_area(key="pl_text").input("\n".join(f"{d},0.9" for d in subset))
    at.run()
    assert not at.exception
    assert any("already a model of the benchmark" in e.value for e in at.error)
    at.text_area(key="pl_text").input("")
    at.text_input(key="pl_name").input("new model")
    at.run()
    assert not H.errors(at)


@pytest.mark.parametrize("strategy", ["kmeans", "fafi-cosine"])
def test_cli_recipe_replays_the_dashboard_download_byte_for_byte(tsc, tmp_path, strategy):
    from subsetsel_core.cli.main import main

    rec = active_data.table_recipe(tsc, "ucr_info")
    rep = active_data.build_representation(tsc, rec)
    sel = cache.selection(tsc, rec, rep, strategy, 7, 3, include=("Adiac",), exclude=("Wafer",))
    cov = cache.subset_coverage(tsc, rec, rep, tuple(sel.datasets), 3)
    csv_bytes, side_bytes = T.subset_files(tsc, rec, sel, cov=cov)
    (tmp_path / "side.json").write_bytes(side_bytes)
    rc = main(["select", "--benchmark", str(H.ROOT / "sample_data" / "tsc_bakeoff"), "--recipe",
               str(tmp_path / "side.json"), "--out", str(tmp_path / "cli.csv"), "--sidecar", str(tmp_path / "cli.json")])
    assert rc == 0
    # the same subset, table and recipe; only the provenance says what made each file
    cli_meta, cli_body = split_comments((tmp_path / "cli.csv").read_text(encoding="utf-8"))
    app_meta, app_body = split_comments(csv_bytes.decode("utf-8"))
    assert cli_body == app_body
    assert {k: v for k, v in cli_meta.items() if k not in PROVENANCE_KEYS} == \
        {k: v for k, v in app_meta.items() if k not in PROVENANCE_KEYS}
    assert app_meta["made_by"] == "dashboard" and cli_meta["made_by"] == "command line"
    cli_side, app_side = json.loads((tmp_path / "cli.json").read_bytes()), json.loads(side_bytes)
    assert cli_side.pop("provenance")["input_sha256"] and app_side.pop("provenance")["input_sha256"]
    assert cli_side == app_side
