"""Sessions that survive a reload and can be shared: kept on the server, named in the address.

Once a session differs from a fresh one (another benchmark, a changed setting, an
evaluation), its workspace file (:mod:`subsetsel_app.views.workspace`: the benchmark,
its descriptor tables, the settings, the finished evaluation and its permutation test) is
kept in the server's :class:`~subsetsel_app.session_store.SessionStore` under a random
id, and the address gets ``?s=<id>``. A new session whose address carries an id — a
reload, a bookmark, a link someone shared — reads that file back exactly as an uploaded
workspace is read (every field checked), and says "Restored your session from …". An
unknown, expired or damaged entry gives a note and a fresh session, never an error. The
file holds the evaluation only when it was run on the session's benchmark, so a switch of
benchmark never makes it unloadable (an entry kept before evaluations carried their
benchmark's identity loads without an evaluation that does not fit, and says so).

A restored session writes its first change under a new id (the address follows), so a
shared link keeps showing what was shared. The file is written again only when the
session's :func:`signature` changes (a hash of the benchmark's token, the saved settings
and the evaluation's state — cheap on every run), and in a background thread.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, TypeGuard

import streamlit as st

from subsetsel_app.session_store import SessionStore, new_id, valid_id
from subsetsel_core.errors import InputError
from subsetsel_core.io.validation import Finding, ValidationReport
from subsetsel_core.text import rounding
from subsetsel_core.workspace.files import load_workspace, save_workspace

from . import jobs, state
from .active_data import SOURCES, ActiveData
from .state import K
from .views import workspace

log = logging.getLogger(__name__)

#: The address parameter that names the session.
PARAM = "s"
#: Key of the workspace settings that only a kept session holds (what a workspace file
#: does not: the benchmark's cache token and source, its validation report, the release
#: dates, the evaluation's job).
EXTRA = "_session"
LABEL = "saved session"
_LEVELS = ("error", "warning", "info")


# --------------------------------------------------------------------------- what is kept


def signature(ss: Mapping[Any, Any]) -> str:
    """A hash of what a kept session holds: changes when the benchmark, a saved setting or the evaluation does."""
    data = ss.get(K.DATA)
    run = ss.get(K.EV_RUN)
    job = jobs.get(run)
    test = jobs.get(jobs.permutation_key(run)) if run else None
    parts = [data.token if data is not None else None, state.saved(ss), list(run) if run else None,
             job.status if job is not None else None, test.status if test is not None else None]
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()


def extra(data: ActiveData, ev_run: Any) -> dict[str, Any]:
    """The :data:`EXTRA` settings of a kept session."""
    r = data.report
    return {
        "token": data.token, "source": data.source, "ev_run": list(ev_run) if ev_run else None,
        "model_dates": dict(data.model_dates) if data.model_dates else None,
        "report": {"findings": [[f.level, f.topic, f.message] for f in r.findings], "facts": [list(x) for x in r.facts]},
    }


def session_bytes(snap: Mapping[str, Any], data: ActiveData) -> bytes:
    """The file a session is kept as: its workspace file with the :data:`EXTRA` settings."""
    ws = workspace.workspace_from_state(snap, data)
    ws.settings[EXTRA] = extra(data, snap.get(K.EV_RUN))
    return save_workspace(ws)


def _strings(value: Any, n: int) -> TypeGuard[list[str]]:
    return isinstance(value, list) and len(value) == n and all(isinstance(v, str) and len(v) <= 10_000 for v in value)


def _read_extra(value: Any, data: ActiveData) -> tuple[ActiveData, tuple[str, str] | None]:
    """``data`` with the token, source, report and release dates of :data:`EXTRA` (each
    field used only if it has the right type); and the evaluation's job key."""
    if not isinstance(value, dict):
        return data, None
    changes: dict[str, Any] = {}
    token, source = value.get("token"), value.get("source")
    if isinstance(token, str) and 0 < len(token) <= 2000:
        changes["token"] = token
    if source in SOURCES:
        changes["source"] = source
    dates = value.get("model_dates")
    if isinstance(dates, dict) and all(m in data.benchmark.models and isinstance(d, str) and len(d) <= 40
                                       for m, d in dates.items()):
        changes["model_dates"] = dict(dates)
    rep = value.get("report")
    if isinstance(rep, dict):
        found, facts = rep.get("findings"), rep.get("facts")
        if (isinstance(found, list) and all(_strings(f, 3) and f[0] in _LEVELS for f in found)
                and isinstance(facts, list) and all(_strings(f, 2) for f in facts)):
            changes["report"] = ValidationReport(tuple(Finding(*f) for f in found), tuple(tuple(f) for f in facts))
    run = value.get("ev_run")
    key = (run[0], run[1]) if _strings(run, 2) else None
    return dataclasses.replace(data, **changes), key


# --------------------------------------------------------------------------- restoring


