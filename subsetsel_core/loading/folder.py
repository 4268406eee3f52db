"""Benchmark folders: a ``manifest.json`` plus score and descriptor files.

A benchmark folder is how a benchmark is kept on disk, both the embedded samples in
``sample_data/`` (:data:`SAMPLE_DATA_DIR`) and a user's own benchmarks. The dashboard
lists every folder with a manifest in a configurable directory (:func:`scan_benchmarks`,
:func:`list_benchmarks`) and loads one through the same validated path
(:func:`load_benchmark_folder`) as an upload. The manifest and its format are in
:mod:`subsetsel_core.loading.manifest`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import file_kind, inside
from subsetsel_core.io.manifest_fields import FORMAT_HELP
from subsetsel_core.io.names import describe_mismatch, did_you_mean
from subsetsel_core.io.tables import max_bytes
from subsetsel_core.io.validation import ReportBuilder, ValidationReport
from subsetsel_core.loading.manifest import MANIFEST_FILE, Manifest, read_manifest
from subsetsel_core.representations.descriptors import (
    Representation,
    build_representation,
    load_descriptors,
)

__all__ = [
    "SAMPLE_DATA_DIR",
    "BenchmarkFolderWarning",
    "Catalog",
    "LoadedBenchmark",
    "list_benchmarks",
    "load_benchmark_folder",
    "scan_benchmarks",
]

SAMPLE_DATA_DIR: Path = Path(__file__).resolve().parents[2] / "sample_data"
"""The embedded samples: ``sample_data/`` next to the package."""


class BenchmarkFolderWarning(UserWarning):
    """A folder in a benchmark directory that could not be listed."""


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
            f"in it, each with a {MANIFEST_FILE}. {FORMAT_HELP}"
        )
    return d.resolve()


def _subfolders(d: Path) -> list[Path]:
    """The sub-folders of a directory, sorted (an unreadable entry is left out, an unreadable directory is an error)."""
    try:
        entries = sorted(d.iterdir())
    except OSError as exc:
        raise InputError(f"{d}: cannot list this benchmark directory ({exc.strerror}).") from None
    return [p for p in entries if file_kind(p) == "folder"]


def scan_benchmarks(directory: str | Path | None = None, *, within: str | Path | None = None) -> Catalog:
    """Read every benchmark folder in a directory, keeping the broken ones aside.

    Parameters
    ----------
    directory : str or Path, optional
        Directory holding one folder per benchmark (default: the embedded
        ``sample_data/``). Sub-folders without a ``manifest.json`` are not benchmarks and
        are ignored.

    within : str or Path, optional
        A directory (a benchmark root) every folder and file read must stay in, by descriptor
        (default: ``directory`` itself).

    Returns
    -------
    Catalog
        Valid manifests sorted by name, and the problems of the others (any error while
        reading one folder's manifest, never raised: the other folders are still listed).
        A sub-folder that is a link to a folder outside the directory is a problem and is
        not looked into.
        Two folders with the same benchmark name: the second (in folder order) is reported
        as a problem.

    Raises
    ------
    InputError
        If the directory does not exist.
    """
    d = _directory(directory)
    base = d if within is None else Path(os.path.realpath(Path(within).expanduser()))
    if not inside(d, base):
        raise InputError(f"{d}: is not inside {within}, the directory benchmarks are read from. Choose a directory "
                         "inside it.")
    found: list[Manifest] = []
    problems: list[tuple[Path, str]] = []
    names: dict[str, Path] = {}
    for sub in _subfolders(d):
        if not inside(sub, d):  # not looked into: what is outside is not ours to read
            problems.append((sub, f"is a link to a folder outside the benchmark directory {d}; only folders "
                                  "inside it are read. Move or copy the benchmark folder into it."))
            continue
        try:
            if file_kind(sub / MANIFEST_FILE) == "missing":
                continue
            m = read_manifest(sub, within=base)
        except InputError as exc:
            problems.append((sub, str(exc)))
            continue
        except Exception as exc:  # noqa: BLE001 - one broken folder never hides the others
            problems.append((sub, f"{sub / MANIFEST_FILE}: cannot be read ({type(exc).__name__}). {FORMAT_HELP}"))
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
        manifest's aliases), from :func:`~subsetsel_core.representations.descriptors.load_descriptors`.
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
            Passed to :func:`~subsetsel_core.representations.descriptors.build_representation`
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
            f'"aliases" ({{"name in {files}": "name in {manifest.scores_file}"}}) or add '
            "the rows.",
        )
    else:
        rb.fact(
            f"representation {name}",
            f"{len(spec.columns) if spec.columns else table.shape[1]} column(s) for all "
            f"{len(datasets)} datasets",
        )


def load_benchmark_folder(folder: str | Path | Manifest, tables: tuple[str, ...] | None = None, *,
                          within: str | Path | None = None) -> LoadedBenchmark:
    """Load a benchmark folder: manifest, scores and every descriptor table.

    Parameters
    ----------
    folder : str, Path or Manifest
        The benchmark folder, or its already-read manifest.
    tables : tuple of str, optional
        Load only these descriptor tables (default: every one).
    within : str or Path, optional
        A directory (a benchmark root) the folder and its files must stay in (see
        :func:`~subsetsel_core.loading.manifest.read_manifest`); ignored for a manifest
        already read. Every file is read once, by descriptor, never through a link out of
        the folder (or ``within``).

    Returns
    -------
    LoadedBenchmark
        Build a representation with :meth:`LoadedBenchmark.representation`.

    Raises
    ------
    InputError
        Anything wrong with the manifest (see :func:`read_manifest`) or the tables (see
        :func:`~subsetsel_core.benchmark.load_scores` and
        :func:`~subsetsel_core.representations.descriptors.load_descriptors`); messages name the file.
    """
    manifest = folder if isinstance(folder, Manifest) else read_manifest(folder, within=within)
    prefix = manifest.folder.name
    benchmark = load_scores(
        manifest.read(manifest.scores_file, max_bytes()),
        manifest.scores,
        name=manifest.name,
        label=f"{prefix}/{manifest.scores_file}",
        cache=True,
    )
    rb = ReportBuilder()
    descriptors: dict[str, pd.DataFrame] = {}
    for i, rep in enumerate(manifest.representations):
        if tables is not None and rep.name not in tables:
            continue
        table = load_descriptors(
            [manifest.read(f, max_bytes()) for f in rep.files],
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
                    f"{did_you_mean(unknown[0], list(map(str, table.columns)), 1)}. Correct the "
                    f"names or leave 'columns' out; the columns are: "
                    f"{', '.join(map(str, table.columns))}."
                )
        descriptors[rep.name] = table
        _coverage(manifest, rep.name, table, benchmark.datasets, rb)
    return LoadedBenchmark(manifest, benchmark, descriptors, benchmark.report + rb.build())
