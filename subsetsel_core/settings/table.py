"""The one table of user-facing settings: name, type, default, bounds or choices, and each face's key.

Every face reads this table instead of writing the setting again: the library's
dataclasses (:class:`~subsetsel_core.evaluation.result.EvaluationConfig`,
:class:`~subsetsel_core.representations.recipe.RepresentationRecipe`) take their defaults
from it, the command line builds its options from :attr:`Setting.flag` and the bounds
(:mod:`subsetsel_core.cli.args`), ``run.toml`` is read and written by :attr:`Setting.toml`
(:mod:`subsetsel_core.outputs.run_config`), and the dashboard's session keys, widget ranges
and workspace checks come from :attr:`Setting.workspace` and the widget range
(``subsetsel_app.state``, ``subsetsel_app.widgets``, ``subsetsel_app.settings_check``).

:func:`check` is the one validation of a value (as scikit-learn's ``check_scalar``): it
raises an :class:`~subsetsel_core.errors.InputError` whose ``field`` is the setting's and
whose message states the bounds in words.

Choices that are a registry's names (strategies, metrics) are callables reading the
registry when asked, so the table never holds a copy of a registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from subsetsel_core.errors import InputError, add_fields

__all__ = ["COMMANDS", "GROUPS", "PROTOCOL", "RECIPE", "REPORT", "SELECT", "SETTINGS", "Setting", "check", "get"]

#: The kinds of value a setting holds.
KINDS = ("int", "float", "bool", "str", "names", "choice")
#: The largest seed (seeds are stored as 64-bit integers).
MAX_SEED = 2**63 - 1
#: Trials T′ the permutation test reads by default, and the trials of the representation check's quick run
#: (which the check's test reads whole).
_TEST_TRIALS = 50


def _strategies() -> tuple[str, ...]:
    from subsetsel_core.strategies import STRATEGIES

    return STRATEGIES


def _metrics() -> tuple[str, ...]:
    from subsetsel_core.ranks.metrics import METRICS

    return tuple(METRICS)


@dataclass(frozen=True)
class Setting:
    """One user-facing setting.

    Attributes
    ----------
    name : str
        The setting's name: the attribute of the dataclass that holds it.
    kind : str
        One of :data:`KINDS`: ``names`` is a tuple of names, ``choice`` one name of ``choices``.
    default : Any
        The library's and the command line's default (None: "automatic", said in ``help``).
    low, high : float, optional
        Bounds of a number (both included, but ``low`` is excluded when ``low_open``, ``high``
        when ``high_open``).
    low_open, high_open : bool
        ``low`` (``high``) itself is refused: a share in (0, 1], a share held out in (0, 1).
    choices : tuple or callable, optional
        The allowed names (a callable reads a registry when called).
    help : str
        One line for users (the command line's help text).
    flag : str, optional
        The command-line option (None: the dashboard only, see ``only``).
    metavar : str, optional
        The option's value as its help shows it (``--trials T``).
    toml : str, optional
        The key in ``run.toml`` (``"section.key"``, or ``"key"`` at the top level).
    workspace : str, optional
        The dashboard's session key saved in a workspace file.
    label : str, optional
        The widget's label.
    field : str, optional
        The :data:`~subsetsel_core.errors.FIELDS` key of its errors (default: the name).
    about : str, optional
        That field in neutral words (``"the number of trials T"``), added to
        :data:`~subsetsel_core.errors.FIELDS`: said by one setting of each field that is no
        data field of :mod:`subsetsel_core.errors`.
    only : str, optional
        ``"cli"`` or ``"dashboard"``: the one face that offers it.
    widget_low, widget_high : float, optional
        The dashboard widget's narrower range (the server's resource cap; default: the bounds).
    widget_default : Any
        The dashboard's default where it differs (None: the library's).
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | Callable[[], Sequence[str]] | None = None
    help: str = ""
    flag: str | None = None
    metavar: str | None = None
    toml: str | None = None
    workspace: str | None = None
    label: str | None = None
    field: str | None = None
    about: str | None = None
    only: str | None = None
    widget_low: float | None = None
    widget_high: float | None = None
    widget_default: Any = None

    @property
    def error_field(self) -> str:
        """The ``field`` of this setting's :class:`~subsetsel_core.errors.InputError`."""
        return self.field or self.name

    def options(self) -> tuple[str, ...]:
        """The allowed names (empty: any)."""
        c = self.choices
        return tuple(c() if callable(c) else c) if c is not None else ()

    def default_value(self) -> Any:
        """The default, with a registry's names read now for a ``names`` setting defaulting to all."""
        return self.options() if self.default is ALL else self.default

    def widget_range(self) -> tuple[float | None, float | None]:
        """``(min, max)`` of the dashboard's widget."""
        low = self.widget_low if self.widget_low is not None else self.low
        high = self.widget_high if self.widget_high is not None else self.high
        return low, high

    def dashboard_default(self) -> Any:
        """The dashboard's default value."""
        return self.widget_default if self.widget_default is not None else self.default_value()

    def bounds_text(self, low: float | None = None, high: float | None = None) -> str:
        """The accepted values in words, e.g. ``"a whole number from 1 to 100,000"``."""
        low = self.low if low is None else low
        high = self.high if high is None else high
        if self.kind == "int":
            if low is not None and high is not None:
                return f"a whole number from {int(low):,} to {int(high):,}"
            return "a whole number" + (f" ≥ {int(low):,}" if low is not None else "")
        if self.kind == "float":
            if low is not None and high is not None:
                return f"a number in {'(' if self.low_open else '['}{low:g}, {high:g}{')' if self.high_open else ']'}"
            return "a finite number"
        if self.kind == "bool":
            return "true or false"
        if self.kind in ("choice", "names"):
            opts = self.options()
            what = "one of" if self.kind == "choice" else "names among"
            return f"{what} {', '.join(opts)}" if opts else "names"
        return "text"


