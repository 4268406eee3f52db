"""The permutation test behind every "helps", the full benchmark's stability and the verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_scores
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.permutation import (
    iter_permutation_test,
    p_phrase,
    permutation_test,
)
from subsetsel_core.evaluation.stability import full_stability
from subsetsel_core.evaluation.summary import evaluation_json
from subsetsel_core.evaluation.verdict import NOT_TESTED, evaluation_verdict, favoured_entry
from subsetsel_core.representations.descriptors import (
    build_representation,
    representation_from_matrix,
)
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.text.rounding import format_p


@pytest.fixture(scope="module")
def synth():  # type: ignore[no-untyped-def]
    s = make_synthetic(n_datasets=60, n_models=10, n_folds=2, n_features=12, seed=4)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    oracle = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    noise = representation_from_matrix(np.random.default_rng(5).normal(size=(60, 6)), bench.datasets, name="noise")
    return s, bench, oracle, noise


CFG = EvaluationConfig(strategies=("random", "fafi-cosine", "fafi-euclidean"), trials=8, k_max=10,
                       metrics=("spearman", "mae"))


def test_p_phrases() -> None:
    assert format_p(None) == "—" and format_p(float("nan")) == "—" and format_p(1e-6) == "< 1e-4"
    assert format_p(3e-4) == "3.0e-04" and format_p(0.0123) == "0.012" and format_p(0.5) == "0.50"
    assert p_phrase(1e-9) == "p < 1e-4" and p_phrase(0.2) == "p = 0.20" and "0.0000" not in p_phrase(0.0)


def test_oracle_helps_noise_does_not(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, noise = synth
    cfg = EvaluationConfig(strategies=("random", "kmeans"), trials=8, k_max=10, metrics=("spearman",))
    good = permutation_test(bench, oracle, cfg, permutations=39, jobs=1)
    assert good.complete and good.helps("kmeans") and good.smallest_p() == pytest.approx(1 / 40)
    mu, sd = good.null_summary("kmeans")
    assert good.gain["kmeans"]["spearman"] > mu + sd
    assert good.p_raw["kmeans"]["spearman"] == pytest.approx(1 / 40)
    bad = permutation_test(bench, noise, cfg, permutations=39, jobs=1)
    assert not bad.helps("kmeans") and bad.p_adjusted["kmeans"]["spearman"] > 0.05
    assert "no evidence that it helps" in bad.verdict("kmeans")
    assert "Spearman ρ-AUC over k = 2…10" in good.verdict("kmeans")


def test_noise_is_calibrated() -> None:
    """Over many pure-noise representations, p ≤ 0.1 about as often as chance allows."""
    s = make_synthetic(n_datasets=24, n_models=6, n_folds=1, n_features=4, seed=11)
    bench = load_scores(s.scores, higher_is_better=False)
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=4, k_max=6, metrics=("spearman",))
    ps = []
    for draw in range(40):
        X = np.random.default_rng(100 + draw).normal(size=(24, 3))
        pt = permutation_test(bench, representation_from_matrix(X, bench.datasets), cfg, permutations=19, jobs=1)
        ps.append(pt.p_raw["fafi-euclidean"]["spearman"])
    assert np.mean(np.asarray(ps) <= 0.1) <= 0.25  # expected 0.1; binomial(40, 0.1) exceeds 10 with p < 0.01


def test_sequential_stop_reuse_and_independence(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, noise = synth
    res = evaluate(bench, noise, CFG)
    pt = permutation_test(bench, noise, CFG, permutations=49, observed=res, jobs=1)
    again = permutation_test(bench, noise, CFG, permutations=49, jobs=1)
    for m in CFG.metrics:
        n = pt.shuffles(m)
        assert all(pt.null[k][m].size == n for k in pt.keys)  # one family: the same shuffles for every entry
        top = max(pt.gain[k][m] for k in pt.keys)
        tops = np.max(np.column_stack([pt.null[k][m] for k in pt.keys]), axis=1)
        if pt.stopped[m]:  # stopped at the 10th shuffle reaching the top gain: p = 10 / drawn
            assert n < 49 and int((tops >= top - 1e-12).sum()) == 10 and tops[-1] >= top - 1e-12
            assert min(pt.p_adjusted[k][m] for k in pt.keys) == pytest.approx(10 / n)
        else:
            assert n == 49
        for k in pt.keys:
            assert pt.gain[k][m] == again.gain[k][m] and pt.p_adjusted[k][m] == again.p_adjusted[k][m]
            hits = int((pt.null[k][m] >= pt.gain[k][m] - 1e-12).sum())
            assert pt.p_raw[k][m] == pytest.approx((1 + hits) / (1 + n))
    alone = permutation_test(bench, noise, EvaluationConfig(strategies=("random", "fafi-euclidean"), trials=8,
                                                             k_max=10, metrics=("spearman", "mae")),
                             permutations=19, stop_after=None, jobs=1)
    both = permutation_test(bench, noise, CFG, permutations=19, stop_after=None, jobs=1)
    np.testing.assert_array_equal(alone.null["fafi-euclidean"]["spearman"], both.null["fafi-euclidean"]["spearman"])
    # the first T' trials: the same as an evaluation of T' trials
    short = permutation_test(bench, noise, CFG, permutations=9, trials=4, jobs=1)
    four = permutation_test(bench, noise, EvaluationConfig(**{**CFG.to_dict(), "strategies": CFG.strategies,
                                                               "metrics": CFG.metrics, "trials": 4}), permutations=9,
                            jobs=1)
    assert short.gain == four.gain and short.trials == 4


def test_stop_and_bad_settings(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, _ = synth
    states = list(iter_permutation_test(bench, oracle, CFG, permutations=30, should_stop=lambda: True, jobs=1))
    assert len(states) == 1 and not states[0].complete and not states[0].helps("fafi-cosine")
    last = permutation_test(bench, oracle, CFG, permutations=30, should_stop=lambda: True, jobs=1)
    text = last.verdict("fafi-cosine")
    assert last.drawn == 1 and not last.complete and "stopped after 1 shuffles: no verdict" in text
    assert "p =" not in text and "p <" not in text
    assert all(v is None for v in last.to_json_dict()["fafi-cosine"]["p_permutation"].values())
    res = evaluate(bench, oracle, CFG)
    v = evaluation_verdict(res, last, "spearman")
    assert not v.helps and not v.tested and "stopped after 1 shuffles: no verdict" in v.text
    for bad in ({"permutations": 0}, {"permutations": -3}, {"stop_after": 0}, {"trials": 9},
                {"verdict_metric": "kendall"}):
        with pytest.raises(InputError):
            permutation_test(bench, oracle, CFG, **bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="other than random"):
        permutation_test(bench, oracle, EvaluationConfig(strategies=("random",), trials=3, k_max=5), permutations=5)


def test_verdict_never_positive_without_the_test(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, _ = synth
    cfg = EvaluationConfig(strategies=("random", "kmeans"), trials=8, k_max=10, metrics=("spearman",))
    res = evaluate(bench, oracle, cfg)
    assert res.stats["kmeans"].p_vs_random["spearman"] < 0.05  # the conditional test says yes
    v = evaluation_verdict(res, None, "spearman")
    assert not v.helps and not v.tested and NOT_TESTED in v.text.lower() and "these pools" in v.text
    assert "Not tested" in v.text and "Wilcoxon" in v.text
    pt = permutation_test(bench, oracle, cfg, permutations=39, observed=res, jobs=1)
    v = evaluation_verdict(res, pt, "spearman")
    assert v.helps and v.tested and v.best == "kmeans" and v.text.startswith("kmeans helps: gain over random +")
    assert favoured_entry(res, pt, "spearman") == "kmeans" and "maxT" in v.text and "Holm" not in v.text
    # one gain: the verdict, the table and the JSON show the same number (over the trials the test used)
    short = permutation_test(bench, oracle, cfg, permutations=9, observed=res, trials=5, jobs=1)
    from subsetsel_core.evaluation.tables import auc_table
    from subsetsel_core.evaluation.verdict import shown_gain
    from subsetsel_core.text.rounding import text

    few = evaluation_verdict(res, short, "spearman")
    assert not few.helps and "smallest possible p is 0.10: use at least 20 shuffles" in few.text
    g = short.gain["kmeans"]["spearman"]
    assert shown_gain(res, short, "kmeans", "spearman") == g
    assert text(g, "gain") in evaluation_verdict(res, short, "spearman").text
    table = auc_table(res, "spearman", short)
    assert table.loc[table["strategy"] == "kmeans", "gain over random"].item() == g
    assert evaluation_json(res, short)["results"]["kmeans"]["gain"]["spearman"] == g
    assert "first 5 of 8 trials" in evaluation_json(res, short)["gain_definition"]


def _dominated() -> Benchmark:
    rng = np.random.default_rng(0)
    s = rng.normal(size=(30, 1, 5))
    s[:, :, 0] += 10  # model 0 best everywhere
    return Benchmark(s, tuple(f"d{i:02d}" for i in range(30)), ("m0", "m1", "m2", "m3", "m4"), ("0",), True, "dom")


def test_stability_known_answer() -> None:
    st = full_stability(_dominated(), resamples=300, seed=1)
    f = st.frame()
    assert st.models[0] == "m0" and f["rank_lo"][0] == 1 and f["rank_hi"][0] == 1
    assert st.could_be_first == ["m0"] and bool(st.decided[0])
    assert 0 < st.bands["spearman"].lo <= st.bands["spearman"].mean <= st.bands["spearman"].hi <= 1
    assert (f["rank_lo"] <= f["rank_hi"]).all() and f["tie_group"].is_monotonic_increasing
    j = st.to_json_dict()
    assert set(j) == {"ceiling", "rank_intervals", "adjacent_pairs", "stability"}
    assert set(j["ceiling"]["mae"]) == {"mean", "lo", "hi"} and len(j["rank_intervals"]) == 5
    assert full_stability(_dominated(), resamples=300, seed=1).pair_share.tolist() == st.pair_share.tolist()
    with pytest.raises(InputError):
        full_stability(_dominated(), resamples=1)


def test_cli_evaluate_permutations_json(synth, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    s, bench, _, _ = synth
    s.scores.to_csv(tmp_path / "scores.csv", index=False)
    s.oracle.to_csv(tmp_path / "oracle.csv", index=False)
    base = ["evaluate", "--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "oracle.csv"),
            "--lower-is-better", "--strategies", "random,kmeans", "--trials", "8", "--k-max", "10",
            "--metrics", "spearman,mae", "--resamples", "200"]
    out = tmp_path / "res.json"
    assert main([*base, "--permutations", "39", "--permutation-trials", "8", "--jobs", "1", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    r = d["results"]["kmeans"]
    assert set(r["p_permutation"]) == set(r["helps"]) == set(r["p_vs_random"]) == set(r["p_permutation_raw"]) \
        == {"spearman", "mae"}
    assert r["helps"]["spearman"] is True and d["permutation_test"]["permutations"] == 39
    assert d["permutation_test"]["smallest_possible_p"] == pytest.approx(1 / 40) and "maxT" in d["permutation_test"][
        "method"]
    assert set(d["ceiling"]["spearman"]) == {"mean", "lo", "hi"} and len(d["rank_intervals"]) == 10
    assert "p_permutation" not in d["results"]["random"] and "theory" not in r  # the GP only with --theory
    assert main([*base, "--jobs", "1"]) == 0  # the test is on by default
    text = capsys.readouterr().out
    assert "maxT" in text and "not tested" not in text and "Holm" not in text.split("vs random")[0]
    assert main([*base, "--permutations", "0"]) == 0  # the explicit opt-out
    text = capsys.readouterr().out
    assert "not tested against shuffled descriptors" in text and "full benchmark's own stability" in text
    assert "Not tested" in text and "helps:" not in text and "Best:" not in text
    assert "0.0000" not in text and "None" not in text and "p = <" not in text
    out0 = tmp_path / "res0.json"
    assert main([*base, "--permutations", "0", "--out", str(out0)]) == 0
    d0 = json.loads(out0.read_text())
    assert d0["permutation_test"] is None and "not tested" in d0["note"] and "helps" not in d0["results"]["kmeans"]
    assert main([*base, "--permutation-trials", "20", "--permutations", "9"]) == 2
    for bad in ("-1", "1.5", "x"):
        with pytest.raises(SystemExit) as exc:
            main([*base, "--permutations", bad])
        assert exc.value.code == 2
    capsys.readouterr()
    over = tmp_path / "over.json"
    assert main([*base, "--permutations", "999999", "--out", str(over)]) == 2
    err = capsys.readouterr().err
    assert "--permutations" in err and "9,999" in err and "max_permutations" in err and not over.exists()
    plain = json.loads(json.dumps(evaluation_json(evaluate(bench, synth[2], CFG))))
    assert plain["permutation_test"] is None and "not tested" in plain["note"]
