"""Representation builders: descriptor tables and raw data to a matrix X (n × p).

:data:`BUILDERS` is the registry of every kind of representation: one :class:`Builder`
record per kind with its name, display name and builder function. A manifest's
``RepresentationSpec.kind`` is a key of it (the kinds with ``manifest=True``), and every
place that dispatches on a kind reads its record. The builder functions are imported on
first use, so reading the registry costs no scikit-learn or optional extra.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.representations.tabular import column_kind, encode_tabular
from subsetsel_core.representations.text import tfidf_svd


@dataclass(frozen=True)
class Builder:
    """One kind of representation.

    Attributes
    ----------
    name : str
        Registry key (the manifest's ``kind`` for descriptor tables).
    title : str
        Display name.
    function : str
        ``"module:attribute"`` of the builder function.
    takes : str
        What the builder function is given, in words.
    manifest : bool
        Whether a benchmark folder's manifest may declare a descriptor table of this kind.
    in_full : bool
        Whether a descriptor table of this kind is always used with every column
        (embeddings), instead of the columns a user picks.
    """

    name: str
    title: str
    function: str
    takes: str
    manifest: bool = False
    in_full: bool = False

    @property
    def build(self) -> Callable[..., Any]:
        """The builder function (its module is imported on first use)."""
        module, attribute = self.function.split(":")
        return getattr(importlib.import_module(module), attribute)


_TABLE = "a descriptor table indexed by dataset (numeric, categorical and text columns)"
_SERIES = "a mapping dataset → time series"
_NAMES = "the benchmark's dataset names (always known), optionally a table whose text columns are appended"

BUILDERS: dict[str, Builder] = {b.name: b for b in (
    Builder("tabular", "Descriptor table", "subsetsel_core.representations.descriptors:build_representation", _TABLE, manifest=True),
    Builder("text", "Text descriptions (TF-IDF)", "subsetsel_core.representations.descriptors:build_representation", _TABLE,
            manifest=True),
    Builder("embedding", "Embedding", "subsetsel_core.representations.descriptors:build_representation",
            "a table of precomputed numeric vectors indexed by dataset", manifest=True, in_full=True),
    Builder("text-encoder", "Sentence embeddings", "subsetsel_core.representations.text_encoder:sentence_embeddings",
            "one text per dataset"),
    Builder("summary", "Time-series summary statistics",
            "subsetsel_core.representations.timeseries:summary_statistics", _SERIES),
    Builder("catch22", "catch22 features", "subsetsel_core.representations.timeseries:catch22_features", _SERIES),
    Builder("minirocket", "MiniRocket features", "subsetsel_core.representations.minirocket:minirocket_features",
            _SERIES),
    Builder("landmarking", "Landmarking errors", "subsetsel_core.representations.landmarking:landmarking_features",
            "a mapping dataset → (X, y) or (X_train, y_train, X_test, y_test)"),
    Builder("interactions", "Interaction-log statistics",
            "subsetsel_core.representations.interactions:interaction_statistics",
            "user–item interaction logs per dataset"),
    Builder("names", "Dataset names (text, weak)", "subsetsel_core.representations.names:name_representation",
            _NAMES),
    Builder("names-sentence", "Dataset names (sentence embeddings, weak)",
            "subsetsel_core.representations.names:sentence_name_representation", _NAMES),
)}
"""Every kind of representation, by name."""

MANIFEST_KINDS: tuple[str, ...] = tuple(n for n, b in BUILDERS.items() if b.manifest)
"""The kinds a manifest's descriptor table may declare."""


def get_builder(kind: str) -> Builder:
    """The record of a kind.

    Raises
    ------
    InputError
        Unknown kind; the message lists the kinds.
    """
    try:
        return BUILDERS[kind]
    except KeyError:
        raise InputError(f"unknown representation kind '{kind}'; the kinds are {', '.join(BUILDERS)}.",
                         field="representation") from None


__all__ = ["BUILDERS", "MANIFEST_KINDS", "Builder", "column_kind", "encode_tabular", "get_builder", "tfidf_svd"]
