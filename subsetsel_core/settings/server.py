"""The settings of a dashboard server: one registry, read from the environment and a TOML file.

Every setting an administrator may change is one :class:`Setting` in :data:`SETTINGS`
(name, environment variable, default, description — ``docs/deploy.md`` shows this table).
A value comes from, in this order:

1. its environment variable (``SUBSETSEL_BENCHMARK_ROOTS``, …);
2. the settings file: ``$SUBSETSEL_SETTINGS`` if set, else ``.streamlit/subsetsel.toml`` in
   the project folder (the folder holding ``app.py`` and ``sample_data/``), one top-level
   key per setting::

       benchmark_roots = ["/srv/benchmarks", "sample_data"]
       max_running = 1

3. its default.

A value that cannot be read (``SUBSETSEL_MAX_RUNNING=lots``, an unknown key in the file) is
ignored with a warning in the log and the next source is used: a typo never stops a server
that a group relies on, and ``python -m subsetsel_core.settings.server`` lists the
effective values, where each comes from and every problem (exit code 2 when there is one).

Nothing here imports Streamlit; the command line reads only the table limit
(``max_table_mb``) — the benchmark roots are the dashboard's: a command-line user reads
their own folders.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "COMPUTE_MODES",
    "PROJECT_DIR",
    "SETTINGS",
    "SETTINGS_ENV",
    "Setting",
    "benchmark_roots",
    "effective",
    "get",
    "markdown_table",
    "problems",
    "settings_file",
]

log = logging.getLogger(__name__)

PROJECT_DIR: Path = Path(__file__).resolve().parents[2]
"""The project folder (``app.py``, ``sample_data/``, ``.streamlit/``); relative paths start here."""
SETTINGS_ENV = "SUBSETSEL_SETTINGS"
"""Environment variable naming the settings file (default ``.streamlit/subsetsel.toml``)."""
DEFAULT_FILE = Path(".streamlit") / "subsetsel.toml"


class SettingError(ValueError):
    """A value of a setting that cannot be read."""


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise SettingError("must be true or false (1 or 0)")


def _number(low: float, high: float, whole: bool = False) -> Callable[[Any], float]:
    def parse(value: Any) -> float:
        if isinstance(value, bool):
            raise SettingError("must be a number")
        try:
            x = float(str(value).strip()) if isinstance(value, str) else float(value)
        except (TypeError, ValueError):
            raise SettingError("must be a number") from None
        if not math.isfinite(x) or not low <= x <= high or (whole and x != int(x)):
            kind = "a whole number" if whole else "a number"
            raise SettingError(f"must be {kind} from {low:g} to {high:g}")
        return int(x) if whole else x

    return parse


def _paths(value: Any) -> tuple[Path, ...]:
    if isinstance(value, str):
        parts = [p for p in value.split(os.pathsep) if p.strip()]
    elif isinstance(value, list) and all(isinstance(p, str) for p in value):
        parts = [p for p in value if p.strip()]
    else:
        raise SettingError(f"must be a list of folders (in the variable: separated by '{os.pathsep}')")
    out = []
    for part in parts:
        p = Path(part.strip()).expanduser()
        out.append(p if p.is_absolute() else PROJECT_DIR / p)
    return tuple(out)


COMPUTE_MODES: tuple[str, ...] = ("this server", "local processes", "Dask cluster")
"""Where the dashboard can run an evaluation's trials (the sidebar's Compute choices)."""


def _modes(value: Any) -> tuple[str, ...]:
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list | tuple) or not all(isinstance(p, str) for p in parts):
        raise SettingError(f"must be a list of: {', '.join(COMPUTE_MODES)}")
    modes = tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))
    unknown = [m for m in modes if m not in COMPUTE_MODES]
    if unknown or not modes:
        raise SettingError(f"must name some of: {', '.join(COMPUTE_MODES)}")
    return modes


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise SettingError("must be text")
    return value.strip()


def _folder(value: Any) -> Path | None:
    if not isinstance(value, str):
        raise SettingError("must be a folder")
    if not value.strip():
        return None
    p = Path(value.strip()).expanduser()
    return p if p.is_absolute() else PROJECT_DIR / p


@dataclass(frozen=True)
class Setting:
    """One setting of a dashboard server.

    Attributes
    ----------
    name : str
        Its key in the settings file.
    env : str
        Its environment variable.
    default : Any
        The value when neither the variable nor the file sets it.
    parse : callable
        Text (from the variable) or a TOML value → the value; raises :class:`SettingError`.
    description : str
        What it does, for ``docs/deploy.md`` (Markdown).
    shown_default : str
        The default as the documentation shows it.
    """

    name: str
    env: str
    default: Any
    parse: Callable[[Any], Any]
    description: str
    shown_default: str


def _setting(name: str, env: str, default: Any, parse: Callable[[Any], Any], shown: str, description: str) -> Setting:
    return Setting(name, env, default, parse, description, shown)


#: Every setting, in the order the documentation lists them.
SETTINGS: dict[str, Setting] = {s.name: s for s in (
    _setting("benchmark_roots", "SUBSETSEL_BENCHMARK_ROOTS", (PROJECT_DIR / "sample_data",), _paths,
             "`sample_data` (the embedded samples)",
             "Folders whose benchmark folders (one sub-folder each, with a `manifest.json`) the Benchmark page "
             f"offers; visitors pick from this list. In the variable separated by `{os.pathsep}`; relative paths "
             "start at the project folder. A sub-folder that is a link out of its root is refused."),
    _setting("allow_path_field", "SUBSETSEL_ALLOW_PATH_FIELD", False, _bool, "`false`",
             "Show a text field for a server directory on the Benchmark page. Even then only directories inside "
             "the benchmark roots are read, and a path outside them gets the same answer whether it exists or not."),
    _setting("require_login", "SUBSETSEL_REQUIRE_LOGIN", False, _bool, "`false`",
             "Only visitors logged in through Streamlit's `st.login` get past the first page (an OpenID Connect "
             "provider configured under `[auth]` in `.streamlit/secrets.toml`; needs the `Authlib` package). Leave "
             "it off behind a reverse proxy that authenticates."),
    _setting("max_upload_mb", "SUBSETSEL_MAX_UPLOAD_MB", 200.0, _number(0.001, 1e7), "`200`",
             "Largest file a visitor may upload, in MB (the uploaders refuse larger ones, the app checks again). "
             "Streamlit's own `server.maxUploadSize` in `.streamlit/config.toml` caps every upload before the app "
             "sees it: keep it at least this large."),
    _setting("max_table_mb", "SUBSETSEL_MAX_TABLE_MB", 200.0, _number(0.001, 1e7), "`200`",
             "Largest table once decompressed and decoded, in MB (uploads and benchmark folders; the command line "
             "too)."),
    _setting("max_running", "SUBSETSEL_MAX_RUNNING", 2, _number(1, 1000, whole=True), "`2`",
             "Background computations (evaluation, permutation test, representation, generalisation and headroom "
             "checks) one session may run at once; one more is refused with a message, other sessions are not "
             "affected."),
    _setting("max_trials", "SUBSETSEL_MAX_TRIALS", 5000, _number(2, 10**6, whole=True), "`5000`",
             "Most trials one run may ask for (the evaluation's T, the generalisation and representation checks, "
             "the headroom run per split); the default is the Evaluate page's own maximum."),
    _setting("max_permutations", "SUBSETSEL_MAX_PERMUTATIONS", 9999, _number(19, 10**6, whole=True), "`9999`",
             "Most shuffles B one permutation test may ask for (the Evaluate page's test against shuffled "
             "descriptors); the default is the page's own maximum."),
    _setting("compute_modes", "SUBSETSEL_COMPUTE_MODES", COMPUTE_MODES, _modes,
             "all three", "Where a visitor may run an evaluation: `this server`, `local processes` (worker processes "
             "on this machine), `Dask cluster` (in the variable separated by commas). Offer only `this server` "
             "unless the machine has cores to spare for every visitor."),
    _setting("dask_scheduler", "SUBSETSEL_DASK_SCHEDULER", "", _text, "none",
             "The Dask scheduler (`tcp://host:8786`) every Dask evaluation uses. When set, visitors do not type an "
             "address; when not, they do — the server then connects wherever they say, so on a shared server set "
             "it or leave `Dask cluster` out of `compute_modes`."),
    _setting("no_state", "SUBSETSEL_NO_STATE", False, _bool, "`false`",
             "Keep no session on the server (no `?s=` links, a reload starts afresh)."),
    _setting("state_dir", "SUBSETSEL_STATE_DIR", None, _folder, "`~/.cache/subsetsel/sessions`",
             "Where sessions are kept (`$XDG_CACHE_HOME/subsetsel/sessions` when that variable is set)."),
    _setting("state_mb", "SUBSETSEL_STATE_MB", 200.0, _number(0.001, 1e7), "`200`",
             "MB all kept sessions may take together; those idle longest are removed first."),
    _setting("state_session_mb", "SUBSETSEL_STATE_SESSION_MB", None, _number(0.001, 1e7),
             "a quarter of `state_mb`",
             "MB one session may take in the store; a larger session is not kept (the visitor is told to save a "
             "workspace file instead)."),
    _setting("state_days", "SUBSETSEL_STATE_DAYS", 7.0, _number(0.001, 36500), "`7`",
             "Days a kept session lives after its last use."),
)}


# --------------------------------------------------------------------------- reading

_CACHE: dict[str, Any] = {"key": None, "values": {}, "problems": ()}


def settings_file() -> Path:
    """The settings file (it need not exist): ``$SUBSETSEL_SETTINGS`` or ``.streamlit/subsetsel.toml``."""
    named = os.environ.get(SETTINGS_ENV, "").strip()
    if named:
        p = Path(named).expanduser()
        return p if p.is_absolute() else PROJECT_DIR / p
    return PROJECT_DIR / DEFAULT_FILE


def _file_values() -> tuple[dict[str, Any], tuple[str, ...]]:
    """The parsed values of the settings file and its problems (cached until the file changes)."""
    path = settings_file()
    try:
        st = path.stat()
        key: Any = (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(path), None)
    if _CACHE["key"] == key:
        return _CACHE["values"], _CACHE["problems"]
    values: dict[str, Any] = {}
    found: list[str] = []
    if key[1] is None:
        if os.environ.get(SETTINGS_ENV, "").strip():
            found.append(f"{SETTINGS_ENV}={path}: no such file; every setting comes from its variable or default.")
    else:
        import tomllib  # only when the file exists: most runs have none

        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            found.append(f"{path}: cannot be read as TOML ({exc}); the file is ignored.")
            data = {}
        for name, raw in data.items():
            s = SETTINGS.get(name)
            if s is None:
                found.append(f"{path}: '{name}' is not a setting; known: {', '.join(SETTINGS)}.")
                continue
            try:
                values[name] = s.parse(raw)
            except SettingError as exc:
                found.append(f"{path}: '{name}' = {raw!r:.60} {exc}; the default is used.")
    for text in found:
        log.warning("subsetsel settings: %s", text)
    _CACHE.update(key=key, values=values, problems=tuple(found))
    return values, tuple(found)


def _lookup(name: str) -> tuple[Any, str, str | None]:
    """(value, source, problem): source is ``"environment"``, ``"file"`` or ``"default"``."""
    s = SETTINGS[name]
    problem = None
    raw = os.environ.get(s.env, "")
    if raw.strip():
        try:
            return s.parse(raw), "environment", None
        except SettingError as exc:
            problem = f"environment variable {s.env}={raw[:60]!r} {exc}; it is ignored."
    values, _ = _file_values()
    if name in values:
        return values[name], "file", problem
    return s.default, "default", problem


_WARNED: set[str] = set()


def get(name: str) -> Any:
    """The effective value of a setting (environment, then file, then default).

    Raises
    ------
    KeyError
        Not a setting of :data:`SETTINGS`.
    """
    value, _, problem = _lookup(name)
    if problem is not None and problem not in _WARNED:
        _WARNED.add(problem)
        log.warning("subsetsel settings: %s", problem)
    return value


def effective() -> list[tuple[str, str, Any, str]]:
    """Every setting as ``(name, variable, value, source)``."""
    return [(s.name, s.env, *_lookup(s.name)[:2]) for s in SETTINGS.values()]


def problems() -> list[str]:
    """Every value that could not be read, in the environment and the settings file."""
    out = list(_file_values()[1])
    out += [p for p in (_lookup(n)[2] for n in SETTINGS) if p is not None]
    return out


def benchmark_roots() -> tuple[Path, ...]:
    """The benchmark roots: absolute, ``..`` folded, without repeats (links are followed where they are used)."""
    return tuple(dict.fromkeys(Path(os.path.normpath(p)) for p in get("benchmark_roots")))


def markdown_table() -> str:
    """The registry as the Markdown table of ``docs/deploy.md``."""
    lines = ["| setting (file) | environment variable | default | what it does |", "|---|---|---|---|"]
    for s in SETTINGS.values():
        lines.append(f"| `{s.name}` | `{s.env}` | {s.shown_default} | {s.description} |")
    return "\n".join(lines)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return (os.pathsep if value and isinstance(value[0], Path) else ", ").join(map(str, value))
    return "(computed)" if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    """``python -m subsetsel_core.settings.server``: the effective settings and every problem."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--markdown"]:
        print(markdown_table())
        return 0
    print(f"settings file: {settings_file()}" + ("" if settings_file().is_file() else " (none)"))
    for name, var, value, source in effective():
        print(f"  {name:<18} = {_shown(value):<40} ({source}; {var})")
    found = problems()
    for p in found:
        print(f"problem: {p}", file=sys.stderr)
    return 2 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
