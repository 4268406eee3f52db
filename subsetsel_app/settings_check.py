"""Checks of the settings a workspace file gives the dashboard, before any reaches a widget.

A widget given a value outside its range (a negative seed, 9,000 trials, a k range past the
benchmark's datasets) would stop the page with an exception, so a workspace's settings are
checked against the ranges and options of the widgets they feed: a value out of range, of
the wrong type (``"false"`` is not false) or not among the options makes the whole file
refused with a message naming the setting. Keys the dashboard does not save are ignored
(a workspace written by a script may carry its own). The dashboard's own description of
the benchmark (``_app``) is checked the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from subsetsel_app.state import KEYS, MAP_METHODS, K
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations import BUILDERS
from subsetsel_core.settings.table import SETTINGS, Setting

__all__ = ["check_app_description", "check_settings", "setting_problem"]

Rule = Callable[[Any, int], str | None]
_NAMES_LIMIT = 100_000


def _whole(low: int, high: int) -> Rule:
    def rule(v: Any, n: int) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int):
            return f"must be a whole number, got {v!r:.40}"
        return None if low <= v <= high else f"is {v}, outside {low}…{high:,}"
    return rule


def _number(low: float, high: float) -> Rule:
    def rule(v: Any, n: int) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            return f"must be a number, got {v!r:.40}"
        return None if low <= v <= high else f"is {v}, outside {low}…{high}"
    return rule


def _flag(v: Any, n: int) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false, got {v!r:.40}"


def _one_of(options: tuple[str, ...]) -> Rule:
    def rule(v: Any, n: int) -> str | None:
        return None if isinstance(v, str) and v in options else f"is {v!r:.40}, not one of {', '.join(options)}"
    return rule


def _names(options: tuple[str, ...] | None = None, *, optional: bool = False) -> Rule:
    def rule(v: Any, n: int) -> str | None:
        if v is None and optional:
            return None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v) or len(v) > _NAMES_LIMIT:
            return f"must be a list of names, got {v!r:.40}"
        bad = [x for x in v if options is not None and x not in options]
        return f"names {bad[0]!r:.40}, not one of {', '.join(options or ())}" if bad else None
    return rule


def _text(optional: bool = False, limit: int = 10_000) -> Rule:
    def rule(v: Any, n: int) -> str | None:
        if v is None and optional:
            return None
        if not isinstance(v, str):
            return f"must be a string, got {v!r:.40}"
        return None if len(v) <= limit else f"is {len(v):,} characters long, more than {limit:,}"
    return rule


def _k_range(v: Any, n: int) -> str | None:
    if (not isinstance(v, list) or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        return f"must be two whole numbers [k_min, k_max], got {v!r:.40}"
    return None if 1 <= v[0] <= v[1] <= (SETTINGS["k_max"].high or 0) else f"is {v}, not two sizes from 1 up, in order"


def rule_of(setting: Setting) -> Rule:
    """The workspace rule of a setting of the table: its widget's range, its options."""
    lo, hi = setting.widget_range()
    if setting.kind == "int":
        return _whole(int(lo if lo is not None else 0), int(hi if hi is not None else 2**63 - 1))
    if setting.kind == "float":
        return _number(float(lo if lo is not None else -math.inf), float(hi if hi is not None else math.inf))
    if setting.kind == "bool":
        return _flag
    if setting.kind == "choice":
        return _one_of(setting.options())
    if setting.kind == "names":
        return _names(setting.options() or None, optional=setting.default is None)
    return _text()


#: The rule of each setting a workspace saves (the widgets' ranges and options): those holding a
#: setting of the table from it, the dashboard's own ones here.
RULES: dict[str, Rule] = {
    **{key: rule_of(SETTINGS[spec.setting]) for key, spec in KEYS.items()
       if spec.setting is not None and spec.saved_in_workspace},
    K.REP_PCA: _flag,
    K.MAP_METHOD: _one_of(MAP_METHODS),
    K.MAP_COLOR: _text(optional=True),
    K.SEL_METRIC: _one_of(tuple(METRICS)),
    K.EV_REPS: _names(optional=True),
    K.EV_KRANGE: _k_range,
    K.EV_BANDS: _flag,
    K.EV_ALL_BANDS: _flag,
    K.EV_PERMUTE: _flag,
}


def setting_problem(key: str, value: Any, n_datasets: int) -> str | None:
    """What is wrong with a setting read from a workspace (None: nothing, or not a setting with a rule).

    Parameters
    ----------
    key : str
        The session-state key.
    value : Any
        The JSON value read.
    n_datasets : int
        The workspace benchmark's number of datasets.
    """
    rule = RULES.get(key)
    return None if rule is None else rule(value, n_datasets)


def check_settings(settings: Mapping[str, Any], n_datasets: int, label: str = "workspace file") -> None:
    """Raise for the first setting out of its widget's range or options.

    Raises
    ------
    InputError
        ``<label>: the setting '<key>' <problem>; …`` (field ``workspace``).
    """
    for key, value in settings.items():
        problem = setting_problem(key, value, n_datasets)
        if problem:
            raise InputError(f"{label}: the setting '{key}' {problem}; the file is damaged or was edited.",
                             field="workspace")


def check_app_description(app: Any, tables: tuple[str, ...], label: str = "workspace file") -> None:
    """Check the dashboard's description of the benchmark (title, source, specs of the tables).

    Raises
    ------
    InputError
        A field of the wrong type, a table spec of an unknown kind, or a spec of a table
        the file does not hold.
    """
    def bad(where: str, problem: str) -> InputError:
        return InputError(f"{label}: the setting '_app.{where}' {problem}; the file is damaged or was edited.",
                          field="workspace")

    if app is None:
        return
    if not isinstance(app, dict):
        raise bad("", "must be an object")
    for key in ("title", "source", "description", "metric", "citation"):
        problem = _text(optional=True)(app.get(key), 0)
        if problem:
            raise bad(key, problem)
    if app.get("reading") is not None:
        try:
            ScoreFormat.from_dict(app["reading"], label="reading")
        except InputError as exc:
            raise bad("reading", f"is not how a score table is read ({exc})") from None
    specs = app.get("specs") or {}
    if not isinstance(specs, dict):
        raise bad("specs", "must be an object")
    for name, sp in specs.items():
        if name not in tables:
            raise bad(f"specs.{name}", "describes a descriptor table the file does not hold")
        if not isinstance(sp, dict):
            raise bad(f"specs.{name}", "must be an object")
        kind = sp.get("kind") or "tabular"
        if kind not in BUILDERS:
            raise bad(f"specs.{name}.kind", f"is {kind!r:.40}, not one of {', '.join(BUILDERS)}")
        for key in ("title", "description"):
            problem = _text(optional=True)(sp.get(key), 0)
            if problem:
                raise bad(f"specs.{name}.{key}", problem)
        problem = _names(optional=True)(sp.get("columns"), 0)
        if problem:
            raise bad(f"specs.{name}.columns", problem)
