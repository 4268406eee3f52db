"""Opening a file named by a user or a manifest: what it is, where it points, how much is read.

* :func:`file_kind` tells a regular file from a folder, a pipe, a device or a socket
  without opening it (opening a pipe blocks; reading ``/dev/zero`` never ends);
* :func:`inside` says whether a path, links followed, stays inside a folder (a benchmark
  folder's files may not point outside it, at a secret);
* :func:`read_input_file` reads a regular file or a pipe with a cap on the bytes read, and
  refuses devices, sockets and folders.

Messages name the file and what it is, never its contents.
"""

from __future__ import annotations

import stat
from pathlib import Path

from subsetsel_core.errors import InputError

__all__ = ["file_kind", "inside", "is_pipe", "read_input_file", "regular_file"]


def file_kind(path: Path) -> str:
    """``"file"``, ``"folder"``, ``"pipe"``, ``"device"``, ``"socket"``, ``"missing"`` or ``"other"`` (links followed)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return "missing"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, with every link followed, is inside ``folder`` (itself resolved)."""
    try:
        real = path.resolve(strict=False)
        base = folder.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL in the path
        return False
    return real == base or base in real.parents


def regular_file(path: Path, label: str, *, folder: Path | None = None) -> Path:
    """``path`` if it is a regular file (and, with ``folder``, stays inside it).

    Parameters
    ----------
    path : Path
    label : str
        The file's name in messages.
    folder : Path, optional
        The folder the file must stay in, links followed.

    Returns
    -------
    Path

    Raises
    ------
    InputError
        Missing, a folder, a pipe, a device or a socket, or a link out of ``folder``.
    """
    if folder is not None and not inside(path, folder):
        raise InputError(f"{label}: is a link to a file outside the benchmark folder {folder}; copy the file "
                         "into the folder instead of linking to it.")
    kind = file_kind(path)
    if kind == "missing":
        raise InputError(f"{label}: file not found ({path}). Check the path.")
    if kind != "file":
        raise InputError(f"{label}: is a {kind}, not a regular file ({path}). Give a table saved as a file.")
    return path


def read_input_file(path: Path, label: str, limit: int) -> bytes:
    """The bytes of a regular file or a pipe, at most ``limit`` of them.

    Parameters
    ----------
    path : Path
    label : str
        The file's name in messages.
    limit : int
        Largest size accepted, in bytes.

    Returns
    -------
    bytes

    Raises
    ------
    InputError
        Missing, a folder, a device or a socket, unreadable, or more than ``limit`` bytes.
    """
    kind = file_kind(path)
    if kind == "missing":
        raise InputError(f"{label}: file not found ({path}). Check the path.")
    if kind not in ("file", "pipe"):
        raise InputError(f"{label}: is a {kind}, not a file ({path}). Give a table saved as a file.")
    try:
        if kind == "file" and path.stat().st_size > limit:
            data = b""
            size = path.stat().st_size
        else:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
            size = len(data)
    except OSError as exc:
        raise InputError(f"{label}: cannot read it ({exc.strerror or type(exc).__name__}).") from None
    if size > limit:
        more = "more than " if kind == "pipe" else ""
        raise InputError(
            f"{label}: {more}{size / 2**20:.0f} MB is over the limit of {limit / 2**20:.0f} MB. Split the file, "
            "drop unused columns, or raise the limit (environment variable SUBSETSEL_MAX_TABLE_MB).")
    return data


def is_pipe(path: Path) -> bool:
    """Whether ``path`` is a named pipe (such as ``<(command)`` or ``/dev/stdin`` from a pipe)."""
    return file_kind(path) == "pipe"
