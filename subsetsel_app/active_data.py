"""What the dashboard holds: the active benchmark, and what its descriptor tables offer.

Pure Python (no Streamlit): :class:`ActiveData` is the benchmark the pages work on, from
a benchmark folder, an upload or a workspace file, with the token that keys every cache
of :mod:`subsetsel_app.cache`. The functions below read an ``ActiveData`` through the
core's representation recipes (:mod:`subsetsel_core.representations.recipe`): the
recipe of some tables, the representation it builds, the map's hover table and colour
options.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.validation import ValidationReport
from subsetsel_core.loading.folder import (
    SAMPLE_DATA_DIR,
    load_benchmark_folder,
    scan_benchmarks,
)
from subsetsel_core.loading.manifest import Manifest, RepresentationSpec
from subsetsel_core.representations import recipe as R
from subsetsel_core.representations.descriptors import JoinedTables, Representation
from subsetsel_core.representations.names import (
    NAME_KINDS,
    NAMES,
    NAMES_SENTENCE,
    WEAK_NOTE,
    add_name_tables,
    sentence_available,
)
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.representations.tabular import column_kind

#: The sample the app opens on.
DEFAULT_SAMPLE = "tsc_bakeoff"
#: How a benchmark reached the dashboard, as the sidebar says it.
SOURCES = {"sample": "embedded sample", "folder": "benchmark folder", "upload": "upload",
           "workspace": "workspace file"}
#: What the pages say when the representation is built from the datasets' names.
NAMES_NOTE = ("**Dataset names are weak descriptors.** This benchmark came without a descriptor table, so the "
              "datasets' names (split into words, TF-IDF of character n-grams) stand in for descriptors and the "
              "strategies other than random can run. Similar names need not mean that models rank alike: the "
              "permutation test — the Representation check on the Representation page, or the Evaluate page's "
              "test against shuffled descriptors — judges whether they help. Upload descriptor tables on the "
              "Benchmark page for better ones.")
#: The same for a benchmark that has descriptor tables too.
NAMES_NOTE_SHORT = f"The representation uses the datasets' names: {WEAK_NOTE}"
#: The no-choice entry of optional pickers (the map's colour, the upload's fold column).
NONE = "(none)"
MEAN_SCORE = "mean score (not a descriptor)"
NO_COLOR = NONE


@dataclass(frozen=True, eq=False)
class ActiveData:
    """A loaded benchmark with its descriptor tables.

    Attributes
    ----------
    token : str
        Identifies the content (path and modification times, or the upload's digest);
        the key of every cache that depends on this benchmark.
    title : str
        Display name.
    source : {"sample", "folder", "upload", "workspace"}
    benchmark : Benchmark
    tables : dict of str to DataFrame
        Descriptor table name → raw table indexed by dataset name (aliases applied).
    specs : dict of str to RepresentationSpec
        How each table is meant to be used (kind, default columns, description).
    report : ValidationReport
        Findings of the loaders.
    description, metric, citation : str
        From the manifest (empty for uploads).
    manifest : Manifest or None
        The benchmark folder's manifest.
    model_dates : mapping of str to str, optional
        Release date (ISO) of each model, when known (neither the embedded samples nor the
        manifest format carry them; code that loads a folder may add them).
    inputs : mapping of str to str, optional
        File name → SHA-256 of the files it was read from, for an upload (a folder's are
        hashed when a download needs them: :func:`subsetsel_app.provenance.data_inputs`).
    missing : str
        The missing-score policy the scores were read with (a manifest's, or the upload's
        choice; a workspace keeps a table that was already read: ``partial`` or ``error``).
    reading : ScoreFormat or None
        How the score table was read, whole (layout, columns, set-aside columns, the direction
        of every dataset, the missing-score policy): the upload's mapping, a folder's manifest
        format; a workspace keeps the one it was saved with. None for a results folder.

    A benchmark without any descriptor table (e.g. an upload of scores alone) gets the
    table ``names``: the datasets' names as weak text descriptors
    (:mod:`subsetsel_core.representations.names`), and ``names-sentence`` too when the
    sentence encoder is installed, so that strategies other than random can run and the
    permutation test can judge them.
    """

    token: str
    title: str
    source: str
    benchmark: Benchmark
    tables: dict[str, pd.DataFrame]
    specs: dict[str, RepresentationSpec]
    report: ValidationReport
    description: str = ""
    metric: str = ""
    citation: str = ""
    manifest: Manifest | None = field(default=None, repr=False)
    model_dates: Mapping[str, str] | None = field(default=None, repr=False)
    inputs: Mapping[str, str] | None = field(default=None, repr=False)
    missing: str = "error"
    reading: ScoreFormat | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.tables:
            kinds = [NAMES, NAMES_SENTENCE] if sentence_available() else [NAMES]
            tables, specs = add_name_tables({}, self.specs, self.benchmark.datasets, kinds)
            object.__setattr__(self, "tables", tables)
            object.__setattr__(self, "specs", specs)

    @property
    def only_names(self) -> bool:
        """Whether the only descriptors are the datasets' names (no descriptor table came with it)."""
        return bool(self.tables) and all(self.is_names(t) for t in self.tables)

    def is_names(self, table: str) -> bool:
        """Whether a table is the datasets' names (kind ``names`` or ``names-sentence``)."""
        spec = self.specs.get(table)
        return spec is not None and spec.kind in NAME_KINDS

    def uses_names(self, recipe: RepresentationRecipe | None) -> bool:
        """Whether a recipe is built from the datasets' names (weak descriptors)."""
        return recipe is not None and any(self.is_names(t) for t in recipe.tables)

    @property
    def name(self) -> str:
        """The benchmark's name (used in file names and sidecars)."""
        return self.benchmark.name

    def usable_tables(self) -> tuple[str, ...]:
        """Tables that describe every dataset of the benchmark."""
        have = set(self.benchmark.datasets)
        return tuple(t for t, df in self.tables.items() if have <= set(map(str, df.index)))

    def in_full(self, table: str) -> bool:
        """Whether a table is always used with every column (an embedding)."""
        return R.used_in_full(self.specs, table)


# --------------------------------------------------------------------------- loading


def folder_stamp(folder: str | Path) -> str:
    """A string that changes when any file in a benchmark folder changes."""
    p = Path(folder)
    parts = []
    for f in sorted(p.iterdir()) if p.is_dir() else []:
        if f.is_file():
            st = f.stat()
            parts.append(f"{f.name}:{st.st_mtime_ns}:{st.st_size}")
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:16]


