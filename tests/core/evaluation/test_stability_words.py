"""The full benchmark's own stability is worded as a yardstick; a band that excludes its own mean shows the mean."""

from __future__ import annotations

import numpy as np

from subsetsel_core.evaluation.stability import Band, Stability


def _stability(band: Band) -> Stability:
    one = np.array([1.0, 2.0])
    return Stability(("a", "b"), one, one, one, one, np.array([1.0]), {"mrr": band, "spearman": Band(0.9, 0.8, 1.0)},
                     100, 0)


def test_band_excluding_its_mean_shows_the_mean() -> None:
    s = _stability(Band(0.9967, 1.0, 1.0))
    text = s.band_text("mrr")
    assert "0.997" in text and "outside" in text and "[1.000, 1.000]" in text
    assert "outside" not in s.band_text("spearman")
    summary = s.summary()
    assert "yardstick" in summary and "cannot" not in summary and "bound" not in summary
