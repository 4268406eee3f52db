"""Where a score table has gaps: which models and datasets lack scores (the ``partial`` policy's view)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.text.rounding import text


@dataclass(frozen=True, eq=False)
class Gaps:
    """Which (dataset, model) pairs rank under the ``partial`` policy.

    Attributes
    ----------
    ranked : ndarray of bool, shape (n, M)
        Whether dataset d ranks model m (in at least one fold with two or more models).
    datasets : tuple of str
    models : tuple of str
    """

    ranked: np.ndarray
    datasets: tuple[str, ...]
    models: tuple[str, ...]

    @property
    def any(self) -> bool:
        """Whether any (dataset, model) pair is missing."""
        return not bool(self.ranked.all())

    def by_model(self) -> pd.DataFrame:
        """One row per model: ``model, datasets`` (how many rank it), ``share``; fewest first."""
        count = self.ranked.sum(axis=0)
        df = pd.DataFrame({"model": self.models, "datasets": count, "share": count / max(1, len(self.datasets))})
        return df.sort_values(["datasets", "model"], kind="stable").reset_index(drop=True)

    def by_dataset(self) -> pd.DataFrame:
        """One row per dataset: ``dataset, models`` (how many it ranks), ``share``; fewest first."""
        count = self.ranked.sum(axis=1)
        df = pd.DataFrame({"dataset": self.datasets, "models": count, "share": count / max(1, len(self.models))})
        return df.sort_values(["models", "dataset"], kind="stable").reset_index(drop=True)

    def summary(self) -> str:
        """One sentence: how many models and datasets have gaps, and the worst of each."""
        m, d = self.by_model(), self.by_dataset()
        gm, gd = int((m["share"] < 1).sum()), int((d["share"] < 1).sum())
        if not gm:
            return "Every dataset ranks every model: no gaps."
        return (f"{gm} of {len(m)} models are ranked on fewer than all {len(self.datasets)} datasets (fewest: "
                f"{m['model'].iloc[0]} on {int(m['datasets'].iloc[0])}); {gd} of {len(d)} datasets lack some models "
                f"(fewest: {d['dataset'].iloc[0]} with {int(d['models'].iloc[0])} of {len(self.models)}). "
                f"{text(1 - float(self.ranked.mean()), 'percent')} of the (dataset, model) pairs are missing.")


def gaps(benchmark: Benchmark) -> Gaps:
    """The :class:`Gaps` of a benchmark (no gaps for a complete table)."""
    ranked = ~np.isnan(benchmark.rank_vectors)
    return Gaps(ranked, benchmark.datasets, benchmark.models)
