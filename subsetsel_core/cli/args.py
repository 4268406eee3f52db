"""Command line: every option value and environment variable checked before anything runs.

The argparse ``type=`` functions here turn an option's text into its value or raise
:class:`argparse.ArgumentTypeError`, which the parser reports as
``subsetsel: error: argument --seed: …`` with exit code 2: a seed is a whole number
≥ 0, a count a whole number in its range, a fraction a finite number in its interval (NaN
and infinities never are), a Dask scheduler address ``[tcp://]host:port``, an output path
one whose folder exists. :func:`check_environment` does the same for the environment
variables the CLI reads (an :class:`~subsetsel_core.errors.InputError`, exit code 2).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from subsetsel_core.errors import InputError
from subsetsel_core.settings import table
from subsetsel_core.text import rounding
from subsetsel_core.text.safe_text import printable, shorten

__all__ = [
    "MAX_SEED",
    "check_environment",
    "count",
    "finite",
    "fraction",
    "jobs",
    "names",
    "option",
    "output_path",
    "readable",
    "scheduler_address",
    "seed",
    "share",
]

MAX_SEED = table.MAX_SEED
"""Largest seed (seeds are stored as 64-bit integers)."""
_SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)")
_INTEGER = re.compile(r"[+-]?\d{1,30}")


def _shown(value: str) -> str:
    return "'" + shorten(printable(value), 40) + "'"


def names(value: str) -> list[str]:
    """A comma-separated list of names (an argparse type; blanks dropped); a name with a comma in it is quoted as in
    CSV: ``'"Pima, 35",Wine'``."""
    try:
        cells = next(csv.reader([value], skipinitialspace=True), [])
    except csv.Error:
        cells = value.split(",")
    return [v.strip() for v in cells if v.strip()]


def _whole(value: str) -> int:
    text = value.strip().replace("_", "")
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {_shown(value)}")
    return int(text)


def seed(value: str) -> int:
    """A seed: a whole number from 0 to 2**63 − 1 (an argparse type)."""
    v = _whole(value)
    if not 0 <= v <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed must be a whole number from 0 to 2**63 - 1, got {_shown(value)}")
    return v


def count(low: int, high: int, what: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number in ``[low, high]``.

    Parameters
    ----------
    low, high : int
        The accepted range (both included).
    what : str
        What the number counts, for the message (e.g. ``"trials"``).

    Returns
    -------
    callable
        ``str -> int``, raising :class:`argparse.ArgumentTypeError` outside the range.
    """

    def parse(value: str) -> int:
        v = _whole(value)
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(
                f"{what + ' ' if what else ''}must be a whole number from {low} to {high:,}, got {_shown(value)}")
        return v

    parse.__name__ = what or "count"
    return parse


def finite(value: str) -> float:
    """A finite number (an argparse type: NaN and infinities are refused)."""
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_shown(value)}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {_shown(value)}")
    return v


def fraction(*, open_high: bool = False) -> Callable[[str], float]:
    """An argparse type: a number in (0, 1] (``open_high``: in (0, 1)).

    Parameters
    ----------
    open_high : bool
        Refuse 1 as well.

    Returns
    -------
    callable
        ``str -> float``, raising :class:`argparse.ArgumentTypeError` outside the interval.
    """

    def parse(value: str) -> float:
        v = finite(value)
        if not (0 < v < 1 if open_high else 0 < v <= 1):
            raise argparse.ArgumentTypeError(f"must be in (0, 1{')' if open_high else ']'}, got {_shown(value)}")
        return v

    parse.__name__ = "fraction"
    return parse


share = fraction()
"""A share in (0, 1] (an argparse type)."""

jobs = count(0, 1024, "jobs")
"""Worker processes on this machine, 0 = all cores (an argparse type)."""


def setting_type(s: table.Setting) -> Callable[[str], Any] | None:
    """The argparse ``type=`` of a setting of :mod:`subsetsel_core.settings.table`, with its bounds."""
    if s.kind == "int":
        if s.high == MAX_SEED and s.low == 0:
            return seed
        return count(int(s.low or 0), int(s.high if s.high is not None else MAX_SEED), (s.flag or s.name).lstrip("-"))
    if s.kind == "float":
        if s.low == 0 and s.high == 1:
            return fraction(open_high=s.high_open) if s.low_open else finite
        return finite
    return names if s.kind == "names" else None