def is_sample(folder: str | Path) -> bool:
    """Whether a folder is one of the embedded samples."""
    return Path(folder).resolve().parent == SAMPLE_DATA_DIR.resolve()


def default_sample() -> Path:
    """The folder of the sample the app opens on (TSC bake-off), else the first sample.

    Raises
    ------
    InputError
        No embedded sample at all.
    """
    p = SAMPLE_DATA_DIR / DEFAULT_SAMPLE
    if (p / "manifest.json").is_file():
        return p
    found = scan_benchmarks(SAMPLE_DATA_DIR).manifests
    if not found:
        raise InputError(f"no benchmark folder found in {SAMPLE_DATA_DIR}.")
    return Path(found[0].folder)


def load_folder_data(folder: str | Path, *, source: str = "folder") -> ActiveData:
    """Load a benchmark folder into :class:`ActiveData`.

    Raises
    ------
    InputError
        From the manifest or table validation.
    """
    from subsetsel_core.io.roots import offering_root
    from subsetsel_core.settings import server as server_settings

    # under a benchmark root, every file is read by descriptor below the root (a link swapped in never leads out)
    loaded = load_benchmark_folder(folder, within=offering_root(Path(folder).absolute(),
                                                                server_settings.benchmark_roots()))
    m = loaded.manifest
    return ActiveData(
        token=f"{source}:{m.folder}:{folder_stamp(m.folder)}",
        title=m.title or m.name,
        source=source,
        benchmark=loaded.benchmark,
        tables=dict(loaded.descriptors),
        specs={r.name: r for r in m.representations},
        report=loaded.report,
        description=m.description,
        metric=m.metric,
        citation=m.citation,
        manifest=m,
        missing=m.scores.missing,
        reading=m.scores,
    )


