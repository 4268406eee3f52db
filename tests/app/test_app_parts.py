"""App-side building blocks without a page: model, registries, jobs, projection, verdicts, exports."""

from __future__ import annotations

import io
import json

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from pages import PAGES
from subsetsel_app import active_data, jobs, projection, projection_worker, state, upload
from subsetsel_app.views import evaluate
from subsetsel_app.views.select import file_stem, subset_files
from subsetsel_app.widgets import md_escape
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.evaluation.result import Entry, EvaluationConfig, EvaluationResult
from subsetsel_core.representations import projection as projection_2d
from subsetsel_core.selection.subsets import select_datasets
from subsetsel_core.viz import curves, maps, style


@pytest.fixture(scope="module")
def mmlu() -> active_data.ActiveData:
    return active_data.load_folder_data(H.ROOT / "sample_data" / "mmlu")


@pytest.fixture(scope="module")
def tsc() -> active_data.ActiveData:
    return active_data.load_folder_data(H.ROOT / "sample_data" / "tsc_bakeoff")


# --------------------------------------------------------------------------- registries


def test_pages_registry_matches_the_page_files():
    files = sorted(p.name for p in (H.ROOT / "pages").glob("*.py") if p.name != "__init__.py")
    assert sorted(p.file.removeprefix("pages/") for p in PAGES) == files
    assert [p.default for p in PAGES].count(True) == 1
    assert len({p.url_path for p in PAGES}) == len(PAGES)


def test_state_keys_table_is_the_one_registry():
    names = {v for n, v in vars(state.K).items() if n.isupper()}
    assert names == set(state.KEYS)
    assert state.SAVED == tuple(k for k, v in state.KEYS.items() if v.saved_in_workspace)
    assert state.KEYS[state.K.SEED].saved_in_workspace and not state.KEYS[state.K.SEED].resets_with_benchmark
    assert state.KEYS[state.K.SEL_INCLUDE].resets_with_benchmark
    ss = {state.K.SEL_INCLUDE: ["x"], state.K.SEED: 5}
    state.reset_for_new_benchmark(ss)
    assert ss[state.K.SEL_INCLUDE] == [] and ss[state.K.SEED] == 5
    assert state.restored(state.K.EV_KRANGE, [2, 9]) == (2, 9)
    assert state.plausible(state.K.SEL_K, 3) and not state.plausible(state.K.SEL_K, "3")


def test_every_error_field_has_a_dashboard_hint():
    from subsetsel_core.errors import FIELDS, InputError

    assert set(upload.FIELD_HINTS) == set(FIELDS)
    exc = InputError("x.csv: 4 rows repeat the same dataset and model.", field="fold_column")
    assert upload.error_text(exc).endswith("Choose it under 'Fold / seed column' above.")
    assert upload.error_text(InputError("plain.")) == "plain."


# --------------------------------------------------------------------------- model


def test_tables_sharing_a_file_are_joined_once(mmlu):
    joined = active_data.joined(mmlu, ["subjects", "description"])
    assert list(joined.table.columns).count("category") == 1
    assert active_data.default_columns(mmlu, ["subjects", "description"]) == ["category", "n_test_questions", "description"]
    assert "emb_000" not in joined.pickable


def test_embedding_tables_are_used_in_full(mmlu):
    rec = active_data.make_recipe(mmlu, ["minilm"])
    rep = active_data.build_representation(mmlu, rec)
    assert rep.X.shape[0] == 57 and rep.X.shape[1] > 300
    assert active_data.hover_frame(mmlu, rec).shape == (57, 0)


def test_recipe_names_show_non_defaults(tsc):
    assert active_data.table_recipe(tsc, "ucr_info").label == "ucr_info"
    rec = active_data.make_recipe(tsc, ["ucr_info", "description"], ["type", "n_classes"], text=False, log=True, pca=0.9)
    assert rec.label == "ucr_info+description/2 cols,no text,log,PCA 90%"
    assert active_data.make_recipe(tsc, ["ucr_info"], active_data.default_columns(tsc, ["ucr_info"])).columns is None
    assert hash(rec) == hash(active_data.make_recipe(tsc, ["ucr_info", "description"], ["type", "n_classes"], text=False,
                                               log=True, pca=0.9))


