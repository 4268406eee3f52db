"""Representations declared in a ``manifest.json``: descriptor tables of a benchmark folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from subsetsel_core.io.manifest_fields import FieldChecker
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.representations import MANIFEST_KINDS

__all__ = ["RepresentationSpec", "parse_representation"]

_KEYS = (
    "name",
    "title",
    "kind",
    "files",
    "columns",
    "aliases",
    "dataset_column",
    "description",
)


@dataclass(frozen=True)
class RepresentationSpec:
    """One representation (a descriptor table) declared in a manifest.

    Attributes
    ----------
    name : str
        Identifier, unique within the benchmark.
    kind : {"tabular", "text", "embedding"}
        ``tabular``: numeric / categorical facts; ``text``: free text (encoded when the
        representation is built); ``embedding``: precomputed numeric vectors.
    files : tuple of str
        Descriptor files relative to the folder, joined on the dataset column.
    title : str
        Display name (default: ``name``).
    description : str
        What the columns are and where they come from.
    columns : tuple of str or None
        Columns to use (default: every column but the dataset column).
    aliases : dict of str to str
        Dataset names in the descriptor files mapped to the names in the scores.
    dataset_column : str
        Name of the dataset column in the descriptor files.
    """

    name: str
    kind: str
    files: tuple[str, ...]
    title: str = ""
    description: str = ""
    columns: tuple[str, ...] | None = None
    aliases: dict[str, str] = field(default_factory=dict, hash=False)
    dataset_column: str = "dataset"


def parse_representation(chk: FieldChecker, data: Any, i: int) -> RepresentationSpec:
    """Check entry ``i`` of a manifest's ``representations`` list and build its spec.

    Raises
    ------
    InputError
        A field is missing, unknown or of the wrong type, or a named file is not in the
        folder; the message names the manifest and the field.
    """
    where = f"representations[{i}]"
    if not isinstance(data, Mapping):
        raise chk.fail(
            where,
            f"must be an object, got {json.dumps(data)}",
            'Write it as {"name": "facts", "kind": "tabular", "files": ["features.csv"]}.',
        )
    chk.keys(data, _KEYS, where)
    name = chk.string(data, "name", f"{where}.name", required=True, nonempty=True)
    where_n = f"representations[{i}] ('{name}')"
    if "kind" not in data:
        raise chk.fail(f"{where_n}.kind", "is missing", f"Use one of {', '.join(MANIFEST_KINDS)}.")
    kind = chk.string(data, "kind", f"{where_n}.kind")
    if kind not in MANIFEST_KINDS:
        raise chk.fail(
            f"{where_n}.kind",
            f"is '{kind}'{did_you_mean(kind, MANIFEST_KINDS, 1)}",
            f"Use one of {', '.join(MANIFEST_KINDS)}: tabular = numeric or categorical facts, "
            "text = free text, embedding = precomputed vectors.",
        )
    files = data.get("files")
    if files is None:
        raise chk.fail(
            f"{where_n}.files",
            "is missing",
            'List the descriptor files, e.g. "files": ["features.csv"].',
        )
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list) or not files:
        raise chk.fail(
            f"{where_n}.files",
            f"must be a non-empty list of file names, got {json.dumps(files)}",
            'Write it as "files": ["features.csv"].',
        )
    paths = tuple(chk.file(f, f"{where_n}.files[{j}]") for j, f in enumerate(files))
    columns = data.get("columns")
    if columns is not None:
        if (
            not isinstance(columns, list)
            or not columns
            or not all(isinstance(c, str) and c.strip() for c in columns)
        ):
            raise chk.fail(
                f"{where_n}.columns",
                f"must be a non-empty list of column names, got {json.dumps(columns)}",
                'Write it as "columns": ["n_classes", "length"], or leave it out to use '
                "every column.",
            )
        columns = tuple(c.strip() for c in columns)
    aliases = data.get("aliases") or {}
    if not isinstance(aliases, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in aliases.items()
    ):
        raise chk.fail(
            f"{where_n}.aliases",
            f"must map names to names, got {json.dumps(aliases)}",
            'Write it as "aliases": {"name in the descriptor file": "name in the scores"}.',
        )
    return RepresentationSpec(
        name=name,
        kind=kind,
        files=paths,
        title=chk.string(data, "title", f"{where_n}.title", default=name) or name,
        description=chk.string(data, "description", f"{where_n}.description"),
        columns=columns,
        # Names are compared stripped of surrounding spaces, as the table loaders do.
        aliases={k.strip(): v.strip() for k, v in aliases.items()},
        dataset_column=chk.optional_column(
            data, "dataset_column", f"{where_n}.dataset_column", "dataset"
        ),
    )
