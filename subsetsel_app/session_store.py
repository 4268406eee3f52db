"""A small server-side store of saved sessions, keyed by unguessable ids.

The dashboard keeps each session (its workspace file, :mod:`subsetsel_core.workspace.files`) here
under an id that only the session's address carries (``?s=<id>``), so a reload or a shared
link finds it again. The store only holds bytes; what they mean, and whether they are
valid, is the reader's business (the dashboard reads them as an untrusted workspace file).

* **Ids** are 128 random bits (:func:`secrets.token_urlsafe`, 22 characters of
  ``A–Z a–z 0–9 _ -``); anything else is refused before it comes near a path. There is no
  way to list the ids: who does not have one cannot read the entry.
* **Caps**: an entry larger than ``SUBSETSEL_STATE_SESSION_MB`` (a quarter of the total) is
  not kept; after every write the entries idle longest are removed until the total is under
  the cap (LRU).
* **Expiry**: an entry not read or written for ``SUBSETSEL_STATE_DAYS`` days (7) is removed.
* **Where**: ``$SUBSETSEL_STATE_DIR``, else ``$XDG_CACHE_HOME/subsetsel/sessions``, else
  ``~/.cache/subsetsel/sessions`` (folder mode 0700, files 0600); ``SUBSETSEL_NO_STATE=1``
  turns the store off. The total cap is ``SUBSETSEL_STATE_MB`` (200). Each can be set in the
  settings file too (:mod:`subsetsel_core.settings.server`).

An entry's modification time is when it was saved, its access time when it was last used
(both set explicitly, whatever the file system's ``atime`` policy). Writes go to a
temporary file that replaces the entry, so a reader never sees half a file
(:mod:`subsetsel_core.io.safe_write`: created exclusively, never through a link). Entries are
read, touched and removed through the folder's descriptor, without following a link, and
checked on the open file (``fstat``): a link planted in the store is never read or written
through (the sweep removes it).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from subsetsel_core.errors import InputError
from subsetsel_core.io.safe_write import open_folder, write_into
from subsetsel_core.settings import server as server_settings

#: Bytes of randomness in an id.
ID_BYTES = 16
_ID = re.compile(r"[A-Za-z0-9_-]{22}")
SUFFIX = ".subsetsel-session"  # not a workspace file's own ".subsetsel": the cleanup never touches those
DEFAULT_TOTAL_MB = 200.0
DEFAULT_DAYS = 7.0
#: An entry may take at most this share of the total.
ENTRY_SHARE = 0.25


def store_dir() -> Path | None:
    """The store's folder, or None when the store is turned off (settings ``no_state``, ``state_dir``)."""
    if server_settings.get("no_state"):
        return None
    folder = server_settings.get("state_dir")
    if folder is not None:
        return Path(folder)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "subsetsel" / "sessions"


