"""The ``manifest.json`` of a benchmark folder: :class:`Manifest` and :func:`read_manifest`.

A benchmark folder is how a benchmark is kept on disk, both the embedded samples in
``sample_data/`` and a user's own benchmarks (listed and loaded by
:mod:`subsetsel_core.loading.folder`). Its manifest names the score file, says how to read it
(a :class:`~subsetsel_core.benchmark.ScoreFormat`) and declares the descriptor tables
(:class:`~subsetsel_core.representations.spec.RepresentationSpec`).

The format (documented for users in ``sample_data/README.md``)::

    my_benchmark/
      manifest.json
      scores.csv.gz             # long: dataset, model[, fold], score   (or wide)
      features_facts.csv        # dataset + descriptor columns
      ...

``manifest.json``::

    {
      "format_version": 1,
      "name": "my_benchmark",            # identifier (default: the folder name)
      "title": "My benchmark",           # display name (default: name)
      "description": "...", "metric": "accuracy",
      "higher_is_better": true,          # required
      "source": "...", "licence": "...", "citation": "...",
      "parameters": {...},               # optional free-form facts (e.g. generator settings)
      "scores": {                        # required
        "file": "scores.csv.gz",         # required; relative to the folder
        "layout": "long",                # "long" (default), "wide" or "models-as-rows"
        "dataset_column": "dataset", "model_column": "model",
        "score_column": "score", "fold_column": "fold",   # null: no folds
        "missing": "error"               # or "drop-models" / "drop-datasets"
      },
      "representations": [               # optional
        {"name": "facts", "title": "Dataset facts", "kind": "tabular",
         "files": ["features_facts.csv"], "columns": ["n_classes", "length"],
         "aliases": {"name in file": "name in scores"},
         "dataset_column": "dataset", "description": "..."}
      ]
    }

Paths are relative to the folder and must stay inside it, links followed: a file that is a
link to somewhere outside the folder is refused, as is anything but a regular file (a pipe,
a device). Every file is read through descriptors
(:func:`~subsetsel_core.io.file_guard.read_confined`): opened once, each component without
following links, so a link swapped in while the folder is read is never followed out of it.
A manifest read with ``within`` (a benchmark root, a scanned directory) is confined to that
directory the same way, folder included. The manifest is read with a cap on its size (:data:`MAX_MANIFEST_BYTES`) and its
nesting (:func:`~subsetsel_core.io.manifest_fields.read_manifest_json`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import file_kind, read_confined, regular_file
from subsetsel_core.io.manifest_fields import FORMAT_HELP, FieldChecker, read_manifest_json
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.loading.scores_section import scores_section, shown_json
from subsetsel_core.representations.spec import RepresentationSpec, parse_representation

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST_FILE",
    "Manifest",
    "RepresentationSpec",
    "read_manifest",
]

FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
MAX_MANIFEST_BYTES = 4 * 2**20
"""Largest ``manifest.json`` read, in bytes."""

_TOP_KEYS = (
    "format_version",
    "name",
    "title",
    "description",
    "metric",
    "higher_is_better",
    "source",
    "licence",
    "citation",
    "parameters",
    "scores",
    "representations",
)


@dataclass(frozen=True)
class Manifest:
    """A validated ``manifest.json`` of a benchmark folder.

    Attributes
    ----------
    folder : Path
        The benchmark folder (absolute).
    name, title, description, metric : str
        Identifier, display name, a paragraph, and what the scores measure.
    source, licence, citation : str
        Provenance.
    scores_file : str
        The score file, relative to the folder.
    scores : ScoreFormat
        How to read it (layout, columns, orientation, missing-score policy).
    representations : tuple of RepresentationSpec
        Descriptor tables, in manifest order.
    parameters : dict
        Free-form facts (for example the settings of a generated benchmark).
    format_version : int
        Version of the folder format.
    within : Path, optional
        The directory every file of the folder is read from by descriptor (a benchmark root,
        resolved); None: the folder itself.
    """

    folder: Path
    name: str
    title: str
    description: str
    metric: str
    source: str
    licence: str
    citation: str
    scores_file: str
    scores: ScoreFormat
    representations: tuple[RepresentationSpec, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict, hash=False)
    format_version: int = FORMAT_VERSION
    within: Path | None = field(default=None, compare=False)

    @property
    def higher_is_better(self) -> bool:
        """Orientation of the scores."""
        return self.scores.higher_is_better

    @property
    def manifest_path(self) -> Path:
        """Path of the ``manifest.json``."""
        return self.folder / MANIFEST_FILE

    @property
    def representation_names(self) -> tuple[str, ...]:
        """Names of the declared representations, in manifest order."""
        return tuple(r.name for r in self.representations)

    def representation(self, name: str) -> RepresentationSpec:
        """The representation called ``name``.

        Raises
        ------
        InputError
            If there is none; the message lists the valid names.
        """
        for rep in self.representations:
            if rep.name == name:
                return rep
        raise InputError(
            f"benchmark '{self.name}' has no representation '{name}'"
            f"{did_you_mean(name, self.representation_names, 1)}; "
            f"it has: {', '.join(self.representation_names) or 'none'}."
        )

    def path(self, file: str) -> Path:
        """Absolute path of a file named in the manifest, checked again as it is used.

        Raises
        ------
        InputError
            The file (links followed) is not inside the folder any more, or is not a
            regular file; the message names the file, never its contents.
        """
        return regular_file(self.folder / file, f"{self.folder.name}/{file}", folder=self.folder)

    def read(self, file: str, limit: int) -> bytes:
        """The bytes of a file named in the manifest, opened once below the folder (or ``within``)
        without following a link out of it (:func:`~subsetsel_core.io.file_guard.read_confined`).

        Raises
        ------
        InputError
            Missing, a link out of the folder, not a regular file, over ``limit`` bytes.
        """
        base, rel = _base(self.folder, self.within)
        return read_confined(base, f"{rel}/{file}" if rel else file, f"{self.folder.name}/{file}", limit)

    def to_dict(self) -> dict[str, Any]:
        """The manifest as JSON-ready data (what :func:`read_manifest` reads back)."""
        reps = []
        for r in self.representations:
            d: dict[str, Any] = {
                "name": r.name,
                "title": r.title,
                "kind": r.kind,
                "files": list(r.files),
            }
            if r.description:
                d["description"] = r.description
            if r.columns is not None:
                d["columns"] = list(r.columns)
            if r.aliases:
                d["aliases"] = dict(r.aliases)
            if r.dataset_column != "dataset":
                d["dataset_column"] = r.dataset_column
            reps.append(d)
        out: dict[str, Any] = {
            "format_version": self.format_version,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "source": self.source,
            "licence": self.licence,
            "citation": self.citation,
        }
        if self.parameters:
            out["parameters"] = dict(self.parameters)
        out["scores"] = {
            "file": self.scores_file,
            "layout": self.scores.layout,
            "dataset_column": self.scores.dataset_column,
            "model_column": self.scores.model_column,
            "score_column": self.scores.score_column,
            "fold_column": self.scores.fold_column,
            "missing": self.scores.missing,
        }
        out["representations"] = reps
        return out


def _base(folder: Path, within: Path | None) -> tuple[Path, str]:
    """The directory reads start from and the folder's path below it ('' for the folder itself)."""
    if within is None:
        return folder, ""
    try:
        rel = folder.relative_to(within)
    except ValueError:
        raise InputError(f"{folder}: is not inside {within}, the directory it is read from; only folders "
                         "inside it are read. Move or copy the benchmark folder into it.") from None
    return within, rel.as_posix() if str(rel) != "." else ""


