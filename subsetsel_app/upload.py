"""Uploaded score and descriptor files → a validated :class:`~subsetsel_app.active_data.ActiveData`.

Pure functions (no Streamlit), so the Benchmark page and the tests share them:
:func:`guess` is the core's guess of the layout and the columns, :func:`check_upload`
validates everything and returns a report — sizes, gaps, name mismatches with
suggestions (and aliases that would fix them), ties, what will be dropped — together with
the benchmark when it can be used. Problems come back as readable messages, never as
exceptions: the core's message, and the fix worded for this dashboard from the error's
``field`` (:data:`FIELD_HINTS`, :func:`error_text`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from subsetsel_core.benchmark import load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.table import TableGuess, guess_table
from subsetsel_core.io.names import suggest
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.tables import read_table
from subsetsel_core.io.validation import ReportBuilder, ValidationReport
from subsetsel_core.loading.manifest import RepresentationSpec
from subsetsel_core.representations.descriptors import load_descriptors
from subsetsel_core.representations.tabular import column_kind

from .active_data import ActiveData


@dataclass(frozen=True)
class UploadedTable:
    """An uploaded file: its name and bytes."""

    name: str
    content: bytes = field(repr=False)

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the name and content (a cache key).

        Computed once per object and without concatenating the content (a 200 MB upload is
        hashed in place, not copied on every page rerun).
        """
        h = hashlib.sha256(self.name.encode())
        h.update(b"\0")
        h.update(self.content)
        return h.hexdigest()

    @property
    def stem(self) -> str:
        """File name without folders and extensions (``features_x.csv.gz`` → ``features_x``)."""
        return Path(self.name).name.split(".")[0] or "table"


#: How the dashboard words the fix of an :class:`~subsetsel_core.errors.InputError` whose
#: ``field`` names the setting: a key of :data:`subsetsel_core.errors.FIELDS` → the
#: widget (or the action) that changes it.
FIELD_HINTS: dict[str, str] = {
    "layout": "Choose it under 'Layout' above.",
    "dataset_column": "Choose it under 'Dataset column' above.",
    "model_column": "Choose it under 'Model column' above.",
    "score_column": "Choose it under 'Score column' above.",
    "fold_column": "Choose it under 'Fold / seed column' above.",
    "direction": "Choose it under 'Scores' above (higher or lower is better).",
    "dataset_directions": "Tick them in the 'Direction per dataset' table above.",
    "drop_columns": "Choose them under 'Set aside (not scores)' above.",
    "keep_columns": "Remove them from 'Set aside (not scores)' above.",
    "drop_rows": "Remove the row from the file (the command line sets it aside with --drop-rows).",
    "release_column": "Choose it under 'Release dates' above, or '(none)'.",
    "missing": "Choose it under 'Missing scores' above.",
    "aliases": "Type them in the 'Aliases' box: one 'name in descriptor file = name in scores' per line.",
    "descriptor_dataset_column": "Type it under 'Dataset column of the descriptor tables' above.",
    "descriptor_columns": "Choose them on the Representation page.",
    "scores_file": "Upload it under 'Scores' above.",
    "scores_format": "Choose the format to read under 'Format' of the results above, and tick 'Skip files that cannot "
                     "be read' for the others.",
    "descriptor_file": "Upload it under 'Descriptor tables' above.",
    "k": "Change k on the Select page.",
    "strategy": "Choose another strategy.",
    "representation": "Choose the descriptors on the Representation page.",
    "include": "Change 'Must include' on the Select page.",
    "exclude": "Change 'Exclude' on the Select page.",
    "budget": "Change the budget or the 'Cost per dataset' on the Select page.",
    "trials": "Change 'Trials T' on the Evaluate page.",
    "alpha": "Change 'α — share of datasets per pool' on the Evaluate page.",
    "beta": "Change 'β — share of models per pool' on the Evaluate page.",
    "k_range": "Change the 'k range' on the Evaluate page.",
    "metric": "Choose another metric.",
    "seed": "Change the seed in the sidebar.",
    "resamples": "The bootstrap resamples of the full benchmark's stability are fixed here; on the command line they are --resamples.",
    "permutations": "Change 'Shuffles B' of the permutation test on the Evaluate page.",
    "workspace": "Load a .subsetsel file saved by this app.",
    "recipe": "A sidecar is replayed on the command line: subsetsel select --recipe SIDECAR.json.",
    "release_dates": "Upload a table with a 'model' and a 'release_date' column.",
    "config": "Download the settings again with 'Settings as run.toml' (Evaluate or Report page).",
    "splits": "Change 'Splits' in 'How much do the scores know?' on the Evaluate page.",
    "fraction": "Change the held-out share in 'How much do the scores know?' on the Evaluate page.",
}