def _ago(seconds: float) -> str:
    s = max(0, int(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if s >= size:
            return f"{s // size} {unit}{'s' if s // size > 1 else ''} ago"
    return "just now"


def restore_into(ss: MutableMapping[Any, Any], store: SessionStore, sid: str) -> tuple[str, str]:
    """Restore the kept session ``sid`` into ``ss``; returns the note to show (level, text).

    Nothing raises: an invalid, unknown, expired or damaged entry leaves ``ss`` as it was
    and says so (a damaged entry is removed).
    """
    fresh = "this is a fresh session."
    if not valid_id(sid):
        return "warning", f"The address names a saved session ('{PARAM}={str(sid)[:40]}') that is not a valid id; {fresh}"
    got = store.get(sid)
    if got is None:
        return "info", (f"The saved session of this address is unknown or has expired (sessions are kept "
                        f"{store.days:g} days after their last use); {fresh}")
    job_key: list[tuple[str, str] | None] = [None]

    def adjust(data: ActiveData) -> ActiveData:
        data, job_key[0] = _read_extra(ws.settings.get(EXTRA), data)
        return data

    try:
        ws = load_workspace(got.data, label=LABEL)
        loaded = workspace.restore_workspace(ss, ws, hashlib.sha256(got.data).hexdigest()[:20], label=LABEL,
                                             adjust=adjust)
    except InputError as exc:
        store.delete(sid)
        return "warning", f"The saved session of this address could not be restored ({exc}); {fresh}"
    except Exception as exc:  # noqa: BLE001 - a damaged entry never stops the app
        log.exception("saved session %s could not be restored", sid[:6])
        store.delete(sid)
        return "warning", f"The saved session of this address could not be restored ({type(exc).__name__}); {fresh}"
    live = jobs.get(job_key[0])
    mine = live is not None and live.owner is not None and live.owner == ss.get(K.OWNER)
    if live is not None and getattr(live.request, "token", None) == loaded.data.token and (mine or not live.running):
        # the same server still has the run: a finished one is shown; a running one only to the session that
        # started it (a visitor of a shared link must not be able to stop someone else's run)
        ss[K.EV_RUN] = live.key
    ss[K.PS_ID], ss[K.PS_MODE], ss[K.PS_SIG] = sid, "restored", None
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(got.saved))
    return "info", " ".join([f"Restored your session from {when} ({_ago(store.clock() - got.saved)}).",
                             *loaded.dropped])


def begin() -> None:
    """On a session's first run: restore the session the address names (``app.py`` calls
    this right after :func:`subsetsel_app.state.init`)."""
    ss = st.session_state
    if ss.get(K.PS_ID) is not None:
        return
    store = SessionStore.from_env()
    if store is None:
        ss[K.PS_ID] = ""
        return
    ss[K.PS_ID] = new_id()
    sid = st.query_params.get(PARAM)
    if sid is not None:
        level, text = restore_into(ss, store, sid)
        state.flash(level, text)
        if ss[K.PS_MODE] != "restored":
            del st.query_params[PARAM]


# --------------------------------------------------------------------------- saving

_LOCK = threading.Lock()
_PENDING: dict[str, Callable[[], bytes]] = {}
_WORKERS: dict[str, threading.Thread] = {}
#: Ids whose latest file was not kept: its size in bytes (0: it could not be written).
NOT_KEPT: dict[str, int] = {}


def _work(store: SessionStore, sid: str) -> None:
    while True:
        with _LOCK:
            build = _PENDING.pop(sid, None)
            if build is None:
                _WORKERS.pop(sid, None)
                return
        try:
            raw = build()
            ok = store.put(sid, raw)
        except Exception:  # noqa: BLE001 - a session that cannot be kept is not an error of the page
            log.exception("session %s could not be kept", sid[:6])
            raw, ok = b"", False
        if not ok and len(raw) <= store.max_entry:
            log.warning("session %s could not be written to %s", sid[:6], store.folder)
        with _LOCK:
            if ok:
                NOT_KEPT.pop(sid, None)
            else:
                NOT_KEPT[sid] = len(raw)


def _schedule(store: SessionStore, sid: str, build: Callable[[], bytes]) -> None:
    with _LOCK:
        _PENDING[sid] = build  # a newer state replaces one not written yet
        if sid in _WORKERS:
            return
        worker = _WORKERS[sid] = threading.Thread(target=_work, args=(store, sid), daemon=True,
                                                  name="subsetsel-persist")
    worker.start()


def flush(timeout: float = 60.0) -> bool:
    """Wait until every scheduled write is done (for tests); True if they all are."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with _LOCK:
            workers = list(_WORKERS.values())
        if not workers:
            return True
        for w in workers:
            w.join(max(0.0, deadline - time.time()))
    return False


def save(*, end: bool = False) -> None:
    """Keep the session if it changed since it was last kept.

    Called at the top of every page (:func:`subsetsel_app.widgets.header`: what the last
    interaction and its callbacks changed), in the fragments that change saved settings, and
    with ``end`` at the end of ``app.py``'s run, the only call that takes a session's first
    signature (a fresh session, once its pages have filled in their values, is not kept: the
    address gets an id only once the user has changed something).
    """
    ss = st.session_state
    sid = ss.get(K.PS_ID)
    data = ss.get(K.DATA)
    if not sid or data is None:
        return
    store = SessionStore.from_env()
    if store is None:
        return
    with _LOCK:
        size = NOT_KEPT.pop(sid, 0)
    if size > store.max_entry:  # (a folder that cannot be written is logged, not shown on every change)
        state.flash("warning", f"This session ({rounding.text(size / 2**20, 'megabytes')} MB) is too large to keep "
                               f"across reloads (at most {rounding.text(store.max_entry / 2**20, 'megabytes')} MB); "
                               "save a workspace file to keep it.")
    sig = signature(ss)
    if ss.get(K.PS_SIG) is None:
        if end:
            ss[K.PS_SIG] = sig  # a session's first run: nothing the user did yet
    elif sig != ss[K.PS_SIG]:
        if ss[K.PS_MODE] == "restored":  # a shared entry is never overwritten: the change gets an id of its own
            sid = ss[K.PS_ID] = new_id()
        snap = {**state.saved(ss), K.EV_RUN: ss.get(K.EV_RUN)}
        _schedule(store, sid, lambda: session_bytes(snap, data))
        ss[K.PS_SIG], ss[K.PS_MODE] = sig, "own"
    if ss[K.PS_MODE] and st.query_params.get(PARAM) != sid:
        st.query_params[PARAM] = sid
