"""Command line: ``subsetsel inspect FILE`` (what the tool makes of a score table, as JSON)."""

from __future__ import annotations

import argparse

from subsetsel_core.cli import scores as cli_scores
from subsetsel_core.cli.args import output_path
from subsetsel_core.text import strict_json


def add_inspect_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel inspect``."""
    p.add_argument("file", metavar="FILE", help="score table: CSV, CSV.gz, TSV or Parquet")
    g = p.add_argument_group("how to read it (default: everything guessed)")
    cli_scores.add_score_args(g)
    p.add_argument("--out", type=output_path, metavar="PATH.json", help="write the JSON here instead of standard output")


def cmd_inspect(args: argparse.Namespace) -> int:
    """``subsetsel inspect``: the guess (layout, columns, set-aside columns, sizes, gaps, direction) as JSON."""
    from subsetsel_core.cli.data import write

    _, _, guess = cli_scores.guess_scores(args.file, args)
    write(strict_json.dumps(guess.to_json_dict(), indent=2) + "\n", args.out)
    return 0