def error_text(exc: InputError, hints: Mapping[str, str] | None = None) -> str:
    """An error as the dashboard shows it: the core's message, then the fix on this dashboard
    (``hints``: a part of a page that words some fixes its own way, by ``field``)."""
    hint = (hints or {}).get(exc.field or "") or FIELD_HINTS.get(exc.field or "")
    return f"{exc} {hint}" if hint else str(exc)


def shown_report(report: ValidationReport, direction_open: bool) -> ValidationReport:
    """The validation report of an upload as the page shows it: while the direction is not answered, its
    orientation fact says so (the table is loaded with the evidence's leaning only to check it)."""
    if not direction_open:
        return report
    return replace(report, facts=tuple((k, "not decided yet: answer under 'Scores' above") if k == "orientation"
                                       else (k, v) for k, v in report.facts))


def read_header(table: UploadedTable) -> pd.DataFrame:
    """The uploaded table as text cells (for the column mapping and a preview).

    Raises
    ------
    InputError
        The file is not a readable table.
    """
    return read_table(table.content, label=table.name, object_text=True)


def guess(head: pd.DataFrame, label: str, options: Sequence[tuple[str, Any]] = ()) -> TableGuess:
    """The core's guess of an uploaded score table, with the options the page sets
    (:func:`~subsetsel_core.io.guess.table.guess_table`'s keyword arguments, as pairs).

    Raises
    ------
    InputError
        A chosen column in two roles, a layout the table clearly is not, …
    """
    return guess_table(head, label=label, **dict(options))


def reading_options(layout: str, dataset: str | None, model: str | None, score: str | None, fold: str | None,
                    set_aside: Sequence[str], release: str | None, higher: bool | None,
                    drop_rows: Sequence[str] = ()) -> tuple[tuple[str, object], ...]:
    """The page's choices as :func:`guess` options: only the columns the layout reads (no
    ``fold``: the table has no fold column); ``drop_rows``, the rows set aside by name (the
    command line's ``--drop-rows``), only in the wide layouts, whose rows are names."""
    opts: dict[str, object] = {"layout": layout, "fold_column": fold or "", "higher_is_better": higher}
    if layout == "long":
        opts.update(dataset_column=dataset, model_column=model, score_column=score, release_column=release)
    elif layout == "wide":
        opts.update(dataset_column=dataset, set_aside=tuple(set_aside))
    else:
        opts.update(model_column=model, set_aside=tuple(set_aside), release_column=release)
    if layout != "long" and drop_rows:
        opts["drop_rows"] = tuple(drop_rows)
    return tuple(opts.items())


#: The column of :func:`directions_frame` that says a dataset is lower-is-better.
LOWER = "lower is better"


def directions_frame(reading: TableGuess) -> pd.DataFrame:
    """One row per dataset with its direction (``LOWER`` column), for the page's small table."""
    own_lower = set(reading.lower_is_better_datasets)
    own_higher = set(reading.higher_is_better_datasets)
    lower = [(d in own_lower) or (not reading.higher_is_better and d not in own_higher) for d in reading.datasets]
    return pd.DataFrame({"dataset": list(reading.datasets), LOWER: lower})


