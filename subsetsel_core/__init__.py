"""subsetsel_core: choose a subset of a benchmark's datasets that preserves the model ranking.

The public API: load a benchmark (:func:`load_scores`), descriptors
(:func:`load_descriptors`, :func:`build_representation`, a
:class:`RepresentationRecipe` and :func:`build_recipe`), choose a subset
(:func:`select_datasets`) and evaluate strategies with the bootstrap protocol
(:func:`evaluate`, :func:`iter_evaluate`). This package never imports streamlit.

The names are imported on first use (PEP 562), so ``import subsetsel_core`` and the
command line load only the modules a task needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from subsetsel_core.settings import table as _table  # noqa: F401 - adds the settings' error fields to errors.FIELDS
from subsetsel_core.version import VERSION

__version__ = VERSION

_WHERE: dict[str, str] = {
    "Benchmark": "subsetsel_core.benchmark",
    "load_scores": "subsetsel_core.benchmark",
    "Representation": "subsetsel_core.representations.descriptors",
    "build_representation": "subsetsel_core.representations.descriptors",
    "load_descriptors": "subsetsel_core.representations.descriptors",
    "representation_from_matrix": "subsetsel_core.representations.descriptors",
    "Cancelled": "subsetsel_core.errors",
    "InputError": "subsetsel_core.errors",
    "SubsetselError": "subsetsel_core.errors",
    "evaluate": "subsetsel_core.evaluation.protocol",
    "iter_evaluate": "subsetsel_core.evaluation.protocol",
    "EvaluationConfig": "subsetsel_core.evaluation.result",
    "EvaluationResult": "subsetsel_core.evaluation.result",
    "METRICS": "subsetsel_core.ranks.metrics",
    "agreement": "subsetsel_core.ranks.metrics",
    "RepresentationRecipe": "subsetsel_core.representations.recipe",
    "build_recipe": "subsetsel_core.representations.recipe",
    "Selection": "subsetsel_core.selection.subsets",
    "select_datasets": "subsetsel_core.selection.subsets",
    "subset_agreement": "subsetsel_core.selection.subsets",
    "REGISTRY": "subsetsel_core.strategies",
    "STRATEGIES": "subsetsel_core.strategies",
    "select": "subsetsel_core.strategies",
}

__all__ = [
    "METRICS", "REGISTRY", "STRATEGIES", "Benchmark", "Cancelled", "EvaluationConfig", "EvaluationResult",
    "InputError", "Representation", "RepresentationRecipe", "Selection", "SubsetselError", "agreement",
    "build_recipe", "build_representation", "evaluate", "iter_evaluate", "load_descriptors", "load_scores",
    "representation_from_matrix", "select", "select_datasets", "subset_agreement",
]

if TYPE_CHECKING:
    from subsetsel_core.benchmark import Benchmark, load_scores
    from subsetsel_core.errors import Cancelled, InputError, SubsetselError
    from subsetsel_core.evaluation.protocol import evaluate, iter_evaluate
    from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult
    from subsetsel_core.ranks.metrics import METRICS, agreement
    from subsetsel_core.representations.descriptors import (
        Representation,
        build_representation,
        load_descriptors,
        representation_from_matrix,
    )
    from subsetsel_core.representations.recipe import RepresentationRecipe, build_recipe
    from subsetsel_core.selection.subsets import Selection, select_datasets, subset_agreement
    from subsetsel_core.strategies import REGISTRY, STRATEGIES, select


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'subsetsel_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
