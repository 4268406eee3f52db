"""App-side building blocks without a page: model, analysis, projection, figures, exports."""

from __future__ import annotations

import io
import json

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_app import analysis, model, projection, projection_worker, selectview
from subsetsel_app.ui import md_escape
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.evaluation.protocol import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.selection import select_datasets
from subsetsel_core.viz import figures


@pytest.fixture(scope="module")
def mmlu() -> model.ActiveData:
    return model.load_folder_data(H.ROOT / "sample_data" / "mmlu")


@pytest.fixture(scope="module")
def tsc() -> model.ActiveData:
    return model.load_folder_data(H.ROOT / "sample_data" / "tsc_bakeoff")


# --------------------------------------------------------------------------- model


def test_tables_sharing_a_file_are_joined_once(mmlu):
    comb = model.combined_table(mmlu, ["subjects", "description"])
    assert list(comb.table.columns).count("category") == 1
    assert model.default_columns(mmlu, ["subjects", "description"]) == ["category", "n_test_questions", "description"]
    assert "emb_000" not in comb.pickable


def test_embedding_tables_are_used_in_full(mmlu):
    cfg = model.make_config(mmlu, ["minilm"])
    rep = model.build_representation_for(mmlu, cfg)
    assert rep.X.shape[0] == 57 and rep.X.shape[1] > 300
    assert model.hover_frame(mmlu, cfg).shape == (57, 0)


def test_config_names_show_non_defaults(tsc):
    assert model.table_config(tsc, "ucr_info").name == "ucr_info"
    cfg = model.make_config(tsc, ["ucr_info", "description"], ["type", "n_classes"], text=False, log=True, pca=0.9)
    assert cfg.name == "ucr_info+description/2 cols,no text,log,PCA 90%"
    assert model.make_config(tsc, ["ucr_info"], model.default_columns(tsc, ["ucr_info"])).columns is None
    assert hash(cfg) == hash(model.make_config(tsc, ["ucr_info", "description"], ["type", "n_classes"], text=False,
                                               log=True, pca=0.9))


def test_colour_values(tsc):
    assert model.color_values(tsc, model.NO_COLOR) is None
    s = model.color_values(tsc, "series_length")
    assert s.dtype.kind in "fi" and len(s) == 112
    assert model.color_values(tsc, "type").nunique() > 3
    assert model.color_values(tsc, "description") is None  # free text
    assert model.color_values(tsc, model.MEAN_SCORE).between(0, 1).all()


# --------------------------------------------------------------------------- analysis


def _planted(n: int = 40, m: int = 12, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    models = rng.normal(size=(m, 2))
    err = ((z[:, None, :] - models[None]) ** 2).sum(-1)
    ranks = err.argsort(1).argsort(1) + 1.0
    return z, ranks


def test_geometry_agreement_finds_planted_structure():
    z, ranks = _planted()
    good = analysis.geometry_agreement(z, ranks, n_permutations=99)
    assert good.rho > 0.4 and good.p_value <= 0.02 and good.strength() == "strong"
    noise = np.random.default_rng(5).normal(size=z.shape)
    bad = analysis.geometry_agreement(noise, ranks, n_permutations=99)
    assert abs(bad.rho) < 0.15 and bad.p_value > 0.05 and bad.strength() == "none"
    assert good.desc_dist.shape == good.rank_dist.shape == (40 * 39 // 2,)


def test_rank_distance_of_identical_and_reversed_rankings():
    r = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [4, 3, 2, 1], [2, 2, 2, 2]], float)
    d = analysis.rank_distance(r)
    # pairs: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    np.testing.assert_allclose(d, [0, 2, 1, 2, 1, 1])


def test_k_profile_matches_single_selections(tsc):
    rep = model.build_representation_for(tsc, model.table_config(tsc, "ucr_info"))
    ks = np.arange(1, 8)
    for strategy in ("fafi-cosine", "kmeans"):
        prof = analysis.k_profile(tsc.benchmark, rep.X, strategy, ks, seed=3)
        for k in (2, 5, 7):
            sel = select_datasets(tsc.benchmark, rep, strategy, k, seed=3)
            assert prof["spearman"][k - 1] == pytest.approx(sel.agreement["spearman"])
            assert prof["mae"][k - 1] == pytest.approx(sel.agreement["mae"])


def test_random_profile_bands(tsc):
    band = analysis.random_profile(tsc.benchmark, [1, 5, 50, 112], draws=50, seed=0)
    med, lo, hi = band["spearman"]
    assert (lo <= med).all() and (med <= hi).all()
    assert med[-1] == pytest.approx(1.0) and hi[-1] - lo[-1] == pytest.approx(0.0)
    assert med[2] > med[0]


