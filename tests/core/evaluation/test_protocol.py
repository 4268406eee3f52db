"""The bootstrap protocol: exactness against a plain loop, planted effects, reproducibility."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau, rankdata, spearmanr

from subsetsel_core import EvaluationConfig, evaluate, iter_evaluate, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import trial_rng
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import (
    build_representation,
    representation_from_matrix,
)
from subsetsel_core.strategies import REGISTRY, STRATEGIES, select
from subsetsel_core.synthetic import make_synthetic


@pytest.fixture(scope="module")
def synth():  # type: ignore[no-untyped-def]
    s = make_synthetic(n_datasets=60, n_models=12, n_folds=3, seed=1)
    bench = load_scores(s.scores, higher_is_better=s.higher_is_better, name="synthetic")
    oracle = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    broken = build_representation(s.broken.set_index("dataset"), bench.datasets, name="broken")
    return bench, oracle, broken


def _plain_reference_loop(bench, rep, strategy, cfg):  # type: ignore[no-untyped-def]
    """Straightforward loop: floats, scipy, one trial and k at a time."""
    n, f, m = bench.scores.shape
    # rank sums (2 x sum over folds): integers, so ties between models are exact
    sums = (2 * rankdata(-bench.scores if bench.higher_is_better else bench.scores, axis=2)).sum(axis=1)
    ranks = sums / (2 * f)
    ref = ranks.mean(axis=0)
    ref_sum = sums.sum(axis=0)
    n_pool = int(np.floor(cfg.alpha * n))
    out = {"spearman": [], "kendall": [], "mae": []}
    for t in range(cfg.trials):
        rng = trial_rng(cfg.seed, 0, t)
        pool = np.sort(rng.choice(n, n_pool, replace=False)) if n_pool < n else np.arange(n)
        row = {k: [] for k in out}
        for k in range(cfg.k_min, cfg.k_max + 1):
            idx = pool[select(rep.X[pool], k, strategy)]
            sub = ranks[idx].mean(axis=0)
            sub_sum = sums[idx].sum(axis=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row["spearman"].append(np.nan_to_num(spearmanr(ref_sum, sub_sum).statistic))
                row["kendall"].append(np.nan_to_num(kendalltau(ref_sum, sub_sum).statistic))
            row["mae"].append(np.abs(ref - sub).mean())
        for key in out:
            out[key].append(row[key])
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if REGISTRY[s].deterministic])
def test_matches_plain_loop(synth, strategy: str) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    cfg = EvaluationConfig(strategies=(strategy,), trials=4, alpha=0.8, k_min=2, k_max=8, seed=5,
                           metrics=("spearman", "kendall", "mae"))
    res = evaluate(bench, oracle, cfg)
    plain = _plain_reference_loop(bench, oracle, strategy, cfg)
    for m in ("spearman", "kendall", "mae"):
        np.testing.assert_allclose(res.values[strategy][m], plain[m], atol=1e-9)


def test_planted_effect(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    noise = representation_from_matrix(
        np.random.default_rng(9).normal(size=(bench.n_datasets, 16)), bench.datasets, name="noise")
    cfg = EvaluationConfig(strategies=("random", "fafi-cosine", "kmeans"), trials=60, alpha=0.8,
                           k_min=2, k_max=12, seed=0, metrics=("spearman", "mae"))
    res = evaluate(bench, {"oracle": oracle, "noise": noise}, cfg)
    st = res.stats
    for s in ("fafi-cosine", "kmeans"):
        for m in ("spearman", "mae"):
            assert st[f"{s} [oracle]"].p_vs_random[m] < 0.01
            assert st[f"{s} [noise]"].p_vs_random[m] > 0.01
        assert st[f"{s} [oracle]"].auc["spearman"].mean > st["random"].auc["spearman"].mean


def test_same_seed_same_json_and_added_strategy_is_neutral(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    cfg = EvaluationConfig(strategies=("random", "kmeans", "fafi-cosine"), trials=8, k_max=6, seed=11)
    a = json.dumps(evaluate(bench, oracle, cfg).to_json_dict())
    b = json.dumps(evaluate(bench, oracle, cfg).to_json_dict())
    assert a == b
    cfg2 = EvaluationConfig(strategies=("random", "kmeans", "fafi-cosine", "d-optimal"), trials=8, k_max=6, seed=11)
    r1 = evaluate(bench, oracle, cfg)
    r2 = evaluate(bench, oracle, cfg2)
    for key in ("random", "kmeans", "fafi-cosine"):
        for m in r1.values[key]:
            np.testing.assert_array_equal(r1.values[key][m], r2.values[key][m])
    cfg3 = EvaluationConfig(strategies=("random", "kmeans", "fafi-cosine"), trials=8, k_max=6, seed=12)
    assert json.dumps(evaluate(bench, oracle, cfg3).to_json_dict()) != a


def test_alpha_one_single_trial_is_deterministic_for_fafi(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    vals = [
        evaluate(bench, oracle, EvaluationConfig(strategies=("fafi-cosine",), trials=1, alpha=1.0, seed=s)).values[
            "fafi-cosine"]["spearman"]
        for s in (0, 1, 2)
    ]
    np.testing.assert_array_equal(vals[0], vals[1])
    np.testing.assert_array_equal(vals[0], vals[2])


def test_partial_results_and_stop(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    cfg = EvaluationConfig(strategies=("random", "fafi-cosine"), trials=10, k_max=5, batch_size=3)
    done = [r.trials_done for r in iter_evaluate(bench, oracle, cfg)]
    assert done == [3, 6, 9, 10]
    calls = {"n": 0}

    def stop() -> bool:
        calls["n"] += 1
        return calls["n"] >= 2

    res = evaluate(bench, oracle, cfg, should_stop=stop)
    assert res.trials_done == 6 and not res.complete
    full = evaluate(bench, oracle, cfg)
    np.testing.assert_array_equal(full.values["fafi-cosine"]["spearman"][:6], res.values["fafi-cosine"]["spearman"])


def test_model_pool_ranks_recomputed(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    cfg = EvaluationConfig(strategies=("fafi-euclidean",), trials=2, alpha=0.8, beta=0.5, k_min=3, k_max=3,
                           seed=4, metrics=("mae",))
    res = evaluate(bench, oracle, cfg)
    n, f, m = bench.scores.shape
    for t in range(2):
        rng = trial_rng(4, 0, t)
        pool = np.sort(rng.choice(n, int(0.8 * n), replace=False))
        models = np.sort(rng.choice(m, m // 2, replace=False))
        s = bench.scores[:, :, models]
        ranks = rankdata(-s if bench.higher_is_better else s, axis=2).mean(axis=1)
        idx = pool[select(oracle.X[pool], 3, "fafi-euclidean")]
        expected = np.abs(ranks.mean(0) - ranks[idx].mean(0)).mean()
        assert res.values["fafi-euclidean"]["mae"][t, 0] == pytest.approx(expected)


def test_curves_auc_and_json_layout(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    res = evaluate(bench, oracle, EvaluationConfig(strategies=("random", "fafi-cosine"), trials=6, k_min=2, k_max=7))
    d = res.to_json_dict()
    assert d["ks"] == [2, 3, 4, 5, 6, 7]
    r = d["results"]["fafi-cosine"]
    assert set(r["curves"]["spearman"]) == {"mean", "lo", "hi"}
    assert set(r["auc"]["mae"]) == {"mean", "std", "lo", "hi"}
    assert "p_vs_random" in r and "p_vs_random" not in d["results"]["random"]
    v = res.values["fafi-cosine"]["spearman"]
    assert r["auc"]["spearman"]["mean"] == pytest.approx(np.trapezoid(v, axis=1).mean())
    assert r["curves"]["spearman"]["lo"][0] == pytest.approx(np.percentile(v[:, 0], 2.5))
    frame = res.to_frame()
    assert set(frame["metric"]) == set(METRICS)


def test_k_max_capped_and_bad_config(synth) -> None:  # type: ignore[no-untyped-def]
    bench, oracle, _ = synth
    res = evaluate(bench, oracle, EvaluationConfig(strategies=("random",), trials=2, alpha=0.1, k_min=2, k_max=20))
    assert res.ks[-1] == 6  # pool of floor(0.1 * 60) = 6
    for kw in ({"alpha": 0}, {"beta": 1.5}, {"k_min": 5, "k_max": 3}, {"trials": 0}, {"strategies": ("nope",)}):
        with pytest.raises(InputError):
            evaluate(bench, oracle, EvaluationConfig(**kw))  # type: ignore[arg-type]


def test_misaligned_representation(synth) -> None:  # type: ignore[no-untyped-def]
    bench, _, _ = synth
    rep = representation_from_matrix(np.zeros((3, 2)), ["a", "b", "c"])
    with pytest.raises(InputError, match="aligned"):
        evaluate(bench, rep, EvaluationConfig(trials=1))
