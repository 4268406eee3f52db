"""Numbers a person reads on the dashboard and in its figures follow the one registry
(:mod:`subsetsel_core.text.rounding`), not fixed format strings; JSON keeps full precision."""

from __future__ import annotations

import json

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.evaluation.permutation import p_phrase
from subsetsel_core.text import rounding
from subsetsel_core.text.rounding import QUANTITIES, d3, format_p, printf, text
from subsetsel_core.viz import curves, geometry, rankings, svg

assert H.ROOT  # the import is for its side effect


def test_new_quantities_and_the_d3_format() -> None:
    assert {"agreement_change", "gain_sd", "parameter"} <= set(QUANTITIES)
    assert text(0.01234, "agreement_change") == "+0.012" and text(-0.5, "agreement_change") == "-0.500"
    assert text(0.012345, "gain_sd") == "0.0123" and text(1.23456, "parameter") == "1.23"
    for q, rule in QUANTITIES.items():
        if not rule.percent:  # printf has no percentage (see test_rounding_everywhere)
            assert "%" + d3(q) == printf(q)
    assert d3("mean_rank") == ".3f" and d3("distance") == ".4g" and d3("gain") == "+.3g"


@pytest.fixture()
def board() -> pd.DataFrame:
    return pd.DataFrame({"position": [1, 2, 3], "model": ["a", "b", "c"], "mean_rank": [1.23456, 2.0, 2.76544],
                         "mean_score": [0.9, 0.8, 0.7], "wins": [3, 1, 0]})


def test_leaderboards_show_mean_ranks_by_the_registry(board: pd.DataFrame) -> None:
    fig = rankings.leaderboard_figure(board)
    assert list(fig.data[0].text) == [text(v, "mean_rank") for v in board["mean_rank"][::-1]]
    assert f"%{{x:{d3('mean_rank')}}}" in fig.data[0].hovertemplate
    html = svg.leaderboard_html(board)
    assert ">1.235</span>" in html and ">2.000</span>" in html and "mean rank 2.765" in html
    placed = rankings.placement_figure(board, "new", 1.87654, (1.23456, 2.54321))
    hover = placed.data[-1].hovertemplate
    assert "[1.235, 2.543]" in hover and f"%{{x:{d3('mean_rank')}}}" in hover


def test_figures_use_the_registry_and_format_p() -> None:
    rng = np.random.default_rng(0)
    fig = geometry.geometry_figure(rng.random(60), rng.random(60), rho=0.123456)
    assert any(t.name == f"binned mean (Spearman ρ = {text(0.123456, 'correlation')})" for t in fig.data)
    assert f"%{{x:{d3('distance')}}}" in fig.data[0].hovertemplate
    auc = pd.DataFrame({"metric": "spearman", "strategy": ["random", "kmeans", "fafi"], "key": ["random", "kmeans", "fafi"],
                        "auc_mean": [5.0, 6.123456, 7.0], "auc_norm": [0.5, 0.6123456, 0.7],
                        "auc_lo": [4.5, 5.6543, 6.5], "auc_hi": [5.5, 6.5432, 7.5], "p_vs_random": [np.nan, 0.0234, 1e-6]})
    hovers = {t.name: t.hovertemplate for t in curves.auc_figure(auc, "spearman").data}
    assert p_phrase(0.0234) in hovers["kmeans"] and "p < 1e-4" in hovers["fafi"] and "baseline" in hovers["random"]
    assert f"[{text(0.56543, 'auc_normalised')}, {text(0.65432, 'auc_normalised')}]" in hovers["kmeans"]
    assert format_p(0.0234) == "0.023"


def test_dashboard_tables_format_by_the_registry() -> None:
    from subsetsel_app.views import select as T

    table = pd.DataFrame({"order": [1], "dataset": ["a"], "cost": [1.5], "farthest_member_distance": [0.123456],
                          "mean": [3.0]})  # "mean": a descriptor column, shown as it is
    formats = T.table_formats(table)
    assert set(formats) == {"cost", "farthest_member_distance"}
    assert T.fmt_cost(1234.5678) == "1,235" and T.fmt_cost(12345.6) == "12,346" and T.fmt_cost(2.5e7) == "2.500e+07"


def test_json_keeps_full_precision() -> None:
    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.outputs import export
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.selection.coverage import coverage
    from subsetsel_core.selection.subsets import select_datasets

    rng = np.random.default_rng(3)
    bench = Benchmark(rng.normal(size=(9, 1, 4)), tuple(f"d{i}" for i in range(9)), tuple(f"m{i}" for i in range(4)))
    rep = Representation("f", rng.normal(size=(9, 3)), ("a", "b", "c"), bench.datasets)
    sel = select_datasets(bench, rep, "kmeans", 3, seed=0)
    cov = coverage(rep, list(sel.datasets))
    side = json.loads(export.sidecar_json(export.sidecar(sel, bench, coverage=cov)))
    assert side["coverage"]["covering_radius"] == pytest.approx(cov.radius, rel=1e-15)
    assert side["coverage"]["covering_radius"] != rounding.rounded(cov.radius, "distance")