# --------------------------------------------------------------------------- recipes


def joined(data: ActiveData, tables: Sequence[str]) -> JoinedTables:
    """Descriptor tables joined on the dataset name (which columns may be picked).

    Raises
    ------
    InputError
        An unknown table, or no table.
    """
    return R.join_for(data.tables, data.specs, tables)


def default_columns(data: ActiveData, tables: Sequence[str]) -> list[str]:
    """The pickable columns used by default: each table's manifest columns (else all)."""
    return R.default_columns(data.tables, data.specs, tables)


def make_recipe(data: ActiveData, tables: Sequence[str], columns: Sequence[str] | None = None, *, text: bool = True,
                log: bool = False, pca: float | None = None) -> RepresentationRecipe:
    """A recipe of this benchmark's tables, with its display name filled in."""
    return R.make_recipe(data.tables, data.specs, tables, columns, text=text, log=log, pca=pca)


def named_recipe(data: ActiveData, draft: RepresentationRecipe) -> RepresentationRecipe:
    """A recipe completed for this benchmark's tables (its display name filled in)."""
    return R.named_recipe(data.tables, data.specs, draft)


def table_recipe(data: ActiveData, table: str) -> RepresentationRecipe:
    """The default representation of one descriptor table."""
    return make_recipe(data, [table])


def build_representation(data: ActiveData, recipe: RepresentationRecipe, seed: int = 0) -> Representation:
    """Encode the recipe's descriptors as a representation aligned to the benchmark.

    Raises
    ------
    InputError
        Datasets without descriptors, no usable column, bad options.
    """
    return R.build_recipe(recipe, data.benchmark, data.tables, data.specs, seed=seed)


# --------------------------------------------------------------------------- the map's hover and colours


def hover_frame(data: ActiveData, recipe: RepresentationRecipe) -> pd.DataFrame:
    """Raw descriptor values shown on hover (the recipe's chosen columns), benchmark order."""
    return R.recipe_columns(recipe, data.benchmark.datasets, data.tables, data.specs)


def color_options(data: ActiveData) -> list[str]:
    """What the map can be coloured by: nothing, every column not used in full, the mean score."""
    out: list[str] = []
    for t, df in data.tables.items():
        if not data.in_full(t):
            out += [c for c in map(str, df.columns) if c not in out]
    return [NO_COLOR, *out, MEAN_SCORE]


def default_color(data: ActiveData) -> str:
    """The first categorical descriptor column, else the mean score."""
    for t, df in data.tables.items():
        cat = [] if data.in_full(t) else [str(c) for c in df.columns if column_kind(df[c]) == "categorical"]
        if cat:
            return cat[0]
    return MEAN_SCORE


def color_values(data: ActiveData, column: str | None) -> pd.Series | None:
    """Values of a colour option in benchmark dataset order (None for no colour or free text)."""
    if not column or column == NO_COLOR:
        return None
    ds = list(data.benchmark.datasets)
    if column == MEAN_SCORE:
        return pd.Series(np.nanmean(data.benchmark.file_scores(), axis=(1, 2)), index=ds, name="mean score")  # gaps skipped
    for t, df in data.tables.items():
        if column in df.columns and not data.in_full(t):
            kind = column_kind(df[column])
            if kind == "text":
                return None
            s = df[column].reindex(ds)
            s = pd.to_numeric(s, errors="coerce") if kind == "numeric" else s
            s.name = column
            return s
    return None
