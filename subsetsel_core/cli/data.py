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
from subsetsel_core.io.result_records import RESULT_FORMATS
from subsetsel_core.io.score_format import MISSING_POLICIES, MissingPolicy
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
    g.add_argument("--scores-format", choices=("table", *RESULT_FORMATS), default="auto",
                   help="a score table, or a results folder / .zip / .json of lm-evaluation-harness (lm-eval), "
                        "MTEB (mteb) or Every Eval Ever (eee); auto: a folder, .zip or .json is read as results "
                        "of the format its files show. With results, --score-column chooses the metric: NAME, "
                        "or TASK=NAME;TASK2=NAME (default: each format's main metric)")
    g.add_argument("--features", action="append", metavar="FILE",
                   help="descriptor table (repeat for several; each is a table named after its file)")
    add_score_args(g)
    g.add_argument("--missing", choices=MISSING_POLICIES, default=None,
                   help="what to do with missing scores (default: a benchmark folder's manifest policy, else error)")
    g.add_argument("--alias", action="append", metavar="A=B", help="descriptor name A means dataset B of the scores")
    g.add_argument("--name", help="benchmark name shown in outputs")


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
    """

    benchmark: Benchmark
    descriptors: dict[str, pd.DataFrame]
    specs: dict[str, TableSpec]
    tables: tuple[str, ...]
    title: str
    model_dates: dict[str, str] = field(default_factory=dict)


def _stems(files: Sequence[str]) -> list[str]:
    out: list[str] = []
    for f in files:
        stem, i = Path(f).name.split(".")[0], 2
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
    tables : sequence of str, optional
        The tables needed (None: every table; empty: the default representation's).
    """
    if args.benchmark:
        if args.scores or args.features:
            raise InputError("give either a benchmark folder or score/descriptor files, not both.",
                             field="scores_file")
        data = _load_folder(args.benchmark, tables, getattr(args, "missing", None))
    else:
        data = _load_files(args, tables)
    asked = requested_tables(args) if hasattr(args, "representation") else []
    return _with_names(data, [*(tables or ()), *asked])


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
    if is_table(args):
        bench, dates = read_scores(args)
    else:
        bench = load_scores(
            readable(args.scores), label=Path(args.scores).name, missing=args.missing or "error", name=args.name,
            higher_is_better=not args.lower_is_better, result_format=args.scores_format,
            result_metric=None if args.score_column in (None, "score") else args.score_column,
        )
    files = list(args.features or [])
    stems = _stems(files)
    alias = aliases(args.alias)
    descriptors = {s: load_descriptors(readable(f), dataset_column=args.dataset_column or "dataset", aliases=alias,
                                       labels=[Path(f).name])
                   for s, f in zip(stems, files, strict=True) if not tables or s in tables}
    return Data(bench, descriptors, {}, tuple(stems), bench.name, dates)


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
    return Data(lb.benchmark, dict(lb.descriptors), specs, tuple(m.representation_names), m.title or m.name)


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


def warn(*reports: Any) -> None:
    """Print the warnings of validation reports on stderr."""
    for r in reports:
        for f in r.findings:
            if f.level == "warning":
                say(f"warning: {f.message}", err=True)


def say(text: str, *, err: bool = False) -> None:
    """Print a line for people (stdout, or stderr with ``err``): names' control characters escaped, long names cut."""
    (sys.stderr if err else sys.stdout).write(safe_message(text.rstrip("\n"), limit=None) + "\n")


def write(text: str, out: str | None) -> None:
    """Write UTF-8 text to a file (exactly these bytes), or to standard output.

    On a terminal, control characters (escape sequences in names) are shown escaped; a
    pipe or a file gets the exact text.
    """
    if out:
        try:
            Path(out).write_bytes(text.encode("utf-8"))
        except OSError as exc:
            raise InputError(f"cannot write {out}: {exc.strerror}. Check the folder exists and is writable.") from None
    else:
        sys.stdout.write(printable(text, newlines=True) if sys.stdout.isatty() else text)
