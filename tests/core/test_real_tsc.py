"""The TSC bake-off (ship data): loads, reconciles names, evaluates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from subsetsel_core import (
    EvaluationConfig,
    build_representation,
    evaluate,
    load_descriptors,
    load_scores,
)
from subsetsel_core.errors import InputError

SHIP = Path(__file__).resolve().parents[3] / "shared" / "data" / "ship" / "tsc_bakeoff"
ALIASES = {"CinCECGtorso": "CinCECGTorso", "MixedShapes": "MixedShapesRegularTrain", "StarlightCurves": "StarLightCurves"}
pytestmark = pytest.mark.skipif(not SHIP.exists(), reason="shared TSC data not present")


@pytest.fixture(scope="module")
def tsc():  # type: ignore[no-untyped-def]
    bench = load_scores(SHIP / "scores.csv.gz", name="tsc")
    return bench, load_descriptors(SHIP / "features_ucr_info.csv", aliases=ALIASES)


def test_sizes_and_ties(tsc) -> None:  # type: ignore[no-untyped-def]
    bench, _ = tsc
    assert bench.scores.shape == (112, 30, 40)
    ties = [f.message for f in bench.report.findings if f.topic == "ties"]
    assert ties and 97.5 <= float(ties[0].split("%")[0]) < 98.5, ties  # 98 % of the columns, one decimal shown
    assert np.allclose(bench.rank_vectors.sum(axis=1), 40 * 41 / 2)


def test_name_mismatch_reported_without_aliases(tsc) -> None:  # type: ignore[no-untyped-def]
    bench, _ = tsc
    with pytest.raises(InputError) as e:
        build_representation(load_descriptors(SHIP / "features_ucr_info.csv"), bench.datasets)
    msg = str(e.value)
    assert "'CinCECGTorso' (did you mean 'CinCECGtorso'?)" in msg
    assert "'MixedShapesRegularTrain' (did you mean 'MixedShapes'?)" in msg
    assert "'StarLightCurves' (did you mean 'StarlightCurves'?)" in msg


def test_short_evaluation(tsc) -> None:  # type: ignore[no-untyped-def]
    bench, desc = tsc
    rep = build_representation(desc, bench.datasets, name="ucr_info")
    res = evaluate(bench, rep, EvaluationConfig(trials=5, seed=0))
    auc = res.stats["random"].auc["spearman"].mean
    assert 15.5 < auc < 17.5  # paper: random 16.61 ± 0.19 (35 classifiers)
    assert res.ks.tolist() == list(range(2, 21))
