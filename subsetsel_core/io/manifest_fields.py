"""Checks of the JSON fields of a benchmark folder's ``manifest.json``.

Every error is an :class:`~subsetsel_core.errors.InputError` naming the manifest, the
field (``scores.file``, ``representations[0] ('facts').kind``, …) and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.tables import TABLE_SUFFIXES

__all__ = ["FORMAT_HELP", "FieldChecker"]

FORMAT_HELP = "See sample_data/README.md for the format."
"""Where the benchmark-folder format is documented for users; ends many messages."""


class FieldChecker:
    """Checks of the fields of one ``manifest.json``; every error names the file and the field.

    Parameters
    ----------
    path : Path
        The ``manifest.json``; files it names are looked up in its folder.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.folder = path.parent

    def fail(self, where: str, problem: str, fix: str) -> InputError:
        """The error ``<path>: field '<where>' <problem>. <fix>``."""
        return InputError(f"{self.path}: field '{where}' {problem}. {fix}")

    def keys(self, data: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
        """Raise for the first key of ``data`` (the object at ``where``) not in ``allowed``."""
        for key in data:
            if key not in allowed:
                field_name = f"{where}.{key}" if where else key
                raise self.fail(
                    field_name,
                    f"is not a known field{did_you_mean(key, allowed, 1)}",
                    f"Known fields{' of ' + where if where else ''}: {', '.join(allowed)}. {FORMAT_HELP}",
                )

    def string(
        self,
        data: Mapping[str, Any],
        key: str,
        where: str,
        *,
        default: str | None = None,
        required: bool = False,
        nonempty: bool = False,
    ) -> str:
        """The string ``data[key]``, or ``default`` when it is absent or null and not required.

        ``nonempty`` rejects a blank string and strips the surrounding spaces.
        """
        if key not in data or (data[key] is None and not required):
            if required:
                raise self.fail(where, "is missing", f"Add it as a JSON string. {FORMAT_HELP}")
            return default if default is not None else ""
        value = data[key]
        if not isinstance(value, str):
            raise self.fail(
                where, f"must be a string, got {json.dumps(value)}", 'Write it in quotes: "…".'
            )
        if nonempty and not value.strip():
            raise self.fail(where, "is empty", "Give a non-empty name.")
        return value.strip() if nonempty else value

    def optional_column(self, data: Mapping[str, Any], key: str, where: str, default: str) -> str:
        """A column name: ``default`` when absent, else a non-empty string."""
        return self.string(data, key, where, default=default, nonempty=key in data)

    def file(self, value: Any, where: str) -> str:
        """A table file named relative to the folder, present in it; returned as a POSIX path."""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                where,
                f"must be a file name, got {json.dumps(value)}",
                'Give the file\'s name relative to the benchmark folder, e.g. "scores.csv".',
            )
        pure = PurePosixPath(value.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or Path(value).is_absolute():
            raise self.fail(
                where,
                f"is '{value}', which points outside the benchmark folder",
                f"Copy the file into {self.folder} and give its name relative to the folder.",
            )
        if not value.lower().endswith(TABLE_SUFFIXES):
            raise self.fail(
                where,
                f"is '{value}', which is not a supported table file",
                f"Use one of {', '.join(TABLE_SUFFIXES)} (CSV, gzip CSV, TSV or Parquet).",
            )
        target = self.folder / pure
        if not target.is_file():
            present = sorted(
                p.name for p in self.folder.iterdir() if p.is_file() and p.name != self.path.name
            )
            raise self.fail(
                where,
                f"names '{value}', which is not in {self.folder}{did_you_mean(value, present, 1)}",
                "Put the file in the folder or correct the name; files there: "
                f"{', '.join(present) or 'none'}.",
            )
        return str(pure)
