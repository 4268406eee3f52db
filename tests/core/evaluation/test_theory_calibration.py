"""The GP prediction is calibrated on benchmarks drawn from a GP with known (ℓ, σ², τ²) on the samples'
real descriptor geometry (PROTOCOL.md: the mean observed share inside the predicted ± 2 s.e. band in
≥ 90 % of (k, strategy) cells; docs/theory.md has every setting, including those where it is not)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from subsetsel_core.evaluation.gp import GPFit, nn_distance, squared_distances
from subsetsel_core.evaluation.theory import geometry
from subsetsel_core.evaluation.theory_check import calibrate
from subsetsel_core.loading.folder import load_benchmark_folder

ROOT = Path(__file__).resolve().parents[3]


def _geometry(sample: str, name: str) -> np.ndarray:
    lb = load_benchmark_folder(ROOT / "sample_data" / sample)
    return geometry(lb.benchmark, lb.representation(name))


@pytest.mark.parametrize(("sample", "name", "setting"), [
    ("tsc_bakeoff", "ucr_info", "short"),  # ℓ = 2 × the nearest-neighbour distance, τ² = 0.1 σ²
    ("mmlu", "description", "middle"),  # ℓ = 0.3 × the median distance, τ² = 0.5 σ²
])
def test_the_prediction_is_calibrated_on_draws_from_a_known_gp(sample, name, setting):
    Z = _geometry(sample, name)
    D2 = squared_distances(Z)
    if setting == "short":
        truth = GPFit(2.0 * nn_distance(D2), 1.0, 0.1, 0.0)
    else:
        truth = GPFit(0.3 * float(np.median(np.sqrt(D2[np.triu_indices(len(D2), 1)]))), 1.0, 0.5, 0.0)
    c = calibrate(Z, truth, draws=30, estimator="scores")
    assert c.share_inside() >= 0.9
    # random, whose subsets average over the geometry, is calibrated to a few tenths of a point
    assert abs(float((c.observed - c.predicted)[:, 0].mean())) < 0.004
    # the fit recovers the length-scale it was drawn with
    assert np.median([f.lengthscale for f in c.fits]) == pytest.approx(truth.lengthscale, rel=0.2)


@pytest.mark.parametrize(("sample", "name"), [("tsc_bakeoff", "ucr_info"), ("mmlu", "description")])
def test_the_maximum_likelihood_fit_recovers_a_long_length_scale_before_the_standardization(sample, name):
    # where the calibration falls short (ℓ = the median distance, little noise) the fit on the draws' own
    # scores is right; it is the tool's per-dataset standardization that the stationary GP does not describe
    Z = _geometry(sample, name)
    D2 = squared_distances(Z)
    truth = GPFit(float(np.median(np.sqrt(D2[np.triu_indices(len(D2), 1)]))), 1.0, 0.1, 0.0)
    c = calibrate(Z, truth, draws=6, trials=1, strategies=("random",), ks=(2, 4), estimator="scores", raw_fit=True)
    assert np.median([f.lengthscale for f in c.raw_fits]) == pytest.approx(truth.lengthscale, rel=0.1)
    assert np.median([f.noise_variance for f in c.raw_fits]) == pytest.approx(0.1, rel=0.3)
