"""MTEB task metadata, from the ``mteb`` package when it is installed (imported lazily).

mteb scores a task on its declared ``eval_splits`` and language subsets
(``TaskMetadata.eval_splits``, ``AbsTask.hf_subsets``; ``TaskResult.validate_and_filter_scores``
keeps only those and fills a missing subset with NaN). :func:`declared` returns them for
a task name through the public ``mteb.get_task``; without the package, or for a task it
does not know, it returns None and :mod:`~subsetsel_core.io.mteb_results` falls back on
the subsets most models' files have (a model lacking one has a gap on the task).
"""

from __future__ import annotations

import importlib.util
import warnings
from functools import lru_cache
from typing import Any, NamedTuple


class Declared(NamedTuple):
    """A task's evaluation splits and subsets as mteb declares them."""

    splits: tuple[str, ...]
    subsets: tuple[str, ...]
    main_score: str | None


@lru_cache(maxsize=1)
def mteb_version() -> str | None:
    """The installed mteb's version, or None when mteb is not installed."""
    if importlib.util.find_spec("mteb") is None:
        return None
    try:
        from importlib.metadata import version

        return version("mteb")
    except Exception:  # installed without metadata: still usable
        return "unknown"


def _module() -> Any:
    """The ``mteb`` module, or None (not installed, or it fails to import)."""
    if mteb_version() is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import mteb  # type: ignore[import-not-found, unused-ignore]
    except Exception:  # a broken install reads as no metadata
        return None
    return mteb


@lru_cache(maxsize=4096)
def declared(task: str) -> Declared | None:
    """The eval splits and subsets mteb declares for ``task`` (None: mteb is not
    installed or does not know the task)."""
    mteb = _module()
    if mteb is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = mteb.get_task(task)
        splits = tuple(str(s) for s in t.eval_splits)
        subsets = tuple(str(s) for s in t.hf_subsets)
        main = getattr(getattr(t, "metadata", None), "main_score", None)
    except Exception:  # unknown or renamed task: no metadata for it
        return None
    if not splits or not subsets:
        return None
    return Declared(splits, subsets, str(main) if isinstance(main, str) else None)