def read_manifest(folder: str | Path, *, within: str | Path | None = None) -> Manifest:
    """Read and validate the ``manifest.json`` of a benchmark folder.

    Parameters
    ----------
    folder : str or Path
        The benchmark folder (or its ``manifest.json``).
    within : str or Path, optional
        A directory (a benchmark root) the folder and its files must stay in, links followed
        and checked by descriptor as they are read. None: the folder's files stay in the folder.

    Returns
    -------
    Manifest
        With every field checked and every named file present.

    Raises
    ------
    InputError
        If the folder or manifest is missing, the JSON is malformed, a field is missing,
        unknown or of the wrong type, or a named file is not in the folder. The message
        names the file and the field and says how to fix it.
    """
    folder = Path(folder).expanduser()
    if folder.name == MANIFEST_FILE and folder.is_file():
        folder = folder.parent
    folder = folder.resolve()
    if not folder.is_dir():
        if folder.is_file():
            raise InputError(f"{folder}: is a file, not a benchmark folder (a folder with a {MANIFEST_FILE}). Give a "
                             f"score table as --scores {folder}.", field="scores_file")
        raise InputError(f"{folder}: no such benchmark folder. Check the path.")
    path = folder / MANIFEST_FILE
    if file_kind(path) == "missing":
        from subsetsel_core.io.result_folders import results_title

        title = results_title(folder)
        if title is not None:
            raise InputError(f"{folder}: holds {title} result files, not a benchmark folder with a {MANIFEST_FILE}. "
                             f"Give it as the scores: --scores {folder} (with --features for descriptor tables).",
                             field="scores_file")
        raise InputError(
            f"{folder}: no {MANIFEST_FILE} in this folder. A benchmark folder needs a "
            f"{MANIFEST_FILE} naming its score file and descriptor files. {FORMAT_HELP}"
        )
    inner = None if within is None else Path(os.path.realpath(Path(within).expanduser()))
    base, rel = _base(folder, inner)
    data = read_manifest_json(base / rel / MANIFEST_FILE if rel else path, base, MAX_MANIFEST_BYTES)
    chk = FieldChecker(path)
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: must hold a JSON object {{…}}, not {type(data).__name__}. {FORMAT_HELP}"
        )
    chk.keys(data, _TOP_KEYS, "")
    version = data.get("format_version", FORMAT_VERSION)
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise chk.fail(
            "format_version",
            f"is {shown_json(version)}, but this version of subsetsel reads format {FORMAT_VERSION}",
            f'Set "format_version": {FORMAT_VERSION} after checking the folder against the format.',
        )
    if "higher_is_better" not in data:
        raise chk.fail(
            "higher_is_better",
            "is missing",
            'Add "higher_is_better": true (accuracy, F1, …) or false (error, loss, time, …).',
        )
    hib = data["higher_is_better"]
    if not isinstance(hib, bool):
        raise chk.fail(
            "higher_is_better",
            f"must be true or false, got {shown_json(hib)}",
            "Write true or false without quotes.",
        )
    name = chk.string(data, "name", "name", default=folder.name, nonempty="name" in data)
    params = data.get("parameters") or {}
    if not isinstance(params, dict):
        raise chk.fail(
            "parameters",
            f"must be an object, got {shown_json(params)}",
            'Write it as {"key": value}.',
        )
    reps_data = data.get("representations") or []
    if not isinstance(reps_data, list):
        raise chk.fail(
            "representations",
            f"must be a list, got {shown_json(reps_data)}",
            'Write it as "representations": [{"name": …, "kind": …, "files": […]}].',
        )
    reps = tuple(parse_representation(chk, r, i) for i, r in enumerate(reps_data))
    seen: set[str] = set()
    for i, r in enumerate(reps):
        if r.name in seen:
            raise chk.fail(
                f"representations[{i}].name",
                f"repeats the name '{r.name}'",
                "Give every representation its own name.",
            )
        seen.add(r.name)
    scores_file, scores = scores_section(chk, data.get("scores"), hib)
    return Manifest(
        folder=folder,
        name=name,
        title=chk.string(data, "title", "title", default=name) or name,
        description=chk.string(data, "description", "description"),
        metric=chk.string(data, "metric", "metric", default="score") or "score",
        source=chk.string(data, "source", "source"),
        licence=chk.string(data, "licence", "licence"),
        citation=chk.string(data, "citation", "citation"),
        scores_file=scores_file,
        scores=scores,
        representations=reps,
        parameters=dict(params),
        format_version=FORMAT_VERSION,
        within=inner,
    )
