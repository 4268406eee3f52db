"""Checks of the JSON fields of a benchmark folder's ``manifest.json``.

Every error is an :class:`~subsetsel_core.errors.InputError` naming the manifest, the
field (``scores.file``, ``representations[0] ('facts').kind``, …) and the fix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from subsetsel_core.errors import InputError
from subsetsel_core.io.archive import MAX_DEPTH, DuplicateKey, depth, unique_keys
from subsetsel_core.io.file_guard import file_kind, inside, read_confined
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.tables import TABLE_SUFFIXES

__all__ = ["FORMAT_HELP", "FieldChecker", "read_manifest_json"]

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
        if not inside(target, self.folder):
            raise self.fail(
                where,
                f"names '{value}', a link to a file outside the benchmark folder",
                f"Copy the file into {self.folder} instead of linking to it.",
            )
        kind = file_kind(target)
        if kind not in ("file", "missing"):
            raise self.fail(
                where, f"names '{value}', which is a {kind}, not a regular file", "Give a table saved as a file."
            )
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


def read_manifest_json(path: Path, folder: Path, limit: int) -> Any:
    """The JSON value of a ``manifest.json``: a regular file inside ``folder``, at most ``limit`` bytes.

    Parameters
    ----------
    path : Path
        The ``manifest.json``.
    folder : Path
        Its benchmark folder, or a directory above it (resolved); the file is read by
        descriptor below it and may not be a link out of it.
    limit : int
        Largest size read, in bytes.

    Raises
    ------
    InputError
        Not a regular file in the folder, too large, not UTF-8, not JSON, a key given twice
        in one object, a number too long to read, or nesting deeper than
        :data:`~subsetsel_core.io.archive.MAX_DEPTH`.
    """
    raw = read_confined(folder, os.path.relpath(path, folder), str(path), limit)
    try:
        data = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=unique_keys)
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text. Save it as UTF-8 JSON.") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
            "Check for a missing comma or quote, or a trailing comma."
        ) from None
    except DuplicateKey as exc:
        raise InputError(f"{path}: {exc}; keep one of them. {FORMAT_HELP}") from None
    except (ValueError, RecursionError):  # an integer of thousands of digits, nesting deeper than Python's stack
        raise InputError(f"{path}: holds a number too long or nesting too deep to read. {FORMAT_HELP}") from None
    if depth(data) > MAX_DEPTH:
        raise InputError(
            f"{path}: nests lists and objects {depth(data)} levels deep, more than {MAX_DEPTH}. {FORMAT_HELP}"
        )
    return data
