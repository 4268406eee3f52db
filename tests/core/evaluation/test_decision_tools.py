"""Decision tools: representation check, advised k, coverage, placing a new model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_scores, select_datasets
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.check import (
    check_representation,
    linear_cka,
    mantel,
)
from subsetsel_core.evaluation.required_k import advise
from subsetsel_core.representations.descriptors import (
    build_representation,
    representation_from_matrix,
)
from subsetsel_core.selection.coverage import coverage
from subsetsel_core.selection.placement import place_model
from subsetsel_core.synthetic import make_synthetic


@pytest.fixture(scope="module")
def synth():  # type: ignore[no-untyped-def]
    s = make_synthetic(n_datasets=50, n_models=15, n_folds=3, seed=4)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    oracle = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    noise = representation_from_matrix(np.random.default_rng(0).normal(size=(50, 8)), bench.datasets, name="noise")
    return s, bench, oracle, noise


def test_mantel_and_cka_known() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20, 2))
    d = np.sqrt(((x[:, None] - x[None]) ** 2).sum(-1))
    r, p = mantel(d, d, permutations=99)
    assert r == pytest.approx(1.0) and p == pytest.approx(0.01)
    assert linear_cka(x, 3 * x + 1) == pytest.approx(1.0)


def test_check_separates_oracle_from_noise(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, noise = synth
    good = check_representation(bench, oracle, permutations=199)
    bad = check_representation(bench, noise, permutations=199)
    assert good.mantel_r > 0.5 and good.mantel_p < 0.01 and not good.looks_like_noise
    assert bad.looks_like_noise and "no better than random" in bad.verdict()


def test_advise(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, _ = synth
    res = evaluate(bench, oracle, EvaluationConfig(strategies=("random", "kmeans"), trials=30, k_max=15))
    adv = {a.key: a for a in advise(res, metric="spearman", target=0.8)}
    for key, a in adv.items():
        lo = res.stats[key].curves["spearman"].lo
        if a.k is None:
            assert (lo < 0.8).all()
        else:
            i = int(np.flatnonzero(res.ks == a.k)[0])
            assert lo[i] >= 0.8 and (lo[:i] < 0.8).all()
    mae = advise(res, metric="mae", target=100.0)
    assert all(a.k == 2 for a in mae)
    with pytest.raises(InputError):
        advise(res, metric="auc")


def test_coverage_known_answer() -> None:
    X = np.array([[0.0], [1.0], [10.0], [11.0], [30.0]])
    rep = representation_from_matrix(X, list("abcde"))
    cov = coverage(rep, ["a", "c"])
    assert cov.representative == ("a", "a", "c", "c", "c")
    assert cov.members() == {"a": ["b"], "c": ["d", "e"]}
    z = (X[:, 0] - X.mean()) / X.std()
    assert cov.radius == pytest.approx(z[4] - z[2])
    assert cov.to_frame()["chosen"].tolist() == [True, False, True, False, False]


def test_place_held_out_model(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, oracle, _ = synth
    lead = bench.leaderboard()
    hits = 0
    for held in bench.models[:6]:
        rest = bench.subset(models=[m for m in bench.models if m != held])
        sel = select_datasets(rest, oracle, "kmeans", 10, seed=0)
        j = bench.models.index(held)
        rows = [(d, f, bench.scores[bench.datasets.index(d), fi, j]) for d in sel.datasets for fi, f in enumerate(bench.folds)]
        pl = place_model(rest, sel.datasets, pd.DataFrame(rows, columns=["dataset", "fold", "score"]), name=held)
        true = int(lead.index[lead["model"] == held][0]) + 1
        hits += pl.position_interval[0] <= true <= pl.position_interval[1]
        assert 1 <= pl.position <= bench.n_models
    assert hits >= 5  # a 95 % interval should contain the truth nearly always


def test_place_errors(synth) -> None:  # type: ignore[no-untyped-def]
    _, bench, _, _ = synth
    with pytest.raises(InputError, match="no score on"):
        place_model(bench, list(bench.datasets[:3]), {bench.datasets[0]: 1.0}, name="x")
    with pytest.raises(InputError, match="already a model"):
        place_model(bench, list(bench.datasets[:3]), {}, name=bench.models[0])


def test_cli_check_advise_place(synth, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    s, bench, _, _ = synth
    s.scores.to_csv(tmp_path / "scores.csv", index=False)
    s.oracle.to_csv(tmp_path / "oracle.csv", index=False)
    base = ["--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "oracle.csv"), "--lower-is-better"]
    assert main(["check", *base, "--permutations", "9", "--mantel-permutations", "49", "--trials", "5"]) == 0
    out = capsys.readouterr().out
    assert "Mantel r" in out and "shuffled descriptors give" in out and "no evidence that it helps" in out
    assert "maxT over the family of 5 entries" in out and "Holm" not in out
    assert main(["advise", *base, "--trials", "10", "--strategies", "kmeans", "--target", "0.5"]) == 0
    assert "kmeans: k = " in capsys.readouterr().out
    assert main(["select", *base, "--strategy", "kmeans", "--k", "6", "--out", str(tmp_path / "sub.csv")]) == 0
    sub = pd.read_csv(tmp_path / "sub.csv", comment="#")
    pd.DataFrame({"dataset": sub["dataset"], "score": 5.0}).to_csv(tmp_path / "new.csv", index=False)
    rc = main(["place", "--reference", str(tmp_path / "scores.csv"), "--lower-is-better", "--subset",
               str(tmp_path / "sub.csv"), "--scores", str(tmp_path / "new.csv"), "--model-name", "mine"])
    assert rc == 0
    assert "mine: estimated position" in capsys.readouterr().out


def test_generalisation_split_and_cli(synth, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.evaluation.generalisation import evaluate_generalisation, split_models

    s, bench, oracle, _ = synth
    dates = {m: f"2020-01-{i + 1:02d}" for i, m in enumerate(bench.models)}
    judge, new, how = split_models(bench, release_dates=dates, fraction=0.4)
    assert new == list(bench.models[-6:]) and "newest 6" in how
    assert not set(judge) & set(new)
    g = evaluate_generalisation(bench, oracle, EvaluationConfig(strategies=("random", "kmeans"), trials=12, k_max=8),
                                new_models=list(bench.models[:5]))
    df = g.to_frame()
    assert list(df["key"]) == ["random", "kmeans"] and g.held_out.info["n_models"] == 5
    assert "held-out models" in g.verdict()
    s.scores.to_csv(tmp_path / "scores.csv", index=False)
    s.oracle.to_csv(tmp_path / "oracle.csv", index=False)
    pd.DataFrame({"model": list(dates), "release_date": list(dates.values())}).to_csv(tmp_path / "m.csv", index=False)
    rc = main(["generalise", "--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "oracle.csv"),
               "--lower-is-better", "--model-dates", str(tmp_path / "m.csv"), "--trials", "6", "--strategies", "kmeans"])
    assert rc == 0
    assert "Best on the" in capsys.readouterr().out


def test_budget_selection_respects_budget_and_cost(synth) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.evaluation.budget import evaluate_budget
    from subsetsel_core.selection.costs import estimate_costs, select_under_budget
    from subsetsel_core.strategies import BUDGET_STRATEGIES

    _, bench, oracle, _ = synth
    costs = np.random.default_rng(3).uniform(0.1, 5.0, size=bench.n_datasets)
    for s in BUDGET_STRATEGIES:
        idx = select_under_budget(oracle.X, costs, 10.0, s, rng=1)
        assert len(set(idx.tolist())) == len(idx) > 0
        assert costs[idx].sum() <= 10.0 + 1e-9
        np.testing.assert_array_equal(idx, select_under_budget(oracle.X, costs, 10.0, s, rng=1))
    # cost-aware FAFI prefers cheap datasets: it picks more datasets than plain FAFI could afford
    cheap = select_under_budget(oracle.X, costs, 10.0, "fafi-euclidean")
    assert len(cheap) >= 4
    desc = pd.DataFrame({"train_size": np.arange(1, 51), "name": "x"}, index=pd.Index(bench.datasets, name="dataset"))
    c, how = estimate_costs(desc, bench.datasets)
    assert "train_size" in how and c.mean() == pytest.approx(1.0)
    c2, how2 = estimate_costs(desc.assign(hours=2.0), bench.datasets, cost_column="hours")
    assert (c2 == 2.0).all() and "hours" in how2
    with pytest.raises(InputError, match="positive"):
        estimate_costs(desc.assign(hours=0.0), bench.datasets, cost_column="hours")
    res = evaluate_budget(bench, oracle, costs, budgets=[0.1, 0.2, 0.3], strategies=["random", "fafi-cosine"], trials=6)
    f = res.to_frame()
    assert set(f["key"]) == {"random", "fafi-cosine"} and (f["mean_cost_share"] <= f["budget"] + 1e-9).all()
    assert (res.k_used["random"][:, 2] >= res.k_used["random"][:, 0]).all()


def test_cli_budget_and_coverage(synth, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    s, _, _, _ = synth
    s.scores.to_csv(tmp_path / "scores.csv", index=False)
    feat = s.oracle.copy()
    feat["hours"] = np.linspace(1, 3, len(feat))
    feat.to_csv(tmp_path / "f.csv", index=False)
    base = ["--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "f.csv"), "--lower-is-better"]
    assert main(["select", *base, "--strategy", "fafi-cosine", "--budget", "0.1", "--cost-column", "hours"]) == 0
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), comment="#")
    assert out["hours"].sum() <= 0.1 * feat["hours"].sum() + 1e-9
    assert main(["select", *base, "--strategy", "kmeans", "--k", "5", "--coverage"]) == 0
    cap = capsys.readouterr()
    cov = pd.read_csv(pd.io.common.StringIO(cap.out), comment="#")
    assert cov["n_represented"].sum() == 45 and "covering radius" in cap.err
    assert main(["evaluate", *base, "--budget", "0.3", "--cost-column", "hours", "--trials", "3",
                 "--strategies", "fafi-cosine", "--metrics", "spearman"]) == 0
    assert "by budget share" in capsys.readouterr().out


def test_read_release_dates_messages():
    from subsetsel_core.evaluation.generalisation import read_release_dates

    models = ["a", "b", "c"]
    got = read_release_dates(b"Model,Released\na,2020-01-01\nb,2021-06-30\nc,2019-12-31\n", models, label="d.csv")
    assert [got[m].year for m in models] == [2020, 2021, 2019]
    with pytest.raises(InputError, match=r"d\.csv: no 'model' column"):
        read_release_dates(b"name,release_date\na,2020-01-01\n", models, label="d.csv")
    with pytest.raises(InputError, match=r"not a date in 1 row\(s\): row 3 \('soon'\)"):
        read_release_dates(b"model,release_date\na,2020-01-01\nb,soon\nc,2020-01-01\n", models, label="d.csv")
    with pytest.raises(InputError, match=r"1 of 3 models have no release date \(c\).*'C '|1 of 3 models have no release date \(c\)"):
        read_release_dates(b"model,date\na,2020-01-01\nb,2020-01-01\nC ,2020-01-01\n", models, label="d.csv")
