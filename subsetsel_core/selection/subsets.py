"""Choosing one subset by dataset name (:func:`select_datasets`), and how well it
preserves the full ranking (:func:`subset_agreement`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.strategies import a_priori, select
from subsetsel_core.text.safe_csv import restore

if TYPE_CHECKING:
    pass

@dataclass(frozen=True)
class Selection:
    """A chosen subset.

    Attributes
    ----------
    datasets : tuple of str
        Chosen datasets in selection order.
    indices : tuple of int
        Their positions in the benchmark's dataset order.
    strategy, representation : str
    k, seed : int
    benchmark : str
        Benchmark name.
    agreement : dict of str to float
        Metrics of the subset's ranking against the full benchmark's.
    include, exclude : tuple of str
    """

    datasets: tuple[str, ...]
    indices: tuple[int, ...]
    strategy: str
    representation: str
    k: int
    seed: int
    benchmark: str
    agreement: dict[str, float] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def metadata(self) -> dict[str, object]:
        """Provenance of the subset (for a CSV header or a JSON sidecar)."""
        return {
            "benchmark": self.benchmark, "strategy": self.strategy, "representation": self.representation,
            "k": self.k, "seed": self.seed, "include": list(self.include), "exclude": list(self.exclude),
            "agreement": {m: round(v, 6) for m, v in self.agreement.items()},
        }


def positions(names: Sequence[str], datasets: Sequence[str], what: str) -> list[int]:
    """Row numbers of named datasets; a name copied from a subset CSV (``'+aug`` for ``+aug``) is accepted.

    Raises
    ------
    InputError
        For a name that is not a dataset (with suggestions).
    """
    index = {d: i for i, d in enumerate(datasets)}
    names = [n if n in index else restore(n) for n in names]
    missing = [n for n in names if n not in index]
    if missing:
        raise InputError(f"the {what} list names unknown datasets: {describe_mismatch(missing, list(datasets))}.",
                         field="exclude" if what == "exclude" else "include")
    return [index[n] for n in names]


def subset_agreement(benchmark: Benchmark, indices: Sequence[int] | np.ndarray,
                     metrics: Sequence[str] = tuple(METRICS)) -> dict[str, float]:
    """Metrics of the ranking on ``indices`` against the ranking on all datasets."""
    table = benchmark.rank_table
    sub = table.rows[list(indices)].sum(axis=0)
    vals, _ = table.agreement(table.reference(), sub[None], ref_count=benchmark.n_datasets,
                              sub_count=len(indices), metrics=metrics)
    return {m: float(v[0]) for m, v in vals.items()}


def select_datasets(
    benchmark: Benchmark,
    representation: Representation | None,
    strategy: str,
    k: int,
    *,
    seed: int = 0,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Selection:
    """Choose ``k`` datasets of ``benchmark`` from ``representation`` with ``strategy``.

    Parameters
    ----------
    benchmark : Benchmark
    representation : Representation or None
        Aligned to ``benchmark.datasets``; may be None for ``random``.
    strategy : str
    k : int
    seed : int
    include, exclude : sequence of str
        Dataset names chosen first (in order) / never chosen.

    Returns
    -------
    Selection
    """
    info = a_priori(strategy)  # a score-aware strategy is refused, pointing to 'subsetsel headroom'
    if representation is None:
        if info.uses_features:
            raise InputError(f"strategy '{strategy}' needs a representation (descriptors).",
                             field="representation")
        X = np.zeros((benchmark.n_datasets, 0))
        rep_name = "none"
    else:
        if tuple(representation.datasets) != tuple(benchmark.datasets):
            raise InputError("the representation is not aligned to the benchmark's datasets.",
                             field="representation")
        X = representation.X
        rep_name = representation.name
    inc = positions(include, benchmark.datasets, "must-include")
    exc = positions(exclude, benchmark.datasets, "exclude")
    idx = select(X, k, strategy, rng=np.random.default_rng(seed), include=inc, exclude=exc)
    return Selection(
        tuple(benchmark.datasets[i] for i in idx), tuple(int(i) for i in idx), strategy, rep_name, int(k),
        int(seed), benchmark.name, subset_agreement(benchmark, idx), tuple(include), tuple(exclude),
    )
