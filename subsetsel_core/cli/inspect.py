"""Command line: ``subsetsel inspect FILE`` — how a score table is read, as JSON or text.

For each task the metric chosen, the direction and where it came from; every column set
aside with its reason; what was assumed and what is not decided. ``inspect`` always
succeeds on a readable table (an undecided reading is reported, not refused). ``--table``
writes the scores exactly as read (model, dataset, fold, score, direction) with the
provenance block. The rows come from
:func:`~subsetsel_core.io.guess.reading.describe_reading`; :func:`format_reading` prints
rows of any source, and :func:`write_reading` is the whole output for any source (a reader of result
folders gives its own JSON keys, rows with subsets, and the scores as read).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subsetsel_core.cli import scores as cli_scores
from subsetsel_core.cli.args import output_path
from subsetsel_core.io.score_format import MISSING_POLICIES
from subsetsel_core.text import strict_json

if TYPE_CHECKING:
    import pandas as pd

    from subsetsel_core.io.guess.reading import ReadingRow
    from subsetsel_core.io.guess.table import TableGuess

_TASKS_SHOWN = 60  # text output: tasks listed one by one up to this many, then summarised by direction


def add_inspect_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel inspect``."""
    p.add_argument("file", metavar="FILE", help="score table (CSV, CSV.gz, TSV or Parquet), or a results folder, "
                                              ".zip or .json (lm-evaluation-harness, MTEB, Every Eval Ever)")
    g = p.add_argument_group("how to read it (default: everything guessed)")
    cli_scores.add_score_args(g)
    from subsetsel_core.cli.data import add_result_args, add_scores_format

    add_scores_format(g)
    add_result_args(g)
    p.add_argument("--format", choices=("json", "text"), default="json",
                   help="json (default): the reading with one entry per task; text: the same for people")
    p.add_argument("--missing", choices=MISSING_POLICIES,
                   default=None, help="with --table: the missing-score policy (default: partial — every score kept)")
    p.add_argument("--table", type=output_path, metavar="OUT.csv",
                   help="also write the scores exactly as read: model, dataset, fold, score, direction")
    p.add_argument("--out", type=output_path, metavar="PATH", help="write the JSON or text here instead of standard output")


