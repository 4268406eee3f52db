"""Command line: ``subsetsel inspect FILE`` (what the tool makes of a score table, as JSON) and
``subsetsel generalise`` with the release dates of the score table's own release column."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path

from subsetsel_core import cli_scores
from subsetsel_core.cli_args import output_path
from subsetsel_core.errors import InputError


def add_inspect_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel inspect``."""
    p.add_argument("file", metavar="FILE", help="score table: CSV, CSV.gz, TSV or Parquet")
    g = p.add_argument_group("how to read it (default: everything guessed)")
    cli_scores.add_score_args(g)
    p.add_argument("--out", type=output_path, metavar="PATH.json", help="write the JSON here instead of standard output")


def cmd_inspect(args: argparse.Namespace) -> int:
    """``subsetsel inspect``: the guess (layout, columns, set-aside columns, sizes, gaps, direction) as JSON."""
    from subsetsel_core.cli_data import write

    _, _, guess = cli_scores.guess_scores(args.file, args)
    write(json.dumps(guess.to_json_dict(), indent=2, ensure_ascii=False) + "\n", args.out)
    return 0


def cmd_generalise(args: argparse.Namespace) -> int:
    """``subsetsel generalise``; without ``--model-dates`` or ``--new-models``, the release
    dates are those of the score table's release column (guessed, or ``--release-column``)."""
    from subsetsel_core import cli_evaluate
    from subsetsel_core.io.guess import release_dates

    if args.model_dates or args.new_models or not args.scores or not cli_scores.is_table(args):
        return int(cli_evaluate.cmd_generalise(args))
    _, df, guess = cli_scores.guess_scores(args.scores, args)
    dates = release_dates(df, guess)
    if not dates:
        if args.release_column:  # pragma: no cover - guess_table refuses a column without dates
            raise InputError(f"{guess.label}: no release date in '{args.release_column}'.", field="release_column")
        return int(cli_evaluate.cmd_generalise(args))
    lacking = [m for m in guess.models if m not in dates]
    if lacking:
        raise InputError(f"{guess.label}: {len(lacking)} of {guess.n_models} models have no date in the release "
                         f"column '{guess.release_column}' ({', '.join(lacking[:5])}{' …' if len(lacking) > 5 else ''})."
                         " Fill them in, or hold out models with --new-models or a --model-dates table.",
                         field="release_column")
    sys.stderr.write(f"note: held-out models by their release dates in column '{guess.release_column}'\n")
    with tempfile.TemporaryDirectory(prefix="subsetsel-") as tmp:
        table = Path(tmp) / f"{Path(guess.label).stem}-release-dates.csv"
        with table.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["model", "release_date"])
            w.writerows(dates.items())
        args.model_dates, args.date_column = str(table), "release_date"
        return int(cli_evaluate.cmd_generalise(args))
