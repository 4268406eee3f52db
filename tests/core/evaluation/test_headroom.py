"""Score-aware strategies and the price of a-priori selection (PROTOCOL.md, "Score-aware selection")."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.cli.main import build_parser, main
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.headroom import SplitData, evaluate_headroom, model_splits
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.representations.descriptors import Representation, build_representation
from subsetsel_core.strategies import BUDGET_STRATEGIES, REGISTRY, SCORE_AWARE, STRATEGIES, select
from subsetsel_core.strategies.score_aware import (
    elimination_scores,
    greedy_scores,
    loo_r2,
    ridge_predict,
    standardized_scores,
)
from subsetsel_core.synthetic import make_synthetic

FAST = EvaluationConfig(strategies=("random", "fafi-euclidean", "kmeans"), trials=20, k_min=2, k_max=10,
                        metrics=("spearman", "mae"))


@cache
def _synthetic() -> tuple[Benchmark, Representation, Representation]:
    s = make_synthetic(n_datasets=80, n_models=30, n_folds=3, seed=0)
    bench = load_scores(s.scores, higher_is_better=s.higher_is_better, name="synthetic")
    oracle = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    noise = Representation("noise", np.random.default_rng(5).standard_normal((bench.n_datasets, 6)),
                           tuple(f"z{i}" for i in range(6)), bench.datasets)
    return bench, oracle, noise


def _poisoned(bench: Benchmark, held: np.ndarray, datasets: np.ndarray | None = None, seed: int = 1) -> Benchmark:
    """The benchmark with the held-out models' scores replaced by random values (on ``datasets``, default all)."""
    s = np.array(bench.scores)
    rows = np.arange(bench.n_datasets) if datasets is None else datasets
    s[np.ix_(rows, range(bench.n_folds), held)] = np.random.default_rng(seed).uniform(
        -50, 50, (len(rows), bench.n_folds, len(held)))
    return Benchmark(s, bench.datasets, bench.models, bench.folds, bench.higher_is_better, bench.name)


def _split(bench: Benchmark) -> tuple[np.ndarray, np.ndarray]:
    part = model_splits(bench, splits=1, fraction=0.5, seed=3)[0][0]
    index = {m: i for i, m in enumerate(bench.models)}
    return np.array([index[m] for m in part.judge]), np.array([index[m] for m in part.held_out])


def test_score_aware_strategies_never_see_held_out_scores() -> None:
    bench = _synthetic()[0]
    judge, held = _split(bench)
    pools = np.stack([np.sort(np.random.default_rng(t).choice(bench.n_datasets, 60, replace=False)) for t in range(4)])
    clean = SplitData(bench.scores, False, False, judge, held)
    dirty = SplitData(_poisoned(bench, held).scores, False, False, judge, held)
    ordered = [s for s in SCORE_AWARE if REGISTRY[s].orders is not None]
    assert ordered
    for name in ordered:
        np.testing.assert_array_equal(clean.orders(name, pools, 10), dirty.orders(name, pools, 10))
    # random-regression: H's scores outside the subset change nothing (the fit is J's alone)
    sub = np.stack([np.arange(5)] * 4)
    outside = np.setdiff1d(np.arange(bench.n_datasets), np.unique(np.take_along_axis(pools, sub, axis=1)))
    dirty = SplitData(_poisoned(bench, held, outside).scores, False, False, judge, held)
    np.testing.assert_allclose(clean.predictions(pools, [sub]), dirty.predictions(pools, [sub]), rtol=1e-12)
    # and the scores on the subset do change the predictions (they are the held-out models' input)
    dirty = SplitData(_poisoned(bench, held).scores, False, False, judge, held)
    assert not np.allclose(clean.predictions(pools, [sub]), dirty.predictions(pools, [sub]))


def test_price_near_zero_with_the_latent_geometry_and_large_with_noise() -> None:
    bench, oracle, noise = _synthetic()
    good = evaluate_headroom(bench, oracle, FAST, splits=6).price("spearman")
    bad = evaluate_headroom(bench, noise, FAST, splits=6).price("spearman")
    assert abs(good.mean) < 0.15 and good.lo < 0 < good.hi
    assert bad.lo > 0 and bad.mean > 0.3 and bad.mean > good.mean + 0.3
    assert good.best_score_aware in SCORE_AWARE and good.best_a_priori in FAST.strategies


