"""Importing optional packages (the extras) with an error that says how to install them."""

from __future__ import annotations

import importlib
from types import ModuleType

from subsetsel_core.errors import MissingExtraError

EXTRAS_HINT = "pip install -r requirements-extras.txt"


def import_extra(module: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import an optional module or raise :class:`~subsetsel_core.errors.MissingExtraError`.

    Parameters
    ----------
    module : str
        Importable module name, e.g. ``"pycatch22"``.
    purpose : str
        What needs it, e.g. ``"catch22_features"``; starts the error message.
    package : str, optional
        The PyPI name if it differs from ``module``.

    Returns
    -------
    types.ModuleType
        The imported module.

    Raises
    ------
    MissingExtraError
        The module is not installed; the message names the package and
        :data:`EXTRAS_HINT`.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        name = package or module
        raise MissingExtraError(
            f"{purpose} needs the optional package '{name}', which is not installed "
            f"({exc}). Install the extras with: {EXTRAS_HINT}"
        ) from exc
