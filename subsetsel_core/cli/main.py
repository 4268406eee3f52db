"""Command line: ``subsetsel select | evaluate | check | advise | generalise | place | inspect | theory | headroom | report``.

Also ``python -m subsetsel_core``. Bad input exits with code 2 and one short message on
stderr naming the file, the column or row, and the option that fixes it (from the
error's ``field``, through :data:`FLAGS`); never a traceback. A command imports only
what it uses.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence

from subsetsel_core.cli.args import (
    check_environment,
    finite,
    jobs,
    names,
    option,
    output_path,
    scheduler_address,
)
from subsetsel_core.cli.data import add_data_args, add_representation_args
from subsetsel_core.errors import InputError, SubsetselError
from subsetsel_core.settings.table import GROUPS, SETTINGS, Setting
from subsetsel_core.text.safe_text import safe_message

#: The option of each error field that is not one setting's: the data, the files, the recipe as a whole.
_OTHER_FLAGS: dict[str, str] = {
    "layout": "--layout auto|long|wide|models-as-rows",
    "dataset_column": "--dataset-column COL",
    "model_column": "--model-column COL",
    "score_column": "--score-column COL",
    "fold_column": "--fold-column COL",
    "direction": "--lower-is-better or --higher-is-better",
    "dataset_directions": "--lower-is-better-datasets A,B or --higher-is-better-datasets A,B",
    "drop_columns": "--drop-columns A,B",
    "drop_rows": "--drop-rows NAME[,NAME]",
    "keep_columns": "--keep-columns A,B",
    "release_column": "--release-column COL",
    "missing": "--missing POLICY",
    "aliases": "--alias NAME_IN_FEATURES=NAME_IN_SCORES",
    "descriptor_dataset_column": "--dataset-column COL",
    "descriptor_columns": "--columns A,B",
    "scores_file": "--scores FILE or --benchmark FOLDER",
    "scores_format": "--scores-format FORMAT (with --skip-unreadable)",
    "descriptor_file": "--features FILE or --benchmark FOLDER",
    "representation": "--representation TABLE[+TABLE] (with --columns, --no-text, --log, --pca)",
    "recipe": "--recipe SIDECAR.json",
    "budget": "--budget SHARE and --cost-column COL",
    "release_dates": "--model-dates FILE",
    "config": "--config run.toml",
}


def _setting_flags() -> dict[str, str]:
    """``field → "--flag METAVAR"`` of the settings: the setting named like its field, else all of the
    field's settings joined (``--k-min K and --k-max K``)."""
    out: dict[str, str] = {}
    for group in GROUPS.values():
        for field in dict.fromkeys(s.error_field for s in group if s.flag):
            if field in out or (field in SETTINGS and SETTINGS[field] not in group):
                continue  # a field named after a setting takes that setting's group
            out[field] = " and ".join(f"{s.flag} {s.metavar}" if s.metavar else s.flag
                                      for s in group if s.flag and s.error_field == field)
    return out


FLAGS: dict[str, str] = {**_setting_flags(), **_OTHER_FLAGS}
"""The option that fixes an :class:`~subsetsel_core.errors.InputError`, by its ``field``
(the settings' from :attr:`~subsetsel_core.settings.table.Setting.flag`)."""

#: Commands whose options differ from :data:`FLAGS`.
COMMAND_FLAGS: dict[str, dict[str, str]] = {
    "evaluate": {"strategy": "--strategies S1,S2", "metric": "--metrics M1,M2"},
    "advise": {"strategy": "--strategies S1,S2"},
    "generalise": {"strategy": "--strategies S1,S2"},
    "headroom": {"strategy": "--strategies S1,S2"},
    "place": {"scores_file": "--reference FILE or --benchmark FOLDER"},
    "inspect": {"scores_file": "FILE, the file or folder to read"},
}

COMMANDS: dict[str, str] = {
    "select": "subsetsel_core.cli.select:cmd_select",
    "evaluate": "subsetsel_core.cli.evaluate:cmd_evaluate",
    "check": "subsetsel_core.cli.evaluate:cmd_check",
    "advise": "subsetsel_core.cli.evaluate:cmd_advise",
    "generalise": "subsetsel_core.cli.evaluate:cmd_generalise",
    "place": "subsetsel_core.cli.select:cmd_place",
    "inspect": "subsetsel_core.cli.inspect:cmd_inspect",
    "theory": "subsetsel_core.cli.theory:cmd_theory",
    "headroom": "subsetsel_core.cli.headroom:cmd_headroom",
    "report": "subsetsel_core.cli.report:cmd_report",
}
"""Command → ``"module:function"`` run for it (imported when the command runs)."""


