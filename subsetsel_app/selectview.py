"""What the Select page shows next to the core selection: the table and the downloads."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

import pandas as pd

from subsetsel_core import __version__
from subsetsel_core.descriptors import Representation
from subsetsel_core.export import safe_frame, subset_csv
from subsetsel_core.selection import Selection
from subsetsel_core.strategies import STRATEGIES

from . import model
from .model import ActiveData, RepConfig


def available_strategies(rep: Representation | None) -> list[str]:
    """Registered strategies usable with this representation (only random without one)."""
    return list(STRATEGIES) if rep is not None else ["random"]


def positions(data: ActiveData, names: Sequence[str]) -> tuple[int, ...]:
    """Positions of dataset names in the benchmark's order (unknown names are skipped)."""
    index = {d: i for i, d in enumerate(data.benchmark.datasets)}
    return tuple(index[n] for n in names if n in index)


def subset_frame(data: ActiveData, cfg: RepConfig | None, sel: Selection) -> pd.DataFrame:
    """``order, dataset`` and the chosen datasets' descriptors (as the CSV has them)."""
    return model.subset_table(data, sel.datasets, cfg)


def sidecar(data: ActiveData, cfg: RepConfig | None, sel: Selection) -> dict[str, object]:
    """Provenance of a subset: strategy, representation, k, seed, benchmark, agreement."""
    meta = dict(sel.metadata())
    meta["benchmark_title"] = data.title
    meta["datasets"] = list(sel.datasets)
    meta["representation_settings"] = None if cfg is None else {
        "tables": list(cfg.tables),
        "columns": None if cfg.columns is None else list(cfg.columns),
        "text_embedding": cfg.text, "log_scaling": cfg.log, "pca_variance": cfg.pca,
    }
    meta["n_datasets"] = data.benchmark.n_datasets
    meta["n_models"] = data.benchmark.n_models
    meta["subsetsel_version"] = __version__
    return meta


def downloads(data: ActiveData, cfg: RepConfig | None, sel: Selection) -> tuple[bytes, bytes]:
    """The subset CSV (formula-safe cells) and its JSON sidecar, as bytes."""
    csv = subset_csv(subset_frame(data, cfg, sel))
    side = json.dumps(sidecar(data, cfg, sel), indent=2, ensure_ascii=False, default=str)
    return csv.encode("utf-8"), side.encode("utf-8")


def deferred_downloads(
    data: ActiveData, cfg: RepConfig | None, sel: Selection
) -> tuple[Callable[[], bytes], Callable[[], bytes]]:
    """The two downloads as callables: the files are made only when a button is clicked."""
    return (lambda: downloads(data, cfg, sel)[0]), (lambda: downloads(data, cfg, sel)[1])


def display_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A table safe to show and copy (formula-like cells neutralised)."""
    return safe_frame(df)


def file_stem(sel: Selection) -> str:
    """``subset_<benchmark>_<strategy>_k<k>_seed<seed>`` with only safe characters."""
    raw = f"subset_{sel.benchmark}_{sel.strategy}_k{sel.k}_seed{sel.seed}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw)[:120]
