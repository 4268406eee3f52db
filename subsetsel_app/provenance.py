"""The dashboard's provenance of its downloads: :func:`subsetsel_core.outputs.provenance.provenance` with the
dashboard's settings and the active benchmark's input files.

Pure Python (no Streamlit): the settings are read from what made the file (the selection,
the evaluation run's request), not from widgets that may have changed since.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from subsetsel_app.active_data import ActiveData
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.outputs.provenance import benchmark_inputs, input_hashes, provenance
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.selection.costs import BudgetSelection
from subsetsel_core.selection.subsets import Selection

_INPUTS: dict[str, dict[str, str]] = {}
"""Input hashes by benchmark token (a token changes when any of its files changes)."""


def data_inputs(data: ActiveData) -> dict[str, str]:
    """Name → SHA-256 of the files the active benchmark was read from.

    A benchmark folder (or an embedded sample): its manifest and the files it names, as
    ``folder/file``; an upload: each uploaded file's content (:attr:`ActiveData.inputs`);
    a workspace file: its digest as the dashboard keeps it.
    """
    if data.token in _INPUTS:
        return _INPUTS[data.token]
    given = data.inputs
    out: dict[str, str]
    if given:
        out = dict(given)
    elif data.manifest is not None:
        folder = Path(data.manifest.folder)
        try:
            full = benchmark_inputs(folder)
        except Exception:  # noqa: BLE001 - the folder changed since it was loaded: hash what is there
            full = input_hashes([folder])
        out = {f"{folder.name}/{Path(k).relative_to(folder)}": v for k, v in full.items()}
    elif data.source == "workspace":
        out = {"workspace file (digest)": data.token.split(":", 1)[-1]}
    else:
        out = {}
    if len(_INPUTS) > 64:
        _INPUTS.clear()
    _INPUTS[data.token] = out
    return out


def _base(data: ActiveData, page: str) -> dict[str, Any]:
    out: dict[str, Any] = {"page": page, "benchmark": data.name, "benchmark_title": data.title, "source": data.source}
    if data.reading is not None:  # how the score table was read, whole
        out["reading"] = data.reading.to_dict()
    return out


def selection_provenance(data: ActiveData, sel: Selection, recipe: RepresentationRecipe | None, *,
                         budget: BudgetSelection | None = None) -> dict[str, Any]:
    """The provenance of a subset's files (the Select or Report page's downloads)."""
    settings = {**_base(data, "Select"), "strategy": sel.strategy, "k": sel.k, "seed": sel.seed,
                "include": list(sel.include), "exclude": list(sel.exclude), "datasets": list(sel.datasets),
                "representation_recipe": None if recipe is None else recipe.to_dict()}
    if budget is not None:
        settings.update({"mode": "budget", "budget": budget.budget, "cost_source": budget.source})
    return provenance(seed=sel.seed, inputs=data_inputs(data), settings=settings)


def evaluation_provenance(data: ActiveData, config: EvaluationConfig, representations: tuple[str, ...] = (), *,
                          permutations: int = 0, permutation_trials: int = 0, page: str = "Evaluate",
                          extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance of an evaluation's files (the Evaluate page's downloads, the report)."""
    settings = {**_base(data, page), **config.to_dict(), "representations": list(representations),
                "permutations": permutations, "permutation_trials": permutation_trials, **dict(extra or {})}
    return provenance(seed=config.seed, inputs=data_inputs(data), settings=settings)


def workspace_provenance(data: ActiveData, settings: Mapping[str, Any], *, seed: int | None = None,
                         config: EvaluationConfig | None = None) -> dict[str, Any]:
    """The provenance of a workspace file (the sidebar's download, a kept session): the session's saved
    settings (strategy, k, seed, the representation's choices, …) and, when it holds an evaluation, its settings."""
    body = {**_base(data, "Workspace"), **{str(k): v for k, v in settings.items() if not str(k).startswith("_")}}
    if config is not None:
        body["evaluation"] = config.to_dict()
    return provenance(seed=seed, inputs=data_inputs(data), settings=body)


def report_provenance(data: ActiveData, seed: int, *, selection: Selection | None = None,
                      recipe: RepresentationRecipe | None = None, config: EvaluationConfig | None = None,
                      representations: tuple[str, ...] = (), permutations: int = 0, permutation_trials: int = 0,
                      title: str = "") -> dict[str, Any]:
    """The provenance of the HTML report and its figures: the selection's and the evaluation's settings."""
    settings: dict[str, Any] = {**_base(data, "Report"), "title": title}
    if selection is not None:
        settings["selection"] = selection_provenance(data, selection, recipe)["settings"]
    if config is not None:
        settings["evaluation"] = evaluation_provenance(data, config, representations, permutations=permutations,
                                                       permutation_trials=permutation_trials)["settings"]
    return provenance(seed=seed, inputs=data_inputs(data), settings=settings)
