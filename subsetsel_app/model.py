"""What the dashboard holds: the active benchmark and representation settings.

Pure Python (no Streamlit): :class:`ActiveData` is the benchmark the pages work on, from
a benchmark folder or an upload; :class:`RepConfig` is a hashable description of a
representation (which descriptor tables and columns, text embedding, log scaling, PCA)
and :func:`build_representation_for` turns it into a core
:class:`~subsetsel_core.descriptors.Representation`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation, build_representation
from subsetsel_core.errors import InputError
from subsetsel_core.io.folder import Manifest, RepresentationSpec, load_benchmark_folder
from subsetsel_core.io.validation import ValidationReport
from subsetsel_core.representations.tabular import column_kind

#: Folder of the embedded samples (``sample_data/`` at the repository root).
SAMPLE_DIR: Path = Path(__file__).resolve().parent.parent / "sample_data"
#: The sample the app opens on.
DEFAULT_SAMPLE = "tsc_bakeoff"


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
    source : {"sample", "folder", "upload"}
    benchmark : Benchmark
    tables : dict of str to DataFrame
        Descriptor table name → raw table indexed by dataset name (aliases applied).
    specs : dict of str to RepresentationSpec
        How each table is meant to be used (kind, default columns, description).
    report : ValidationReport
        Findings of the loaders.
    description, metric, citation : str
        From the manifest (empty for uploads).
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
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        """The benchmark's name (used in file names and sidecars)."""
        return self.benchmark.name

    @property
    def table_names(self) -> tuple[str, ...]:
        """Descriptor tables in declaration order."""
        return tuple(self.tables)

    def usable_tables(self) -> tuple[str, ...]:
        """Tables that describe every dataset of the benchmark."""
        have = set(self.benchmark.datasets)
        return tuple(t for t, df in self.tables.items() if have <= set(map(str, df.index)))


def folder_stamp(folder: str | Path) -> str:
    """A string that changes when any file in a benchmark folder changes."""
    p = Path(folder)
    parts = []
    for f in sorted(p.iterdir()) if p.is_dir() else []:
        if f.is_file():
            st = f.stat()
            parts.append(f"{f.name}:{st.st_mtime_ns}:{st.st_size}")
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:16]


def load_folder_data(folder: str | Path, *, source: str = "folder") -> ActiveData:
    """Load a benchmark folder into :class:`ActiveData`.

    Raises
    ------
    InputError
        From the manifest or table validation.
    """
    loaded = load_benchmark_folder(folder)
    m = loaded.manifest
    token = f"{source}:{m.folder}:{folder_stamp(m.folder)}"
    return ActiveData(
        token=token,
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
    )


# --------------------------------------------------------------------------- representations


@dataclass(frozen=True)
class RepConfig:
    """A representation, described by hashable settings.

    Attributes
    ----------
    tables : tuple of str
        Descriptor tables joined on the dataset name.
    columns : tuple of str or None
        Columns of the joined table to use (None: every table's default columns).
        Columns of embedding tables are always used in full.
    text : bool
        Embed text columns with TF-IDF + SVD (else drop them).
    log : bool
        ``log1p`` of heavy-tailed count-like columns (``log_columns="auto"``).
    pca : float or None
        Keep this fraction of the variance with PCA (None: no PCA).
    name : str
        Display name (e.g. ``"ucr_info"`` or ``"ucr_info+description/log"``).
    """

    tables: tuple[str, ...]
    columns: tuple[str, ...] | None = None
    text: bool = True
    log: bool = False
    pca: float | None = None
    name: str = ""


def _embedding(data: ActiveData, table: str) -> bool:
    spec = data.specs.get(table)
    return spec is not None and spec.kind == "embedding"


@dataclass(frozen=True, eq=False)
class Combined:
    """Descriptor tables joined on the dataset name.

    Attributes
    ----------
    table : DataFrame
        Indexed by dataset; a column present in two tables with the same values is kept
        once, with different values it is renamed ``table.column``.
    pickable : list of str
        Columns a user may choose (every column of non-embedding tables).
    embedding : list of str
        Columns of embedding tables (always used in full).
    names : dict of (table, column) to str
        Where each original column went in ``table``.
    """

    table: pd.DataFrame
    pickable: list[str]
    embedding: list[str]
    names: dict[tuple[str, str], str]