class Options(Protocol):
    """A parser or an argument group: what takes options."""

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add one option."""


def option(p: Options, name: str, **overrides: Any) -> argparse.Action:
    """Add the option of a setting from :data:`~subsetsel_core.settings.table.SETTINGS`.

    Its flag, its type with the setting's bounds, its default and its help come from the
    table; ``overrides`` are passed to ``add_argument`` on top (a command's own default, an
    ``action``, a longer help).

    Raises
    ------
    ValueError
        A setting without a command-line flag.
    """
    s = table.get(name)
    if s.flag is None:
        raise ValueError(f"the setting {name!r} has no command-line flag")
    kw: dict[str, Any] = {"help": s.help}
    default = s.default_value()
    if s.kind == "bool":
        kw.update(action="store_true", default=default)
    elif s.kind == "choice":
        kw.update(choices=list(s.options()), default=default)
    else:
        kw.update(type=setting_type(s), metavar=s.metavar, default=list(default) if s.kind == "names" and
                  default is not None else default)
        if s.kind == "names" and s.options():
            kw["help"] = f"of {', '.join(s.options())} (default: all)"
    kw.update(overrides)
    if s.kind in ("int", "float") and kw.get("default") is not None and "default" not in kw["help"]:
        kw["help"] += f" (default {kw['default']:,})" if s.kind == "int" else f" (default {kw['default']:g})"
    return p.add_argument(s.flag, **kw)


def scheduler_address(value: str) -> str:
    """A Dask scheduler address, ``[tcp|tls|ucx|ws|wss://]host:port`` (an argparse type)."""
    text = value.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme == "inproc" and rest:
        return text
    host, colon, port = rest.rpartition(":")
    fix = "give it as tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if scheme not in _SCHEMES or not colon or not _HOST.fullmatch(host):
        raise argparse.ArgumentTypeError(f"not a Dask scheduler address: {_shown(value)}; {fix}")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"the port of {_shown(value)} must be a number from 1 to 65535; {fix}")
    return text


def output_path(value: str) -> str:
    """A file to write: its folder exists, and it is not itself a folder (an argparse type)."""
    if not value.strip() or "\x00" in value:
        raise argparse.ArgumentTypeError(f"not a file name: {_shown(value)}")
    p = Path(value).expanduser()
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(value)} is a folder; give a file name in it")
    parent = p.parent
    if not parent.is_dir():
        above = next((a for a in parent.parents if a.exists()), None) if not parent.exists() else parent
        if above is not None and not above.is_dir():  # a file where a folder of the path should be
            raise argparse.ArgumentTypeError(
                f"{_shown(str(above))} is a file, not a folder, so nothing can be written below it; give a path "
                "in a folder")
        raise argparse.ArgumentTypeError(
            f"the folder {_shown(str(parent))} does not exist; create it first or write elsewhere")
    if not os.access(parent, os.W_OK):
        raise argparse.ArgumentTypeError(f"the folder {_shown(str(parent))} is not writable")
    return value


_SIZES = {"SUBSETSEL_MAX_TABLE_MB": 1e7, "SUBSETSEL_MAX_JSON_MB": 1e7}
_COUNTS = {"SUBSETSEL_MAX_RESULT_FILES": 10**9}


def check_environment(env: Mapping[str, str] | None = None) -> None:
    """Check the environment variables the CLI reads.

    ``SUBSETSEL_MAX_TABLE_MB`` and ``SUBSETSEL_MAX_JSON_MB``: a number of megabytes > 0;
    ``SUBSETSEL_MAX_RESULT_FILES``: a whole number ≥ 1; ``SUBSETSEL_NO_CACHE``: ``0`` or
    ``1``; ``SUBSETSEL_CACHE_DIR``: a folder, or a path where one can be created. Unset or
    empty variables are fine.

    Parameters
    ----------
    env : mapping, optional
        The environment (default: ``os.environ``).

    Raises
    ------
    InputError
        Naming the variable, its value and what it must be.
    """
    env = os.environ if env is None else env

    def bad(name: str, must: str) -> InputError:
        return InputError(f"environment variable {name}={_shown(env[name])}: {must}. Correct it or unset it.")

    for name, top in _SIZES.items():
        if env.get(name, "").strip():
            try:
                mb = float(env[name])
            except ValueError:
                mb = math.nan
            if not 0 < mb <= top:
                raise bad(name, f"must be a number of megabytes above 0 and at most {rounding.text(top, 'megabytes')}")
    for name, most in _COUNTS.items():
        if env.get(name, "").strip():
            try:
                n = _whole(env[name])
            except argparse.ArgumentTypeError:
                n = 0
            if not 1 <= n <= most:
                raise bad(name, f"must be a whole number from 1 to {most:,}")
    if env.get("SUBSETSEL_NO_CACHE", "").strip() not in ("", "0", "1"):
        raise bad("SUBSETSEL_NO_CACHE", "must be 1 (no score cache) or 0")
    cache = env.get("SUBSETSEL_CACHE_DIR", "")
    if cache:
        p = Path(cache).expanduser()
        first = next((q for q in (p, *p.parents) if q.exists()), None)
        if first is not None and not first.is_dir():
            raise bad("SUBSETSEL_CACHE_DIR", f"{_shown(str(first))} is a file, not a folder")


def readable(value: str) -> str | bytes:
    """An input file option's value as :func:`~subsetsel_core.io.tables.read_table` takes it.

    A named pipe (``<(command)``, ``/dev/stdin`` fed by a pipe) is read here with the
    table-size cap and given as bytes; a device (``/dev/zero``), a socket or another
    special file is refused; anything else (a file, a folder, a missing path) is passed on
    as the path, for the reader's own messages.

    Raises
    ------
    InputError
        A device, a socket or another special file, or a pipe with more than the table
        limit.
    """
    from subsetsel_core.io.file_guard import file_kind, read_input_file
    from subsetsel_core.io.tables import max_bytes

    p = Path(value).expanduser()
    kind = file_kind(p)
    if kind == "pipe":
        return read_input_file(p, p.name, max_bytes())
    if kind in ("device", "socket", "other"):
        raise InputError(f"{_shown(value)}: is a {kind}, not a file. Give a table saved as a file.")
    return value
