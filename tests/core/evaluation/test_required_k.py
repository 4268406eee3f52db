"""The "how many datasets" advice: one implementation (ordering, headline) for the CLI and the dashboard,
with the comparison the metric's direction asks for (rank MAE: the band's upper end at or below the target)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.evaluation.required_k import (
    advice_frame,
    advice_sentence,
    advise,
    best_advice,
    comparison,
)
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.strategies import BASELINE, STRATEGIES
from subsetsel_core.synthetic import make_synthetic

LOWER = [m for m, info in METRICS.items() if not info.higher_is_better]
HIGHER = [m for m, info in METRICS.items() if info.higher_is_better]


@pytest.fixture(scope="module")
def run() -> Any:
    s = make_synthetic(n_datasets=40, n_models=12, n_folds=2, seed=3)
    bench = load_scores(s.scores, higher_is_better=False, name="synthetic")
    oracle = build_representation(s.oracle.set_index("dataset"), bench.datasets, name="oracle")
    res = evaluate(bench, oracle, EvaluationConfig(strategies=STRATEGIES[:2], trials=12, k_max=12))
    return s, res


def test_the_registry_has_both_directions() -> None:
    assert LOWER and HIGHER
    assert {comparison(m) for m in LOWER} == {"≤"} and {comparison(m) for m in HIGHER} == {"≥"}


@pytest.mark.parametrize("metric", LOWER)
def test_lower_is_better_uses_the_upper_end_and_at_most(run: Any, metric: str) -> None:
    _, res = run
    mid = float(np.median(res.stats[res.keys[0]].curves[metric].hi))
    for a in advise(res, metric=metric, target=mid):
        c = res.stats[a.key].curves[metric]
        if a.k is None:
            assert (c.hi > mid).all()
        else:
            i = int(np.flatnonzero(res.ks == a.k)[0])
            assert c.hi[i] <= mid and (c.hi[:i] > mid).all()
    never = advice_sentence(res, advice_frame(res, metric, 0.0), metric, 0.0)
    assert f"{METRICS[metric].label} ≤ 0" in never and "≥" not in never
    # reached rows first, by k, then the lower (better) mean first
    frame = advice_frame(res, metric, float(np.max([res.stats[k].curves[metric].hi.max() for k in res.keys])))
    reached = frame[frame["reached"]]
    assert list(reached["k"]) == sorted(reached["k"])
    for _, same in reached.groupby("k"):
        assert list(same["mean"]) == sorted(same["mean"])


def test_headline_names_the_best_and_the_baseline(run: Any) -> None:
    _, res = run
    metric = HIGHER[0]
    frame = advice_frame(res, metric, -1.0)  # every entry reaches it at the smallest k
    best, base = best_advice(frame)
    assert best is not None and base is not None and base["strategy"] == BASELINE
    text = advice_sentence(res, frame, metric, -1.0)
    assert text.startswith(f"With {best['strategy']}") and f"{BASELINE} needs {base['k']}" in text


@pytest.mark.parametrize("metric", LOWER)
def test_cli_advise_prints_at_most_for_a_lower_is_better_metric(run: Any, metric: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    s, _ = run
    s.scores.to_csv(tmp_path / "scores.csv", index=False)
    s.oracle.to_csv(tmp_path / "oracle.csv", index=False)
    args = ["advise", "--scores", str(tmp_path / "scores.csv"), "--features", str(tmp_path / "oracle.csv"),
            "--lower-is-better", "--trials", "6", "--k-max", "8", "--metric", metric]
    assert main([*args, "--target", "0.01"]) == 0
    out = capsys.readouterr().out
    label = METRICS[metric].label
    assert f"{label} ≤ 0.01 is not reached" in out and "≥" not in out
    assert out.splitlines()[0].startswith("Nothing reaches")
    high = METRICS[metric].bounds(12)[1]  # the worst value: every entry meets it at the smallest k
    assert main([*args, "--target", f"{high:g}"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("With ") and f"meets {high:g}" in out