def test_run_is_reproducible_and_a_priori_entries_are_the_protocol_on_held_out_models() -> None:
    from subsetsel_core.evaluation.protocol import evaluate

    bench, oracle, _ = _synthetic()
    cfg = EvaluationConfig(strategies=("random", "kmeans", "fafi-cosine"), trials=4, k_min=2, k_max=6,
                           metrics=("spearman", "mae"))
    a = evaluate_headroom(bench, oracle, cfg, splits=2)
    b = evaluate_headroom(bench, oracle, cfg, splits=2)
    for key in a.keys:
        np.testing.assert_array_equal(a.values[key]["spearman"], b.values[key]["spearman"])
    assert a.values["kmeans"]["spearman"].shape == (2, 4, 5)
    assert a.splits[0].held_out != a.splits[1].held_out
    # same pools and streams as the protocol, scored on H: the protocol run on the H models alone
    for s, part in enumerate(a.splits):
        res = evaluate(bench.subset(models=list(part.held_out)), oracle, cfg)
        for key in cfg.strategies:
            for m in cfg.metrics:
                np.testing.assert_allclose(a.values[key][m][s], res.values[key][m], rtol=1e-12)


def test_newest_models_make_one_split_and_the_interval_is_over_trials() -> None:
    bench, oracle, _ = _synthetic()
    dates = {m: f"2020-01-{1 + i % 28:02d}" for i, m in enumerate(bench.models)}
    cfg = EvaluationConfig(strategies=("random", "kmeans"), trials=6, k_min=2, k_max=6, metrics=("spearman",))
    res = evaluate_headroom(bench, oracle, cfg, splits=5, release_dates=dates)
    assert len(res.splits) == 1 and res.price().over == "trials"
    newest = sorted(bench.models, key=lambda m: (dates[m], m))[-15:]
    assert set(res.splits[0].held_out) == set(newest)


def test_partial_tables_run() -> None:
    bench = _synthetic()[0]
    s = np.array(bench.scores)
    s[np.random.default_rng(0).random(s.shape) < 0.05] = np.nan
    gappy = Benchmark(s, bench.datasets, bench.models, bench.folds, bench.higher_is_better, "gaps", partial=True)
    cfg = EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=5, metrics=("spearman", "mae"))
    res = evaluate_headroom(gappy, [], cfg, splits=2)
    for key in res.keys:
        assert np.isfinite(res.values[key]["spearman"]).all() and np.isfinite(res.values[key]["mae"]).all()


def test_closed_forms_match_sklearn() -> None:
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import LeaveOneOut, cross_val_predict

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((7, 12))
    Z = (Z - Z.mean(axis=1, keepdims=True)) / Z.std(axis=1, keepdims=True)
    ours = loo_r2(Z)
    for d in range(7):
        X, y = np.delete(Z, d, axis=0).T, Z[d]
        pred = cross_val_predict(Ridge(alpha=1.0), X, y, cv=LeaveOneOut())
        assert ours[d] == pytest.approx(1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum(), abs=1e-9)
    X, y, X_new = rng.standard_normal((10, 4)), rng.standard_normal(10), rng.standard_normal((5, 4))
    ref = Ridge(alpha=1.0).fit(X, y).predict(X_new)
    np.testing.assert_allclose(ridge_predict(X[None], y[None], X_new[None])[0], ref, atol=1e-10)


def test_elimination_removes_the_best_predicted_dataset_first() -> None:
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((6, 10))
    Z = (Z - Z.mean(axis=1, keepdims=True)) / Z.std(axis=1, keepdims=True)
    remaining, removed = list(range(6)), []
    while len(remaining) > 1:
        r2 = loo_r2(Z[remaining])
        removed.append(remaining.pop(int(np.argmax(r2))))
    assert elimination_scores(Z[None])[0].tolist() == [remaining[0], *removed[::-1]]


