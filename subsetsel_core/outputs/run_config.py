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

Errors (:class:`~subsetsel_core.errors.InputError`) name the key: an unknown section or
key, a value of the wrong type or out of range.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from subsetsel_core.errors import InputError

__all__ = ["RunConfig", "config_toml", "read_run_config"]

#: Largest config file read, in bytes.
MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class RunConfig:
    """What ``subsetsel report`` runs (see the module's description for the keys)."""

    title: str = ""
    seed: int = 0
    missing: str = ""
    strategies: tuple[str, ...] = ()
    representations: tuple[str, ...] = ()
    trials: int = 200
    alpha: float = 0.8
    beta: float = 1.0
    k_min: int = 2
    k_max: int = 20
    metrics: tuple[str, ...] = ()
    permutations: int = 199
    permutation_trials: int = 50
    select_strategy: str = ""
    select_representation: str = ""
    select_k: int = 10
    metric: str = "spearman"
    critical_difference: str = "wilcoxon-holm"
    images: bool = True
    map_method: str = "UMAP"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (for the provenance)."""
        d = asdict(self)
        d.pop("extra")
        return d


# key → (attribute, kind, low, high); kind: "str", "int", "float", "bool", "names"
_SPEC: dict[str, dict[str, tuple[str, str, float, float]]] = {
    "": {"title": ("title", "str", 0, 0), "seed": ("seed", "int", 0, 2**63 - 1), "missing": ("missing", "str", 0, 0)},
    "evaluate": {
        "strategies": ("strategies", "names", 0, 0), "representations": ("representations", "names", 0, 0),
        "trials": ("trials", "int", 1, 100_000), "alpha": ("alpha", "float", 0.0, 1.0),
        "beta": ("beta", "float", 0.0, 1.0), "k_min": ("k_min", "int", 1, 10**6), "k_max": ("k_max", "int", 1, 10**6),
        "metrics": ("metrics", "names", 0, 0), "permutations": ("permutations", "int", 0, 10**6),
        "permutation_trials": ("permutation_trials", "int", 0, 100_000),
    },
    "select": {"strategy": ("select_strategy", "str", 0, 0), "representation": ("select_representation", "str", 0, 0),
               "k": ("select_k", "int", 1, 10**6)},
    "report": {"metric": ("metric", "str", 0, 0), "critical_difference": ("critical_difference", "str", 0, 0),
               "images": ("images", "bool", 0, 0), "map": ("map_method", "str", 0, 0)},
}


def _value(label: str, where: str, raw: Any, kind: str, low: float, high: float) -> Any:
    def bad(what: str) -> InputError:
        return InputError(f"{label}: '{where}' must be {what}, got {raw!r}.", field="config")

    if kind == "str":
        if not isinstance(raw, str):
            raise bad("text in quotes")
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
    values: dict[str, Any] = {}
    for key, raw_value in doc.items():
        if isinstance(raw_value, dict):
            if key not in _SPEC or not key:
                raise InputError(f"{name}: unknown section [{key}]; the sections are "
                                 f"{', '.join(f'[{s}]' for s in _SPEC if s)}.", field="config")
            section, items = key, raw_value
        else:
            section, items = "", {key: raw_value}
        for k, v in items.items():
            where = f"{section}.{k}" if section else k
            spec = _SPEC[section].get(k)
            if spec is None or isinstance(v, dict):
                known = ", ".join(_SPEC[section])
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
    for section, keys in _SPEC.items():
        for k, (attr, _kind, _lo, _hi) in keys.items():
            value = getattr(cfg, attr)
            if attr in ("title", "missing", "select_strategy", "select_representation") and not value:
                continue
            if section != current:
                if section:
                    lines += ["", f"[{section}]"]
                current = section
            lines.append(f"{k} = {_toml(value)}")
    return "\n".join(lines) + "\n"
