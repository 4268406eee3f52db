"""Reading an untrusted zip archive of JSON, CSV and ``.npy`` parts with bounded memory.

:class:`SafeZip` opens the archive and checks its directory before anything is
decompressed: at most :data:`MAX_ENTRIES` parts, no name twice, each part's declared
size and their total under a limit. A part is read with a cap at its declared size (the
zip reader stops there) and a damaged one (a bad CRC, a truncated stream, an encrypted or
unknown compression) is an :class:`~subsetsel_core.errors.InputError` naming the part.
:func:`npy_array` reads a ``.npy`` part from its header first: dtype, shape and order
are checked, and the data must be exactly as long as the header declares, before one
byte is allocated for it; nothing is unpickled. :func:`json_part` parses JSON with a cap
on its size and nesting (very deep nesting or 5,000-digit integers are refused, not
crashed on).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
import zlib
from typing import Any

import numpy as np

from subsetsel_core.errors import InputError
from subsetsel_core.text import rounding

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "DuplicateKey", "SafeZip", "depth", "json_part", "npy_array", "unique_keys"]

MAX_ENTRIES = 10_000
"""Most parts an archive may have."""
MAX_DEPTH = 64
"""Deepest nesting of JSON lists and objects accepted."""
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError, ValueError)


class SafeZip:
    """A zip archive whose parts are read with bounded memory.

    Parameters
    ----------
    data : bytes
        The archive.
    label : str
        Its name in messages.
    limit : int
        Largest total uncompressed size of its parts, in bytes.
    field : str, optional
        The :data:`~subsetsel_core.errors.FIELDS` key of every error.
    kind : str
        What the file should be, for the message when it is not a zip archive.

    Raises
    ------
    InputError
        Not a zip archive, too many parts, a name twice, or parts declaring more than
        ``limit`` bytes in all.
    """

    def __init__(self, data: bytes, label: str, limit: int, field: str | None = None, kind: str = "a zip archive") -> None:
        self.label, self.limit, self.field = label, limit, field
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except _DAMAGED:
            raise self.error(f"not {kind} (not a zip archive, or a damaged one)") from None
        if len(infos) > MAX_ENTRIES:
            raise self.error(f"has {len(infos):,} parts, more than {MAX_ENTRIES:,}")
        self.infos: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            if info.filename in self.infos:
                raise self.error(f"holds the part '{info.filename}' twice")
            self.infos[info.filename] = info
        total = sum(i.file_size for i in infos)
        if total > limit:
            raise self.error(f"unpacks to {rounding.text(total / 2**20, 'megabytes')} MB, more than the "
                             f"{rounding.text(limit / 2**20, 'megabytes')} MB allowed; not loaded")

    def error(self, problem: str) -> InputError:
        """``<label>: <problem>.`` as an :class:`InputError`."""
        return InputError(f"{self.label}: {problem}.", field=self.field)

    def __contains__(self, name: str) -> bool:
        return name in self.infos

    def close(self) -> None:
        """Close the archive."""
        self.zip.close()

    def size(self, name: str) -> int:
        """The declared uncompressed size of a part."""
        return int(self.infos[name].file_size)

    def read(self, name: str, limit: int | None = None) -> bytes:
        """A part's bytes, checked against its CRC.

        Parameters
        ----------
        name : str
        limit : int, optional
            Largest size accepted for this part (default: the archive's limit).

        Raises
        ------
        InputError
            The part is missing, larger than ``limit``, or damaged.
        """
        info = self.infos.get(name)
        if info is None:
            raise self.error(f"has no part '{name}'; it is damaged or not a complete file")
        cap = self.limit if limit is None else limit
        if info.file_size > cap:
            raise self.error(f"its part '{name}' unpacks to {rounding.text(info.file_size / 2**20, 'megabytes')} MB, "
                             f"more than the {rounding.text(cap / 2**20, 'megabytes')} MB allowed")
        try:
            with self.zip.open(info) as fh:
                data = fh.read(info.file_size + 1)
        except _DAMAGED as exc:
            what = "a bad checksum" if "CRC" in str(exc) else type(exc).__name__
            raise self.error(f"its part '{name}' is damaged ({what}); the file was changed or cut short") from None
        if len(data) != info.file_size:
            raise self.error(f"its part '{name}' is damaged (not the size its directory declares)")
        return data


class DuplicateKey(ValueError):
    """A JSON object names one key twice (which of the two values is meant is unclear)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads` that refuses a key given twice.

    Raises
    ------
    DuplicateKey
    """
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"the key '{key[:80]}' is given twice in one object")
        out[key] = value
    return out


def json_part(data: bytes, what: str, label: str, field: str | None = None) -> Any:
    """Parse JSON text from an untrusted file.

    Parameters
    ----------
    data : bytes
    what : str
        The part's name in messages.
    label : str
        The file's name in messages.
    field : str, optional
        The ``field`` of every error.

    Raises
    ------
    InputError
        Not UTF-8 JSON, nested deeper than :data:`MAX_DEPTH`, a number too long to read, or
        NaN / infinity.
    """
    def bad(problem: str) -> InputError:
        return InputError(f"{label}: {what} {problem}.", field=field)

    def constant(name: str) -> float:
        raise ValueError(f"{name} is not a JSON number")

    try:
        value = json.loads(data.decode("utf-8"), parse_constant=constant, object_pairs_hook=unique_keys)
    except UnicodeDecodeError:
        raise bad("is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise bad(f"is damaged ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise bad("is nested too deeply") from None
    except DuplicateKey as exc:
        raise bad(f"is ambiguous: {exc}") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise bad(f"cannot be read ({str(exc)[:80]})") from None
    deepest = depth(value)
    if deepest > MAX_DEPTH:
        raise bad(f"is nested {deepest} levels deep, more than {MAX_DEPTH}")
    return value


def depth(value: Any) -> int:
    """How deeply JSON lists and objects nest in ``value`` (0 for a plain value; no recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is not None:
            deepest = max(deepest, d)
            stack.extend((c, d + 1) for c in children)
    return deepest


def npy_array(data: bytes, what: str, label: str, *, ndim: int | None = None, field: str | None = None) -> np.ndarray:
    """A numeric array from ``.npy`` bytes, its header checked before any allocation.

    Parameters
    ----------
    data : bytes
        The ``.npy`` file.
    what : str
        Its name in messages.
    label : str
        The archive's name in messages.
    ndim : int, optional
        The number of dimensions required.
    field : str, optional
        The ``field`` of every error.

    Returns
    -------
    ndarray
        Of a bool, integer or float dtype; a fresh, writable copy.

    Raises
    ------
    InputError
        Not a ``.npy`` file, an object or other non-numeric dtype, the wrong number of
        dimensions, or data not exactly as long as the header declares.
    """
    def bad(problem: str) -> InputError:
        return InputError(f"{label}: {what} {problem}.", field=field)

    buf = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(buf)
        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = reader(buf, max_header_size=10_000)
    except (ValueError, OSError, SyntaxError, TypeError) as exc:
        raise bad(f"is not a plain numeric array ({str(exc)[:80]})") from None
    if dtype.kind not in "fiub" or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise bad(f"has dtype {dtype}; a plain numeric array was expected (it is not a plain numeric array)")
    if ndim is not None and len(shape) != ndim:
        raise bad(f"has {len(shape)} dimension(s), {ndim} were expected")
    if any(not isinstance(n, int) or n < 0 for n in shape):
        raise bad(f"declares the shape {shape}")
    declared = math.prod(shape) * dtype.itemsize
    payload = len(data) - buf.tell()
    if declared != payload:
        raise bad(f"declares {declared:,} bytes of data but holds {payload:,}; the file is damaged")
    flat = np.frombuffer(data, dtype=dtype, offset=buf.tell(), count=math.prod(shape))
    return np.array(flat.reshape(shape, order="F" if fortran else "C"), order="C")