def _result(good: np.ndarray, base: np.ndarray, complete: bool = True) -> EvaluationResult:
    cfg = EvaluationConfig(strategies=("random", "fafi-cosine"), trials=len(base), k_min=2, k_max=6,
                           metrics=("spearman",))
    ks = np.arange(2, 7)
    entries = (Entry("random", "random", None), Entry("fafi-cosine", "fafi-cosine", "facts"))
    return EvaluationResult(cfg, ks, entries, {"random": {"spearman": base}, "fafi-cosine": {"spearman": good}},
                            len(base), complete, {"benchmark": "b", "pool_datasets": 10, "pool_models": 5})


def test_verdict_significant_and_not():
    rng = np.random.default_rng(0)
    base = np.clip(0.7 + 0.05 * rng.normal(size=(30, 5)), -1, 1)
    text = analysis.verdict(_result(base + 0.1, base), "spearman")
    assert text.startswith("fafi-cosine on facts beats random on Spearman ρ, p < 0.001 (Holm")
    good_k5 = (base + 0.1)[:, 3].mean()
    assert f"with k = 5 it reaches {good_k5:.2f} [" in text and f"(random: {base[:, 3].mean():.2f} [" in text
    flat = analysis.verdict(_result(base, base), "spearman")
    assert flat.startswith("No strategy beats random significantly on Spearman ρ")
    partial = analysis.verdict(_result(base + 0.1, base, complete=False), "spearman")
    assert partial.startswith("Preliminary (30 of 30 trials)")
    one = analysis.verdict(_result(base[:1] + 0.1, base[:1]), "spearman")
    assert "Not enough to compare yet" in one


# --------------------------------------------------------------------------- projection


def test_pca_projection_is_immediate_and_deterministic():
    X = np.random.default_rng(0).normal(size=(30, 5))
    a = projection_worker.pca_2d(X)
    b = projection_worker.pca_2d(X * 3 + 1)
    np.testing.assert_allclose(a, b, atol=1e-9)
    assert projection_worker.pca_2d(np.ones((5, 3))).shape == (5, 2)


def test_slow_projection_runs_in_the_background_then_swaps_in():
    p = projection.Projector("thread")
    X = np.random.default_rng(0).normal(size=(40, 6))
    first = p.project("key", X, "t-SNE", 0)
    assert first.pending and first.method == "PCA" and first.requested == "t-SNE"
    assert p.wait("key", "t-SNE", 0, timeout=120)
    assert p.is_ready("key", "t-SNE", 0)
    done = p.project("key", X, "t-SNE", 0)
    assert not done.pending and done.method == "t-SNE" and done.coords.shape == (40, 2)
    assert p.project("key", X, "PCA", 0).method == "PCA"


def test_projection_off_and_failures_fall_back_to_pca():
    X = np.random.default_rng(0).normal(size=(12, 3))
    off = projection.Projector("off").project("k", X, "UMAP", 0)
    assert off.method == "PCA" and not off.pending and "switched off" in off.error
    p = projection.Projector("thread")
    p.project("k", X, "bogus", 0)
    p.wait("k", "bogus", 0, timeout=30)
    bad = p.project("k", X, "bogus", 0)
    assert bad.method == "PCA" and "unknown projection method" in bad.error


def test_worker_frames_round_trip():
    buf = io.BytesIO()
    projection_worker.write_frame(buf, (3, np.arange(4.0), "UMAP", 1))
    buf.seek(0)
    job = projection_worker.read_frame(buf)
    assert job[0] == 3 and job[2] == "UMAP" and list(job[1]) == [0, 1, 2, 3]
    assert projection_worker.read_frame(buf) is None


# --------------------------------------------------------------------------- figures and exports


def test_map_figure_colours_and_escapes():
    coords = np.arange(12.0).reshape(6, 2)
    names = ["a", "<b>b</b>", "c", "d", "e", "f"]
    cat = figures.map_figure(coords, names, color=pd.Series(list("xxyyzz"), name="kind"))
    assert [t.name for t in cat.data] == ["datasets", "x", "y", "z"]
    assert list(cat.data[0].marker.color) == [figures.CATEGORY_COLORS[i] for i in (0, 0, 1, 1, 2, 2)]
    num = figures.map_figure(coords, names, color=pd.Series(np.arange(6.0), name="size"), selected=[2, 0])
    assert num.data[0].marker.showscale and num.data[-1].name == "selected (in order)"
    bar = num.data[0].marker.colorbar  # the lower 70 %: the legend of the selection keeps the top right
    assert (bar.y, bar.yanchor, bar.len) == (0, "bottom", 0.7)
    assert list(num.data[-1].text) == ["1", "2"]
    assert "&lt;b&gt;b&lt;/b&gt;" in list(num.data[0].customdata[:, 0])