def test_greedy_maximises_spearman_with_ties_to_the_first_dataset() -> None:
    from scipy.stats import spearmanr

    bench = _synthetic()[0]
    table = bench.rank_table
    rows = table.rows[:12]
    order = greedy_scores(rows[None], table, 4)[0]
    ref = rows.sum(axis=0)
    cur, taken = np.zeros_like(ref), []
    for _ in range(4):
        rho = [-np.inf if d in taken else spearmanr(ref, cur + rows[d])[0] for d in range(12)]
        taken.append(int(np.argmax(rho)))
        cur = cur + rows[taken[-1]]
    assert order.tolist() == taken
    same = np.tile(rows[:1], (3, 1))  # three identical datasets: the first wins
    assert greedy_scores(same[None], table, 1)[0].tolist() == [0]


def test_standardised_scores_use_the_judging_models_only() -> None:
    scores = np.arange(24, dtype=float).reshape(2, 3, 4)
    zj, zh = standardized_scores(scores, True, np.array([0, 1]), np.array([2, 3]))
    np.testing.assert_allclose(zj, [[-1, 1], [-1, 1]])
    np.testing.assert_allclose(zh, [[3, 5], [3, 5]])
    zj_low, _ = standardized_scores(scores, False, np.array([0, 1]), np.array([2, 3]))
    np.testing.assert_allclose(zj_low, -zj)


def test_faces_exclude_score_aware_strategies() -> None:
    from subsetsel_core import select_datasets
    from subsetsel_core.evaluation.permutation import permutation_test
    from subsetsel_core.evaluation.protocol import evaluate

    assert set(SCORE_AWARE) == {"greedy-scores", "elimination-scores", "random-regression"}
    assert all(REGISTRY[s].score_aware and s in REGISTRY for s in SCORE_AWARE)
    assert not set(SCORE_AWARE) & set(STRATEGIES) and not set(SCORE_AWARE) & set(BUDGET_STRATEGIES)
    assert all("score-aware" in REGISTRY[s].title for s in SCORE_AWARE)
    parser = build_parser()
    assert not set(SCORE_AWARE) & set(parser.parse_args(["evaluate"]).strategies)
    assert not set(SCORE_AWARE) & set(parser.parse_args(["headroom"]).strategies)
    with pytest.raises(SystemExit):
        parser.parse_args(["select", "--strategy", "greedy-scores"])
    bench, oracle, _ = _synthetic()
    for name in SCORE_AWARE:
        with pytest.raises(InputError, match="subsetsel headroom"):
            select(oracle.X, 3, name)
        with pytest.raises(InputError, match="subsetsel headroom"):
            select_datasets(bench, oracle, name, 3)
        with pytest.raises(InputError, match="subsetsel headroom"):
            evaluate(bench, oracle, EvaluationConfig(strategies=("random", name), trials=2))
        with pytest.raises(InputError, match="subsetsel headroom"):
            permutation_test(bench, [oracle], EvaluationConfig(strategies=("random", name), trials=2), permutations=2)
        with pytest.raises(InputError, match="subsetsel headroom"):
            REGISTRY[name].kernel(oracle.X, 3, rng=None, include=())
    with pytest.raises(InputError, match="score-aware"):
        evaluate_headroom(bench, oracle, EvaluationConfig(strategies=("random", "greedy-scores"), trials=2))


def test_app_faces_exclude_score_aware_strategies() -> None:
    from subsetsel_app import state
    from subsetsel_app.views import select as select_view

    offered = select_view.available_strategies(object())
    assert offered and not set(SCORE_AWARE) & set(offered)
    assert not set(SCORE_AWARE) & set(state.default(state.K.EV_STRATEGIES))


