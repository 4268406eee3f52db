"""The ``partial`` and ``complete-block`` missing-score policies (PROTOCOL.md, "Missing scores")."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.stability import full_stability
from subsetsel_core.io.missing_scores import complete_block
from subsetsel_core.ranks.metrics import agreement
from subsetsel_core.ranks.table import RankTable, partial_rank_vectors
from subsetsel_core.selection.profiles import k_profile, random_profile
from subsetsel_core.selection.subsets import subset_agreement
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.workspace.files import Workspace, load_workspace, save_workspace

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
MTEB_GAPS = SHARED / "test-only" / "mteb_eng_v1" / "scores_with_gaps.csv"
FEW = EvaluationConfig(trials=4, strategies=("random", "kmeans", "fafi-euclidean"), k_max=8)


def _synthetic(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    syn = make_synthetic(n_datasets=24, n_models=9, n_folds=3, seed=seed)
    return syn.scores, syn.oracle


def _gappy(scores: pd.DataFrame, share: float = 0.2, seed: int = 1) -> pd.DataFrame:
    """Remove whole (dataset, model) cells at random, keeping every model somewhere."""
    rng = np.random.default_rng(seed)
    cells = scores[["dataset", "model"]].drop_duplicates()
    gone = cells.sample(frac=share, random_state=int(rng.integers(1 << 30)))
    key = scores.set_index(["dataset", "model"]).index
    return scores[~key.isin(pd.MultiIndex.from_frame(gone))].reset_index(drop=True)


def _rep(features: pd.DataFrame, benchmark: Benchmark):  # type: ignore[no-untyped-def]
    from subsetsel_core.representations.descriptors import build_representation

    return build_representation(features.set_index("dataset"), benchmark.datasets, name="oracle")


def test_rescaled_ranks_by_hand() -> None:
    # one dataset, two folds, four models; higher is better
    s = np.array([[[0.9, 0.5, np.nan, 0.7], [0.2, np.nan, np.nan, 0.4]]])
    r = partial_rank_vectors(s, higher_is_better=True)
    # fold 0: m0 1st, m3 2nd, m1 3rd of 3 present → rescaled to 1…4: 1, 2.5, 4
    # fold 1: m3 1st, m0 2nd of 2 → 1, 4
    assert r[0, 0] == pytest.approx((1 + 4) / 2)
    assert r[0, 1] == pytest.approx(4.0)
    assert np.isnan(r[0, 2])
    assert r[0, 3] == pytest.approx((2.5 + 1) / 2)


def test_a_fold_with_one_model_contributes_nothing() -> None:
    s = np.array([[[0.9, np.nan, np.nan], [0.1, 0.3, 0.2]]])
    r = partial_rank_vectors(s, higher_is_better=True)
    assert r[0].tolist() == pytest.approx([3.0, 1.0, 2.0])  # only fold 1 ranks


def test_complete_table_partial_equals_complete() -> None:
    scores, features = _synthetic()
    complete = load_scores(scores, higher_is_better=False)
    partial = load_scores(scores, higher_is_better=False, missing="partial")
    assert partial.partial and not partial.has_gaps
    a = evaluate(complete, _rep(features, complete), FEW)
    b = evaluate(partial, _rep(features, partial), FEW)
    for key in a.values:
        for m in a.values[key]:
            assert np.array_equal(a.values[key][m], b.values[key][m])
    assert b.covered == {}
    pd.testing.assert_frame_equal(complete.leaderboard(), partial.leaderboard())


def test_partial_kind_on_a_complete_table_matches_to_rounding() -> None:
    scores, _ = _synthetic(3)
    b = load_scores(scores, higher_is_better=False)
    exact = b.rank_table
    forced = RankTable.of(b.scores, b.higher_is_better, partial=True)
    idx = [0, 3, 5, 8]
    v1, c1 = exact.agreement(exact.reference(), exact.rows[idx].sum(0)[None], ref_count=b.n_datasets, sub_count=4)
    v2, c2 = forced.agreement(forced.reference(), forced.rows[idx].sum(0)[None], ref_count=b.n_datasets, sub_count=4)
    for m in v1:
        assert v2[m][0] == pytest.approx(v1[m][0], abs=1e-9)
    assert c1[0] == c2[0] == 1.0


def test_partial_keeps_every_model_and_dataset() -> None:
    scores, features = _synthetic()
    gappy = _gappy(scores)
    with pytest.raises(InputError, match="partial"):
        load_scores(gappy, higher_is_better=False)
    b = load_scores(gappy, higher_is_better=False, missing="partial")
    assert b.has_gaps
    assert (b.n_datasets, b.n_models) == (24, 9)
    res = evaluate(b, _rep(features, b), FEW)
    share = res.covered_share("kmeans")
    assert share.shape == (len(res.ks),) and (0 < share).all() and (share <= 1).all()
    assert share[-1] >= share[0]  # more datasets rank more models
    assert res.coverage_sentence() and "partial" in res.coverage_sentence()
    assert "models_covered" in res.to_json_dict()["results"]["kmeans"]
    lb = b.leaderboard()
    assert "datasets" in lb and lb["datasets"].max() <= 24 and lb["datasets"].min() < 24


def test_metrics_use_the_models_both_rankings_cover() -> None:
    # dataset d2 lacks model m2; a subset {d2} ranks only m0, m1, m3
    rows = []
    for d, vals in {"d0": [4, 3, 2, 1], "d1": [1, 2, 3, 4], "d2": [3, 1, None, 2]}.items():
        rows += [(d, f"m{i}", v) for i, v in enumerate(vals) if v is not None]
    b = load_scores(pd.DataFrame(rows, columns=["dataset", "model", "score"]), fold_column=None, missing="partial")
    got = subset_agreement(b, [2])
    rv = b.rank_vectors
    ref = np.nanmean(rv, axis=0)
    keep = ~np.isnan(rv[2])
    want = agreement(ref[keep], rv[2][keep][None])
    for m, v in want.items():
        assert got[m] == pytest.approx(float(v[0]))
    # d2's ranks are rescaled from 1…3 to 1…4
    assert sorted(rv[2][keep].tolist()) == [1.0, 2.5, 4.0]


def test_model_without_any_score_is_an_input_error() -> None:
    rows = [(d, m, float(i + j)) for i, d in enumerate(["a", "b", "c"]) for j, m in enumerate(["x", "y"])]
    rows.append(("a", "z", float("nan")))
    df = pd.DataFrame(rows, columns=["dataset", "model", "score"])
    with pytest.raises(InputError, match="'z'|z\\b") as e:
        load_scores(df, fold_column=None, missing="partial")
    assert e.value.field == "missing"


def test_dataset_that_ranks_nothing_stays_and_adds_nothing() -> None:
    rows = [(d, m, float(i * 3 + j)) for i, d in enumerate(["a", "b", "c", "d"]) for j, m in enumerate(["x", "y", "w"])]
    rows = [r for r in rows if not (r[0] == "d" and r[1] != "x")]  # d has a single model
    b = load_scores(pd.DataFrame(rows, columns=["dataset", "model", "score"]), fold_column=None, missing="partial")
    assert b.datasets == ("a", "b", "c", "d")  # 'partial' keeps every dataset
    assert any("rank no model" in f.message for f in b.report.findings)
    assert np.isnan(b.rank_vectors[3]).all()
    alone = subset_agreement(b, [3])  # a subset that ranks nothing: every model tied
    assert alone["spearman"] == 0.0 and alone["kendall"] == 0.0
    assert subset_agreement(b, [0, 3]) == subset_agreement(b, [0])  # d adds nothing


def test_ndcg_on_partly_covered_cells_stays_in_bounds() -> None:
    rng = np.random.default_rng(5)
    rows = [(f"d{d}", f"m{m}", float(rng.random())) for d in range(12) for m in range(10)
            if rng.random() > 0.6 or m == d % 10]
    b = load_scores(pd.DataFrame(rows, columns=["dataset", "model", "score"]), fold_column=None, missing="partial")
    res = evaluate(b, [], EvaluationConfig(trials=10, strategies=("random",), k_min=1, k_max=6))
    v = res.values["random"]["ndcg5"]
    assert (v >= 0).all() and (v <= 1 + 1e-12).all()
    assert res.covered_share("random")[0] < 1
    # a perfectly ordered partly covered cell scores 1
    t = b.rank_table
    ref = t.means(t.reference())
    for d in range(b.n_datasets):
        cov = ~np.isnan(b.rank_vectors[d])
        order = np.argsort(np.argsort(ref[cov])) + 1.0  # the reference's own order on the covered models
        fake = np.full(b.n_models, np.nan)
        fake[cov] = order
        rows_ = np.hstack([np.nan_to_num(fake), (~np.isnan(fake)).astype(float)])
        vals, _ = t.agreement(t.reference(), rows_[None], ref_count=b.n_datasets, sub_count=1)
        assert vals["ndcg5"][0] == pytest.approx(1.0) and vals["spearman"][0] == pytest.approx(1.0)


def test_workspace_refuses_a_partial_table_with_an_unranked_model() -> None:
    import io
    import zipfile

    scores, _ = _synthetic()
    b = load_scores(_gappy(scores), higher_is_better=False, missing="partial")
    data = save_workspace(Workspace(b, {}, {}, {}))
    bad = b.scores.copy()
    bad[:, :, 0] = np.nan  # the first model loses every score
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for item in src.infolist():
            raw = src.read(item.filename)
            if item.filename == "scores.npy":
                out = io.BytesIO()
                np.save(out, bad)
                raw = out.getvalue()
            dst.writestr(item, raw)
    with pytest.raises(InputError, match="without a score"):
        load_workspace(buf.getvalue())


def test_complete_block_rule() -> None:
    nan = np.zeros((4, 1, 4), bool)
    nan[0, 0, :3] = True  # dataset 0 misses 3 of 4 (75 %)
    nan[1:, 0, 3] = True  # model 3 misses 3 of 4 (75 %): a tie → the dataset goes first
    drop_d, drop_m = complete_block(nan)
    assert drop_d == [0] and drop_m == [3]
    # after dropping dataset 0, model 3 misses 3 of 3 → dropped; the table is complete
    nan2 = np.zeros((3, 2, 3), bool)
    nan2[:, :, 2] = True
    assert complete_block(nan2) == ([], [2])


def test_complete_block_policy_reports_what_it_dropped() -> None:
    scores, _ = _synthetic()
    gappy = _gappy(scores, share=0.05)
    b = load_scores(gappy, higher_is_better=False, missing="complete-block")
    assert not b.partial and not np.isnan(b.scores).any()
    msg = " ".join(f.message for f in b.report.findings)
    assert "complete-block" in msg and "dropped" in msg


def test_profiles_stability_and_workspace_with_gaps() -> None:
    scores, features = _synthetic()
    b = load_scores(_gappy(scores), higher_is_better=False, missing="partial")
    rep = _rep(features, b)
    prof = k_profile(b, rep.X, "fafi-euclidean", [2, 4, 8])
    assert np.isfinite(prof["spearman"]).all()
    med, lo, hi = random_profile(b, [2, 4, 8], draws=20)["spearman"]
    assert (lo <= med).all() and (med <= hi).all()
    st = full_stability(b, resamples=50)
    assert len(st.models) == b.n_models and 0 < st.bands["spearman"].mean <= 1
    res = evaluate(b, rep, dataclasses.replace(FEW, trials=2))
    back = load_workspace(save_workspace(Workspace(b, {}, {}, {"run": res})))
    assert back.benchmark.has_gaps
    np.testing.assert_array_equal(back.evaluations["run"].covered["kmeans"], res.covered["kmeans"])
    np.testing.assert_array_equal(np.isnan(back.benchmark.scores), np.isnan(b.scores))


def test_placement_refuses_gaps() -> None:
    from subsetsel_core.selection.placement import place_model

    scores, _ = _synthetic()
    b = load_scores(_gappy(scores), higher_is_better=False, missing="partial")
    with pytest.raises(InputError, match="complete-block"):
        place_model(b, list(b.datasets[:3]), dict.fromkeys(b.datasets[:3], 0.5))


@pytest.mark.skipif(not MTEB_GAPS.is_file(), reason="../shared/data/test-only is not present")
def test_real_mteb_table_with_gaps_keeps_every_model(tmp_path: Path) -> None:
    raw = pd.read_csv(MTEB_GAPS)
    out = tmp_path / "mteb.json"
    run = subprocess.run(
        [sys.executable, "-m", "subsetsel_core", "evaluate", "--scores", str(MTEB_GAPS), "--missing", "partial",
         "--strategies", "random", "--trials", "3", "--k-max", "6", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    assert data["config"]["n_models"] == raw["model"].nunique()
    assert data["config"]["n_datasets"] == raw["dataset"].nunique()
    covered = data["results"]["random"]["models_covered"]
    assert 0 < covered[0] < 1 and covered[-1] >= covered[0]
    blocked = subprocess.run(
        [sys.executable, "-m", "subsetsel_core", "evaluate", "--scores", str(MTEB_GAPS), "--strategies", "random",
         "--trials", "2"], capture_output=True, text=True, timeout=300)
    assert blocked.returncode == 2 and "'partial' keeps every model" in blocked.stderr
