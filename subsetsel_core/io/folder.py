"""Benchmark folders: a ``manifest.json`` plus score and descriptor files.

A benchmark folder is how a benchmark is kept on disk, both the embedded samples in
``sample_data/`` and a user's own benchmarks. The dashboard lists every folder with a
manifest in a configurable directory (:func:`list_benchmarks`) and loads one through
the same validated path (:func:`load_benchmark_folder`) as an upload.

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
        "layout": "long",                # "long" (default) or "wide"
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

Paths are relative to the folder and must stay inside it.
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import pandas as pd

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.descriptors import Representation, build_representation, load_descriptors
from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.io.validation import ReportBuilder, ValidationReport

__all__ = [
    "FORMAT_VERSION",
    "KINDS",
    "LAYOUTS",
    "MANIFEST_FILE",
    "SAMPLE_DATA_DIR",
    "BenchmarkFolderWarning",
    "Catalog",
    "LoadedBenchmark",
    "Manifest",
    "RepresentationSpec",
    "ScoresSpec",
    "list_benchmarks",
    "load_benchmark_folder",
    "read_manifest",
    "scan_benchmarks",
]

FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
LAYOUTS: tuple[str, ...] = ("long", "wide")
KINDS: tuple[str, ...] = ("tabular", "text", "embedding")
MISSING: tuple[str, ...] = ("error", "drop-models", "drop-datasets")
TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".parquet", ".pq")
#: The embedded samples: ``sample_data/`` next to the package.
SAMPLE_DATA_DIR: Path = Path(__file__).resolve().parents[2] / "sample_data"

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
_SCORES_KEYS = (
    "file",
    "layout",
    "dataset_column",
    "model_column",
    "score_column",
    "fold_column",
    "missing",
)
_REP_KEYS = (
    "name",
    "title",
    "kind",
    "files",
    "columns",
    "aliases",
    "dataset_column",
    "description",
)
_SEE = "See sample_data/README.md for the format."


class BenchmarkFolderWarning(UserWarning):
    """A folder in a benchmark directory that could not be listed."""


@dataclass(frozen=True)
class ScoresSpec:
    """Where and how the scores of a benchmark folder are stored.

    Attributes
    ----------
    file : str
        File name relative to the folder (CSV, gzip CSV or Parquet).
    layout : {"long", "wide"}
        ``long``: one row per dataset, model and optional fold; ``wide``: one row per
        dataset (and fold), one column per model.
    dataset_column, model_column, score_column : str
        Column names (``model_column`` and ``score_column`` only matter in the long layout).
    fold_column : str or None
        Fold / seed / resample column, used when present; ``None``: no folds.
    missing : {"error", "drop-models", "drop-datasets"}
        Missing-score policy passed to :func:`~subsetsel_core.benchmark.load_scores`.
    """

    file: str
    layout: str = "long"
    dataset_column: str = "dataset"
    model_column: str = "model"
    score_column: str = "score"
    fold_column: str | None = "fold"
    missing: str = "error"


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


@dataclass(frozen=True)
class Manifest:
    """A validated ``manifest.json`` of a benchmark folder.

    Attributes
    ----------
    folder : Path
        The benchmark folder (absolute).
    name, title, description, metric : str
        Identifier, display name, a paragraph, and what the scores measure.
    higher_is_better : bool
        Orientation of the scores.
    source, licence, citation : str
        Provenance.
    scores : ScoresSpec
        The score file.
    representations : tuple of RepresentationSpec
        Descriptor tables, in manifest order.
    parameters : dict
        Free-form facts (for example the settings of a generated benchmark).
    format_version : int
        Version of the folder format.
    """

    folder: Path
    name: str
    title: str
    description: str
    metric: str
    higher_is_better: bool
    source: str
    licence: str
    citation: str
    scores: ScoresSpec
    representations: tuple[RepresentationSpec, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict, hash=False)
    format_version: int = FORMAT_VERSION

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
            f"{_did_you_mean(name, self.representation_names)}; "
            f"it has: {', '.join(self.representation_names) or 'none'}."
        )

    def path(self, file: str) -> Path:
        """Absolute path of a file named in the manifest."""
        return self.folder / file

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
            "file": self.scores.file,
            "layout": self.scores.layout,
            "dataset_column": self.scores.dataset_column,
            "model_column": self.scores.model_column,
            "score_column": self.scores.score_column,
            "fold_column": self.scores.fold_column,
            "missing": self.scores.missing,
        }
        out["representations"] = reps
        return out


# --------------------------------------------------------------------------- validation


def _did_you_mean(word: str, options: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Checker:
    """Field checks of one manifest; every error names the file and the field."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.folder = path.parent

    def fail(self, where: str, problem: str, fix: str) -> InputError:
        return InputError(f"{self.path}: field '{where}' {problem}. {fix}")

    def keys(self, data: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
        for key in data:
            if key not in allowed:
                field_name = f"{where}.{key}" if where else key
                raise self.fail(
                    field_name,
                    f"is not a known field{_did_you_mean(key, allowed)}",
                    f"Known fields{' of ' + where if where else ''}: {', '.join(allowed)}. {_SEE}",
                )

    def string(
        self,
        data: Mapping[str, Any],
        key: str,
        where: str,
        *,
        default: str | None = None,
        required: bool = False,
        nonempty: bool = False,
    ) -> str:
        if key not in data or (data[key] is None and not required):
            if required:
                raise self.fail(where, "is missing", f"Add it as a JSON string. {_SEE}")
            return default if default is not None else ""
        value = data[key]
        if not isinstance(value, str):
            raise self.fail(
                where, f"must be a string, got {json.dumps(value)}", 'Write it in quotes: "…".'
            )
        if nonempty and not value.strip():
            raise self.fail(where, "is empty", "Give a non-empty name.")
        return value.strip() if nonempty else value

    def optional_column(self, data: Mapping[str, Any], key: str, where: str, default: str) -> str:
        return self.string(data, key, where, default=default, nonempty=key in data)

    def file(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                where,
                f"must be a file name, got {json.dumps(value)}",
                'Give the file\'s name relative to the benchmark folder, e.g. "scores.csv".',
            )
        pure = PurePosixPath(value.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or Path(value).is_absolute():
            raise self.fail(
                where,
                f"is '{value}', which points outside the benchmark folder",
                f"Copy the file into {self.folder} and give its name relative to the folder.",
            )
        if not value.lower().endswith(TABLE_SUFFIXES):
            raise self.fail(
                where,
                f"is '{value}', which is not a supported table file",
                f"Use one of {', '.join(TABLE_SUFFIXES)} (CSV, gzip CSV, TSV or Parquet).",
            )
        target = self.folder / pure
        if not target.is_file():
            present = sorted(
                p.name for p in self.folder.iterdir() if p.is_file() and p.name != MANIFEST_FILE
            )
            raise self.fail(
                where,
                f"names '{value}', which is not in {self.folder}{_did_you_mean(value, present)}",
                "Put the file in the folder or correct the name; files there: "
                f"{', '.join(present) or 'none'}.",
            )
        return str(pure)


def _scores_spec(chk: _Checker, data: Any) -> ScoresSpec:
    if data is None:
        raise chk.fail(
            "scores",
            "is missing",
            'Add "scores": {"file": "scores.csv", "layout": "long"} naming the score table. '
            + _SEE,
        )
    if isinstance(data, str):
        data = {"file": data}
    if not isinstance(data, Mapping):
        raise chk.fail(
            "scores",
            f"must be an object, got {json.dumps(data)}",
            'Write it as {"file": "scores.csv", "layout": "long"}.',
        )
    chk.keys(data, _SCORES_KEYS, "scores")
    if "file" not in data:
        raise chk.fail("scores.file", "is missing", 'Name the score table, e.g. "scores.csv".')
    file = chk.file(data["file"], "scores.file")
    layout = chk.string(data, "layout", "scores.layout", default="long")
    if layout not in LAYOUTS:
        raise chk.fail(
            "scores.layout",
            f"is '{layout}'{_did_you_mean(layout, LAYOUTS)}",
            'Use "long" (one row per dataset, model and optional fold, with a score column) '
            'or "wide" (one row per dataset, one column per model).',
        )
    fold: str | None
    if "fold_column" in data and data["fold_column"] is None:
        fold = None
    else:
        fold = chk.optional_column(data, "fold_column", "scores.fold_column", "fold")
    missing = chk.string(data, "missing", "scores.missing", default="error")
    if missing not in MISSING:
        raise chk.fail(
            "scores.missing",
            f"is '{missing}'{_did_you_mean(missing, MISSING)}",
            f"Use one of {', '.join(MISSING)}.",
        )
    return ScoresSpec(
        file=file,
        layout=layout,
        dataset_column=chk.optional_column(
            data, "dataset_column", "scores.dataset_column", "dataset"
        ),
        model_column=chk.optional_column(data, "model_column", "scores.model_column", "model"),
        score_column=chk.optional_column(data, "score_column", "scores.score_column", "score"),
        fold_column=fold,
        missing=missing,
    )


def _rep_spec(chk: _Checker, data: Any, i: int) -> RepresentationSpec:
    where = f"representations[{i}]"
    if not isinstance(data, Mapping):
        raise chk.fail(
            where,
            f"must be an object, got {json.dumps(data)}",
            'Write it as {"name": "facts", "kind": "tabular", "files": ["features.csv"]}.',
        )
    chk.keys(data, _REP_KEYS, where)
    name = chk.string(data, "name", f"{where}.name", required=True, nonempty=True)
    where_n = f"representations[{i}] ('{name}')"
    if "kind" not in data:
        raise chk.fail(f"{where_n}.kind", "is missing", f"Use one of {', '.join(KINDS)}.")
    kind = chk.string(data, "kind", f"{where_n}.kind")
    if kind not in KINDS:
        raise chk.fail(
            f"{where_n}.kind",
            f"is '{kind}'{_did_you_mean(kind, KINDS)}",
            f"Use one of {', '.join(KINDS)}: tabular = numeric or categorical facts, "
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


def read_manifest(folder: str | Path) -> Manifest:
    """Read and validate the ``manifest.json`` of a benchmark folder.

    Parameters
    ----------
    folder : str or Path
        The benchmark folder (or its ``manifest.json``).

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
        raise InputError(f"{folder}: no such benchmark folder. Check the path.")
    path = folder / MANIFEST_FILE
    if not path.is_file():
        raise InputError(
            f"{folder}: no {MANIFEST_FILE} in this folder. A benchmark folder needs a "
            f"{MANIFEST_FILE} naming its score file and descriptor files. {_SEE}"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text. Save it as UTF-8 JSON.") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
            "Check for a missing comma or quote, or a trailing comma."
        ) from None
    chk = _Checker(path)
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: must hold a JSON object {{…}}, not {type(data).__name__}. {_SEE}"
        )
    chk.keys(data, _TOP_KEYS, "")
    version = data.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise chk.fail(
            "format_version",
            f"is {json.dumps(version)}, but this version of subsetsel reads format {FORMAT_VERSION}",
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
            f"must be true or false, got {json.dumps(hib)}",
            "Write true or false without quotes.",
        )
    name = chk.string(data, "name", "name", default=folder.name, nonempty="name" in data)
    params = data.get("parameters") or {}
    if not isinstance(params, dict):
        raise chk.fail(
            "parameters",
            f"must be an object, got {json.dumps(params)}",
            'Write it as {"key": value}.',
        )
    reps_data = data.get("representations") or []
    if not isinstance(reps_data, list):
        raise chk.fail(
            "representations",
            f"must be a list, got {json.dumps(reps_data)[:60]}",
            'Write it as "representations": [{"name": …, "kind": …, "files": […]}].',
        )
    reps = tuple(_rep_spec(chk, r, i) for i, r in enumerate(reps_data))
    seen: set[str] = set()
    for i, r in enumerate(reps):
        if r.name in seen:
            raise chk.fail(
                f"representations[{i}].name",
                f"repeats the name '{r.name}'",
                "Give every representation its own name.",
            )
        seen.add(r.name)
    return Manifest(
        folder=folder,
        name=name,
        title=chk.string(data, "title", "title", default=name) or name,
        description=chk.string(data, "description", "description"),
        metric=chk.string(data, "metric", "metric", default="score") or "score",
        higher_is_better=hib,
        source=chk.string(data, "source", "source"),
        licence=chk.string(data, "licence", "licence"),
        citation=chk.string(data, "citation", "citation"),
        scores=_scores_spec(chk, data.get("scores")),
        representations=reps,
        parameters=dict(params),
        format_version=FORMAT_VERSION,
    )


# --------------------------------------------------------------------------- listing


@dataclass(frozen=True)
class Catalog:
    """What :func:`scan_benchmarks` found in a directory.

    Attributes
    ----------
    directory : Path
        The directory scanned.
    manifests : tuple of Manifest
        The valid benchmark folders, sorted by name.
    problems : tuple of (Path, str)
        Folders with a ``manifest.json`` that could not be read, with the reason.
    """

    directory: Path
    manifests: tuple[Manifest, ...]
    problems: tuple[tuple[Path, str], ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per folder: ``name, title, folder, status, message``."""
        rows = [(m.name, m.title, str(m.folder), "ok", "") for m in self.manifests]
        rows += [("", "", str(p), "error", msg) for p, msg in self.problems]
        return pd.DataFrame(rows, columns=["name", "title", "folder", "status", "message"])


def _directory(directory: str | Path | None) -> Path:
    d = SAMPLE_DATA_DIR if directory is None else Path(directory).expanduser()
    if not d.is_dir():
        raise InputError(
            f"{d}: no such benchmark directory. Create it and put one folder per benchmark "
            f"in it, each with a {MANIFEST_FILE}. {_SEE}"
        )
    return d.resolve()


def scan_benchmarks(directory: str | Path | None = None) -> Catalog:
    """Read every benchmark folder in a directory, keeping the broken ones aside.

    Parameters
    ----------
    directory : str or Path, optional
        Directory holding one folder per benchmark (default: the embedded
        ``sample_data/``). Sub-folders without a ``manifest.json`` are not benchmarks and
        are ignored.

    Returns
    -------
    Catalog
        Valid manifests sorted by name, and the problems of the others. Two folders with
        the same benchmark name: the second (in folder order) is reported as a problem.

    Raises
    ------
    InputError
        If the directory does not exist.
    """
    d = _directory(directory)
    found: list[Manifest] = []
    problems: list[tuple[Path, str]] = []
    names: dict[str, Path] = {}
    for sub in sorted(p for p in d.iterdir() if p.is_dir()):
        if not (sub / MANIFEST_FILE).is_file():
            continue
        try:
            m = read_manifest(sub)
        except InputError as exc:
            problems.append((sub, str(exc)))
            continue
        if m.name in names:
            problems.append(
                (
                    sub,
                    f"{sub / MANIFEST_FILE}: field 'name' is '{m.name}', the same as in "
                    f"{names[m.name] / MANIFEST_FILE}. Give each benchmark its own name.",
                )
            )
            continue
        names[m.name] = sub
        found.append(m)
    found.sort(key=lambda m: m.name)
    return Catalog(d, tuple(found), tuple(problems))


def list_benchmarks(directory: str | Path | None = None) -> list[Manifest]:
    """The benchmarks in a directory: every sub-folder with a valid ``manifest.json``.

    A folder whose manifest is broken does not stop the listing: it is left out and
    reported with a :class:`BenchmarkFolderWarning` (use :func:`scan_benchmarks` to get
    the problems as data).

    Parameters
    ----------
    directory : str or Path, optional
        Directory holding one folder per benchmark (default: the embedded
        ``sample_data/``).

    Returns
    -------
    list of Manifest
        Sorted by name.

    Raises
    ------
    InputError
        If the directory does not exist.
    """
    catalog = scan_benchmarks(directory)
    for _, message in catalog.problems:
        warnings.warn(message, BenchmarkFolderWarning, stacklevel=2)
    return list(catalog.manifests)


# --------------------------------------------------------------------------- loading


@dataclass(frozen=True, eq=False)
class LoadedBenchmark:
    """A benchmark folder read into memory.

    Attributes
    ----------
    manifest : Manifest
        The folder's validated manifest.
    benchmark : Benchmark
        The scores, validated by :func:`~subsetsel_core.benchmark.load_scores`.
    descriptors : dict of str to DataFrame
        Representation name → joined descriptor table (index = dataset name after the
        manifest's aliases), from :func:`~subsetsel_core.descriptors.load_descriptors`.
    report : ValidationReport
        The score loader's report plus one finding per representation that does not
        describe every dataset of the scores.
    """

    manifest: Manifest
    benchmark: Benchmark
    descriptors: dict[str, pd.DataFrame]
    report: ValidationReport

    @property
    def name(self) -> str:
        """The benchmark's name."""
        return self.manifest.name

    def representation(
        self,
        name: str,
        *,
        columns: list[str] | tuple[str, ...] | None = None,
        text: Literal["tfidf", "drop"] = "tfidf",
        **options: Any,
    ) -> Representation:
        """Build a representation aligned to the benchmark's datasets.

        Parameters
        ----------
        name : str
            A representation declared in the manifest.
        columns : sequence of str, optional
            Columns to use (default: the manifest's ``columns``, else every column).
        text : {"tfidf", "drop"}
            What to do with text columns.
        **options
            Passed to :func:`~subsetsel_core.descriptors.build_representation`
            (``text_components``, ``log_columns``, ``pca_variance``, ``seed``).

        Returns
        -------
        Representation
            ``X`` of shape (n_datasets, p), rows in ``benchmark.datasets`` order.

        Raises
        ------
        InputError
            Unknown representation or column, or datasets without descriptors.
        """
        spec = self.manifest.representation(name)
        cols = spec.columns if columns is None else tuple(columns)
        return build_representation(
            self.descriptors[name],
            self.benchmark.datasets,
            name=name,
            columns=None if cols is None else list(cols),
            text=text,
            **options,
        )


def _coverage(
    manifest: Manifest, name: str, table: pd.DataFrame, datasets: tuple[str, ...], rb: ReportBuilder
) -> None:
    spec = manifest.representation(name)
    have = set(map(str, table.index))
    missing = [d for d in datasets if d not in have]
    files = ", ".join(spec.files)
    if missing:
        unused = [str(x) for x in table.index if str(x) not in set(datasets)]
        rb.add(
            "warning",
            "descriptor-coverage",
            f"representation '{name}' ({files}): {len(missing)} dataset(s) of the scores have "
            f"no row: {describe_mismatch(missing, unused)}. Map the names in the manifest's "
            f'"aliases" ({{"name in {files}": "name in {manifest.scores.file}"}}) or add '
            "the rows.",
        )
    else:
        rb.fact(
            f"representation {name}",
            f"{len(spec.columns) if spec.columns else table.shape[1]} column(s) for all "
            f"{len(datasets)} datasets",
        )


def load_benchmark_folder(folder: str | Path | Manifest) -> LoadedBenchmark:
    """Load a benchmark folder: manifest, scores and every descriptor table.

    Parameters
    ----------
    folder : str, Path or Manifest
        The benchmark folder, or its already-read manifest.

    Returns
    -------
    LoadedBenchmark
        Build a representation with :meth:`LoadedBenchmark.representation`.

    Raises
    ------
    InputError
        Anything wrong with the manifest (see :func:`read_manifest`) or the tables (see
        :func:`~subsetsel_core.benchmark.load_scores` and
        :func:`~subsetsel_core.descriptors.load_descriptors`); messages name the file.
    """
    manifest = folder if isinstance(folder, Manifest) else read_manifest(folder)
    spec = manifest.scores
    prefix = manifest.folder.name
    benchmark = load_scores(
        manifest.path(spec.file),
        dataset_column=spec.dataset_column,
        model_column=spec.model_column,
        score_column=spec.score_column,
        fold_column=spec.fold_column,
        wide=spec.layout == "wide",
        higher_is_better=manifest.higher_is_better,
        missing=spec.missing,  # type: ignore[arg-type]
        name=manifest.name,
        label=f"{prefix}/{spec.file}",
    )
    rb = ReportBuilder()
    descriptors: dict[str, pd.DataFrame] = {}
    for i, rep in enumerate(manifest.representations):
        table = load_descriptors(
            [manifest.path(f) for f in rep.files],
            dataset_column=rep.dataset_column,
            aliases=rep.aliases or None,
            labels=[f"{prefix}/{f}" for f in rep.files],
        )
        if rep.columns is not None:
            unknown = [c for c in rep.columns if c not in table.columns]
            if unknown:
                raise InputError(
                    f"{manifest.manifest_path}: field 'representations[{i}] ('{rep.name}').columns' "
                    f"names {unknown}, which are not in {', '.join(rep.files)}"
                    f"{_did_you_mean(unknown[0], list(map(str, table.columns)))}. Correct the "
                    f"names or leave 'columns' out; the columns are: "
                    f"{', '.join(map(str, table.columns))}."
                )
        descriptors[rep.name] = table
        _coverage(manifest, rep.name, table, benchmark.datasets, rb)
    return LoadedBenchmark(manifest, benchmark, descriptors, benchmark.report + rb.build())