def test_cli_json_and_table(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "h.json"
    args = ["headroom", "--benchmark", "sample_data/mmlu", "--trials", "3", "--splits", "2", "--k-max", "5",
            "--strategies", "random,kmeans"]
    assert main([*args, "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc) >= {"config", "ks", "entries", "price"}
    assert doc["ks"] == [2, 3, 4, 5]
    assert set(doc["entries"]) == {"random", "kmeans", *SCORE_AWARE}
    for name, e in doc["entries"].items():
        assert e["score_aware"] == (name in SCORE_AWARE)
        assert set(e["auc"]["spearman"]) >= {"mean", "lo", "hi"} and len(e["curves"]["spearman"]["mean"]) == 4
    assert set(doc["price"]) >= {"metric", "mean", "lo", "hi", "best_a_priori", "best_score_aware"}
    assert doc["price"]["best_score_aware"] in SCORE_AWARE and doc["price"]["best_a_priori"] in ("random", "kmeans")
    capsys.readouterr()
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "yes (fitted to today's models)" in text and "price of a-priori selection" in text
    assert main([*args, "--newest"]) == 2
    assert "release dates" in capsys.readouterr().err
    assert main([*args[:-2], "--strategies", "greedy-scores"]) == 2
    assert "always run" in capsys.readouterr().err


def test_figure_labels_score_aware_curves() -> None:
    from subsetsel_core.viz.headroom import SCORE_AWARE_SUFFIX, headroom_figure

    bench, oracle, _ = _synthetic()
    cfg = EvaluationConfig(strategies=("random", "kmeans"), trials=3, k_min=2, k_max=5, metrics=("spearman",))
    res = evaluate_headroom(bench, oracle, cfg, splits=2)
    p = res.price()
    fig = headroom_figure(res.curves_frame(), "spearman", [p.best_a_priori, p.best_score_aware, "random"])
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert names == [p.best_a_priori, p.best_score_aware + SCORE_AWARE_SUFFIX, "random"]
    assert "price of a-priori selection" in res.sentence() or "costs nothing" in res.sentence()


def test_the_price_has_a_confidence_interval_of_its_mean_and_names_the_judging_models() -> None:
    from scipy import stats

    from subsetsel_core.evaluation.headroom_result import t_interval

    bench, oracle, _ = _synthetic()
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=4, k_min=2, k_max=6, metrics=("spearman",))
    res = evaluate_headroom(bench, oracle, cfg, splits=5)
    p = res.price()
    lo, hi = stats.t.interval(0.95, len(p.per_split) - 1, loc=p.per_split.mean(), scale=stats.sem(p.per_split))
    assert (p.ci_lo, p.ci_hi) == pytest.approx((lo, hi)) and p.ci_lo <= p.mean <= p.ci_hi
    assert p.hi - p.lo >= 0 and np.isnan(t_interval(np.array([1.0]))[0])
    text = res.sentence()
    assert f"{res.judging_models} judging models" in text and "95 % confidence interval of the mean" in text
    if p.mean < 0:
        assert "overfits that small pool" in text
    doc = res.to_json()["price"]
    assert doc["judging_models"] == 15 and doc["held_out_models"] == 15 and doc["ci_lo"] == pytest.approx(p.ci_lo)
    assert "spread" in doc["interval"]


def test_fewer_judging_models_keep_the_held_out_models_and_the_discipline() -> None:
    from subsetsel_core.evaluation.headroom import price_by_judges

    bench, oracle, _ = _synthetic()
    cfg = EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=5, metrics=("spearman",))
    full = evaluate_headroom(bench, oracle, cfg, splits=3)
    few = evaluate_headroom(bench, oracle, cfg, splits=3, judges=4)
    for a, b in zip(full.splits, few.splits, strict=True):
        assert a.held_out == b.held_out and len(b.judge) == 4 and set(b.judge) < set(a.judge)
        assert not set(b.judge) & set(b.held_out)
    # a-priori entries never see the models: their held-out values do not change with the judges
    assert np.array_equal(full.values["random"]["spearman"], few.values["random"]["spearman"])
    with pytest.raises(InputError, match="judging models"):
        evaluate_headroom(bench, oracle, cfg, splits=2, judges=1)
    curve = price_by_judges(bench, oracle, cfg, [3, 15], splits=2)
    assert [c for c, _ in curve] == [3, 15] and all(np.isfinite(p.mean) for _, p in curve)
