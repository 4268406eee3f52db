"""Where an evaluation's trials run: this server, local worker processes, or a Dask cluster.

The setting sits in the sidebar (it applies to every evaluation the session starts). The
results do not depend on it: every mapper returns the batches in order and each trial's
randomness depends only on the seed and the trial index (see
:mod:`subsetsel_core.evaluation.parallel`).
"""

from __future__ import annotations

import os

import streamlit as st

from subsetsel_app import state
from subsetsel_app.state import COMPUTE_MODES, K
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.parallel import Mapper, dask_mapper, process_mapper
from subsetsel_core.settings import server as server_settings

#: Seconds to wait for a Dask scheduler before giving up with a message.
DASK_TIMEOUT = 10.0


def allowed_modes() -> list[str]:
    """The compute modes this server offers (setting ``compute_modes``), in the sidebar's order."""
    allowed = server_settings.get("compute_modes")
    return [m for m in COMPUTE_MODES if m in allowed] or [COMPUTE_MODES[0]]


def server_scheduler() -> str:
    """The Dask scheduler the server fixes (setting ``dask_scheduler``; "": visitors type one)."""
    return str(server_settings.get("dask_scheduler") or "")


def current_mode() -> str:
    """The session's compute mode if this server offers it, else the first it offers (same numbers either way)."""
    mode = st.session_state.get(K.EV_COMPUTE, COMPUTE_MODES[0])
    allowed = allowed_modes()
    return mode if mode in allowed else allowed[0]


def mapper_from_state() -> Mapper | None:
    """The batch mapper for the session's compute setting (None: serial, in this process).

    Raises
    ------
    InputError
        An empty scheduler address.
    """
    mode = current_mode()
    if mode == "local processes":
        return process_mapper(max(1, int(st.session_state.get(K.EV_JOBS) or 1)))
    if mode == "Dask cluster":
        address = server_scheduler() or str(st.session_state.get(K.EV_SCHEDULER) or "").strip()
        if not address:
            raise InputError("the Dask scheduler address is empty: type one (tcp://host:8786) in the sidebar's "
                             "Compute section, or choose 'this server'.")
        return dask_mapper(address, timeout=DASK_TIMEOUT)
    return None


def describe() -> str:
    """One line saying where the next evaluation runs."""
    mode = current_mode()
    if mode == "local processes":
        return f"{int(st.session_state.get(K.EV_JOBS) or 1)} local worker processes"
    if mode == "Dask cluster":
        return "the server's Dask cluster" if server_scheduler() else f"the Dask cluster at {st.session_state.get(K.EV_SCHEDULER)}"
    return "this server process"


def check_scheduler(address: str) -> tuple[bool, str]:
    """Connect to a Dask scheduler and count its workers.

    Returns
    -------
    ok : bool
    message : str
        Workers and threads found, or why the connection failed and what to check.
    """
    try:
        from distributed import Client
    except ImportError:
        return False, "the 'distributed' package is missing: pip install -r requirements.txt"
    try:
        with Client(address.strip(), timeout=f"{DASK_TIMEOUT}s") as client:  # type: ignore[no-untyped-call]  # distributed's Client.__init__ is unannotated
            info = client.scheduler_info()
    except (OSError, TimeoutError, ValueError) as exc:
        return False, (f"cannot reach a Dask scheduler at {address!r} ({type(exc).__name__}: {exc}). Check the "
                       "address and that port 8786 is open from this server.")
    workers = info.get("workers", {})
    threads = sum(int(w.get("nthreads", 0)) for w in workers.values())
    if not workers:
        return False, f"the scheduler at {address!r} answers but has no workers yet; start some with dask worker."
    return True, f"connected: {len(workers)} worker(s), {threads} thread(s)."


def _on_check() -> None:
    ok, msg = check_scheduler(server_scheduler() or str(st.session_state.get(K.EV_SCHEDULER) or ""))
    state.flash("success" if ok else "error", f"Dask scheduler: {msg}")


def section() -> None:
    """The sidebar's Compute expander."""
    with st.sidebar.expander("Compute", icon=":material/memory:"):
        modes = allowed_modes()
        state.ensure_choice(K.EV_COMPUTE, modes, fallback=modes[0])
        if len(modes) > 1:
            st.radio("Evaluations run on", modes, key=K.EV_COMPUTE, persist_state=state.PERSIST,
                     help="Same seed, same numbers wherever they run; only the speed differs.")
        mode = current_mode()
        if mode == "local processes":
            st.number_input("Worker processes", min_value=1, max_value=max(1, 4 * (os.cpu_count() or 1)), step=1,
                            key=K.EV_JOBS, persist_state=state.PERSIST,
                            help=f"This machine has {os.cpu_count()} cores.")
        elif mode == "Dask cluster" and not server_scheduler():
            st.text_input("Scheduler address", key=K.EV_SCHEDULER, persist_state=state.PERSIST,
                          help="e.g. tcp://10.0.0.5:8786 — the workers need subsetsel installed (same version).")
            st.button("Test connection", on_click=_on_check, icon=":material/lan:")
        st.caption(f"Next evaluation: {describe()}.")
