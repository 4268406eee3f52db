"""Command line: the data options, loading them, and the representations they describe.

Every command takes a benchmark folder (``--benchmark``) or score and descriptor files
(``--scores``, ``--features``); the representation options (``--representation A+B``,
``--columns``, ``--text/--no-text``, ``--log``, ``--pca``) describe representation recipes
built exactly as the dashboard builds them
(:func:`~subsetsel_core.representations.recipe.build_recipe`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from subsetsel_core.cli.args import option, readable
from subsetsel_core.cli.scores import add_score_args, is_table, read_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import (
    MISSING_POLICIES,
    RESULT_FORMATS,
    MissingPolicy,
    ScoreFormat,
)
from subsetsel_core.io.validation import changes
from subsetsel_core.settings.table import RECIPE, Setting
from subsetsel_core.text.safe_text import printable, safe_message

if TYPE_CHECKING:
    import pandas as pd

    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.representations.recipe import RepresentationRecipe, TableSpec

def add_data_args(p: argparse.ArgumentParser, scores_flag: str = "--scores") -> None:
    """The options that say where the benchmark is."""
    g = p.add_argument_group("data (a benchmark folder, or score and descriptor files)")
    g.add_argument("--benchmark", metavar="FOLDER", help="benchmark folder with a manifest.json (e.g. sample_data/tsc_bakeoff)")
    g.add_argument(scores_flag, dest="scores", metavar="FILE", help="score table: CSV, CSV.gz or Parquet")
    add_scores_format(g)
    add_result_args(g)
    g.add_argument("--features", action="append", metavar="FILE",
                   help="descriptor table (repeat for several; each is a table named after its file, as the dashboard "
                        "names an upload: features_tasks.csv is the table tasks)")
    add_score_args(g)
    g.add_argument("--missing", choices=MISSING_POLICIES, default=None,
                   help="what to do with missing scores (default: a benchmark folder's manifest policy, else error)")
    g.add_argument("--alias", action="append", metavar="A=B", help="descriptor name A means dataset B of the scores")
    g.add_argument("--name", help="benchmark name shown in outputs")


def add_scores_format(g: Any) -> None:
    """``--scores-format``: how a scores source is read (a table, or one format's results)."""
    g.add_argument("--scores-format", choices=("table", *RESULT_FORMATS), default="auto",
                   help="a score table, or a results folder / .zip / .json of lm-evaluation-harness (lm-eval), "
                        "MTEB (mteb) or Every Eval Ever (eee); auto: a folder, .zip or .json is read as results "
                        "of the format its files show. With results, --score-column chooses the metric: NAME, "
                        "or TASK=NAME;TASK2=NAME (default: each format's main metric)")


def add_result_args(g: Any) -> None:
    """The options of reading a results folder (besides the format and the metric)."""
    g.add_argument("--skip-unreadable", action="store_true",
                   help="results folders: skip every file that cannot be read (not JSON, unreadable, not a result "
                        "file, a field of the wrong type) with a warning listing each (default: stop with an error)")


def read_result_folder(args: argparse.Namespace, path: str) -> Any:
    """The :class:`~subsetsel_core.io.result_folders.ResultTable` of a results folder named on
    the command line (its warnings are printed by :func:`warn` once the benchmark is loaded)."""
    from subsetsel_core.io.result_folders import read_results

    fmt = getattr(args, "scores_format", "auto")
    metric = getattr(args, "score_column", None)
    return read_results(readable(path), "auto" if fmt in ("auto", "table") else fmt, label=Path(path).name,
                        metric=None if metric in (None, "score") else metric,
                        skip_unreadable=bool(getattr(args, "skip_unreadable", False)))
#: Longer help of the recipe's options than the settings table's one line.
_RECIPE_HELP = {
    "tables": "descriptor tables (a manifest's representations, or --features file names); 'A+B' joins tables "
              "into one representation, ',' separates representations (default: the first table, or every "
              "--features file joined); 'names': the dataset names as weak text descriptors, on any benchmark "
              "('names-sentence': sentence embeddings, an extra; 'names+T' appends T's text columns)",
    "columns": "columns of the joined tables to use (default: each table's manifest columns); embedding tables are "
               "always used in full",
}


def _dest(s: Setting) -> str:
    return (s.flag or s.name).lstrip("-").replace("-", "_")


def add_representation_args(p: argparse.ArgumentParser) -> None:
    """The options of a representation recipe (as on the dashboard's Representation page): one per
    setting of :data:`~subsetsel_core.settings.table.RECIPE`."""
    g = p.add_argument_group("representation (as on the dashboard's Representation page)")
    for s in RECIPE:
        kw: dict[str, Any] = {"help": _RECIPE_HELP[s.name]} if s.name in _RECIPE_HELP else {}
        if s.kind == "bool":  # None: not given (a sidecar's value applies); on by default: --no-… turns it off
            kw["default"] = None
            if s.default:
                kw["action"] = argparse.BooleanOptionalAction
        option(g, s.name, **kw)


def recipe_options(args: argparse.Namespace) -> dict[str, Any]:
    """The recipe's settings besides its tables and columns, from the options (the table's default where not given)."""
    out = {}
    for s in RECIPE:
        if s.name not in ("tables", "columns"):
            value = getattr(args, _dest(s))
            out[s.name] = s.default if value is None else (bool(value) if s.kind == "bool" else value)
    return out


def aliases(values: Sequence[str] | None) -> dict[str, str]:
    """``--alias A=B`` options as a mapping."""
    out: dict[str, str] = {}
    for v in values or []:
        if "=" not in v:
            raise InputError(f"alias '{v}' must look like NAME_IN_FEATURES=NAME_IN_SCORES.", field="aliases")
        a, b = v.split("=", 1)
        out[a.strip()] = b.strip()
    return out


@dataclass(frozen=True, eq=False)
class Data:
    """A benchmark with its raw descriptor tables, as the dashboard holds it.

    Attributes
    ----------
    benchmark : Benchmark
    descriptors : dict of str to DataFrame
        Table name → raw table indexed by dataset (the tables loaded).
    specs : dict of str to TableSpec
        The manifest's spec of each table (files given with ``--features`` have none).
    tables : tuple of str
        Every table the source has, loaded or not, in order.
    title : str
        Display name (the manifest's title).
    model_dates : dict of str to str
        Model → release date (ISO) from the score table's release column (empty without one).
    reading : ScoreFormat or None
        How the score table was read (a folder's manifest format, the guess with the options,
        or a config's ``[reading]``); None for a results folder.
    """

    benchmark: Benchmark
    descriptors: dict[str, pd.DataFrame]
    specs: dict[str, TableSpec]
    tables: tuple[str, ...]
    title: str
    model_dates: dict[str, str] = field(default_factory=dict)
    reading: ScoreFormat | None = None


def _stems(files: Sequence[str]) -> list[str]:
    """The table name of each ``--features`` file, as the dashboard names an uploaded one
    (``features_tasks.csv`` → ``tasks``), so that a run.toml it wrote names the same tables."""
    out: list[str] = []
    for f in files:
        stem, i = Path(f).name.split(".")[0].removeprefix("features_") or "descriptors", 2
        key = stem
        while key in out:
            key, i = f"{stem}_{i}", i + 1
        out.append(key)
    return out


def load(args: argparse.Namespace, tables: Sequence[str] | None = None) -> Data:
    """The benchmark and descriptor tables the options name.

    Parameters
    ----------
    args : Namespace
        With ``reading`` (a :class:`ScoreFormat`, from a config's ``[reading]``): a score
        table is read exactly so, not guessed (``--missing`` replaces its policy). The
        reading used is noted as ``args._reading``, which the provenance records
        (:func:`~subsetsel_core.outputs.provenance.from_arguments`).
    tables : sequence of str, optional
        The tables needed (None: every table; empty: the default representation's).
    """
    _PRINTED.clear()
    if args.benchmark:
        if args.scores or args.features:
            raise InputError("give either a benchmark folder or score/descriptor files, not both.",
                             field="scores_file")
        data = _load_folder(args.benchmark, tables, getattr(args, "missing", None))
        if getattr(args, "reading", None) is not None:
            say("note: the config's [reading] is for --scores FILE; the benchmark folder's manifest says how its "
                "score table is read.", err=True)
    else:
        data = _load_files(args, tables)
    asked = requested_tables(args) if hasattr(args, "representation") else []
    args._reading = data.reading
    return _with_names(data, [*(tables or ()), *asked])


def table_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The descriptor tables the options offer (a folder's manifest, or the ``--features`` files), read cheaply."""
    if args.benchmark:
        from subsetsel_core.loading.manifest import read_manifest

        return read_manifest(args.benchmark).representation_names
    return tuple(_stems(list(args.features or [])))


def _with_names(data: Data, wanted: Sequence[str]) -> Data:
    """The data with a names table of each names kind ``wanted`` names that the source does not have."""
    from subsetsel_core.representations.names import NAME_KINDS, add_name_tables

    kinds = [k for k in NAME_KINDS if k in wanted and k not in data.tables]
    if not kinds:
        return data
    descriptors, specs = add_name_tables(data.descriptors, data.specs, data.benchmark.datasets, kinds)
    return replace(data, descriptors=descriptors, specs=specs)


def _load_files(args: argparse.Namespace, tables: Sequence[str] | None) -> Data:
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.representations.descriptors import load_descriptors

    if not args.scores:
        raise InputError("no data: give a benchmark folder, or a score table (and descriptor tables).",
                         field="scores_file")
    dates: dict[str, str] = {}
    reading: ScoreFormat | None = None
    given: ScoreFormat | None = getattr(args, "reading", None)
    if is_table(args) and given is not None:
        reading = _as_given(args, given)
        bench = load_scores(readable(args.scores), reading, label=Path(args.scores).name, name=args.name)
    elif is_table(args):
        bench, dates, reading = read_scores(args)
    else:
        from subsetsel_core.io.score_format import ScoreFormat

        table = read_result_folder(args, args.scores)
        bench = load_scores(table.frame, table.score_format(ScoreFormat(missing=args.missing or "error")),
                            name=args.name or Path(args.scores).name, label=Path(args.scores).name)
        bench = replace(bench, report=table.report() + bench.report)
        warn(bench.report)  # what changed the benchmark, printed whichever command runs
    files = list(args.features or [])
    stems = _stems(files)
    alias = aliases(args.alias)
    descriptors = {s: load_descriptors(readable(f), dataset_column=args.dataset_column or "dataset", aliases=alias,
                                       labels=[Path(f).name])
                   for s, f in zip(stems, files, strict=True) if not tables or s in tables}
    return Data(bench, descriptors, {}, tuple(stems), bench.name, dates, reading)


#: The options that say how a score table is read, and their values when not given.
_READING_OPTIONS: tuple[tuple[str, str, Any], ...] = (
    ("--layout", "layout", "auto"), ("--model-column", "model_column", None), ("--score-column", "score_column", None),
    ("--fold-column", "fold_column", None), ("--drop-columns", "drop_columns", []),
    ("--drop-rows", "drop_rows", []),
    ("--lower-is-better", "lower_is_better", False), ("--higher-is-better", "higher_is_better", False),
    ("--lower-is-better-datasets", "lower_is_better_datasets", []),
    ("--higher-is-better-datasets", "higher_is_better_datasets", []),
)


def _as_given(args: argparse.Namespace, reading: ScoreFormat) -> ScoreFormat:
    """The config's reading, with ``--missing`` as its policy when given.

    Raises
    ------
    InputError
        An option that says how the table is read is given too (the config's reading is complete).
    """
    clash = [flag for flag, name, unset in _READING_OPTIONS if getattr(args, name, unset) not in (unset, None)]
    if args.dataset_column not in (None, reading.dataset_column) and reading.layout != "models-as-rows":
        clash.insert(0, "--dataset-column")
    if clash:
        raise InputError(f"the config's [reading] says how {Path(args.scores).name} is read, and {clash[0]} says it "
                         f"too; leave out {clash[0]} or edit [reading].", field="config")
    return replace(reading, missing=cast("MissingPolicy", args.missing)) if args.missing else reading


def _load_folder(folder: str, tables: Sequence[str] | None, missing: str | None = None) -> Data:
    """A benchmark folder; ``missing`` (``--missing``) replaces its manifest's missing-score policy."""
    from subsetsel_core.loading.folder import load_benchmark_folder
    from subsetsel_core.loading.manifest import read_manifest
    from subsetsel_core.representations.names import NAME_KINDS

    m = read_manifest(folder)
    if missing and missing != m.scores.missing:
        m = replace(m, scores=replace(m.scores, missing=cast("MissingPolicy", missing)))
    if tables is not None and not tables:
        tables = list(m.representation_names[:1])
    elif tables is not None:
        tables = [t for t in tables if t in m.representation_names or t not in NAME_KINDS]
    unknown = [t for t in tables or () if t not in m.representation_names]
    if unknown:
        raise InputError(f"unknown descriptor table '{unknown[0]}'; the tables are "
                         f"{', '.join(m.representation_names)}.", field="representation")
    lb = load_benchmark_folder(m, None if tables is None else tuple(tables))
    specs: dict[str, TableSpec] = {r.name: r for r in m.representations}
    return Data(lb.benchmark, dict(lb.descriptors), specs, tuple(m.representation_names), m.title or m.name,
                reading=m.scores)


def requested_tables(args: argparse.Namespace) -> list[str]:
    """The tables ``--representation`` names (empty: the default representation's)."""
    return list(dict.fromkeys(t for r in args.representation or () for t in r.split("+")))


def recipes(args: argparse.Namespace, data: Data) -> list[RepresentationRecipe]:
    """The representation recipes the options describe (none when there is no descriptor table)."""
    from subsetsel_core.representations.recipe import make_recipe

    if args.representation:
        groups = [r.split("+") for r in args.representation]
    elif not data.tables:
        return []
    else:
        groups = [list(data.tables[:1])] if data.specs else [list(data.tables)]
    return [make_recipe(data.descriptors, data.specs, g, args.columns, **recipe_options(args)) for g in groups]


def build(recipe: RepresentationRecipe, data: Data, seed: int) -> Representation:
    """The representation of a recipe, warnings on stderr."""
    from subsetsel_core.representations.names import WEAK_NOTE, uses_names
    from subsetsel_core.representations.recipe import build_recipe

    rep = build_recipe(recipe, data.benchmark, data.descriptors, data.specs, seed=seed)
    warn(rep.report)
    if uses_names(rep):
        say(f"note: {rep.name}: {WEAK_NOTE}", err=True)
    return rep


def no_descriptors(command: str, what: str = "strategies other than random") -> InputError:
    """The error of a command that needs descriptors on a benchmark without a descriptor table."""
    return InputError(
        f"{command} needs descriptors for {what}, and this benchmark has no descriptor table. The datasets' "
        "names can stand in as weak text descriptors: add --representation names (the permutation test of "
        "'subsetsel check' or 'evaluate --permutations' tells whether they help), or give descriptor tables "
        "with --features FILE.", field="representation")


def representations(args: argparse.Namespace, data: Data, seed: int) -> list[tuple[RepresentationRecipe, Representation]]:
    """Every representation the options describe, with its recipe."""
    return [(r, build(r, data, seed)) for r in recipes(args, data)]


_PRINTED: set[str] = set()  # warnings printed since the data was loaded (each once)


def warn(*reports: Any) -> None:
    """Print on stderr the warnings of validation reports, and the notes that say the data was changed
    (each once per command)."""
    for r in reports:
        for message in changes(r):
            if message not in _PRINTED:
                _PRINTED.add(message)
                say(f"warning: {message}", err=True)


def say(text: str, *, err: bool = False) -> None:
    """Print a line for people (stdout, or stderr with ``err``): names' control characters escaped, long names cut."""
    (sys.stderr if err else sys.stdout).write(safe_message(text.rstrip("\n"), limit=None) + "\n")


def write(text: str, out: str | None) -> None:
    """Write UTF-8 text to a file (exactly these bytes), or to standard output.

    On a terminal, control characters (escape sequences in names) are shown escaped; a
    pipe or a file gets the exact text.
    """
    if out:
        from subsetsel_core.io.safe_write import write_file

        write_file(out, text.encode("utf-8"))  # a new file renamed into place, never written through a link
    else:
        sys.stdout.write(printable(text, newlines=True) if sys.stdout.isatty() else text)
