"""Command line: how a score table is read — its layout, columns, set-aside columns and direction.

The options (``--layout``, the column options, ``--drop-columns``, ``--drop-rows``, ``--release-column``,
the direction options) feed :func:`~subsetsel_core.io.guess.table.guess_table`, the one guess
the dashboard shows too; :func:`read_scores` loads the table as guessed and says on
stderr how it was read and what it assumed. A reading the guess is unsure of is never
resolved here: the command stops (:func:`undecided`) naming each undecided part and the
option that decides it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subsetsel_core.cli.args import names
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import LAYOUTS
from subsetsel_core.text.safe_text import safe_message

if TYPE_CHECKING:
    import pandas as pd

    from subsetsel_core.benchmark import Benchmark
    from subsetsel_core.io.guess.table import TableGuess
    from subsetsel_core.io.score_format import ScoreFormat


#: The options that settle what a guess was unsure of, by topic.
UNSURE_FLAGS: dict[str, str] = {
    "layout": "--layout wide or --layout models-as-rows",
    "direction": "--lower-is-better or --higher-is-better (with --lower-is-better-datasets A,B for exceptions)",
    "dataset_column": "--dataset-column COL and --model-column COL",
    "model_column": "--model-column COL (or --fold-column COL)",
    "fold_column": "--fold-column COL (or one row per dataset and model in the file)",
    "score_column": "--score-column COL",
    "set_aside": "--drop-columns COL or --keep-columns COL",
    "rows": "--drop-rows NAME",
    "release_column": "--release-column COL",
    "cells": "--drop-columns COL (or fix the cells)",
}
#: Topics of ``unsure`` that do not stop a command (what they concern is left out, and said; cells that are not
#: numbers stop the reading itself, which names them).
NOT_BLOCKING = frozenset({"release_column", "cells"})


def add_score_args(g: Any) -> None:
    """The options that say how the score table is laid out (an argument group)."""
    g.add_argument("--layout", choices=("auto", *LAYOUTS), default="auto",
                   help="long (dataset, model[, fold], score columns); wide (one row per dataset, one column per "
                        "model); models-as-rows (one row per model, one column per dataset: a leaderboard); "
                        "auto (default): guessed — see it with 'subsetsel inspect FILE'")
    g.add_argument("--wide", dest="layout", action="store_const", const="wide", help="same as --layout wide")
    g.add_argument("--dataset-column", default=None, metavar="COL",
                   help="dataset column of a long or wide score table (default: guessed), and of the descriptor "
                        "tables (default: dataset)")
    g.add_argument("--model-column", default=None, metavar="COL",
                   help="model column of a long table, or the column of model names with --layout models-as-rows "
                        "(default: guessed)")
    g.add_argument("--score-column", default=None, metavar="COL", help="score column of a long table (default: guessed)")
    g.add_argument("--fold-column", default=None, metavar="COL",
                   help="fold / seed column (default: a column named fold, seed, split, … when there is one)")
    g.add_argument("--drop-columns", type=names, default=[], metavar="A,B",
                   help="columns to set aside (not scores) besides those the guess sets aside: text, dates, sizes, "
                        "averages, ranks, win rates")
    g.add_argument("--drop-rows", type=names, default=[], metavar="NAME[,NAME]",
                   help="rows of a wide or models-as-rows table to set aside (not a dataset or a model), by their "
                        "name: a summary row such as Avg")
    g.add_argument("--keep-columns", type=names, default=[], metavar="A,B",
                   help="columns read as scores though the guess would set them aside or is unsure of them")
    g.add_argument("--release-column", default=None, metavar="COL",
                   help="column of model release dates (models as rows, or long); generalise holds out the newest")
    d = g.add_mutually_exclusive_group()
    d.add_argument("--lower-is-better", action="store_true", help="scores are errors or losses")
    d.add_argument("--higher-is-better", action="store_true",
                   help="scores are accuracies (default: decided by evidence — the metric names of the score "
                        "column or of the headers' metric parts, a Rank or win-rate column, the file name; without "
                        "any, higher is better is assumed and said). Applies to every dataset except those named "
                        "with --lower-is-better-datasets / --higher-is-better-datasets")
    g.add_argument("--lower-is-better-datasets", type=names, default=[], metavar="A,B",
                   help="datasets whose scores are lower-is-better when the rest are not (mixed metrics)")
    g.add_argument("--higher-is-better-datasets", type=names, default=[], metavar="A,B",
                   help="datasets whose scores are higher-is-better when the rest are not")


def guess_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`~subsetsel_core.io.guess.table.guess_table` the command line sets."""
    higher = False if args.lower_is_better else True if args.higher_is_better else None
    return {
        "layout": args.layout, "dataset_column": args.dataset_column, "model_column": args.model_column,
        "score_column": args.score_column, "fold_column": args.fold_column, "drop_columns": args.drop_columns,
        "drop_rows": getattr(args, "drop_rows", []),
        "keep_columns": getattr(args, "keep_columns", []),
        "release_column": args.release_column, "higher_is_better": higher,
        "lower_is_better_datasets": args.lower_is_better_datasets,
        "higher_is_better_datasets": args.higher_is_better_datasets,
    }


