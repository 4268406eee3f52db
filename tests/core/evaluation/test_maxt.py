"""Step-down maxT and its sequential stop: against a brute-force implementation, valid on noise, powerful on the oracle."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, load_scores
from subsetsel_core.evaluation.maxt import Family, adjusted_p, raw_p
from subsetsel_core.evaluation.permutation import iter_permutation_test, permutation_test
from subsetsel_core.representations.descriptors import representation_from_matrix
from subsetsel_core.synthetic import make_synthetic

ROOT = Path(__file__).resolve().parents[3]


def brute_maxt(gains: list[float], null: list[list[float]], stop: int | None = None) -> list[float]:
    """Westfall–Young step-down maxT written out from PROTOCOL.md, loop by loop."""
    m, b = len(gains), len(null)
    order = sorted(range(m), key=lambda e: (-gains[e], e))
    p = []
    for j in range(m):
        rest = order[j:]
        hits = sum(1 for row in null if max(row[e] for e in rest) >= gains[order[j]])
        p.append((1 + hits) / (1 + b))
    if stop is not None:
        p[0] = stop / b
    for j in range(1, m):
        p[j] = max(p[j], p[j - 1])
    out = [0.0] * m
    for j, e in enumerate(order):
        out[e] = min(1.0, p[j])
    return out


@pytest.mark.parametrize("seed", range(6))
def test_maxt_equals_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, b = int(rng.integers(1, 6)), int(rng.integers(1, 40))
    gains = rng.integers(-3, 4, size=m).astype(float)  # integers: exact ties between gains and nulls
    null = rng.integers(-4, 5, size=(b, m)).astype(float)
    assert adjusted_p(gains, null).tolist() == brute_maxt(gains.tolist(), null.tolist())
    cont = rng.normal(size=m), rng.normal(size=(b, m))
    assert adjusted_p(*cont).tolist() == brute_maxt(cont[0].tolist(), cont[1].tolist())
    raw = [(1 + sum(row[e] >= gains[e] for row in null.tolist())) / (1 + b) for e in range(m)]
    assert raw_p(gains, null).tolist() == raw


def test_maxt_properties() -> None:
    gains = np.array([5.0, 1.0, 0.5])
    null = np.zeros((199, 3))
    p = adjusted_p(gains, null)
    assert p.tolist() == [1 / 200] * 3  # the smallest p is 1 / (B + 1) whatever the number of entries
    many = adjusted_p(np.full(10, 5.0), np.zeros((199, 10)))
    assert np.all(many == 1 / 200)
    # adjusted ≥ raw, and monotone in the observed gains
    rng = np.random.default_rng(3)
    for _ in range(20):
        g, nl = rng.normal(size=4), rng.normal(size=(30, 4))
        adj, raw = adjusted_p(g, nl), raw_p(g, nl)
        assert np.all(adj >= raw - 1e-15)
        o = np.argsort(-g)
        assert np.all(np.diff(adj[o]) >= 0)


def test_sequential_stop_on_the_family() -> None:
    gains = np.array([1.0, 0.2])
    fam = Family.start(gains, 3)
    rows = [[0.0, 0.0], [2.0, 0.0], [0.0, 0.0], [0.0, 1.5], [0.3, 0.1], [0.0, 5.0], [9.0, 9.0]]
    for r in rows:
        fam.take(np.array(r))
    # top hits: row 2 (2.0 ≥ 1), row 4 (max 1.5 ≥ 1), row 6 (5 ≥ 1) → stops after 6 shuffles; row 7 is ignored
    assert fam.stopped and fam.drawn == 6 and fam.top_hits == 3
    adj = fam.adjusted()
    assert adj[0] == pytest.approx(3 / 6) and adj[1] >= adj[0]
    assert adj.tolist() == brute_maxt(gains.tolist(), [list(r) for r in rows[:6]], stop=3)
    assert fam.smallest_reachable(199) == adj.min()
    live = Family.start(gains, 10)
    live.take(np.array([2.0, 0.0]))
    assert live.smallest_reachable(199) == pytest.approx(2 / 200)


def test_the_test_matches_maxt_on_its_own_nulls() -> None:
    s = make_synthetic(n_datasets=24, n_models=6, n_folds=1, n_features=4, seed=2)
    bench = load_scores(s.scores, higher_is_better=False)
    a = representation_from_matrix(np.random.default_rng(1).normal(size=(24, 3)), bench.datasets, name="a")
    b = representation_from_matrix(np.random.default_rng(2).normal(size=(24, 2)), bench.datasets, name="b")
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean", "fafi-cosine"), trials=3, k_max=6,
                           metrics=("spearman", "mae"))
    pt = permutation_test(bench, [a, b], cfg, permutations=29, jobs=1)
    assert len(pt.keys) == 4  # one family: both strategies on both representations
    for m in cfg.metrics:
        g = [pt.gain[k][m] for k in pt.keys]
        null = np.column_stack([pt.null[k][m] for k in pt.keys])
        stop = pt.top_hits[m] if pt.stopped[m] else None
        assert [pt.p_adjusted[k][m] for k in pt.keys] == brute_maxt(g, null.tolist(), stop)
        if stop is None:
            assert null.shape[0] == 29
    # the same shuffles in two worker processes: the same numbers
    par = permutation_test(bench, [a, b], cfg, permutations=29, jobs=2)
    assert par.p_adjusted == pt.p_adjusted and par.drawn == pt.drawn
    # the live states never claim a verdict
    states = list(iter_permutation_test(bench, [a, b], cfg, permutations=29, jobs=1))
    assert all(not s.complete for s in states[:-1]) and states[-1].complete
    assert all("no verdict" in s.verdict(pt.keys[0]) or "running" in s.verdict(pt.keys[0], running=True)
               for s in states[:-1])
    assert "smallest p still reachable" in states[0].verdict(pt.keys[0], running=True)


@pytest.mark.slow
def test_noise_never_helps_in_many_families() -> None:
    """Validity: over 200 pure-noise families (two noise representations, four entries each), the share with any
    "helps" stays at most 5 % plus two binomial standard errors."""
    s = make_synthetic(n_datasets=16, n_models=5, n_folds=1, n_features=3, seed=7)
    bench = load_scores(s.scores, higher_is_better=False)
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean", "fafi-cosine"), trials=2, k_min=2, k_max=4,
                           metrics=("spearman",))
    draws, any_help = 200, 0
    for d in range(draws):
        rng = np.random.default_rng(5000 + d)
        reps = [representation_from_matrix(rng.normal(size=(16, 2)), bench.datasets, name=n) for n in ("u", "v")]
        pt = permutation_test(bench, reps, cfg, permutations=39, jobs=1)
        any_help += any(pt.helps(k) for k in pt.keys)
    bound = 0.05 + 2 * np.sqrt(0.05 * 0.95 / draws)
    assert any_help / draws <= bound


@pytest.mark.slow
def test_the_oracle_helps_in_a_family_of_ten() -> None:
    """Power: the synthetic sample's oracle with k-means helps against five strategies × two representations."""
    from subsetsel_core.loading.folder import load_benchmark_folder

    loaded = load_benchmark_folder(ROOT / "sample_data" / "synthetic")
    reps = [loaded.representation("oracle"), loaded.representation("broken")]
    cfg = EvaluationConfig(trials=3, k_max=8, metrics=("spearman",))
    pt = permutation_test(loaded.benchmark, reps, cfg, permutations=199, jobs=2)
    assert len(pt.keys) == 10 and pt.complete
    assert pt.helps("kmeans [oracle]") and pt.p_adjusted["kmeans [oracle]"]["spearman"] < 0.05
    assert not any(pt.helps(k) for k in pt.keys if k.endswith("[broken]"))


def test_brute_force_is_itself_right() -> None:
    """The brute force on a case worked by hand."""
    gains = [3.0, 1.0]
    null = [[4.0, 0.0], [0.0, 2.0], [1.0, 0.5]]
    # ordered: e0 (3), e1 (1). u_1 = max(row): 4, 2, 1 → ≥ 3 once → (1 + 1) / 4; u_2 = row[e1]: 0, 2, .5 → ≥ 1 once
    assert brute_maxt(gains, null) == [0.5, 0.5]
    assert list(itertools.chain(brute_maxt([1.0], [[0.0]]))) == [0.5]
