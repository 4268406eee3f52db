"""FAFI's coverage bound under a GP model: the fit, h_k, V(h), the observed shares, the check on
GP draws, the JSON of ``theory`` and ``evaluate --out`` (PROTOCOL.md; docs/theory.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.cli.main import main
from subsetsel_core.cli.theory import STRATEGIES as CLI_STRATEGIES
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.gp import (
    GPFit,
    covering_radii,
    draw,
    fit_gp,
    posterior,
    squared_distances,
)
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.evaluation.summary import evaluation_json
from subsetsel_core.evaluation.theory import (
    THEORY_STRATEGIES,
    coverage_theory,
    discordant_share,
    entry_theories,
    observed_shares,
    standardized_scores,
)
from subsetsel_core.evaluation.theory_check import check_bound
from subsetsel_core.representations.descriptors import representation_from_matrix
from subsetsel_core.strategies import REGISTRY, standardize
from subsetsel_core.synthetic import make_synthetic

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ("tsc_bakeoff", "mmlu", "synthetic")
KEYS = {"lengthscale", "signal_variance", "noise_variance", "nn_distance", "ks", "covering_radius", "variance_bound",
        "predicted_inverted_share", "observed_inverted_share", "observed_band"}
CFG = EvaluationConfig(trials=20, k_min=2, k_max=20)


def _synthetic(seed: int = 3, n: int = 80, m: int = 20) -> tuple[Benchmark, np.ndarray]:
    syn = make_synthetic(n_datasets=n, n_models=m, n_folds=2, seed=seed)
    cube = syn.scores.sort_values(["dataset", "fold", "model"])["score"].to_numpy().reshape(n, 2, m)
    return Benchmark(cube, syn.datasets, syn.models, ("0", "1"), higher_is_better=False), np.asarray(syn.dataset_latent)


def _equal_strength(seed: int = 5, n: int = 80, m: int = 20) -> Benchmark:
    """Latent benchmark whose models are all equally strong overall (latents on one sphere)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 5))
    p = rng.standard_normal((m, 5))
    p = 2.0 * p / np.linalg.norm(p, axis=1, keepdims=True)
    err = ((z[:, None, :] - p[None]) ** 2).sum(-1)[:, None, :] + 0.3 * rng.standard_normal((n, 2, m))
    return Benchmark(err, tuple(f"d{i:03d}" for i in range(n)), tuple(f"m{i:02d}" for i in range(m)), ("0", "1"),
                     higher_is_better=False)


def _rep(b: Benchmark, X: np.ndarray, name: str = "x"):
    return representation_from_matrix(X, b.datasets, name=name)


def test_the_latent_geometry_gives_a_bound_that_decays_and_tracks_the_observed_share():
    b, z = _synthetic()
    th = coverage_theory(b, _rep(b, z, "latent"), CFG)
    assert th.informative and th.fit.noise_variance < 0.2 * th.fit.signal_variance
    assert np.all(np.diff(th.predicted) <= 1e-12)  # h_k non-increasing, V increasing in h
    assert th.predicted[-1] < th.predicted[0] - 0.03
    assert np.all(th.predicted >= th.observed_mean)
    assert np.corrcoef(th.predicted, th.observed_mean)[0, 1] > 0.8
    assert th.observed_mean[-1] < th.observed_mean[0]


def test_a_noise_representation_gives_noise_and_a_flat_bound():
    b = _equal_strength()
    th = coverage_theory(b, _rep(b, np.random.default_rng(0).standard_normal((b.n_datasets, 64))), CFG)
    assert th.fit.noise_variance > 10 * th.fit.signal_variance
    assert np.ptp(th.predicted) < 0.005 and np.ptp(th.variance_bound) < 0.005
    assert not th.informative and "little information" in th.sentence()


def test_with_unequal_models_noise_descriptors_predict_no_gain():
    # models differ in overall strength: the constant mean per model absorbs it (a zero-mean GP
    # explained it with a flat kernel), so noise descriptors leave no dataset informing another
    b, _ = _synthetic()
    th = coverage_theory(b, _rep(b, np.random.default_rng(0).standard_normal((b.n_datasets, 64))), CFG)
    assert not th.informative
    assert np.ptp(th.predicted) < 0.005
    out = th.to_json_dict()
    assert out["predicts_gain"] is False and "predicts no gain" in out["predicts_gain_reason"]


