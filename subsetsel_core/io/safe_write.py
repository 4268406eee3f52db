"""Writing files without following links: the one way the product puts a file on disk.

Every file the product writes (a report folder, ``--out`` files, the score cache, the
dashboard's session store) goes through :func:`write_files` or :func:`write_file`:

* the folder is opened once (``O_DIRECTORY``); its last component is opened with
  ``O_NOFOLLOW``, so a folder that is a symbolic link is refused (the folders *above* it
  are the user's own path and are followed as typed: ``/home`` may be a link);
* a sub-folder (``figures/``) is opened relative to that descriptor with ``O_NOFOLLOW``,
  and created there when missing;
* each file is written to a fresh temporary name created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to the folder's descriptor, flushed to disk
  (``fsync``) and renamed over the target (``os.replace`` with ``src_dir_fd`` and
  ``dst_dir_fd``): a link planted at the target's name is replaced, never written through,
  and a reader never sees half a file.

A symbolic link already at a target's name, or as a folder on the way, is refused with a
message naming it (a planted link is a sign that someone else can write into the folder); so is
a pipe, a device or a socket at a target's name (``--out /dev/null`` run as root would
otherwise replace the device with a file).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

from subsetsel_core.errors import InputError

__all__ = ["UnsafeTarget", "check_folder", "open_folder", "write_file", "write_files", "write_into"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class UnsafeTarget(InputError):
    """A file or folder to write is a symbolic link, or not a folder where one is needed."""


def _link_text(name: str, dir_fd: int) -> str:
    try:
        return f" (to {os.readlink(name, dir_fd=dir_fd)})"
    except OSError:
        return ""


def _refuse_link(shown: str, name: str, dir_fd: int) -> UnsafeTarget:
    return UnsafeTarget(
        f"{shown}: is a symbolic link{_link_text(name, dir_fd)}; subsetsel never writes through a link. Remove "
        "the link (someone may have planted it to overwrite a file elsewhere) or write into another folder."
    )


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _special(name: str, dir_fd: int) -> str:
    """``"pipe"``, ``"device"`` or ``"socket"`` when ``name`` is one (not followed), else ``""``."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return ""
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "socket" if stat.S_ISSOCK(mode) else ""


