"""subsetsel_core: choose a subset of a benchmark's datasets that preserves the model ranking.

The public API: load a benchmark (:func:`load_scores`), descriptors
(:func:`load_descriptors`, :func:`build_representation`), choose a subset
(:func:`select_datasets`) and evaluate strategies with the bootstrap protocol
(:func:`evaluate`, :func:`iter_evaluate`). This package never imports streamlit.
"""

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.descriptors import (
    Representation,
    build_representation,
    load_descriptors,
    representation_from_matrix,
)
from subsetsel_core.errors import Cancelled, InputError, SubsetselError
from subsetsel_core.evaluation.protocol import (
    EvaluationConfig,
    EvaluationResult,
    evaluate,
    iter_evaluate,
)
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.selection import Selection, select_datasets, subset_agreement
from subsetsel_core.strategies import REGISTRY, STRATEGIES, select

__version__ = "0.1.0"

__all__ = [
    "METRICS", "REGISTRY", "STRATEGIES", "Benchmark", "Cancelled", "EvaluationConfig", "EvaluationResult",
    "InputError", "Representation", "Selection", "SubsetselError", "agreement", "build_representation",
    "evaluate", "iter_evaluate", "load_descriptors", "load_scores", "representation_from_matrix", "select",
    "select_datasets", "subset_agreement",
]