def directions_from_frame(frame: pd.DataFrame, higher_is_better: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The datasets whose direction differs from ``higher_is_better``: (lower-is-better ones,
    higher-is-better ones), from an edited :func:`directions_frame`."""
    lower = frame[LOWER].fillna(False).astype(bool).to_numpy()
    names = frame["dataset"].astype(str).tolist()
    if higher_is_better:
        return tuple(n for n, lo in zip(names, lower, strict=True) if lo), ()
    return (), tuple(n for n, lo in zip(names, lower, strict=True) if not lo)


def parse_aliases(text: str) -> dict[str, str]:
    """``name in descriptors = name in scores`` lines → a dict.

    Blank lines and lines starting with ``#`` are ignored; ``->`` and ``→`` work too.

    Raises
    ------
    InputError
        A line without a separator or with an empty side.
    """
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        for sep in ("->", "→", "="):
            if sep in s:
                a, b = (x.strip() for x in s.split(sep, 1))
                break
        else:
            raise InputError(
                f"alias line {i} ('{s}') has no '='. Write one alias per line as "
                "'name in descriptor file = name in scores'."
            )
        if not a or not b:
            raise InputError(f"alias line {i} ('{s}') has an empty name on one side.")
        out[a] = b
    return out


def format_aliases(aliases: Mapping[str, str]) -> str:
    """The inverse of :func:`parse_aliases`."""
    return "\n".join(f"{a} = {b}" for a, b in aliases.items())


@dataclass(frozen=True, eq=False)
class UploadCheck:
    """What :func:`check_upload` found.

    Attributes
    ----------
    data : ActiveData or None
        The benchmark, when it can be used.
    error : str or None
        The blocking problem (a message with the fix).
    report : ValidationReport
        Sizes (facts) and findings of the scores and the descriptor tables.
    suggested_aliases : dict of str to str
        ``{name in a descriptor file: name in the scores}`` that would fix mismatches.
    descriptor_columns : dict of str to dict of str to str
        Per descriptor table, each column's kind (numeric / categorical / text).
    unusable : tuple of str
        Parts of the upload that cannot be used as they are (a descriptor table without a row
        for every dataset), each with the fix: the upload is not used until they are fixed or
        removed.
    """

    data: ActiveData | None
    error: str | None
    report: ValidationReport = field(default_factory=ValidationReport)
    suggested_aliases: dict[str, str] = field(default_factory=dict)
    descriptor_columns: dict[str, dict[str, str]] = field(default_factory=dict)
    unusable: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the upload can be used."""
        return self.data is not None and self.error is None


def _unique_names(tables: Sequence[UploadedTable]) -> list[str]:
    names: list[str] = []
    for t in tables:
        base = t.stem.removeprefix("features_") or "descriptors"
        name, i = base, 2
        while name in names:
            name, i = f"{base}_{i}", i + 1
        names.append(name)
    return names


def check_upload(
    scores: UploadedTable,
    fmt: ScoreFormat,
    descriptors: Sequence[UploadedTable] = (),
    *,
    name: str = "",
    dataset_column: str = "dataset",
    aliases: Mapping[str, str] | None = None,
    reading: TableGuess | None = None,
    model_dates: Mapping[str, str] | None = None,
) -> UploadCheck:
    """Validate an upload and build the benchmark.

    Parameters
    ----------
    scores : UploadedTable
        The score table (CSV, gzip CSV, TSV or Parquet; long or wide).
    fmt : ScoreFormat
        Column mapping, orientation, missing-score policy.
    descriptors : sequence of UploadedTable
        Descriptor tables, each with a dataset column; each becomes one representation.
    name : str
        Benchmark name (default: the file name).
    dataset_column : str
        The dataset column of the descriptor tables.
    aliases : mapping, optional
        ``{name in descriptor files: name in scores}``.
    reading : TableGuess, optional
        How the table was read (its sentence and the columns set aside go into the report).
    model_dates : mapping of str to str, optional
        Model → release date (ISO) from the table's release column.

    Returns
    -------
    UploadCheck
        Never raises for bad input: ``error`` holds the message instead.
    """
    try:
        bench = load_scores(scores.content, fmt, name=name.strip() or scores.stem, label=scores.name)
    except InputError as exc:
        return UploadCheck(None, error_text(exc))
    rb = ReportBuilder()
    if reading is not None:
        rb.add("info", "reading", reading.sentence())
    dates = {m: d for m, d in (model_dates or {}).items() if m in set(bench.models)}
    if dates:
        rb.fact("release dates", f"{len(dates)} of {bench.n_models} models (from '{reading.release_column}')"
                if reading is not None and reading.release_column else f"{len(dates)} of {bench.n_models} models")
    tables: dict[str, pd.DataFrame] = {}
    specs: dict[str, RepresentationSpec] = {}
    kinds: dict[str, dict[str, str]] = {}
    suggested: dict[str, str] = {}
    unusable: list[str] = []
    datasets = list(bench.datasets)
    have = set(datasets)
    for name, table in zip(_unique_names(descriptors), descriptors, strict=True):
        try:
            df = load_descriptors([table.content], dataset_column=dataset_column, aliases=aliases or None,
                                  labels=[table.name])
        except InputError as exc:
            return UploadCheck(None, error_text(exc), bench.report + rb.build())
        if df.shape[1] == 0:
            return UploadCheck(None, f"{table.name}: has only the dataset column; add descriptor columns.",
                               bench.report + rb.build())
        df.index = df.index.map(str)
        rows = set(df.index)
        missing = [d for d in datasets if d not in rows]
        unused = [r for r in df.index if r not in have]
        if missing:
            parts = []
            for d in missing[:10]:
                cand = suggest(d, unused)
                if cand:
                    suggested.setdefault(cand[0], d)
                    parts.append(f"'{d}' (did you mean '{cand[0]}'?)")
                else:
                    parts.append(f"'{d}'")
            more = f" … and {len(missing) - 10} more" if len(missing) > 10 else ""
            rb.add(
                "warning", "name-mismatch",
                f"{table.name}: {len(missing)} of {len(datasets)} datasets of the scores have no row: "
                f"{'; '.join(parts)}{more}. This table cannot be used until every dataset has a row: add "
                "the rows or map the names with aliases (below).",
            )
            unusable.append(f"the descriptor table {table.name} cannot be used: {len(missing)} of {len(datasets)} "
                            "datasets have no row in it (add the aliases below, or remove the file)")
        if unused:
            rb.add(
                "info", "unused-rows",
                f"{table.name}: {len(unused)} row(s) describe datasets that are not in the scores and are "
                f"ignored: {', '.join(unused[:10])}{' …' if len(unused) > 10 else ''}.",
            )
        kinds[name] = {str(c): column_kind(df[c]) for c in df.columns}
        counts = pd.Series(list(kinds[name].values())).value_counts().to_dict()
        rb.fact(
            f"descriptors {name}",
            f"{table.name}: {df.shape[1]} column(s) ("
            + ", ".join(f"{v} {k}" for k, v in counts.items())
            + f"), {len(rows & have)} of {len(datasets)} datasets",
        )
        tables[name] = df
        specs[name] = RepresentationSpec(name=name, kind="tabular", files=(table.name,), title=name)
    if not descriptors:
        rb.add(
            "info", "no-descriptors",
            "no descriptor table: the datasets' names stand in as weak text descriptors (representation "
            "'names'), so that the strategies other than random can run; the permutation test judges whether "
            "they help. Upload one or more tables with a dataset column and descriptor columns for better ones.",
        )
    key = json.dumps(
        {"scores": scores.digest, "format": asdict(fmt), "name": name, "descriptors": [t.digest for t in descriptors],
         "dataset_column": dataset_column, "aliases": dict(aliases or {}), "dates": dates},
        sort_keys=True,
    )
    token = "upload:" + hashlib.sha256(key.encode()).hexdigest()[:20]
    data = ActiveData(
        token=token,
        title=bench.name,
        source="upload",
        benchmark=bench,
        tables=tables,
        specs=specs,
        report=bench.report + rb.build(),
        description=f"Uploaded: {scores.name}" + (f" with {', '.join(t.name for t in descriptors)}" if descriptors else ""),
        metric="score",
        model_dates=dates or None,
        inputs={t.name: hashlib.sha256(t.content).hexdigest() for t in [scores, *descriptors]},
        missing=fmt.missing,
        reading=fmt,
    )
    return UploadCheck(data, None, data.report, suggested, kinds, tuple(unusable))
