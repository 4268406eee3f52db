"""The per-session limits of a dashboard server, and the benchmark roots a visitor picks from.

The values are the administrator's (:mod:`subsetsel_core.settings.server`); this module
applies them to the session:

* :func:`widget_mb`, :func:`too_large` — the upload limit: the uploaders' own cap (the
  browser refuses a larger file) and the check of a file that still arrives larger
  (:func:`subsetsel_app.widgets.file_uploader` applies both);
* :func:`check_trials` — raised before a run starts that asks for more trials than allowed;
* :func:`job_limits` — who the session is and how many computations it may run at once
  (:func:`subsetsel_app.jobs.submit` refuses one more; other sessions are not affected);
* :func:`roots`, :func:`path_field` — the benchmark roots and whether the Benchmark page
  shows a path field.

Every message says which setting sets the limit, so a visitor can tell the administrator.
"""

from __future__ import annotations

import math
import uuid
from pathlib import Path
from typing import Any

import streamlit as st

from subsetsel_core.errors import InputError
from subsetsel_core.settings import server as server_settings
from subsetsel_core.text import rounding

from .state import K


def owner() -> str:
    """This browser session's id for its limits (random, made on first use, kept in the session)."""
    ss = st.session_state
    if not ss.get(K.OWNER):
        ss[K.OWNER] = uuid.uuid4().hex
    return str(ss[K.OWNER])


def job_limits() -> dict[str, Any]:
    """The ``owner`` and ``max_running`` arguments of :func:`subsetsel_app.jobs.submit` for this session."""
    return {"owner": owner(), "max_running": int(server_settings.get("max_running"))}


def max_trials() -> int:
    """Most trials one run may ask for (setting ``max_trials``)."""
    return int(server_settings.get("max_trials"))


def check_trials(trials: int, what: str = "trials") -> None:
    """Raise when a run asks for more trials than this server allows.

    Raises
    ------
    InputError
        Naming the number asked for, the limit and the setting.
    """
    most = max_trials()
    if int(trials) > most:
        raise InputError(f"{int(trials):,} {what} asked for, but this server runs at most {most:,} trials per run "
                         "(setting max_trials). Choose fewer.")


def check_permutations(shuffles: int) -> None:
    """Raise when a permutation test asks for more shuffles than this server allows (``max_permutations``).

    Raises
    ------
    InputError
        Naming the number asked for, the limit and the setting.
    """
    most = int(server_settings.get("max_permutations"))
    if int(shuffles) > most:
        raise InputError(f"{int(shuffles):,} shuffles asked for, but this server runs at most {most:,} per permutation "
                         "test (setting max_permutations). Choose fewer.", field="permutations")


# --------------------------------------------------------------------------- uploads


def max_upload_bytes() -> int:
    """Largest upload read, in bytes (setting ``max_upload_mb``)."""
    return int(float(server_settings.get("max_upload_mb")) * 2**20)


def widget_mb() -> int:
    """The uploaders' own cap in whole MB: the setting rounded up, never above Streamlit's ``server.maxUploadSize``."""
    mb = max(1, math.ceil(max_upload_bytes() / 2**20))
    try:
        server = int(st.get_option("server.maxUploadSize"))
    except (RuntimeError, TypeError, ValueError):
        server = mb
    return max(1, min(mb, server))


def too_large(name: str, size: int) -> str | None:
    """The message for an upload over the limit (None: within it)."""
    limit = max_upload_bytes()
    if size <= limit:
        return None
    return (f"{name}: {rounding.text(size / 2**20, 'megabytes')} MB is over this server's upload limit of "
            f"{float(server_settings.get('max_upload_mb')):g} MB (setting max_upload_mb); it was not read. Upload a "
            "smaller file (drop unused columns, or compress it).")


def check_upload(name: str, size: int) -> None:
    """Raise for an upload over the limit (a callback's check; see :func:`too_large`).

    Raises
    ------
    InputError
        Naming the file, its size, the limit and the setting.
    """
    problem = too_large(name, size)
    if problem is not None:
        raise InputError(problem)


# --------------------------------------------------------------------------- benchmark roots


def roots() -> tuple[Path, ...]:
    """The benchmark roots (setting ``benchmark_roots``)."""
    return server_settings.benchmark_roots()


def path_field() -> bool:
    """Whether the Benchmark page shows a field for a server directory (setting ``allow_path_field``)."""
    return bool(server_settings.get("allow_path_field"))