def combined_table(data: ActiveData, tables: Sequence[str]) -> Combined:
    """Join descriptor tables on the dataset name (see :class:`Combined`; memoised).

    Raises
    ------
    InputError
        Unknown or no table.
    """
    key = ("combined", tuple(tables))
    if key not in data.memo:
        data.memo[key] = _combined_table(data, tables)
    return data.memo[key]


def _combined_table(data: ActiveData, tables: Sequence[str]) -> Combined:
    out: pd.DataFrame | None = None
    pickable: list[str] = []
    embedding: list[str] = []
    names: dict[tuple[str, str], str] = {}
    for t in tables:
        if t not in data.tables:
            raise InputError(f"unknown descriptor table '{t}'; the tables are {', '.join(data.tables)}.")
        df = data.tables[t]
        ren: dict[str, str] = {}
        drop: list[str] = []
        for c in map(str, df.columns):
            if out is not None and c in out.columns:
                if out[c].reindex(df.index).astype(str).equals(df[c].astype(str)):
                    drop.append(c)
                    names[(t, c)] = c
                    continue
                ren[c] = f"{t}.{c}"
            names[(t, c)] = ren.get(c, c)
        part = df.drop(columns=drop).rename(columns=ren)
        cols = [str(c) for c in part.columns]
        (embedding if _embedding(data, t) else pickable).extend(cols)
        out = part if out is None else out.join(part, how="outer")
    if out is None:
        raise InputError("choose at least one descriptor table.")
    return Combined(out, pickable, embedding, names)


def default_columns(data: ActiveData, tables: Sequence[str]) -> list[str]:
    """The pickable columns used by default: each table's manifest columns (else all)."""
    key = ("defaults", tuple(tables))
    if key not in data.memo:
        data.memo[key] = _default_columns(data, tables)
    return list(data.memo[key])


def _default_columns(data: ActiveData, tables: Sequence[str]) -> list[str]:
    comb = combined_table(data, tables)
    chosen: list[str] = []
    for t in tables:
        if _embedding(data, t):
            continue
        spec = data.specs.get(t)
        cols = list(spec.columns) if spec is not None and spec.columns else [str(c) for c in data.tables[t].columns]
        for c in cols:
            name = comb.names.get((t, c))
            if name in comb.pickable and name not in chosen:
                chosen.append(name)
    return chosen


def rep_name(data: ActiveData, cfg_tables: Sequence[str], columns: Sequence[str] | None, text: bool, log: bool,
             pca: float | None) -> str:
    """Readable name of a representation: tables joined with ``+``, then the non-defaults."""
    base = "+".join(cfg_tables)
    mods: list[str] = []
    if columns is not None and list(columns) != default_columns(data, cfg_tables):
        mods.append(f"{len(columns)} cols")
    if not text:
        mods.append("no text")
    if log:
        mods.append("log")
    if pca is not None:
        mods.append(f"PCA {pca:.0%}")
    return base + ("/" + ",".join(mods) if mods else "")


def make_config(
    data: ActiveData, tables: Sequence[str], columns: Sequence[str] | None = None, *, text: bool = True,
    log: bool = False, pca: float | None = None,
) -> RepConfig:
    """A :class:`RepConfig` with its display name filled in."""
    tables = tuple(tables)
    cols = None if columns is None else tuple(columns)
    if cols is not None and list(cols) == default_columns(data, tables):
        cols = None
    return RepConfig(tables, cols, bool(text), bool(log), pca, rep_name(data, tables, cols, text, log, pca))


def table_config(data: ActiveData, table: str) -> RepConfig:
    """The default representation of one descriptor table."""
    return make_config(data, [table])