def test_covering_radius_is_the_brute_force_one_and_never_grows():
    Z = standardize(np.random.default_rng(1).standard_normal((40, 3)))
    ks = np.arange(1, 41)
    order = REGISTRY["fafi-euclidean"].kernel(Z, 40, rng=None, include=np.empty(0, np.int64))
    h = covering_radii(Z, order, ks)
    D = np.sqrt(squared_distances(Z))
    brute = [D[:, order[:k]].min(axis=1).max() for k in ks]
    assert np.allclose(h, brute) and np.all(np.diff(h) <= 0) and h[-1] == 0


def test_variance_bound_lies_in_zero_to_signal_variance():
    fit = GPFit(1.3, 0.7, 0.2, 0.0)
    h = np.array([0.0, 0.1, 1.0, 3.0, 1e3, np.inf])
    V = fit.variance_bound(h)
    assert np.all((V >= 0) & (V <= fit.signal_variance)) and np.all(np.diff(V) >= 0)
    assert V[0] == pytest.approx(0.7 * 0.2 / 0.9) and V[-1] == pytest.approx(0.7)


def test_the_fit_recovers_known_hyperparameters():
    rng = np.random.default_rng(2)
    Z = standardize(rng.standard_normal((90, 3)))
    truth = GPFit(1.2, 1.0, 0.1, 0.0)
    _, y = draw(squared_distances(Z), truth, 40, rng)
    fit = fit_gp(Z, y)
    assert fit.lengthscale == pytest.approx(1.2, rel=0.15)
    assert fit.signal_variance == pytest.approx(1.0, rel=0.3)
    assert fit.noise_variance == pytest.approx(0.1, rel=0.3)


def test_posterior_variance_is_below_the_nearest_point_bound():
    Z = standardize(np.random.default_rng(4).standard_normal((50, 2)))
    D2 = squared_distances(Z)
    fit = GPFit(0.8, 1.0, 0.3, 0.0)
    chosen = np.array([3, 17, 29])
    _, var = posterior(D2, fit, chosen, np.zeros((3, 1)))
    nearest = np.sqrt(D2[:, chosen].min(axis=1))
    assert np.all(var <= fit.variance_bound(nearest) + 1e-12)


def test_standardized_scores_are_oriented_and_z_scored_per_dataset():
    b, _ = _synthetic()
    Y = standardized_scores(b)
    assert np.allclose(Y.mean(axis=1), 0) and np.allclose(Y.std(axis=1), 1)
    raw = -b.scores.mean(axis=1)  # errors: lower is better
    assert np.all(np.argsort(Y, axis=1) == np.argsort(raw, axis=1))


def test_discordant_pairs_count_ties_as_not_discordant():
    ref = np.array([1.0, 2.0, 3.0, 4.0])
    assert discordant_share(ref, np.array([1.0, 2.0, 3.0, 4.0])) == 0
    assert discordant_share(ref, np.array([4.0, 3.0, 2.0, 1.0])) == 1
    assert discordant_share(ref, np.array([2.0, 1.0, 3.0, 3.0])) == pytest.approx(1 / 6)
    assert discordant_share(np.array([1.0, 1.0, 2.0, 3.0]), np.array([[2.0, 1.0, 3.0, 4.0]]))[0] == 0


def test_observed_shares_are_the_protocols_subsets():
    # the protocol's Kendall tau-b of the same subsets, with an untied reference and P pairs:
    # tau·√(P·x) = x − 2D with D discordant pairs and x = P − (pairs tied in the subset), so x
    # solved from tau and D must be a whole number in [0, P] — other subsets would not give one
    b, z = _synthetic()
    rep = _rep(b, z, "latent")
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=6, k_min=2, k_max=12, seed=4,
                           metrics=("kendall",))
    tau = evaluate(b, rep, cfg).values["fafi-euclidean"]["kendall"]
    ref = b.rank_sums.sum(axis=0)
    assert len(np.unique(ref)) == b.n_models
    P = b.n_models * (b.n_models - 1) / 2
    D = observed_shares(b, rep, cfg) * P
    x = ((tau * np.sqrt(P) + np.sqrt(tau ** 2 * P + 8 * D)) / 2) ** 2
    assert np.all(x <= P + 1e-6) and np.allclose(x, np.round(x), atol=1e-6)


def test_a_non_fafi_strategy_or_a_benchmark_with_gaps_is_refused():
    b, z = _synthetic()
    with pytest.raises(InputError, match="fafi"):
        observed_shares(b, _rep(b, z), CFG, strategy="kmeans")
    assert set(THEORY_STRATEGIES) == set(CLI_STRATEGIES) == {"fafi-euclidean", "fafi-cosine"}