def is_table(args: argparse.Namespace) -> bool:
    """Whether ``--scores`` names a score table (not a results folder, .zip or .json)."""
    from subsetsel_core.io.source_kind import is_result_source

    fmt = getattr(args, "scores_format", "table")
    return fmt == "table" or (fmt == "auto" and not is_result_source(args.scores))


def guess_scores(path: str, args: argparse.Namespace) -> tuple[str | bytes, pd.DataFrame, TableGuess]:
    """The score table as read (a path, or a pipe's bytes), its raw cells, and what the
    options and the guess make of it."""
    from subsetsel_core.cli.args import readable
    from subsetsel_core.io.guess.table import guess_table
    from subsetsel_core.io.tables import read_table

    label = Path(path).name
    source = readable(path)
    df = read_table(source, label=label, field="scores_file", object_text=True)
    return source, df, guess_table(df, label=label, **guess_options(args))


def undecided(guess: TableGuess, label: str) -> InputError | None:
    """The error of a reading with undecided parts (None when everything is decided): one line
    naming each part and the option that decides it."""
    parts = []
    for u in guess.unsure:
        topic = u.split(":", 1)[0]
        if topic in NOT_BLOCKING:
            continue
        flag = decide_flag(topic, u)
        parts.append(u + (f" [decide with {flag}]" if flag else ""))
    if not parts:
        return None
    return InputError(f"{label}: the reading is not decided, so nothing is computed: {' | '.join(parts)}. "
                      f"See the whole reading with 'subsetsel inspect {label} --format text'.")


def decide_flag(topic: str, unsure: str) -> str | None:
    """The option that decides an ``unsure`` entry of ``topic`` (a summary row's names the row:
    ``--drop-rows Avg``); None when no option does."""
    from subsetsel_core.io.guess.summary_rows import summary_row

    row = summary_row(unsure) if topic == "rows" else None
    if row is not None:  # a name with a comma is quoted as in CSV, as --drop-rows reads it
        from subsetsel_core.io.names import csv_quoted

        return f"--drop-rows {shlex.quote(csv_quoted(row))}"
    return UNSURE_FLAGS.get(topic)


def notes(guess: TableGuess) -> list[str]:
    """What a command says on stderr about a reading it uses: how it was read, what it assumed,
    and the undecided parts that do not stop it."""
    out = []
    if guess.layout != "long" or guess.lower_is_better_datasets or guess.higher_is_better_datasets:
        out.append(f"note: {guess.sentence()}")
    if guess.direction_from == "assumed":
        out.append(f"warning: direction assumed: {guess.direction_because} [{UNSURE_FLAGS['direction']}]")
    for u in guess.unsure:
        topic = u.split(":", 1)[0]
        if topic in NOT_BLOCKING:
            out.append(f"warning: {u}" + (f" [{UNSURE_FLAGS[topic]}]" if topic in UNSURE_FLAGS else ""))
    return out


def read_scores(args: argparse.Namespace) -> tuple[Benchmark, dict[str, str], ScoreFormat]:
    """The benchmark of ``--scores`` read as guessed, the models' release dates (empty
    without a release column), and the reading it was read with. Says on stderr how the
    table was read when it is not a plain long table and what was assumed.

    Raises
    ------
    InputError
        The reading has undecided parts (:func:`undecided`), or the table cannot be read so.
    """
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.io.guess.table import release_dates

    source, df, guess = guess_scores(args.scores, args)
    err = undecided(guess, guess.label)
    if err is not None:
        raise err
    for line in notes(guess):
        _say(line)
    fmt = guess.to_format(args.missing or "error")
    bench = load_scores(df, fmt, name=args.name, label=guess.label)
    return bench, release_dates(df, guess), fmt


def _say(text: str) -> None:
    sys.stderr.write(safe_message(text, limit=None) + "\n")