class _All:
    """The default "every name of the registry" of a ``names`` setting."""

    def __repr__(self) -> str:
        return "ALL"


ALL: Any = _All()
"""Default of a ``names`` setting: every one of its choices (read from the registry)."""

RECIPE: tuple[Setting, ...] = (
    Setting("tables", "names", None, help="descriptor tables joined into one representation (default: the first)",
            flag="--representation", metavar="T[+T][,…]", workspace="rep_tables", label="Descriptor tables", field="representation",
            about="the representation (descriptor tables, columns, text, log, PCA)"),
    Setting("columns", "names", None, help="columns of the joined tables to use (default: each table's manifest "
            "columns)", flag="--columns", metavar="A,B", workspace="rep_columns", label="Columns", field="descriptor_columns",
            about="the descriptor columns used"),
    Setting("text", "bool", True, help="embed text columns with TF-IDF + SVD (default) or drop them (--no-text)",
            flag="--text", workspace="rep_text", label="Embed text columns", field="representation"),
    Setting("log", "bool", False, help="log1p of heavy-tailed count columns", flag="--log", workspace="rep_log",
            label="Log-scale heavy-tailed counts", field="representation"),
    Setting("pca", "float", None, low=0.0, high=1.0, low_open=True,
            help="reduce with PCA keeping this fraction of the variance, e.g. 0.9", flag="--pca", metavar="VARIANCE",
            workspace="rep_pca_var", label="Variance kept", field="representation", widget_low=0.5,
            widget_default=0.9),
)
"""How a representation is built from descriptor tables (:class:`~subsetsel_core.representations.recipe.RepresentationRecipe`)."""