def test_colour_values(tsc):
    assert active_data.color_values(tsc, active_data.NO_COLOR) is None
    s = active_data.color_values(tsc, "series_length")
    assert s.dtype.kind in "fi" and len(s) == 112
    assert active_data.color_values(tsc, "type").nunique() > 3
    assert active_data.color_values(tsc, "description") is None  # free text
    assert active_data.color_values(tsc, active_data.MEAN_SCORE).between(0, 1).all()
    opts = active_data.color_options(tsc)
    assert opts[0] == active_data.NO_COLOR and opts[-1] == active_data.MEAN_SCORE and active_data.default_color(tsc) == "type"


# --------------------------------------------------------------------------- jobs


def test_jobs_report_progress_stop_and_are_kept_by_key():
    import threading

    from subsetsel_core.errors import Cancelled

    go = threading.Event()

    def work(job: jobs.Job) -> int:
        for i in range(1000):
            job.report(i, f"step {i}")
            if job.should_stop():
                raise Cancelled("stopped")
            go.wait(0.01)
        return 1

    key = ("test-job", id(go))
    job = jobs.submit(key, "a test job", 1000, work)
    assert jobs.get(key) is job and job.running and job.status == "running"
    jobs.stop(key)
    assert job.wait(30) and job.status == "stopped" and job.result is None
    again = jobs.submit(key, "a test job", 3, lambda j: 42)  # a stopped job is replaced
    assert again is not job and again.wait(30) and again.status == "done" and again.result == 42
    assert jobs.submit(key, "a test job", 3, lambda j: 0) is again  # a finished one is the cache
    failed = jobs.submit(("test-job", "fails"), "a failing job", 1, lambda j: 1 / 0)
    assert failed.wait(30) and failed.status == "failed" and "ZeroDivisionError" in failed.error
    jobs.stop(None)
    assert jobs.get(None) is None


def test_evaluation_jobs_validate_before_starting(mmlu):
    from subsetsel_core.errors import InputError

    rep = active_data.build_representation(mmlu, active_data.table_recipe(mmlu, "subjects"))
    with pytest.raises(InputError, match="alpha"):
        jobs.start_evaluation(mmlu.benchmark, {"subjects": rep}, EvaluationConfig(trials=2, alpha=0.01))
    job = jobs.start_evaluation(mmlu.benchmark, {"subjects": rep},
                                EvaluationConfig(strategies=("random", "kmeans"), trials=3, k_max=5, batch_size=1),
                                token=mmlu.token)
    assert job.wait(60) and job.status == "done" and job.done == 3 and job.result.complete
    assert job.request.token == mmlu.token and job.request.representations == ("subjects",)
    back = jobs.restore_evaluation(job.result, token="t", benchmark_name="b")
    assert jobs.get(back.key) is back and back.status == "done" and not back.running


def _result(good: np.ndarray, base: np.ndarray, complete: bool = True) -> EvaluationResult:
    cfg = EvaluationConfig(strategies=("random", "fafi-cosine"), trials=len(base), k_min=2, k_max=6,
                           metrics=("spearman",))
    ks = np.arange(2, 7)
    entries = (Entry("random", "random", None), Entry("fafi-cosine", "fafi-cosine", "facts"))
    return EvaluationResult(cfg, ks, entries, {"random": {"spearman": base}, "fafi-cosine": {"spearman": good}},
                            len(base), complete, {"benchmark": "b", "pool_datasets": 10, "pool_models": 5})


