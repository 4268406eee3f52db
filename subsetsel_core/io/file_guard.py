"""Opening a file named by a user or a manifest: what it is, where it points, how much is read.

* :func:`file_kind` tells a regular file from a folder, a pipe, a device or a socket
  without opening it (opening a pipe blocks; reading ``/dev/zero`` never ends);
* :func:`inside` says whether a path, links followed, stays inside a folder (a benchmark
  folder's files may not point outside it, at a secret);
* :func:`read_input_file` reads a regular file or a pipe with a cap on the bytes read, and
  refuses devices, sockets and folders;
* :func:`read_confined` reads a file below a folder (a benchmark folder, a benchmark root)
  through descriptors: each component is opened relative to the one before with
  ``O_NOFOLLOW``, a link met on the way is resolved by this module, never by the kernel,
  and may not lead out of the folder; the file is opened once and its type checked on the
  open descriptor (``fstat``). There is no check-then-open step a link swapped in at the
  right moment could slip through.

Messages name the file and what it is, never its contents.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePath

from subsetsel_core.errors import InputError
from subsetsel_core.text import rounding

__all__ = ["MAX_LINKS", "file_kind", "inside", "is_pipe", "open_confined", "read_confined", "read_input_file",
           "regular_file"]

MAX_LINKS = 40
"""Links followed while opening one file below a folder (more: a loop)."""


def file_kind(path: Path) -> str:
    """``"file"``, ``"folder"``, ``"pipe"``, ``"device"``, ``"socket"``, ``"missing"`` or ``"other"`` (links followed)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return "missing"
    return _kind(mode)


def _kind(mode: int) -> str:
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
            f"{label}: {more}{rounding.text(size / 2**20, 'megabytes')} MB is over the limit of "
            f"{rounding.text(limit / 2**20, 'megabytes')} MB. Split the file, drop unused columns, or raise the limit "
            "(environment variable SUBSETSEL_MAX_TABLE_MB).")
    return data


def is_pipe(path: Path) -> bool:
    """Whether ``path`` is a named pipe (such as ``<(command)`` or ``/dev/stdin`` from a pipe)."""
    return file_kind(path) == "pipe"


_DIR = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_LEAF = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class _Outside(Exception):
    """A link (or a ``..``) leads out of the folder."""


def _components(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _step(name: str, fd: int, last: bool) -> int | str:
    """Open ``name`` in ``fd`` without following a link: the new descriptor, or the link's target."""
    for _ in range(8):  # a link swapped in and out between the two calls: look again
        try:
            return os.open(name, _LEAF if last else _DIR | _NOFOLLOW, dir_fd=fd)
        except OSError as exc:
            try:
                return os.readlink(name, dir_fd=fd)
            except OSError:
                if exc.errno in (errno.ELOOP, errno.EMLINK):
                    continue
                raise exc from None
    raise OSError(errno.ELOOP, "the file keeps changing")


def open_confined(folder: Path, relative: str | PurePath, label: str, *, folder_kind: str = "benchmark folder") -> int:
    """Open the regular file ``relative`` below ``folder`` without ever leaving the folder.

    Each component is opened with ``O_NOFOLLOW`` relative to the descriptor of the one
    before; a link is read (``readlink``) and its target walked the same way, so a link
    inside the folder to a file inside it is followed, and one that leads out (or a
    ``..`` above the folder) is refused, whatever happens to the files meanwhile.

    Parameters
    ----------
    folder : Path
        The confining folder (itself opened as given).
    relative : str or PurePath
        The file's path below it (``/``-separated).
    label : str
        The file's name in messages.
    folder_kind : str
        What the folder is, in messages ("benchmark folder", "results folder").

    Returns
    -------
    int
        A descriptor of the regular file, open for reading (close it). A pipe or a device is
        opened without blocking (``O_NONBLOCK``) and refused on the open descriptor.

    Raises
    ------
    InputError
        Missing, a link out of the folder, a loop of links, not a regular file, unreadable.
    """
    base = os.path.abspath(folder)
    real = os.path.realpath(base)
    try:
        root = os.open(base, _DIR)
    except OSError as exc:
        raise InputError(f"{label}: the folder {folder} cannot be opened ({exc.strerror}). Check the path.") from None
    stack = [root]
    todo = list(reversed(_components(str(relative).replace(os.sep, "/"))))
    links = 0
    try:
        if not todo:
            raise InputError(f"{label}: is a folder, not a file. Give the table's file.")
        while todo:
            name = todo.pop()
            if name == "..":
                if len(stack) == 1:
                    raise _Outside
                os.close(stack.pop())
                continue
            got = _step(name, stack[-1], not todo)
            if isinstance(got, int):
                stack.append(got)
                continue
            links += 1
            if links > MAX_LINKS:
                raise InputError(f"{label}: is a loop of symbolic links. Replace the link by the file itself.")
            if got.startswith("/"):
                for prefix in (real, base):
                    if got == prefix or got.startswith(prefix.rstrip("/") + "/"):
                        got = got[len(prefix):]
                        break
                else:
                    raise _Outside
                while len(stack) > 1:
                    os.close(stack.pop())
            todo.extend(reversed(_components(got)))
        fd = stack.pop()
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            kind = _kind(mode)
            raise InputError(f"{label}: is a {kind}, not a regular file; subsetsel reads only files saved on disk. "
                             f"Put the file itself in the {folder_kind}, or remove this entry.")
        return fd
    except _Outside:
        raise InputError(f"{label}: is a link to a file outside the {folder_kind} {folder}; copy the file "
                         "into the folder instead of linking to it.") from None
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise InputError(f"{label}: file not found in {folder}. Check the name.") from None
        if exc.errno == errno.ENOTDIR:
            raise InputError(f"{label}: a part of this path is a file, not a folder. Check the name.") from None
        raise InputError(f"{label}: cannot read it ({exc.strerror or type(exc).__name__}).") from None
    finally:
        for fd in stack:
            os.close(fd)


def read_confined(folder: Path, relative: str | PurePath, label: str, limit: int) -> bytes:
    """The bytes of the regular file ``relative`` below ``folder``, opened by :func:`open_confined`.

    Raises
    ------
    InputError
        As :func:`open_confined`, or more than ``limit`` bytes.
    """
    fd = open_confined(folder, relative, label)
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{label}: cannot read it ({exc.strerror or type(exc).__name__}).") from None
    if len(data) > limit:
        raise InputError(
            f"{label}: over the limit of {rounding.text(limit / 2**20, 'megabytes')} MB. Split the file, drop unused "
            "columns, or raise the limit (environment variable SUBSETSEL_MAX_TABLE_MB).")
    return data