PROTOCOL: tuple[Setting, ...] = (
    Setting("strategies", "names", ALL, choices=_strategies, help="strategies to evaluate (default: all)",
            flag="--strategies", metavar="S1,S2", toml="evaluate.strategies", workspace="ev_strategies", label="Strategies",
            field="strategy"),
    Setting("trials", "int", 200, low=1, high=100_000, help="number of trials T (random dataset pools)",
            flag="--trials", metavar="T", toml="evaluate.trials", workspace="ev_trials", label="Trials T", widget_low=2,
            widget_high=5000, widget_default=50,
            about="the number of trials T"),
    Setting("alpha", "float", 0.8, low=0.0, high=1.0, low_open=True, help="dataset-pool fraction α",
            flag="--alpha", metavar="A", toml="evaluate.alpha", workspace="ev_alpha", label="α — share of datasets per pool",
            widget_low=0.1,
            about="the dataset-pool fraction α"),
    Setting("beta", "float", 1.0, low=0.0, high=1.0, low_open=True, help="model-pool fraction β",
            flag="--model-fraction", metavar="B", toml="evaluate.beta", workspace="ev_beta", label="β — share of models per pool",
            widget_low=0.1,
            about="the model-pool fraction β"),
    Setting("k_min", "int", 2, low=1, high=10**6, help="smallest subset size k", flag="--k-min", metavar="K",
            toml="evaluate.k_min", workspace="ev_krange", label="k range", field="k_range",
            about="the range of k"),
    Setting("k_max", "int", 20, low=1, high=10**6, help="largest subset size k (capped at the pool size)",
            flag="--k-max", metavar="K", toml="evaluate.k_max", workspace="ev_krange", label="k range", field="k_range"),
    Setting("seed", "int", 0, low=0, high=MAX_SEED, help="the one seed of the run", flag="--seed", metavar="S", toml="seed",
            workspace="seed", label="Seed", widget_high=2**31 - 1,
            about="the seed"),
    Setting("metrics", "names", ALL, choices=_metrics, help="agreement metrics (default: all)", flag="--metrics", metavar="M1,M2",
            toml="evaluate.metrics", field="metric", only="cli"),
    Setting("permutations", "int", 199, low=0, high=10**6,
            help="shuffles B of the permutation test behind every 'helps' (0: no test)", flag="--permutations", metavar="B",
            toml="evaluate.permutations", workspace="ev_permutations", label="Shuffles B", widget_low=19,
            widget_high=9999,
            about="the permutation test's settings (shuffles B, its trials T')"),
    Setting("permutation_trials", "int", None, low=1, high=100_000,
            help=f"the permutation test's gain and null on the first T′ trials (default: {_TEST_TRIALS}, at most the trials)",
            flag="--permutation-trials", metavar="T", toml="evaluate.permutation_trials", workspace="ev_perm_trials",
            label="Trials of the test T′", field="permutations", widget_low=2, widget_high=5000, widget_default=_TEST_TRIALS),
    Setting("resamples", "int", 1000, low=2, high=10**6,
            help="bootstrap resamples of the full benchmark's own stability (the ceiling)", flag="--resamples", metavar="N",
            only="cli",
            about="the bootstrap resamples of the full benchmark's own stability"),
)
"""The bootstrap protocol's parameters (:class:`~subsetsel_core.evaluation.result.EvaluationConfig`, PROTOCOL.md)."""

SELECT: tuple[Setting, ...] = (
    Setting("strategy", "choice", None, choices=_strategies, help="the selection strategy", flag="--strategy", metavar="NAME",
            toml="select.strategy", workspace="sel_strategy", label="Strategy", widget_default="fafi-cosine",
            about="the selection strategy"),
    Setting("k", "int", 10, low=1, high=10**6, help="number of datasets", flag="--k", metavar="K", toml="select.k",
            workspace="sel_k", label="k",
            about="the subset size k"),
    Setting("budget", "float", None, low=0.0, high=1.0, low_open=True,
            help="choose under a budget: share (0–1] of the benchmark's total cost", flag="--budget", metavar="SHARE", only="cli",
            about="the budget and its cost column"),
    Setting("include", "names", (), help="datasets chosen first", flag="--include", metavar="D1,D2", workspace="sel_include",
            label="Must include",
            about="the must-include datasets"),
    Setting("exclude", "names", (), help="datasets never chosen", flag="--exclude", metavar="D1,D2", workspace="sel_exclude",
            label="Exclude",
            about="the excluded datasets"),
)
"""What one selection is asked for (``subsetsel select``, the Select page)."""

REPORT: tuple[Setting, ...] = (
    Setting("metric", "choice", "spearman", choices=_metrics, help="the metric of the figures and the verdict",
            flag="--metric", metavar="NAME", toml="report.metric", workspace="ev_metric", label="Metric",
            about="the metric"),
    Setting("images", "bool", True, help="PNG and SVG of every figure (needs Chromium)", toml="report.images",
            only="cli", field="config"),
    Setting("title", "str", "", help="the report's title", toml="title", workspace="rp_title", label="Title",
            field="config"),
)
"""What the report shows (``run.toml``'s ``[report]``, the Report page)."""

