"""The GP prediction of the protocol's estimator: its quadratic forms, its subsets (the protocol's),
its verdict, its JSON, and a plain refusal where the GP cannot be fitted (PROTOCOL.md; docs/theory.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation import gp
from subsetsel_core.evaluation.gp import GPFit, GPNotFitted, covariance, fit_gp, squared_distances
from subsetsel_core.evaluation.prediction import _exact_share, inverted_share, predict
from subsetsel_core.evaluation.prediction_text import gain_verdict, prediction_json
from subsetsel_core.evaluation.protocol import evaluate, prepare, trial_choices, trial_pool
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.theory import geometry, standardized_scores
from subsetsel_core.loading.folder import load_benchmark_folder
from subsetsel_core.representations.descriptors import representation_from_matrix
from subsetsel_core.synthetic import make_synthetic

ROOT = Path(__file__).resolve().parents[3]
FAST = ("random", "fafi-euclidean", "fafi-cosine", "d-optimal")


def _synthetic(seed: int = 3, n: int = 80, m: int = 20) -> tuple[Benchmark, np.ndarray]:
    syn = make_synthetic(n_datasets=n, n_models=m, n_folds=2, seed=seed)
    cube = syn.scores.sort_values(["dataset", "fold", "model"])["score"].to_numpy().reshape(n, 2, m)
    return Benchmark(cube, syn.datasets, syn.models, ("0", "1"), higher_is_better=False), np.asarray(syn.dataset_latent)


def _rep(b: Benchmark, X: np.ndarray, name: str = "x"):
    return representation_from_matrix(X, b.datasets, name=name)


def test_variances_are_the_quadratic_forms_of_the_protocols_subsets():
    b, z = _synthetic()
    rep = _rep(b, z, "latent")
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean", "kmeans", "d-optimal"), trials=3, k_max=9, seed=2)
    pred = predict(b, rep, cfg, observe=False)
    ctx = prepare(b, rep, cfg)
    C = covariance(squared_distances(geometry(b, rep)), pred.fit)
    n = b.n_datasets
    for t in range(3):
        pool, _ = trial_pool(ctx, t)
        for key, ch in trial_choices(ctx, t, pool).items():
            for i, k in enumerate(ctx.ks):
                if ch.order is not None:
                    sub = pool[ch.order[:k]]
                else:
                    sub = pool[ch.idx[ch.starts[i]:ch.starts[i] + k]]
                w = -np.full(n, 1.0 / n)
                w[sub] += 1.0 / k
                assert pred.variance[key][t, i] == pytest.approx(w @ C @ w, rel=1e-9, abs=1e-12)


def test_the_observed_share_is_that_of_the_protocols_subsets_for_every_strategy():
    # Kendall tau-b of the same subsets (untied reference, P pairs): tau·√(P·x) = x − 2D, x whole
    b, z = _synthetic()
    rep = _rep(b, z, "latent")
    cfg = EvaluationConfig(strategies=("random", "kmeans", "fafi-cosine"), trials=5, k_min=2, k_max=10, seed=4,
                           metrics=("kendall",))
    res = evaluate(b, rep, cfg)
    pred = predict(b, rep, cfg)
    P = b.n_models * (b.n_models - 1) / 2
    assert len(np.unique(b.rank_sums.sum(axis=0))) == b.n_models
    for s in cfg.strategies:
        tau = res.values[s]["kendall"]
        D = pred.observed[s] * P
        x = ((tau * np.sqrt(P) + np.sqrt(tau ** 2 * P + 8 * D)) / 2) ** 2
        assert np.all(x <= P + 1e-6) and np.allclose(x, np.round(x), atol=1e-6), s


def test_interpolated_shares_equal_the_exact_ones():
    gaps = np.abs(np.random.default_rng(0).standard_normal(300))
    V = np.geomspace(1e-4, 10.0, 5000)
    assert np.allclose(inverted_share(gaps, V), _exact_share(gaps, V), atol=1e-5)
    assert inverted_share(gaps, np.array([0.0]))[0] == 0.0
    assert inverted_share(np.zeros(3), np.array([1.0]))[0] == 0.5


def test_a_latent_geometry_predicts_a_gain_and_noise_does_not():
    b, z = _synthetic()
    cfg = EvaluationConfig(strategies=FAST, trials=12, k_max=15)
    good = predict(b, _rep(b, z, "latent"), cfg)
    noise = predict(b, _rep(b, np.random.default_rng(0).standard_normal((b.n_datasets, 30)), "noise"), cfg)
    vg, vn = gain_verdict(good), gain_verdict(noise)
    assert vg.predicts_gain and "predicts a gain" in vg.reason
    assert not vn.predicts_gain and "predicts no gain over random" in vn.reason and "ℓ is" in vn.reason
    assert good.curve("fafi-euclidean")[8] < noise.curve("fafi-euclidean")[8]
    obs = good.observed_curve("fafi-euclidean")
    assert obs is not None and np.corrcoef(good.curve("fafi-euclidean"), obs)[0, 1] > 0.9
    # noise: every subset of a size has (nearly) the same Var(e), whatever the strategy
    assert np.ptp([noise.curve(s).mean() for s in FAST]) < 0.005


def test_the_json_keys_and_bands():
    b, z = _synthetic()
    pred = predict(b, _rep(b, z, "latent"), EvaluationConfig(strategies=FAST, trials=6, k_max=8))
    out = json.loads(json.dumps(prediction_json(pred)))
    assert set(out["prediction"]) == set(FAST) and isinstance(out["predicts_gain"], bool)
    assert out["predicts_gain_reason"].startswith("the geometry predicts")
    for s, d in out["prediction"].items():
        assert set(d) == {"ks", "predicted_inverted_share", "predicted_band", "observed_inverted_share"}
        assert d["ks"] == list(range(2, 9))
        lo, hi, mean = (np.array(d["predicted_band"]["lo"]), np.array(d["predicted_band"]["hi"]),
                        np.array(d["predicted_inverted_share"]))
        assert np.all(lo <= mean + 1e-12) and np.all(mean <= hi + 1e-12) and np.all((lo >= 0) & (hi <= 0.5)), s


def test_the_fit_is_cached_by_its_inputs_and_centres_each_model():
    b, z = _synthetic()
    Z, Y = geometry(b, _rep(b, z)), standardized_scores(b)
    first = fit_gp(Z, Y)
    assert fit_gp(Z.copy(), Y.copy()) is first
    shifted = Y + np.arange(Y.shape[1])[None, :]  # each model's strength moved: the centred fit is the same
    gp._CACHE.clear()
    again = fit_gp(Z, shifted)
    assert again.lengthscale == pytest.approx(first.lengthscale, rel=1e-6)


def test_a_known_geometry_is_recovered_from_many_starts():
    rng = np.random.default_rng(2)
    from subsetsel_core.strategies import standardize

    Z = standardize(rng.standard_normal((90, 3)))
    truth = GPFit(1.2, 1.0, 0.1, 0.0)
    _, y = gp.draw(squared_distances(Z), truth, 40, rng)
    fit = fit_gp(Z, y + rng.standard_normal(40)[None, :])  # model strengths do not matter
    assert fit.lengthscale == pytest.approx(1.2, rel=0.15) and fit.noise_variance == pytest.approx(0.1, rel=0.3)


@pytest.mark.parametrize("case", ["few", "constant", "flat-scores"])
def test_a_gp_that_cannot_be_fitted_is_a_plain_sentence(case):
    rng = np.random.default_rng(0)
    n = 4 if case == "few" else 30
    cube = rng.standard_normal((n, 1, 5))
    if case == "flat-scores":
        cube = np.tile(np.arange(5.0)[None, None, :], (n, 1, 1))  # each model alike on every dataset
    b = Benchmark(cube, tuple(f"d{i}" for i in range(n)), tuple(f"m{i}" for i in range(5)), ("0",),
                  higher_is_better=True)
    X = np.ones((n, 3)) if case == "constant" else rng.standard_normal((n, 3))
    with pytest.raises(InputError) as exc:
        predict(b, _rep(b, X), EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=2, k_max=3))
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg and msg.endswith(".")
    if case != "constant":
        assert isinstance(exc.value, GPNotFitted)
    from subsetsel_core.evaluation.prediction import staged

    with pytest.raises(InputError) as first:  # the preview's first step already says so: no curve at all
        next(staged(b, _rep(b, X), EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=2, k_max=3)))
    assert str(first.value) == msg


def test_cli_theory_json_has_the_prediction_of_every_strategy(tmp_path):
    out = tmp_path / "t.json"
    assert main(["theory", "--benchmark", str(ROOT / "sample_data" / "synthetic"), "--representation", "broken",
                 "--strategies", "random,fafi-euclidean,a-optimal", "--trials", "3", "--k-max", "6",
                 "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert set(d["prediction"]) == {"random", "fafi-euclidean", "a-optimal"}
    assert d["predicts_gain"] is False and "predicts no gain" in d["predicts_gain_reason"]
    assert "upper bound" in d["predicted_inverted_share_is"]
    assert all(np.isfinite(d["prediction"][s]["predicted_inverted_share"]).all() for s in d["prediction"])


def test_cli_theory_refuses_a_benchmark_too_small_for_the_gp(tmp_path, capsys):
    scores = tmp_path / "s.csv"
    scores.write_text("dataset,model,score\n" + "".join(f"d{i},m{j},{(i * 7 + j * 3) % 5}\n" for i in range(4)
                                                         for j in range(3)))
    feats = tmp_path / "f.csv"
    feats.write_text("dataset,a,b\n" + "".join(f"d{i},{i},{i * i % 3}\n" for i in range(4)))
    code = main(["theory", "--scores", str(scores), "--features", str(feats), "--trials", "2", "--k-max", "3",
                 "--alpha", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "at least 5 datasets" in err


def test_the_sample_oracle_predicts_fewer_inversions_than_broken_at_k_10():
    lb = load_benchmark_folder(ROOT / "sample_data" / "synthetic")
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=12)
    oracle = predict(lb.benchmark, lb.representation("oracle"), cfg)
    broken = predict(lb.benchmark, lb.representation("broken"), cfg)
    i = int(np.flatnonzero(oracle.ks == 10)[0])
    assert oracle.curve("fafi-euclidean")[i] < broken.curve("fafi-euclidean")[i]
    obs = oracle.observed_curve("fafi-euclidean")
    assert obs is not None and np.corrcoef(oracle.curve("fafi-euclidean"), obs)[0, 1] >= 0.9


def test_the_cache_keeps_predictions_with_other_hyperparameters_apart():
    b, z = _synthetic()
    rep = _rep(b, z, "latent")
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=3, k_max=6)
    own = predict(b, rep, cfg)
    other = predict(b, rep, cfg, fit=GPFit(own.fit.lengthscale, own.fit.signal_variance * 4, own.fit.noise_variance,
                                           0.0))
    assert predict(b, rep, cfg) is own and other is not own
    assert np.all(other.curve("random") > own.curve("random"))  # more variance, more inversions


def test_the_staged_preview_shows_the_cheap_strategies_first_then_exactly_the_full_prediction():
    from subsetsel_core.evaluation import prediction as P

    b, z = _synthetic(seed=5)
    rep = _rep(b, z, "latent")
    cfg = EvaluationConfig(strategies=("random", "kmeans", "fafi-euclidean", "d-optimal"), trials=3, k_max=7, seed=1)
    P._CACHE.clear()
    steps = list(P.staged(b, rep, cfg))
    assert [s.strategies for s in steps] == [("random", "fafi-euclidean"),
                                             ("random", "kmeans", "fafi-euclidean", "d-optimal")]
    P._CACHE.clear()
    full = predict(b, rep, cfg, observe=False)
    for s in full.strategies:
        assert np.array_equal(steps[-1].variance[s], full.variance[s])
        assert np.array_equal(steps[-1].predicted[s], full.predicted[s]), s
    assert np.array_equal(steps[0].predicted["fafi-euclidean"], full.predicted["fafi-euclidean"])
    again = list(P.staged(b, rep, cfg))  # cached: the full prediction at once
    assert len(again) == 1 and again[0] is predict(b, rep, cfg, observe=False)


class _Flat:
    """A prediction whose random and FAFI curves both invert almost no model pair (models far apart)."""

    def __init__(self, random: float, fafi: float) -> None:
        self.fit = GPFit(1.0, 1.0, 0.01, 0.0)
        self.nn_distance, self.diameter = 1.0, 3.0
        self.ks = np.arange(2, 7)
        self.predicted = {"random": random, "fafi-cosine": fafi}

    def best_deterministic(self) -> str:
        return "fafi-cosine"

    def curve(self, strategy: str) -> np.ndarray:
        return np.full(5, self.predicted[strategy])

    def band(self, strategy: str) -> tuple[np.ndarray, np.ndarray]:
        return self.curve(strategy), self.curve(strategy)


def test_no_gain_is_predicted_from_shares_that_are_both_about_zero() -> None:
    assert not gain_verdict(_Flat(2e-5, 1e-6)).predicts_gain  # type: ignore[arg-type]
    assert gain_verdict(_Flat(0.05, 0.02)).predicts_gain  # type: ignore[arg-type]