def test_the_bound_holds_on_draws_from_the_gp_model():
    c = check_bound(GPFit(1.0, 1.0, 0.1, 0.0), n=50, n_models=20, ks=np.arange(2, 11), draws=4, seed=1)
    assert c.held("max_variance") == 1.0  # algebra: the nearest point's variance bounds the posterior's
    assert c.held("mean_score") >= 0.9 and c.held("pointwise") >= 0.7
    assert np.all(c.values["mean_score"] <= c.values["pointwise"] + 1e-12)  # a mean's error ≤ the mean error


def test_entry_theories_go_into_the_evaluation_json_of_fafi_entries_only():
    b, z = _synthetic()
    rep = _rep(b, z, "latent")
    res = evaluate(b, rep, EvaluationConfig(strategies=("random", "kmeans", "fafi-euclidean", "fafi-cosine"),
                                            trials=3, k_max=8))
    th = entry_theories(b, {"latent": rep}, res)
    assert set(th) == {"fafi-euclidean", "fafi-cosine"}
    out = evaluation_json(res, theory=th)
    assert KEYS <= set(out["results"]["fafi-cosine"]["theory"]) and "theory" not in out["results"]["kmeans"]
    plain = evaluation_json(res)
    assert {k: {kk: vv for kk, vv in v.items() if kk != "theory"} for k, v in out["results"].items()} == \
        plain["results"]
    assert out["results"]["fafi-euclidean"]["theory"]["ks"] == list(range(2, 9))


@pytest.mark.parametrize("sample", SAMPLES)
def test_cli_theory_json_on_every_sample(sample, tmp_path):
    out = tmp_path / "theory.json"
    assert main(["theory", "--benchmark", str(ROOT / "sample_data" / sample), "--trials", "4", "--k-max", "8",
                 "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert KEYS <= set(d)
    assert d["ks"] == list(range(2, 9))
    for key in ("covering_radius", "variance_bound", "predicted_inverted_share", "observed_inverted_share"):
        assert len(d[key]) == 7 and all(np.isfinite(d[key]))
    assert set(d["observed_band"]) == {"lo", "hi"} and len(d["observed_band"]["lo"]) == 7
    assert 0 <= min(d["variance_bound"]) <= max(d["variance_bound"]) <= d["signal_variance"] + 1e-12


def test_cli_theory_prints_the_fit_and_a_line_per_k(capsys):
    assert main(["theory", "--benchmark", str(ROOT / "sample_data" / "synthetic"), "--representation", "broken",
                 "--strategy", "fafi-cosine", "--trials", "3", "--k-max", "5"]) == 0
    text = capsys.readouterr().out
    assert "lengthscale ℓ" in text and "nearest-neighbour distance" in text and "broken (synthetic)" in text
    assert "Coverage bound for fafi-cosine (an upper bound" in text and "GP prediction of the protocol's" in text
    # one line per k in the prediction's table and one in the bound's
    assert sum(line.split()[:1] in (["2"], ["3"], ["4"], ["5"]) for line in text.splitlines()) == 8
    assert "predicts no gain over random" in text
    assert "%%" not in text  # the registry's percentages carry their own sign


def test_cli_theory_bad_input_exits_2(capsys):
    bench = str(ROOT / "sample_data" / "synthetic")
    assert main(["theory", "--benchmark", bench, "--representation", "oracle,broken"]) == 2
    assert "one representation" in capsys.readouterr().err
    assert main(["theory", "--benchmark", bench, "--k-min", "500", "--trials", "2"]) == 2
    assert "k_min" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["theory", "--benchmark", bench, "--strategy", "kmeans"])
    assert exc.value.code == 2


def test_cli_evaluate_out_has_theory_per_fafi_entry(tmp_path):
    out = tmp_path / "ev.json"
    assert main(["evaluate", "--benchmark", str(ROOT / "sample_data" / "synthetic"), "--strategies",
                 "random,fafi-euclidean,kmeans", "--trials", "3", "--k-max", "6", "--resamples", "10",
                 "--permutations", "0", "--theory", "--out", str(out)]) == 0
    res = json.loads(out.read_text())["results"]
    assert KEYS <= set(res["fafi-euclidean"]["theory"]) and "theory" not in res["kmeans"]