COMMANDS: tuple[Setting, ...] = (
    Setting("check_trials", "int", _TEST_TRIALS, low=1, high=100_000,
            help="trials of the quick protocol run (as the dashboard's representation check)", flag="--trials",
            metavar="T", field="trials", only="cli"),
    Setting("mantel_permutations", "int", 999, low=1, high=10**6, help="permutations of the Mantel test",
            flag="--mantel-permutations", metavar="B", field="permutations", only="cli"),
    Setting("generalise_trials", "int", 100, low=1, high=100_000, help="trials T of the protocol on today's models",
            flag="--trials", metavar="T", field="trials", only="cli"),
    Setting("headroom_trials", "int", 50, low=1, high=100_000, help="trials T per split", flag="--trials", metavar="T",
            field="trials", only="cli"),
    Setting("splits", "int", 10, low=1, high=10_000, help="random splits of the models (--newest makes one split)",
            flag="--splits", metavar="N", only="cli",
            about="the number of model splits of the headroom evaluation"),
    Setting("held_out", "float", 0.5, low=0.0, high=1.0, low_open=True, high_open=True, help="share of the models held out",
            flag="--fraction", metavar="F", field="fraction", only="cli",
            about="the share of models held out"),
)
"""Options of one command each: ``check`` (its quick run and Mantel test), ``generalise`` and ``headroom``
(the models held out, the trials)."""

GROUPS: dict[str, tuple[Setting, ...]] = {"recipe": RECIPE, "protocol": PROTOCOL, "select": SELECT, "report": REPORT,
                                          "commands": COMMANDS}
"""The settings by group."""

SETTINGS: dict[str, Setting] = {s.name: s for group in GROUPS.values() for s in group}
"""Every setting by name."""

add_fields({s.error_field: s.about for s in SETTINGS.values() if s.about})


def get(name: str) -> Setting:
    """A setting by name (a KeyError names the known ones)."""
    try:
        return SETTINGS[name]
    except KeyError:
        raise KeyError(f"unknown setting {name!r}; known: {', '.join(SETTINGS)}") from None


def defaults(group: Iterable[Setting]) -> dict[str, Any]:
    """``name → default`` of a group (a registry's names read now)."""
    return {s.name: s.default_value() for s in group}


def problem(setting: Setting, value: Any, *, low: float | None = None, high: float | None = None) -> str | None:
    """What is wrong with ``value`` for ``setting`` (None: nothing), in words.

    ``low`` and ``high`` narrow the bounds (e.g. a widget's range).
    """
    low = setting.low if low is None else low
    high = setting.high if high is None else high
    must = setting.bounds_text(low, high)
    kind = setting.kind
    if value is None and setting.default is None:
        return None
    if kind == "bool":
        return None if isinstance(value, bool) else f"must be {must}, got {value!r:.40}"
    if kind == "str":
        return None if isinstance(value, str) else f"must be {must}, got {value!r:.40}"
    if kind in ("int", "float"):
        whole = kind == "int"
        if isinstance(value, bool) or not isinstance(value, int if whole else int | float) or (
                not whole and not math.isfinite(value)):
            return f"must be {must}, got {value!r:.40}"
        below = low is not None and (value <= low if setting.low_open else value < low)
        above = high is not None and (value >= high if setting.high_open else value > high)
        return f"must be {must}, got {value!r}" if below or above else None
    opts = setting.options()
    if kind == "choice":
        ok = isinstance(value, str) and (not opts or value in opts)
        return None if ok else f"must be {must}, got {value!r:.40}"
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        return f"must be a list of names, got {value!r:.40}"
    bad = [v for v in value if opts and v not in opts]
    return f"names '{str(bad[0])[:40]}', not one of {', '.join(opts)}" if bad else None


def check(setting: Setting | str, value: Any) -> Any:
    """Return ``value`` if it is valid for ``setting``, else raise.

    Raises
    ------
    InputError
        ``"trials must be a whole number from 1 to 100,000, got 0."``, with the setting's
        ``field``.
    """
    s = get(setting) if isinstance(setting, str) else setting
    why = problem(s, value)
    if why is not None:
        raise InputError(f"{s.name} {why}.", field=s.error_field)
    return value