def _open_sub(name: str, dir_fd: int, shown: str, *, create: bool) -> int:
    """A sub-folder ``name`` of ``dir_fd``, opened without following a link (created when missing)."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=dir_fd)
    try:
        return os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if _is_link(name, dir_fd):
            raise _refuse_link(shown, name, dir_fd) from None
        if exc.errno == errno.ENOTDIR:
            raise UnsafeTarget(f"{shown}: is a file, not a folder. Remove it or write into another folder.") from None
        if exc.errno == errno.ENOENT:
            raise InputError(f"{shown}: no such folder. Create it first or write elsewhere.") from None
        raise InputError(f"{shown}: cannot open this folder ({exc.strerror}). Check it is writable.") from None


def open_folder(folder: str | Path, *, create: bool = False) -> int:
    """A descriptor of ``folder``; its last component must not be a symbolic link.

    Parameters
    ----------
    folder : str or Path
        The folder, as the user typed it (``~`` expanded). The folders above it are followed.
    create : bool
        Create it (and the folders above it) when missing.

    Returns
    -------
    int
        An open descriptor (close it with ``os.close``).

    Raises
    ------
    UnsafeTarget
        The folder is a symbolic link or a file.
    InputError
        Missing (without ``create``) or cannot be opened.
    """
    p = Path(os.path.abspath(Path(folder).expanduser()))
    if p.parent == p:  # the file system's root
        return os.open(p, _DIR_FLAGS)
    if create:
        try:
            os.makedirs(p.parent, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{p.parent}: cannot create this folder ({exc.strerror}). Check the path.") from None
    try:
        parent = os.open(p.parent, _DIR_FLAGS)
    except OSError as exc:
        raise InputError(f"{p.parent}: cannot open this folder ({exc.strerror}). Check it exists and is "
                         "writable.") from None
    try:
        return _open_sub(p.name, parent, str(folder), create=create)
    finally:
        os.close(parent)


def write_into(dir_fd: int, name: str, data: bytes, *, shown: str | None = None, mode: int = 0o666,
               times: tuple[float, float] | None = None) -> None:
    """Write ``data`` as the file ``name`` of the open folder ``dir_fd``, atomically, never through a link.

    Parameters
    ----------
    dir_fd : int
        The folder (from :func:`open_folder`).
    name : str
        A plain file name (no ``/``).
    data : bytes
    shown : str, optional
        The file's path in messages (default: ``name``).
    mode : int
        Permission bits of a new file (the umask applies).
    times : (float, float), optional
        Access and modification times to give the file.

    Raises
    ------
    UnsafeTarget
        ``name`` is a symbolic link or a folder.
    InputError
        The folder is not writable, the disk is full.
    """
    shown = shown or name
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a plain file name: {name!r}")
    if _is_link(name, dir_fd):
        raise _refuse_link(shown, name, dir_fd)
    special = _special(name, dir_fd)
    if special:
        raise UnsafeTarget(f"{shown}: is a {special}, not a file; subsetsel writes only regular files and never "
                           "replaces a pipe or a device. Give the name of a file to write (leave the option out to "
                           "print to the screen where it can).")
    tmp = f".{name[:80]}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, _CREATE, mode, dir_fd=dir_fd)
    except OSError as exc:
        raise InputError(f"cannot write {shown}: {exc.strerror}. Check the folder is writable.") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if times is not None:
                os.utime(fh.fileno(), times)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        tmp = ""
    except IsADirectoryError:
        raise UnsafeTarget(f"{shown}: is a folder; a file of that name cannot be written. Remove or rename "
                           "the folder.") from None
    except OSError as exc:
        raise InputError(f"cannot write {shown}: {exc.strerror}. Check the folder is writable and the disk "
                         "has room.") from None
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)


def _parts(name: str) -> list[str]:
    parts = list(PurePosixPath(name).parts)
    if not parts or parts[0] == "/" or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a relative file name inside the folder: {name!r}")
    return parts


@contextlib.contextmanager
def _folder_fd(folder: str | Path, create: bool) -> Iterator[int]:
    fd = open_folder(folder, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def write_files(folder: str | Path, files: Mapping[str, bytes], *, create: bool = True, mode: int = 0o666) -> None:
    """Write several files into ``folder`` (sub-folders such as ``figures/x.svg`` allowed), never through a link.

    Parameters
    ----------
    folder : str or Path
        The folder (created with ``create``); it must not be a symbolic link.
    files : mapping of str to bytes
        Relative name (``/``-separated, no ``..``) → content.
    create : bool
        Create the folder and missing sub-folders.
    mode : int
        Permission bits of new files (the umask applies).

    Raises
    ------
    UnsafeTarget
        The folder, a sub-folder or a file's name is a symbolic link.
    InputError
        Cannot be written.
    """
    with _folder_fd(folder, create) as top:
        subs: dict[tuple[str, ...], int] = {(): top}
        try:
            for name, data in files.items():
                parts = _parts(name)
                here = top
                for i in range(len(parts) - 1):
                    key = tuple(parts[: i + 1])
                    if key not in subs:
                        subs[key] = _open_sub(parts[i], here, str(Path(folder, *key)), create=create)
                    here = subs[key]
                write_into(here, parts[-1], data, shown=str(Path(folder, *parts)), mode=mode)
        finally:
            for key, fd in subs.items():
                if key:
                    os.close(fd)


def write_file(path: str | Path, data: bytes, *, mode: int = 0o666) -> None:
    """Write one file; its folder must exist (the path above it is followed as typed), the file's own name
    is never followed.

    Raises
    ------
    UnsafeTarget
        ``path`` is a symbolic link or a folder.
    InputError
        The folder is missing or not writable.
    """
    p = Path(os.path.abspath(Path(path).expanduser()))
    try:
        fd = os.open(p.parent, _DIR_FLAGS)
    except OSError as exc:
        raise InputError(f"cannot write {path}: its folder {p.parent} cannot be opened ({exc.strerror}). Check "
                         "the folder exists and is writable.") from None
    try:
        write_into(fd, p.name, data, shown=str(path), mode=mode)
    finally:
        os.close(fd)


def check_folder(folder: str | Path) -> None:
    """Refuse, early, a folder to write into that is a symbolic link (or a link on the way inside it is
    found when writing): the same message :func:`write_files` gives.

    Raises
    ------
    UnsafeTarget
    """
    p = Path(os.path.abspath(Path(folder).expanduser()))
    if p.parent != p and p.is_symlink():
        fd = os.open(p.parent, _DIR_FLAGS)
        try:
            raise _refuse_link(str(folder), p.name, fd)
        finally:
            os.close(fd)


def write_and_prune(dir_fd: int, name: str, data: bytes, *, suffix: str, keep: int) -> None:
    """Write ``name`` into the open folder (as :func:`write_into`, owner-only), then remove the
    oldest regular files ending in ``suffix`` beyond the newest ``keep`` (a cache's bound).

    Raises
    ------
    OSError, InputError
        As :func:`write_into`; the caller decides whether a cache that cannot be written matters.
    """
    write_into(dir_fd, name, data, mode=0o600)
    entries = []
    for entry in os.listdir(dir_fd):
        st = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
        if entry.endswith(suffix) and stat.S_ISREG(st.st_mode):
            entries.append((st.st_mtime, entry))
    for _, entry in sorted(entries)[: max(0, len(entries) - keep)]:
        os.unlink(entry, dir_fd=dir_fd)