def format_reading(rows: Sequence[ReadingRow]) -> str:
    """Rows of a reading as text for people: the reading, assumptions, undecided parts, tasks, set-aside."""
    out: list[str] = []
    tasks = [r for r in rows if r.part == "task"]
    for r in rows:
        if r.part == "reading":
            out.append(f"{r.name}: {r.detail}" if r.name else r.detail)
        elif r.part == "assumption":
            out.append(f"assumed ({r.name}): {r.detail}")
        elif r.part == "unsure":
            flag = cli_scores.decide_flag(r.name, f"{r.name}: {r.detail}")
            out.append(f"unsure ({r.name}): {r.detail}" + (f" [decide with {flag}]" if flag else ""))
    if tasks:
        out.append(f"tasks ({len(tasks)}):")
        shown = tasks if len(tasks) <= _TASKS_SHOWN else tasks[: _TASKS_SHOWN // 2]
        for r in shown:
            bits = [f"metric {r.metric}" if r.metric else "no metric named", f"{r.direction} is better"
                    if r.direction in ("higher", "lower") else "direction unsure", f"from: {r.source}"]
            if r.subsets:
                bits.insert(1, f"subsets {r.subsets}")
            out.append(f"  {r.name}: " + "; ".join(bits))
        if len(shown) < len(tasks):
            ways: dict[str, int] = {}
            for r in tasks[len(shown):]:
                ways[f"{r.direction} ({r.source})"] = ways.get(f"{r.direction} ({r.source})", 0) + 1
            out.append(f"  … and {len(tasks) - len(shown)} more: "
                       + ", ".join(f"{n} {w}" for w, n in ways.items()) + " (all of them with --format json)")
    aside = [r for r in rows if r.part == "set aside"]
    if aside:
        out.append(f"set aside ({len(aside)}):")
        out += [f"  {r.name}: {r.detail}" for r in aside]
    return "\n".join(out) + "\n"


def reading_json(base: Mapping[str, object], rows: Sequence[ReadingRow]) -> dict[str, object]:
    """The JSON of ``inspect``: the source's own keys (a table guess's :meth:`to_json_dict`, or a
    result folder's) and one entry per task."""
    d = dict(base)
    if "tasks" in d:  # a source with its own, richer task entries (a results folder's)
        return d
    d["tasks"] = [{"dataset": r.name, "metric": r.metric, "direction": r.direction, "direction_from": r.source,
                   **({"subsets": r.subsets} if r.subsets else {})} for r in rows if r.part == "task"]
    return d


def write_reading(args: argparse.Namespace, base: Mapping[str, object], rows: Sequence[ReadingRow],
                  as_read: pd.DataFrame | None) -> None:
    """Print a reading (``--format``, ``--out``) and write ``--table`` (the scores as read, with the
    provenance block whose settings hold ``base``): the output of ``inspect`` for any source."""
    from subsetsel_core.cli.data import write
    from subsetsel_core.outputs.provenance import input_hashes, provenance
    from subsetsel_core.text.safe_csv import csv_text

    if args.table and as_read is not None:
        path = Path(args.file)
        prov = provenance(seed=None, inputs=input_hashes([args.file]) if path.is_file() else {},
                          command=list(getattr(args, "_argv", []) or []), settings={"reading": dict(base)})
        write(csv_text(as_read, comments=prov.items()), args.table)
    if args.format == "text":
        write(format_reading(rows), args.out)
    else:
        write(strict_json.dumps(reading_json(base, rows), indent=2) + "\n", args.out)


def scores_as_read(source: str | bytes, guess: TableGuess, missing: str, df: pd.DataFrame) -> pd.DataFrame:
    """The scores as read (not negated): one row per model, dataset and fold, with the dataset's direction."""
    import numpy as np
    import pandas as pd

    from subsetsel_core.io.guess.reading import task_direction
    from subsetsel_core.io.score_table import score_cube
    from subsetsel_core.io.validation import ReportBuilder

    cube = score_cube(df, guess.to_format(missing), guess.label, ReportBuilder())
    d, f, m = np.nonzero(np.isfinite(cube.scores))
    way = {ds: task_direction(guess, ds)[0] for ds in cube.datasets}
    datasets = np.asarray(cube.datasets, dtype=object)[d]
    return pd.DataFrame({"model": np.asarray(cube.models, dtype=object)[m], "dataset": datasets,
                         "fold": np.asarray(cube.folds, dtype=object)[f], "score": cube.scores[d, f, m],
                         "direction": [way[x] for x in datasets]})


def cmd_inspect(args: argparse.Namespace) -> int:
    """``subsetsel inspect``: the reading (layout, columns, tasks with metric and direction, set-aside columns)."""
    from subsetsel_core.io.guess.reading import describe_reading
    from subsetsel_core.io.source_kind import is_result_source

    fmt = getattr(args, "scores_format", "auto")
    if fmt not in ("auto", "table") or (fmt == "auto" and is_result_source(args.file)):
        return inspect_results(args)
    source, df, guess = cli_scores.guess_scores(args.file, args)
    as_read = scores_as_read(source, guess, args.missing or "partial", df) if args.table else None
    write_reading(args, guess.to_json_dict(), describe_reading(guess), as_read)
    return 0


def _result_rows(rows: Sequence[Mapping[str, Any]]) -> list[ReadingRow]:
    """A results folder's reading rows as the rows :func:`format_reading` and :func:`reading_json` take."""
    from subsetsel_core.io.guess.reading import ReadingRow

    out: list[ReadingRow] = []
    for r in rows:
        if r["kind"] == "task":
            subsets = "; ".join(x for x in (", ".join(r["splits"]), ", ".join(r["subsets"])) if x)
            out.append(ReadingRow("task", r["task"], metric=r["metric"], subsets=subsets, direction=r["direction"],
                                  source=r["direction_from"]))
        else:
            out.append(ReadingRow("set aside", r["what"], detail=r["reason"]))
    return out


def inspect_results(args: argparse.Namespace) -> int:
    """``subsetsel inspect FOLDER`` for a results folder: per task the metric, splits/subsets,
    direction and where it came from, and every part set aside with its reason (``--format``);
    ``--table OUT.csv`` writes the score table as read, with the splits and subsets of each task."""
    from subsetsel_core.cli.data import read_result_folder, warn
    from subsetsel_core.io.result_folders import FORMATS

    table = read_result_folder(args, args.file)
    rows = table.reading_rows()
    base = {"input": "results", "format": table.format, "format_title": FORMATS[table.format].title,
            "tasks": [r for r in rows if r["kind"] == "task"], "set_aside": [r for r in rows if r["kind"] != "task"],
            "models": sorted(set(table.frame["model"])), "higher_is_better": table.higher_is_better,
            "warnings": list(table.warnings), "notes": list(table.notes)}
    warn(table.report())
    write_reading(args, base, _result_rows(rows), table.table_rows())
    return 0
