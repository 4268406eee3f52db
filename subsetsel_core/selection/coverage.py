"""What each chosen dataset stands for: nearest-representative assignment and covering radius."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import standardize


@dataclass(frozen=True, eq=False)
class Coverage:
    """Assignment of every dataset to its nearest chosen dataset.

    Distances are Euclidean on the representation standardized over all datasets (the
    geometry FAFI's error bound is written in).

    Attributes
    ----------
    datasets : tuple of str
    chosen : tuple of str
        The subset, in selection order.
    representative : tuple of str
        For each dataset, its nearest chosen dataset (itself when chosen).
    distance : ndarray (n,)
        Distance to the representative.
    radius : float
        Covering radius: the largest distance.
    threshold : float
        Distances above this mark a dataset as not covered well (mean + 2 std of the
        unchosen datasets' distances).
    """

    datasets: tuple[str, ...]
    chosen: tuple[str, ...]
    representative: tuple[str, ...]
    distance: np.ndarray
    radius: float
    threshold: float

    @property
    def poorly_covered(self) -> list[str]:
        """Datasets farther than :attr:`threshold` from every chosen dataset, farthest first."""
        order = np.argsort(-self.distance, kind="stable")
        return [self.datasets[i] for i in order if self.distance[i] > self.threshold]

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset: dataset, represented_by, distance, chosen, poorly_covered."""
        bad = set(self.poorly_covered)
        return pd.DataFrame({
            "dataset": self.datasets,
            "represented_by": self.representative,
            "distance": self.distance,
            "chosen": [d in set(self.chosen) for d in self.datasets],
            "poorly_covered": [d in bad for d in self.datasets],
        })

    def members(self) -> dict[str, list[str]]:
        """Chosen dataset → the unchosen datasets it stands for."""
        out: dict[str, list[str]] = {c: [] for c in self.chosen}
        for d, r in zip(self.datasets, self.representative, strict=True):
            if d != r:
                out[r].append(d)
        return out

    def columns(self) -> pd.DataFrame:
        """Per chosen dataset (selection order): ``n_represented``, ``represents`` (names joined
        with ``"; "``) and ``farthest_member_distance``."""
        members = self.members()
        index = {d: i for i, d in enumerate(self.datasets)}
        far = [max((float(self.distance[index[m]]) for m in members[d]), default=0.0) for d in self.chosen]
        return pd.DataFrame({
            "n_represented": [len(members[d]) for d in self.chosen],
            "represents": ["; ".join(members[d]) for d in self.chosen],
            "farthest_member_distance": far,
        })

    def facts(self) -> dict[str, object]:
        """Covering radius, threshold and the datasets not covered well (for a sidecar)."""
        return {"covering_radius": self.radius, "threshold": self.threshold,
                "poorly_covered": list(self.poorly_covered),
                "distance": "Euclidean on the representation standardised over all datasets"}


def coverage(representation: Representation, chosen: Sequence[str]) -> Coverage:
    """Nearest-representative assignment of every dataset to the chosen ones.

    Raises
    ------
    InputError
        When a chosen name is not a dataset of the representation, or none is chosen.
    """
    if not chosen:
        raise InputError("coverage needs at least one chosen dataset.", field="k")
    index = {d: i for i, d in enumerate(representation.datasets)}
    missing = [c for c in chosen if c not in index]
    if missing:
        raise InputError(f"chosen datasets not in the representation: {missing}.", field="representation")
    Z = standardize(representation.X)
    ci = np.asarray([index[c] for c in chosen])
    d = np.sqrt(((Z[:, None, :] - Z[ci][None, :, :]) ** 2).sum(axis=2))  # (n, k)
    nearest = d.argmin(axis=1)
    dist = d[np.arange(len(Z)), nearest]
    dist[ci] = 0.0
    rep = [chosen[j] for j in nearest]
    for c in chosen:
        rep[index[c]] = c
    free = np.setdiff1d(np.arange(len(Z)), ci)
    thr = float(dist[free].mean() + 2 * dist[free].std()) if free.size else 0.0
    return Coverage(tuple(representation.datasets), tuple(chosen), tuple(rep), dist, float(dist.max()), thr)