def test_verdict_without_the_permutation_test_is_never_positive():
    rng = np.random.default_rng(0)
    base = np.clip(0.7 + 0.05 * rng.normal(size=(30, 5)), -1, 1)
    v = evaluate.verdict(_result(base + 0.1, base), "spearman")
    assert not v.helps and not v.tested and v.best == "fafi-cosine"
    assert v.text.startswith("Not tested — not tested against shuffled descriptors (the permutation test was "
                             "switched off): the largest gain, fafi-cosine, is +0.400 Spearman ρ-AUC over k = 2…6 over "
                             "random (Wilcoxon p < 1e-4 vs random on these pools")
    flat = evaluate.verdict(_result(base, base), "spearman")
    assert "is +0.00 Spearman" in flat.text and not flat.helps
    partial = evaluate.verdict(_result(base + 0.1, base, complete=False), "spearman")
    assert partial.text.startswith("Preliminary (30 of 30 trials)")
    one = evaluate.verdict(_result(base[:1] + 0.1, base[:1]), "spearman")
    assert "Not enough to compare yet" in one.text


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
    cat = maps.map_figure(coords, names, color=pd.Series(list("xxyyzz"), name="kind"))
    assert [t.name for t in cat.data] == ["datasets", "x", "y", "z"]
    assert list(cat.data[0].marker.color) == [style.CATEGORY_COLORS[i] for i in (0, 0, 1, 1, 2, 2)]
    num = maps.map_figure(coords, names, color=pd.Series(np.arange(6.0), name="size"), selected=[2, 0])
    assert num.data[0].marker.showscale and num.data[-1].name == "selected (in order)"
    bar = num.data[0].marker.colorbar  # the lower 70 %: the legend of the selection keeps the top right
    assert (bar.y, bar.yanchor, bar.len) == (0, "bottom", 0.7)
    assert list(num.data[-1].text) == ["1", "2"]
    assert "&lt;b&gt;b&lt;/b&gt;" in list(num.data[0].customdata[:, 0])


def test_curves_and_auc_figures_use_fixed_strategy_colours():
    rng = np.random.default_rng(0)
    base = 0.7 + 0.05 * rng.normal(size=(12, 5))
    res = _result(base + 0.05, base)
    fig = curves.curves_figure(res.curves_frame(), "spearman")
    means = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.name for t in means] == ["random", "fafi-cosine"]
    assert means[1].line.color == style.strategy_color("fafi-cosine")
    auc = curves.auc_figure(res.to_frame(), "spearman")
    assert {t.name for t in auc.data} == {"random", "fafi-cosine"}


def test_subset_csv_is_formula_safe_and_sidecar_complete():
    scores = np.random.default_rng(0).random((4, 1, 3))
    bench = Benchmark(scores, ("=cmd()", "b", "c", "d"), ("m1", "m2", "m3"), name="tiny")
    table = pd.DataFrame({"size": [1, 2, 3, 4]}, index=pd.Index(bench.datasets, name="dataset"))
    data = active_data.ActiveData("t", "Tiny", "upload", bench, {"facts": table}, {}, bench.report)
    rec = active_data.make_recipe(data, ["facts"])
    rep = active_data.build_representation(data, rec)
    sel = select_datasets(bench, rep, "fafi-euclidean", 3, seed=1)
    csv_bytes, side = subset_files(data, rec, sel)
    df = pd.read_csv(io.BytesIO(csv_bytes), comment="#")  # the provenance block: '# key: value' lines
    assert list(df.columns) == ["order", "dataset", "size"] and list(df["order"]) == [1, 2, 3]
    assert all(not str(d).startswith("=") for d in df["dataset"])
    meta = json.loads(side)
    for key in ("benchmark", "strategy", "representation", "k", "seed", "datasets", "agreement"):
        assert key in meta
    assert meta["benchmark"] == "tiny" and meta["k"] == 3 and meta["representation"] == "facts"
    assert meta["representation_recipe"]["tables"] == ["facts"] and meta["benchmark_title"] == "Tiny"
    assert file_stem(sel) == "subset_tiny_fafi-euclidean_k3_seed1"


def test_md_escape():
    assert md_escape("a_b*c") == "a\\_b\\*c"
    assert md_escape("$x$ :red[y]") == "\\$x\\$ \\:red\\[y\\]"
    assert md_escape("# title") == "\\# title"
    assert md_escape("plain 0.5 (p)") == "plain 0.5 (p)"


def test_umap_compiled_code_is_kept_between_servers():
    """The projection worker turns numba's disk cache on for UMAP's compiled functions
    (its first fit in a new server then reuses the code instead of compiling for ~25 s)."""
    umap_ = pytest.importorskip("umap.umap_")
    from numba.core.registry import CPUDispatcher

    compiled = [f for f in vars(umap_).values() if isinstance(f, CPUDispatcher)]
    assert compiled
    projection_2d.cache_compiled("umap")
    assert {type(f._cache).__name__ for f in compiled} == {"FunctionCache"}
