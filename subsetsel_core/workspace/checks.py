"""Checks of a workspace file's ``workspace.json``: every field's presence, type and range.

A workspace is untrusted input (a file from someone else, edited, cut short). Every value
is checked before it is used, and every problem is an
:class:`~subsetsel_core.errors.InputError` (field ``workspace``) that names the file and
the field: ``workspace.json: 'benchmark.higher_is_better' must be true or false, got
"false"``. Booleans are never numbers and numbers never booleans; counts are whole numbers
in a range; names are non-empty strings, and a list of names has no name twice. A
provenance record (:func:`subsetsel_core.outputs.provenance.provenance`) has only its known keys,
each of its type.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.outputs.provenance import PROVENANCE_KEYS

__all__ = ["Fields"]

_HEX = re.compile(r"[0-9a-fA-F]{0,128}")


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:59] + "…"


class Fields:
    """Checks of the values of one ``workspace.json``.

    Parameters
    ----------
    label : str
        The workspace file's name in messages.
    """

    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, where: str, problem: str) -> InputError:
        """``<label>: workspace.json: '<where>' <problem>.``"""
        return InputError(f"{self.label}: workspace.json: '{where}' {problem}; the file is damaged or was edited.",
                          field="workspace")

    def obj(self, value: Any, where: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict[str, Any]:
        """An object whose keys are among ``allowed`` and include ``required``."""
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, got {_shown(value)}")
        known = tuple(allowed)
        unknown = [k for k in value if k not in known]
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0], "is not a known field")
        missing = [k for k in required if k not in value]
        if missing:
            raise self.fail(f"{where}.{missing[0]}" if where else missing[0], "is missing")
        return value

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        """An object with any keys (names)."""
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, got {_shown(value)}")
        return value

    def string(self, value: Any, where: str, *, nonempty: bool = False, limit: int = 100_000) -> str:
        """A string (``nonempty``: not blank), at most ``limit`` characters."""
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, got {_shown(value)}")
        if nonempty and not value.strip():
            raise self.fail(where, "is empty")
        if len(value) > limit:
            raise self.fail(where, f"is {len(value):,} characters long, more than {limit:,}")
        return value

    def optional_string(self, value: Any, where: str) -> str | None:
        """None or a string."""
        return None if value is None else self.string(value, where)

    def boolean(self, value: Any, where: str) -> bool:
        """``true`` or ``false`` (never a string or a number)."""
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false, got {_shown(value)}")
        return value

    def integer(self, value: Any, where: str, low: int, high: int) -> int:
        """A whole number in ``[low, high]`` (never a boolean or a float)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"must be a whole number, got {_shown(value)}")
        if not low <= value <= high:
            raise self.fail(where, f"is {_shown(value)}, outside {low}…{high:,}")
        return value

    def fraction(self, value: Any, where: str) -> float:
        """A number in (0, 1]."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(where, f"must be a number, got {_shown(value)}")
        if not 0 < value <= 1:
            raise self.fail(where, f"is {_shown(value)}, outside (0, 1]")
        return float(value)

    def names(self, value: Any, where: str, *, choices: Iterable[str] | None = None, nonempty: bool = True,
              limit: int = 10**6) -> tuple[str, ...]:
        """A list of distinct non-empty names (``choices``: each one of them)."""
        if not isinstance(value, list):
            raise self.fail(where, f"must be a list of names, got {_shown(value)}")
        if nonempty and not value:
            raise self.fail(where, "is empty")
        if len(value) > limit:
            raise self.fail(where, f"lists {len(value):,} names, more than {limit:,}")
        out = tuple(self.string(v, f"{where}[{i}]", nonempty=True, limit=10_000) for i, v in enumerate(value))
        if len(set(out)) != len(out):
            twice = next(v for i, v in enumerate(out) if v in out[:i])
            raise self.fail(where, f"lists '{twice[:60]}' twice")
        if choices is not None:
            known = tuple(choices)
            bad = [v for v in out if v not in known]
            if bad:
                raise self.fail(where, f"names '{bad[0][:60]}', which is not one of {', '.join(known)}")
        return out

    def choice(self, value: Any, where: str, choices: Mapping[str, Any] | Iterable[str]) -> str:
        """One of ``choices``."""
        known = tuple(choices)
        text = self.string(value, where)
        if text not in known:
            raise self.fail(where, f"is '{text[:60]}', not one of {', '.join(known)}")
        return text

    def provenance(self, value: Any, where: str, max_seed: int) -> dict[str, Any]:
        """A provenance record: keys among :data:`~subsetsel_core.outputs.provenance.PROVENANCE_KEYS`, the version given.

        ``subsetsel_version`` a string, ``made_by`` "dashboard" or "command line", ``command``
        None or a string, ``settings`` an object, ``seed`` None or a whole number in
        ``[0, max_seed]``, ``input_sha256`` an object of names to hexadecimal digests.
        """
        p = self.obj(value, where, PROVENANCE_KEYS, ("subsetsel_version",))
        self.string(p["subsetsel_version"], f"{where}.subsetsel_version", nonempty=True, limit=100)
        if "made_by" in p:
            self.choice(p["made_by"], f"{where}.made_by", ("dashboard", "command line"))
        self.optional_string(p.get("command"), f"{where}.command")
        self.mapping(p.get("settings", {}), f"{where}.settings")
        if p.get("seed") is not None:
            self.integer(p["seed"], f"{where}.seed", 0, max_seed)
        for name, digest in self.mapping(p.get("input_sha256", {}), f"{where}.input_sha256").items():
            at = f"{where}.input_sha256.{name[:60]}"
            if not _HEX.fullmatch(self.string(digest, at)):
                raise self.fail(at, f"must be a hexadecimal digest, got {_shown(digest)}")
        return dict(p)