def build_representation_for(data: ActiveData, cfg: RepConfig, seed: int = 0) -> Representation:
    """Encode the configured descriptors as a representation aligned to the benchmark.

    Raises
    ------
    InputError
        Datasets without descriptors, no usable column, bad options.
    """
    comb = combined_table(data, cfg.tables)
    cols = list(cfg.columns) if cfg.columns is not None else default_columns(data, cfg.tables)
    unknown = [c for c in cols if c not in comb.pickable]
    if unknown:
        raise InputError(f"unknown descriptor column(s) {unknown}; choose among {comb.pickable}.")
    use = cols + comb.embedding
    if not use:
        raise InputError("no descriptor column chosen; pick at least one column or an embedding table.")
    return build_representation(
        comb.table,
        data.benchmark.datasets,
        name=cfg.name or "+".join(cfg.tables),
        columns=use,
        text="tfidf" if cfg.text else "drop",
        log_columns="auto" if cfg.log else (),
        pca_variance=cfg.pca,
        seed=seed,
    )


def hover_frame(data: ActiveData, cfg: RepConfig) -> pd.DataFrame:
    """Raw descriptor values shown on hover (chosen non-embedding columns), benchmark order (memoised)."""
    key = ("hover", cfg)
    if key not in data.memo:
        data.memo[key] = _hover_frame(data, cfg)
    return data.memo[key]


def _hover_frame(data: ActiveData, cfg: RepConfig) -> pd.DataFrame:
    comb = combined_table(data, cfg.tables)
    cols = list(cfg.columns) if cfg.columns is not None else default_columns(data, cfg.tables)
    cols = [c for c in cols if c in comb.pickable]
    return comb.table.reindex(list(data.benchmark.datasets))[cols]


def color_options(data: ActiveData) -> list[str]:
    """Columns the map can be coloured by: every non-embedding descriptor column (memoised)."""
    if "color_options" not in data.memo:
        data.memo["color_options"] = _color_options(data)
    return list(data.memo["color_options"])


def default_color(data: ActiveData) -> str:
    """The first categorical descriptor column, else the mean score (memoised)."""
    if "default_color" not in data.memo:
        found = MEAN_SCORE
        for t, df in data.tables.items():
            if _embedding(data, t):
                continue
            cat = [str(c) for c in df.columns if column_kind(df[c]) == "categorical"]
            if cat:
                found = cat[0]
                break
        data.memo["default_color"] = found
    return data.memo["default_color"]


def _color_options(data: ActiveData) -> list[str]:
    out: list[str] = []
    for t, df in data.tables.items():
        if _embedding(data, t):
            continue
        for c in df.columns:
            c = str(c)
            if c not in out:
                out.append(c)
    return out


MEAN_SCORE = "mean score (not a descriptor)"
NO_COLOR = "(none)"


def color_values(data: ActiveData, column: str | None) -> pd.Series | None:
    """Values of a colour option in benchmark dataset order (None for no colour; memoised)."""
    if not column or column == NO_COLOR:
        return None
    key = ("color", column)
    if key not in data.memo:
        data.memo[key] = _color_values(data, column)
    return data.memo[key]


def _color_values(data: ActiveData, column: str) -> pd.Series | None:
    ds = list(data.benchmark.datasets)
    if column == MEAN_SCORE:
        return pd.Series(data.benchmark.scores.mean(axis=(1, 2)), index=ds, name="mean score")
    for t, df in data.tables.items():
        if column in df.columns and not _embedding(data, t):
            s = df[column].reindex(ds)
            kind = column_kind(df[column])
            if kind == "numeric":
                s = pd.to_numeric(s, errors="coerce")
            elif kind == "text":
                return None
            s.name = column
            return s
    return None


def subset_table(data: ActiveData, datasets: Sequence[str], cfg: RepConfig | None) -> pd.DataFrame:
    """``order, dataset`` plus the chosen datasets' raw descriptors (for the subset CSV)."""
    df = pd.DataFrame({"order": np.arange(1, len(datasets) + 1), "dataset": list(datasets)})
    if cfg is not None:
        extra = hover_frame(data, cfg).reindex(list(datasets)).reset_index(drop=True)
        extra = extra[[c for c in extra.columns if c not in ("order", "dataset")]]
        df = pd.concat([df, extra], axis=1)
    return df
