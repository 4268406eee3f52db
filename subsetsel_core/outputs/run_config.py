"""The config file of ``subsetsel report``: what to run, as TOML (read with :mod:`tomllib`).

Every key is optional; a missing one takes the default of ``subsetsel evaluate``. The
dashboard writes its current settings as this file (:func:`config_toml`), so that
``subsetsel report --config run.toml`` repeats them. Example::

    title = "MMLU subsets"          # the report's title
    seed = 0
    missing = "partial"             # missing-score policy (default: the manifest's, else "error")

    [evaluate]
    strategies = ["random", "kmeans", "fafi-euclidean"]
    representations = ["subjects"]  # descriptor tables; "A+B" joins tables
    trials = 200                    # T
    alpha = 0.8                     # α: share of datasets per pool
    beta = 1.0                      # β: share of models per pool
    k_min = 2
    k_max = 20
    metrics = ["spearman", "kendall"]
    permutations = 199              # B of the permutation test (0: an explicit opt-out, no verdict)
    permutation_trials = 50         # its T′, at most the trials (0: all trials)

    [select]                        # the subset shown (default: the favoured entry, k = 10)
    strategy = "fafi-euclidean"
    representation = "subjects"
    k = 10

    [report]
    metric = "spearman"             # the metric of the figures and the verdict
    critical_difference = "wilcoxon-holm"   # or "nemenyi"
    images = true                   # PNG and SVG of every figure (needs Chromium)
    map = "UMAP"                    # the map of the subset: UMAP (needs umap-learn), t-SNE or PCA

    [reading]                       # how --scores FILE is read (instead of guessing it): the
    layout = "models-as-rows"       # whole ScoreFormat (ScoreFormat.to_dict), as the dashboard read
    model_column = "Model"          # the upload; a key left out takes its default
    fold_column = ""                # "": none
    higher_is_better = true
    missing = "drop-models"
    drop_columns = ["Rank", "Average"]
    drop_rows = ["Avg"]             # rows set aside (a summary row)
    lower_is_better_datasets = ["salient_translation"]

Errors (:class:`~subsetsel_core.errors.InputError`) name the key: an unknown section or
key, a value of the wrong type or out of range.

The keys, their defaults and bounds are those of the settings with a
:attr:`~subsetsel_core.settings.table.Setting.toml` key; a whole-number setting whose default is
"automatic" (None) is written as 0 (TOML has no null).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.settings.table import SETTINGS

__all__ = ["SPEC", "RunConfig", "config_toml", "read_run_config"]

#: Largest config file read, in bytes.
MAX_CONFIG_BYTES = 1 << 20
#: Longest text value (a title, a name) and most names in one list of a run.toml.
MAX_TEXT = 1000
MAX_NAMES = 1000
#: The section holding how the score table is read (:class:`~subsetsel_core.io.score_format.ScoreFormat`).
READING = "reading"


@dataclass(frozen=True)
class RunConfig:
    """What ``subsetsel report`` runs (see the module's description for the keys)."""

    title: str = SETTINGS["title"].default
    seed: int = SETTINGS["seed"].default
    missing: str = ""
    strategies: tuple[str, ...] = ()  # (): every strategy
    representations: tuple[str, ...] = ()
    trials: int = SETTINGS["trials"].default
    alpha: float = SETTINGS["alpha"].default
    beta: float = SETTINGS["beta"].default
    k_min: int = SETTINGS["k_min"].default
    k_max: int = SETTINGS["k_max"].default
    metrics: tuple[str, ...] = ()  # (): every metric
    permutations: int = SETTINGS["permutations"].default
    permutation_trials: int = SETTINGS["permutation_trials"].widget_default
    select_strategy: str = ""  # "": the favoured entry's
    select_representation: str = ""
    select_k: int = SETTINGS["k"].default
    metric: str = SETTINGS["metric"].default
    critical_difference: str = "wilcoxon-holm"
    images: bool = True
    map_method: str = "UMAP"
    extra: dict[str, Any] = field(default_factory=dict)
    reading: ScoreFormat | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (for the provenance)."""
        d = asdict(self)
        d.pop("extra")
        d[READING] = None if self.reading is None else self.reading.to_dict()
        return d


#: Keys that are not settings of the table: (section, key, attribute, kind).
_OTHER_KEYS = (("", "missing", "missing", "str"), ("evaluate", "representations", "representations", "names"),
               ("select", "representation", "select_representation", "str"),
               ("report", "critical_difference", "critical_difference", "str"), ("report", "map", "map_method", "str"))


def _spec() -> dict[str, dict[str, tuple[str, str, float, float]]]:
    """section → key → (attribute, kind, low, high); kind: "str", "int", "float", "bool", "names"."""
    spec: dict[str, dict[str, tuple[str, str, float, float]]] = {"": {}, "evaluate": {}, "select": {}, "report": {}}
    for s in SETTINGS.values():
        if s.toml is None:
            continue
        section, _, key = s.toml.rpartition(".")
        low = 0 if s.kind == "int" and s.default is None else (s.low or 0)
        spec[section][key] = (f"select_{key}" if section == "select" else s.name,
                              "str" if s.kind == "choice" else s.kind, low, s.high or 0)
    for section, key, attr, kind in _OTHER_KEYS:
        spec[section][key] = (attr, kind, 0, 0)
    return spec


SPEC = _spec()
"""The keys of run.toml: section → key → (attribute of :class:`RunConfig`, kind, low, high)."""


def _value(label: str, where: str, raw: Any, kind: str, low: float, high: float) -> Any:
    def bad(what: str) -> InputError:
        shown = repr(raw)
        return InputError(f"{label}: '{where}' must be {what}, got "
                          f"{shown if len(shown) <= 60 else shown[:59] + '…'}.", field="config")

    if kind == "str":
        if not isinstance(raw, str):
            raise bad("text in quotes")
        if len(raw) > MAX_TEXT:
            raise bad(f"text of at most {MAX_TEXT} characters")
        return raw
    if kind == "bool":
        if not isinstance(raw, bool):
            raise bad("true or false")
        return raw
    if kind == "names":
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(v, str) and v.strip() for v in raw):
            raise bad('a list of names, e.g. ["a", "b"]')
        if len(raw) > MAX_NAMES or any(len(v) > MAX_TEXT for v in raw):
            raise bad(f"at most {MAX_NAMES} names of at most {MAX_TEXT} characters each")
        return tuple(v.strip() for v in raw)
    if kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
            raise bad(f"a whole number from {low:g} to {high:g}")
        return int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or not low < raw <= high:
        raise bad(f"a number above {low:g} and at most {high:g}")
    return float(raw)


def read_run_config(source: str | Path | bytes, label: str | None = None) -> RunConfig:
    """Read and check a config file.

    Raises
    ------
    InputError
        Not UTF-8 TOML, an unknown section or key (the message names it and lists the
        known ones), a wrong type or a value out of range, ``k_min`` above ``k_max``, an
        unknown critical-difference test.
    """
    from subsetsel_core.evaluation.critical_difference import TESTS
    from subsetsel_core.io.score_format import MISSING_POLICIES
    from subsetsel_core.representations.projection import METHODS

    if isinstance(source, bytes):
        raw, name = source, label or "config"
    else:
        from subsetsel_core.io.file_guard import read_input_file

        name = label or Path(source).name
        raw = read_input_file(Path(source), name, MAX_CONFIG_BYTES)
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text; give a TOML file.", field="config") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{name}: not valid TOML ({exc}).", field="config") from None
    except RecursionError:
        raise InputError(f"{name}: nests too deeply to be a run.toml; write its values as plain keys and "
                         "sections.", field="config") from None
    values: dict[str, Any] = {}
    for key, raw_value in doc.items():
        if key == READING and isinstance(raw_value, dict):
            try:
                values[READING] = ScoreFormat.from_dict(raw_value, label=f"{name}: {READING}")
            except InputError as exc:
                raise InputError(str(exc), field="config") from None
            continue
        if isinstance(raw_value, dict):
            if key not in SPEC or not key:
                raise InputError(f"{name}: unknown section [{key}]; the sections are "
                                 f"{', '.join(f'[{s}]' for s in SPEC if s)}.", field="config")
            section, items = key, raw_value
        else:
            section, items = "", {key: raw_value}
        for k, v in items.items():
            where = f"{section}.{k}" if section else k
            spec = SPEC[section].get(k)
            if spec is None or isinstance(v, dict):
                known = ", ".join(SPEC[section])
                raise InputError(f"{name}: unknown key '{where}'; the keys of "
                                 f"{f'[{section}]' if section else 'the top level'} are {known}.", field="config")
            attr, kind, low, high = spec
            values[attr] = _value(name, where, v, kind, low, high)
    cfg = RunConfig(**values)
    if cfg.k_min > cfg.k_max:
        raise InputError(f"{name}: 'evaluate.k_min' ({cfg.k_min}) is above 'evaluate.k_max' ({cfg.k_max}).",
                         field="config")
    if cfg.missing and cfg.missing not in MISSING_POLICIES:
        raise InputError(f"{name}: 'missing' must be one of {', '.join(MISSING_POLICIES)}, got {cfg.missing!r}.",
                         field="config")
    if cfg.reading is not None and cfg.missing and cfg.missing != cfg.reading.missing:
        raise InputError(f"{name}: 'missing' ({cfg.missing}) and 'reading.missing' ({cfg.reading.missing}) disagree; "
                         "give one missing-score policy.", field="config")
    if cfg.map_method not in METHODS:
        raise InputError(f"{name}: 'report.map' must be one of {', '.join(METHODS)}, got {cfg.map_method!r}.",
                         field="config")
    if cfg.critical_difference not in TESTS:
        raise InputError(f"{name}: 'report.critical_difference' must be one of {', '.join(TESTS)}, got "
                         f"{cfg.critical_difference!r}.", field="config")
    return cfg


def check_names(cfg: RunConfig, label: str = "config") -> None:
    """Check the strategy and metric names (the representations are checked against the benchmark).

    Raises
    ------
    InputError
        An unknown strategy or metric, naming the key.
    """
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import REGISTRY

    for where, names, known in (("evaluate.strategies", cfg.strategies, REGISTRY),
                                ("select.strategy", [cfg.select_strategy] if cfg.select_strategy else [], REGISTRY),
                                ("evaluate.metrics", cfg.metrics, METRICS),
                                ("report.metric", [cfg.metric], METRICS)):
        bad = [n for n in names if n not in known]
        if bad:
            raise InputError(f"{label}: '{where}' names '{bad[0]}', which is not one of {', '.join(known)}.",
                             field="config")
    if cfg.metrics and cfg.metric not in cfg.metrics:
        raise InputError(f"{label}: 'report.metric' ({cfg.metric}) is not among 'evaluate.metrics'.", field="config")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        out = value.replace("\\", "\\\\").replace('"', '\\"')
        out = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in out)
        return f'"{out}"'
    if isinstance(value, Sequence):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"no TOML for {type(value).__name__}")


def config_toml(cfg: RunConfig, *, comments: Mapping[str, str] | None = None) -> str:
    """The text of a config file that :func:`read_run_config` reads back as ``cfg``.

    ``comments``: ``# …`` lines written first (e.g. where the settings came from).
    """
    lines = [f"# {k}: {v}".replace("\n", " ") for k, v in (comments or {}).items()]
    current = None
    for section, keys in SPEC.items():
        for k, (attr, _kind, _lo, _hi) in keys.items():
            value = getattr(cfg, attr)
            if attr in ("title", "missing", "select_strategy", "select_representation") and not value:
                continue
            if section != current:
                if section:
                    lines += ["", f"[{section}]"]
                current = section
            lines.append(f"{k} = {_toml(value)}")
    if cfg.reading is not None:
        lines += ["", f"[{READING}]  # how the score table is read (subsetsel report --scores FILE); \"\": none"]
        lines += [f"{k} = {_toml('' if v is None else v)}" for k, v in cfg.reading.to_dict().items()]
    return "\n".join(lines) + "\n"