def test_curves_and_auc_figures_use_fixed_strategy_colours():
    rng = np.random.default_rng(0)
    base = 0.7 + 0.05 * rng.normal(size=(12, 5))
    res = _result(base + 0.05, base)
    fig = figures.curves_figure(res.curves_frame(), "spearman")
    means = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.name for t in means] == ["random", "fafi-cosine"]
    assert means[1].line.color == figures.STRATEGY_COLORS["fafi-cosine"]
    auc = figures.auc_figure(res.to_frame(), "spearman")
    assert {t.name for t in auc.data} == {"random", "fafi-cosine"}


def test_subset_csv_is_formula_safe_and_sidecar_complete():
    scores = np.random.default_rng(0).random((4, 1, 3))
    bench = Benchmark(scores, ("=cmd()", "b", "c", "d"), ("m1", "m2", "m3"), name="tiny")
    table = pd.DataFrame({"size": [1, 2, 3, 4]}, index=pd.Index(bench.datasets, name="dataset"))
    data = model.ActiveData("t", "Tiny", "upload", bench, {"facts": table},
                            {}, bench.report)
    cfg = model.make_config(data, ["facts"])
    rep = model.build_representation_for(data, cfg)
    sel = select_datasets(bench, rep, "fafi-euclidean", 3, seed=1)
    csv_bytes, side = selectview.downloads(data, cfg, sel)
    df = pd.read_csv(io.BytesIO(csv_bytes))
    assert list(df.columns) == ["order", "dataset", "size"] and list(df["order"]) == [1, 2, 3]
    assert all(not str(d).startswith("=") for d in df["dataset"])
    meta = json.loads(side)
    for key in ("benchmark", "strategy", "representation", "k", "seed", "datasets", "agreement"):
        assert key in meta
    assert meta["benchmark"] == "tiny" and meta["k"] == 3 and meta["representation"] == "facts"
    assert selectview.file_stem(sel) == "subset_tiny_fafi-euclidean_k3_seed1"


def test_md_escape():
    assert md_escape("a_b*c") == "a\\_b\\*c"
    assert md_escape("$x$ :red[y]") == "\\$x\\$ \\:red\\[y\\]"
    assert md_escape("# title") == "\\# title"
    assert md_escape("plain 0.5 (p)") == "plain 0.5 (p)"


def test_map_with_memo_and_coverage_equals_the_plain_figure():
    """The memo path (base map built once, selection and coverage added as specs) gives the
    figure of the validated path, and its spec passes plotly's checks."""
    import plotly.graph_objects as go
    import plotly.io as pio

    rng = np.random.default_rng(4)
    coords = rng.normal(size=(30, 2))
    names = [f"d<{i}>" for i in range(30)]
    hover = pd.DataFrame({"size": rng.integers(1, 100, 30), "kind": list("ab" * 15)})
    rep = rng.integers(0, 5, 30)
    rep[:5] = np.arange(5)
    for color in (pd.Series(list("xyz" * 10), name="kind"), pd.Series(rng.normal(size=30), name="size"), None):
        plain = figures.map_figure(coords, names, hover=hover, color=color, selected=[3, 0, 4], method="PCA")
        figures.add_coverage_lines(plain, coords, names, rep, poorly=[7])
        memo: dict[str, object] = {}
        figures.map_figure(coords, names, hover=hover, color=color, selected=[1], method="PCA", memo=memo)
        fast = figures.map_figure(coords, names, hover=hover, color=color, selected=[3, 0, 4], method="PCA",
                                  representative=rep, poorly=[7], memo=memo)
        spec = json.loads(pio.to_json(fast, validate=False))
        assert spec == json.loads(pio.to_json(plain, validate=False))
        go.Figure(spec)  # plotly's checks
        again = figures.map_figure(coords, names, hover=hover, color=color, method="PCA", memo=memo)
        assert [t.name for t in again.data].count("selected (in order)") == 0  # the memo is not changed


def test_umap_compiled_code_is_kept_between_servers():
    """The projection worker turns numba's disk cache on for UMAP's compiled functions
    (its first fit in a new server then reuses the code instead of compiling for ~25 s)."""
    umap_ = pytest.importorskip("umap.umap_")
    from numba.core.registry import CPUDispatcher

    compiled = [f for f in vars(umap_).values() if isinstance(f, CPUDispatcher)]
    assert compiled
    projection_worker._cache_compiled("umap")
    assert {type(f._cache).__name__ for f in compiled} == {"FunctionCache"}