#: Commands whose module declares its own options: name → (help, ``"module:function"`` that adds them,
#: imported only when that command's parser is built).
SELF_DECLARED: dict[str, tuple[str, str]] = {
    "inspect": ("what the tool makes of a score table (layout, columns set aside, sizes, direction), as JSON",
                "subsetsel_core.cli.inspect:add_inspect_args"),
    "theory": ("FAFI's coverage bound under a Gaussian-process model, next to the observed share of inverted "
               "model pairs", "subsetsel_core.cli.theory:add_theory_args"),
    "headroom": ("the price of a-priori selection: score-aware strategies (upper bounds, fitted to today's "
                 "models) judged with every strategy on held-out models", "subsetsel_core.cli.headroom:add_headroom_args"),
    "report": ("run what a config file asks and write the HTML report, figures, CSV, JSON and LaTeX into one "
               "folder", "subsetsel_core.cli.report:add_report_args"),
}




class _Parser(argparse.ArgumentParser):
    """Argument errors as one line (what is wrong, and the fix), never argparse's usage block."""

    commands: Mapping[str, argparse.ArgumentParser]
    seen: list[str]

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self.seen = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {safe_message(argument_error(self, message), 600)}\n")
        raise SystemExit(2)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return list(dict.fromkeys(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", parser.format_usage())))


def _command_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The sub-command's parser when the top-level parser reports an error for it."""
    commands = getattr(parser, "commands", {})
    for word in getattr(parser, "seen", []):
        if word in commands:
            return commands[word]
    return parser


def argument_error(parser: argparse.ArgumentParser, message: str) -> str:
    """argparse's ``message`` as one line in the user's words: what is wrong and what to type instead."""
    from subsetsel_core.io.names import did_you_mean

    hint = f"See '{parser.prog} --help' for the options."
    m = re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid choice: '(.*)' \(choose from (.*)\)", message, re.S)
    if m:
        choices = re.findall(r"'((?:[^'\\]|\\.)*)'", m.group(3))
        if m.group(1) == "command":
            return (f"'{m.group(2)}' is not a command{did_you_mean(m.group(2), choices, 1)}. The commands: "
                    f"{', '.join(choices)}.")
        return (f"{m.group(1)} '{m.group(2)}' is not one of its choices{did_you_mean(m.group(2), choices, 1)}. "
                f"Use one of: {', '.join(choices)}.")
    m = re.fullmatch(r"unrecognized arguments: (.*)", message, re.S)
    if m:
        target = _command_parser(parser)
        words = m.group(1).split()
        flag = next((w for w in words if w.startswith("-")), words[0] if words else "")
        known = _options(target)
        where = f"'{target.prog}'"
        if flag.startswith("-"):
            return (f"{where} has no option {flag.split('=')[0]}{did_you_mean(flag.split('=')[0], known, 1)}. "
                    f"See '{target.prog} --help' for the options.")
        return (f"{where} takes no value '{flag}' here (a value given to an option that takes none, or a file "
                f"name without its option?). See '{target.prog} --help' for the options.")
    m = re.fullmatch(r"the following arguments are required: (.*)", message, re.S)
    if m:
        if m.group(1) == "command":
            return f"give a command: {', '.join(getattr(parser, 'commands', {}))}. {hint}"
        usage = " ".join(parser.format_usage().split())
        wanted = []
        for flag in m.group(1).split(", "):
            value = re.search(re.escape(flag) + r" ([A-Z][\w.]*)", usage)
            wanted.append(f"{flag} {value.group(1)}" if value else flag)
        return f"{m.group(1)} {'is' if len(wanted) == 1 else 'are'} required; add {' and '.join(wanted)}. {hint}"
    m = re.fullmatch(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
    if m:
        return f"{m.group(1)} needs a value after it (e.g. {m.group(1)} VALUE). {hint}"
    m = re.fullmatch(r"argument (\S+?)(?:/\S+)?: not allowed with argument (\S+)", message)
    if m:
        return f"{m.group(1)} and {m.group(2)} cannot be given together; keep one of them."
    m = re.fullmatch(r"one of the arguments (.*) is required", message)
    if m:
        return f"give one of {', '.join(m.group(1).split())}. {hint}"
    m = re.fullmatch(r"ambiguous option: (\S+) could match (.*)", message)
    if m:
        return f"{m.group(1)} is short for several options ({m.group(2)}); write the option in full."
    m = re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid (\w+) value: '(.*)'", message, re.S)
    if m:
        kind = {"int": "a whole number", "float": "a number"}.get(m.group(2), f"a {m.group(2)} value")
        return f"{m.group(1)} must be {kind}, got '{m.group(3)}'."
    m = re.fullmatch(r"argument (\S+?)(?:/\S+)?: (.*)", message, re.S)
    if m:
        text = m.group(2).rstrip(".")
        return f"{m.group(1)}: {text}."
    return message.rstrip(".") + f". {hint}"


def _protocol_args(p: argparse.ArgumentParser, trials: Setting | None = None) -> None:
    """The protocol's options; ``trials``: the command's own trials setting instead of the protocol's."""
    for name in ("strategies", "trials", "alpha", "k_min", "k_max", "seed"):
        option(p, trials.name if name == "trials" and trials is not None else name,
               **({"dest": "trials"} if name == "trials" else {}))


def _select(s: argparse.ArgumentParser) -> None:
    add_data_args(s)
    add_representation_args(s)
    s.add_argument("--recipe", metavar="SIDECAR.json",
                   help="reproduce the subset of a JSON sidecar (downloaded from the dashboard or written with --sidecar)")
    option(s, "strategy",
           help="score-aware strategies are not offered: 'subsetsel headroom' judges them on held-out models")
    option(s, "k", default=None, help="number of datasets (or give --budget)")
    option(s, "budget")
    s.add_argument("--cost-column", metavar="COL", help="descriptor column of per-dataset costs (default: estimated from size columns)")
    s.add_argument("--coverage", action="store_true", help="add which unchosen datasets each chosen one stands for")
    option(s, "seed", default=None, help=f"default {SETTINGS['seed'].default}")
    option(s, "include", default=None,
           help="datasets chosen first (names as in the subset CSV are accepted; --include=-name for a "
                "name starting with '-')")
    option(s, "exclude", default=None, metavar="D3")
    s.add_argument("--format", choices=("csv", "json"), default="csv")
    s.add_argument("--out", type=output_path, metavar="PATH", help="write here instead of standard output")
    s.add_argument("--sidecar", type=output_path, metavar="PATH.json", help="also write the JSON sidecar (as the dashboard's download)")


def _evaluate(e: argparse.ArgumentParser) -> None:
    add_data_args(e)
    add_representation_args(e)
    _protocol_args(e)
    option(e, "beta")
    option(e, "metrics")
    e.add_argument("--out", type=output_path, metavar="result.json")
    e.add_argument("--latex", type=output_path, metavar="auc.tex",
                   help="also write the AUC table as LaTeX (booktabs, 95 %% intervals, the best mean per metric "
                        "in bold, ties all bold; \\input it with \\usepackage{booktabs})")
    option(e, "budget", metavar="MAX_SHARE",
           help="curves against cost instead of k: 15 budget levels up to this share of the total cost")
    e.add_argument("--cost-column", metavar="COL", help="descriptor column of per-dataset costs")
    e.add_argument("--jobs", type=jobs, default=None,
                   help="worker processes on this machine (0: all cores; default: the trials in this process, the "
                        "permutation test's shuffles in 2)")
    e.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS", help="run the trials on a Dask cluster (tcp://host:8786)")
    option(e, "permutations",
           help="permutation test behind every 'helps': up to B shuffles of the descriptors (default "
                f"{SETTINGS['permutations'].default}; 0 = no test, every verdict then says 'not tested'); at most the "
                "installation's max_permutations")
    option(e, "permutation_trials", default=None,
           help="the permutation test's gain and null on the first T trials (default: "
                f"{SETTINGS['permutation_trials'].widget_default}, at most --trials); every output shows this gain")
    e.add_argument("--theory", action="store_true",
                   help="add FAFI's coverage bound under a Gaussian-process model to the JSON (--out; fits the GP)")
    option(e, "resamples")


def _check(c: argparse.ArgumentParser) -> None:
    add_data_args(c)
    add_representation_args(c)
    option(c, "permutations",
           help=f"shuffles of the descriptors in the permutation test (default: as the dashboard, "
                f"{SETTINGS['permutations'].default}; at most the installation's max_permutations); every "
                "representation named forms one family")
    option(c, "mantel_permutations")
    option(c, "check_trials", dest="trials")
    option(c, "seed")


def _advise(a: argparse.ArgumentParser) -> None:
    add_data_args(a)
    add_representation_args(a)
    _protocol_args(a)
    option(a, "metric")
    a.add_argument("--target", type=finite, default=None,
                   help="within the metric's range (default: the metric's own target, as on the dashboard)")
    a.add_argument("--jobs", type=jobs, default=1)


def _generalise(g: argparse.ArgumentParser) -> None:
    add_data_args(g)
    add_representation_args(g)
    _protocol_args(g, SETTINGS["generalise_trials"])
    g.add_argument("--new-models", type=names, default=[], metavar="M1,M2", help="the held-out models")
    g.add_argument("--model-dates", metavar="FILE", help="table with model and release date columns: hold out the newest")
    g.add_argument("--date-column", default=None, help="default: release_date, date, released or release")
    option(g, "held_out", dest="fraction")
    option(g, "metric")


def _place(pl: argparse.ArgumentParser) -> None:
    add_data_args(pl, scores_flag="--reference")
    pl.add_argument("--subset", required=True, metavar="subset.csv", help="the chosen subset (a 'dataset' column)")
    pl.add_argument("--scores", dest="new_scores", required=True, metavar="new_model.csv",
                    help="the new model's scores: dataset[,fold],score")
    pl.add_argument("--model-name", default="new model")
    option(pl, "seed")


#: The commands declared here: name → (help, function that adds the options).
_DECLARED: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "select": ("choose k datasets (or datasets within a budget)", _select),
    "evaluate": ("bootstrap protocol: curves, AUC, tests against random", _evaluate),
    "check": ("does a representation track what makes models differ?", _check),
    "advise": ("how many datasets are needed to reach a target agreement", _advise),
    "generalise": ("does the winner on today's models hold on held-out (newer) models?", _generalise),
    "place": ("estimate a new model's full-benchmark rank from its subset scores", _place),
}


def _adder(command: str) -> Callable[[argparse.ArgumentParser], None]:
    if command in _DECLARED:
        return _DECLARED[command][1]
    module, function = SELF_DECLARED[command][1].split(":")
    add: Callable[[argparse.ArgumentParser], None] = getattr(importlib.import_module(module), function)
    return add


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``subsetsel``.

    With ``argv`` whose first word is a command, only that command's parser is built:
    parsing ``argv`` gives the same result, and the command line does not build nine parsers
    it does not use (any other first word builds them all, for the help and the errors).
    """
    p = _Parser(prog="subsetsel", description="Choose a subset of a benchmark's datasets that preserves the model ranking.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p.commands = sub.choices  # the sub-commands' parsers, to word an error the top level reports for one
    only = argv[0] if argv and argv[0] in COMMANDS else None
    helps = {name: text for name, (text, _) in {**_DECLARED, **SELF_DECLARED}.items()}
    for name in COMMANDS if only is None else (only,):
        _adder(name)(sub.add_parser(name, help=helps[name]))
    return p


def flag_for(command: str, field: str | None) -> str | None:
    """The option that fixes an error of ``field`` in ``command`` (None when there is none)."""
    if field is None:
        return None
    return COMMAND_FLAGS.get(command, {}).get(field) or FLAGS.get(field)


def error_text(command: str, exc: InputError) -> str:
    """The message of an input error with the option that fixes it."""
    msg = str(exc)
    flag = flag_for(command, exc.field)
    if flag is None or flag.split()[0] in msg:
        return msg
    return f"{msg} [{flag}]"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 2 bad input, 1 unexpected failure)."""
    typed = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(typed).parse_args(typed)
    args._argv = typed  # the command as typed, for the outputs' provenance
    try:
        check_environment()
        module, function = COMMANDS[args.command].split(":")
        return int(getattr(importlib.import_module(module), function)(args))
    except InputError as exc:
        sys.stderr.write(f"subsetsel: error: {error_text(args.command, exc)}\n")
        return 2
    except SubsetselError as exc:
        sys.stderr.write(f"subsetsel: {safe_message(str(exc))}\n")
        return 1
    except MemoryError:
        sys.stderr.write("subsetsel: error: out of memory; use fewer trials or a smaller benchmark.\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("subsetsel: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback for users
        sys.stderr.write(f"subsetsel: unexpected error ({type(exc).__name__}: {safe_message(str(exc), 300)}). "
                         "Please report it.\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