def new_id() -> str:
    """A fresh id: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(ID_BYTES)


def valid_id(sid: object) -> bool:
    """Whether ``sid`` has the shape of an id (the only ids the store opens)."""
    return isinstance(sid, str) and _ID.fullmatch(sid) is not None


@dataclass(frozen=True)
class Stored:
    """An entry read back: its bytes and when they were saved (seconds since the epoch)."""

    data: bytes
    saved: float


class SessionStore:
    """Saved sessions in one folder.

    Parameters
    ----------
    folder : Path
    max_total : int
        Bytes all entries may take together.
    max_idle : float
        Seconds an entry is kept after its last use.
    clock : callable
        The time now (tests move it).
    """

    def __init__(self, folder: Path, *, max_total: int = int(DEFAULT_TOTAL_MB * 2**20),
                 max_idle: float = DEFAULT_DAYS * 86400, clock: Callable[[], float] = time.time,
                 max_entry: int | None = None) -> None:
        self.folder = Path(folder)
        self.max_total = int(max_total)
        self.max_entry = int(max_total * ENTRY_SHARE) if max_entry is None else min(int(max_entry), self.max_total)
        self.max_idle = float(max_idle)
        self.clock = clock

    @classmethod
    def from_env(cls) -> SessionStore | None:
        """The store the environment describes (None when it is turned off)."""
        folder = store_dir()
        if folder is None:
            return None
        per_session = server_settings.get("state_session_mb")
        return cls(folder, max_total=int(server_settings.get("state_mb") * 2**20),
                   max_idle=server_settings.get("state_days") * 86400,
                   max_entry=None if per_session is None else int(per_session * 2**20))

    @property
    def days(self) -> float:
        """Days an entry is kept after its last use."""
        return self.max_idle / 86400

    def _path(self, sid: str) -> Path:
        if not valid_id(sid):
            raise ValueError("not a session id")
        return self.folder / f"{sid}{SUFFIX}"

    def get(self, sid: str) -> Stored | None:
        """The entry ``sid`` (and it counts as used now); None for an invalid, unknown or expired id."""
        if not valid_id(sid):
            return None
        name = self._path(sid).name
        try:
            with self._folder() as folder:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
                with os.fdopen(fd, "rb") as fh:
                    st = os.fstat(fh.fileno())  # the file opened, not the name: a link swapped in is never read
                    if not stat.S_ISREG(st.st_mode):
                        return None
                    now = self.clock()
                    if now - max(st.st_atime, st.st_mtime) > self.max_idle:
                        os.unlink(name, dir_fd=folder)
                        return None
                    data = fh.read(self.max_entry + 1)
                    if len(data) > self.max_entry:
                        return None
                    os.utime(fh.fileno(), (now, st.st_mtime))
        except (OSError, InputError):
            return None
        return Stored(data, st.st_mtime)

    @contextlib.contextmanager
    def _folder(self, *, create: bool = False) -> Iterator[int]:
        """The store's folder, open (its last component never a link; created mode 0700 with ``create``)."""
        if create and not self.folder.exists():
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                self.folder.mkdir(mode=0o700)
        fd = open_folder(self.folder)
        try:
            yield fd
        finally:
            os.close(fd)

    def put(self, sid: str, data: bytes) -> bool:
        """Keep ``data`` under ``sid``; False when it is over the entry cap or cannot be written.

        Afterwards the expired entries and, beyond the total cap, those idle longest are removed.
        """
        name = self._path(sid).name
        if len(data) > self.max_entry:
            return False
        try:
            with self._folder(create=True) as folder:
                now = self.clock()
                write_into(folder, name, data, mode=0o600, times=(now, now))
        except (OSError, InputError):
            return False
        self.sweep(keep=sid)
        return True

    def delete(self, sid: str) -> None:
        """Remove the entry ``sid`` (no-op for an invalid or unknown id)."""
        if valid_id(sid):
            with contextlib.suppress(OSError, InputError), self._folder() as folder:
                os.unlink(self._path(sid).name, dir_fd=folder)

    def sweep(self, keep: str | None = None) -> None:
        """Remove expired entries, then the least recently used ones beyond the total cap (never ``keep``)."""
        try:
            with self._folder() as folder:
                self._sweep(folder, keep)
        except (OSError, InputError):
            return

    def _sweep(self, folder: int, keep: str | None) -> None:
        now = self.clock()
        entries = []
        for name in os.listdir(folder):
            tmp = name.startswith(".") and name.endswith(".tmp") and valid_id(name[1:].split(SUFFIX)[0])
            if not tmp and not (name.endswith(SUFFIX) and valid_id(name[:-len(SUFFIX)])):
                continue  # only this store's own entries are ever deleted
            try:
                st = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue
            used = max(st.st_atime, st.st_mtime)
            if tmp:
                if now - used > 3600:  # left by a writer that died
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=folder)
                continue
            if now - used > self.max_idle or not stat.S_ISREG(st.st_mode):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)  # a link in the store is removed, never followed
                continue
            entries.append((used, st.st_size, name))
        total = sum(size for _, size, _ in entries)
        for _, size, name in sorted(entries):
            if total <= self.max_total:
                break
            if name == f"{keep}{SUFFIX}":
                continue
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder)
            total -= size
