"""Command line: ``subsetsel inspect FILE`` (what the tool makes of a score table, as JSON)."""

from __future__ import annotations

import argparse

from subsetsel_core.cli import scores as cli_scores
from subsetsel_core.cli.args import output_path
from subsetsel_core.text import strict_json


def add_inspect_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel inspect``."""
    p.add_argument("file", metavar="FILE", help="score table (CSV, CSV.gz, TSV or Parquet), or a results folder, "
                                              ".zip or .json (lm-evaluation-harness, MTEB, Every Eval Ever)")
    g = p.add_argument_group("how to read it (default: everything guessed)")
    cli_scores.add_score_args(g)
    from subsetsel_core.cli.data import add_result_args

    add_result_args(g)
    p.add_argument("--out", type=output_path, metavar="PATH.json", help="write the JSON here instead of standard output")


def cmd_inspect(args: argparse.Namespace) -> int:
    """``subsetsel inspect``: the guess (layout, columns, set-aside columns, sizes, gaps, direction) as JSON."""
    from subsetsel_core.cli.data import write
    from subsetsel_core.io.result_files import is_result_source

    if is_result_source(args.file):
        return inspect_results(args)
    _, _, guess = cli_scores.guess_scores(args.file, args)
    write(strict_json.dumps(guess.to_json_dict(), indent=2) + "\n", args.out)
    return 0


def inspect_results(args: argparse.Namespace) -> int:
    """``subsetsel inspect FOLDER`` for a results folder: per task the metric, splits/subsets,
    direction and where it came from, and every part set aside with its reason, as JSON;
    ``--table OUT.csv`` (when the command has it) writes the score table as read, with the
    splits and subsets of each task."""
    from subsetsel_core.cli.data import read_result_folder, warn, write
    from subsetsel_core.io.result_folders import FORMATS

    table = read_result_folder(args, args.file)
    rows = table.reading_rows()
    out = {"input": "results", "format": table.format, "format_title": FORMATS[table.format].title,
           "tasks": [r for r in rows if r["kind"] == "task"], "set_aside": [r for r in rows if r["kind"] != "task"],
           "models": sorted(set(table.frame["model"])), "higher_is_better": table.higher_is_better,
           "warnings": list(table.warnings), "notes": list(table.notes)}
    warn(table.report())
    if getattr(args, "table", None):
        from subsetsel_core.outputs.provenance import from_arguments
        from subsetsel_core.text.safe_csv import csv_text

        write(csv_text(table.table_rows(), comments=from_arguments(args)), args.table)
    write(strict_json.dumps(out, indent=2) + "\n", args.out)
    return 0
