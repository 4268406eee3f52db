"""Benchmark roots: the directories whose benchmark folders a dashboard server offers.

The administrator lists them (setting ``benchmark_roots``,
:mod:`subsetsel_core.settings.server`); a visitor picks among their benchmark folders and
reads nothing else of the server. Two checks keep it so:

* :func:`confine_directory` turns a directory a visitor typed (only when the administrator
  turned the path field on) into a directory inside a root — the path as typed and the
  path with every link followed must both lie inside one root, and any other path gets
  the same answer whether it exists or not (no probing of the server's folders);
* :func:`offering_root` says which root offers a benchmark folder about to be loaded.

The command line does not use roots: a command-line user reads their own folders. The
files inside a benchmark folder are confined to it for both (see
:mod:`subsetsel_core.loading.manifest`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import inside

__all__ = ["confine_directory", "offering_root", "root_label"]


def _lexically_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it as written (``..`` folded, no link followed)."""
    p, r = os.path.normpath(path), os.path.normpath(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


def offering_root(path: str | Path, roots: Sequence[Path]) -> Path | None:
    """The first root that holds ``path``: as written and with every link followed (None: no root does).

    Parameters
    ----------
    path : str or Path
        An absolute path.
    roots : sequence of Path
        Absolute root directories (as configured; links in them are allowed).
    """
    p = Path(path)
    if not p.is_absolute():
        return None
    for root in roots:
        written = _lexically_inside(p, root) or _lexically_inside(p, _real(root))
        if written and inside(p, root):
            return root
    return None


def _real(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p


def root_label(roots: Sequence[Path]) -> str:
    """The roots as a visitor reads them in messages: their paths, separated by commas."""
    return ", ".join(str(r) for r in roots) or "none"


def confine_directory(typed: str, roots: Sequence[Path]) -> Path:
    """The directory a visitor typed, if it lies inside a benchmark root (links followed).

    Parameters
    ----------
    typed : str
        Absolute, or relative to the first root. ``~`` is not expanded.
    roots : sequence of Path
        Absolute root directories.

    Returns
    -------
    Path
        The directory with every link followed (it need not exist: scanning it says so).

    Raises
    ------
    InputError
        Not inside any root. The message is the same whether or not the path exists and
        never says what is there.
    """
    text = typed.strip()
    if not roots:
        raise InputError("this server offers no benchmark directory; ask its administrator to set benchmark_roots.")
    p = Path(text)
    if not p.is_absolute():
        p = Path(roots[0]) / p
    if "\0" in text or offering_root(p, roots) is None:
        shown = text if len(text) <= 80 else text[:77] + "…"
        raise InputError(f"'{shown}' is not inside the benchmark directories this server offers "
                         f"({root_label(roots)}). Type a directory inside one of them, or leave the field empty "
                         "to see them all.")
    return _real(p)
