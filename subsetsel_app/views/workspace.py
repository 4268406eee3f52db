"""Save the whole workspace to one file and load it back (sidebar section).

The file is :func:`subsetsel_core.workspace.save_workspace`'s safe zip: the active
benchmark, its descriptor tables, the session's settings (the keys of
:data:`subsetsel_app.state.KEYS` marked ``saved_in_workspace``) and the finished
evaluation result. Loading it restores all of that into the session: the benchmark
becomes the active one, the settings their widgets' values, and the evaluation result is
shown on the Evaluate page as a finished run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

import streamlit as st

from subsetsel_app import jobs, session, state
from subsetsel_app.active_data import ActiveData
from subsetsel_app.settings_check import check_app_description, check_settings
from subsetsel_app.state import K
from subsetsel_core.descriptors import load_descriptors
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.result import EvaluationResult
from subsetsel_core.io.manifest import RepresentationSpec
from subsetsel_core.workspace import Workspace, load_workspace, save_workspace

#: Name of the evaluation result inside the file.
EVALUATION = "evaluation"
#: Where the app's own description of the benchmark goes in the settings.
APP = "_app"
SUFFIX = ".subsetsel"


def finished_result(ss: Mapping[str, Any]) -> EvaluationResult | None:
    """The session's evaluation result if its run has ended (finished or stopped)."""
    job = jobs.get(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    if job is None or job.running or job.result is None:
        return None
    return job.result


def workspace_from_state(ss: Mapping[str, Any], data: ActiveData) -> Workspace:
    """The workspace of a session: ``data`` (the active benchmark), settings and the finished result."""
    settings: dict[str, Any] = state.saved(ss)
    settings[APP] = {
        "title": data.title, "source": data.source, "description": data.description, "metric": data.metric,
        "citation": data.citation,
        "specs": {n: {"kind": s.kind, "title": s.title, "description": s.description,
                      "columns": None if s.columns is None else list(s.columns)}
                  for n, s in data.specs.items()},
    }
    res = finished_result(ss)
    return Workspace(data.benchmark, dict(data.tables), settings, {EVALUATION: res} if res is not None else {})


def workspace_bytes(ss: Mapping[str, Any], data: ActiveData) -> bytes:
    """The workspace file of a session."""
    return save_workspace(workspace_from_state(ss, data))


def file_name(data: ActiveData) -> str:
    """``NAME.subsetsel`` with a file-system-safe name."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", data.name).strip("._") or "workspace"
    return stem + SUFFIX


def active_from_workspace(ws: Workspace, digest: str) -> ActiveData:
    """An :class:`ActiveData` for a loaded workspace (descriptor cells parsed as on upload).

    Raises
    ------
    InputError
        A descriptor table that cannot be read.
    """
    app = ws.settings.get(APP) or {}
    specs_in = app.get("specs") or {}
    tables = {}
    specs = {}
    for name, df in ws.descriptors.items():
        raw = df.to_csv(index=True, index_label="dataset").encode("utf-8")
        t = load_descriptors([raw], dataset_column="dataset", labels=[f"workspace table {name}"])
        t.index = t.index.map(str)
        tables[name] = t
        sp = specs_in.get(name) or {}
        cols = sp.get("columns")
        specs[name] = RepresentationSpec(
            name=name, kind=str(sp.get("kind") or "tabular"), files=(), title=str(sp.get("title") or name),
            description=str(sp.get("description") or ""), columns=None if cols is None else tuple(map(str, cols)),
        )
    b = ws.benchmark
    return ActiveData(
        token=f"workspace:{digest}", title=str(app.get("title") or b.name), source="workspace", benchmark=b,
        tables=tables, specs=specs, report=b.report, description=str(app.get("description") or ""),
        metric=str(app.get("metric") or ""), citation=str(app.get("citation") or ""),
    )


def restore(ss: MutableMapping[str, Any], raw: bytes) -> ActiveData:
    """Load a workspace file into a session (benchmark, settings, evaluation result).

    Raises
    ------
    InputError
        Not a workspace file, a damaged one, or settings out of their widgets' ranges
        (:mod:`subsetsel_app.settings_check`); the session is left unchanged.
    """
    ws = load_workspace(raw, label="workspace file")
    check_settings(ws.settings, ws.benchmark.n_datasets)
    check_app_description(ws.settings.get(APP), tuple(ws.descriptors))
    data = active_from_workspace(ws, hashlib.sha256(raw).hexdigest()[:20])
    # everything parsed: now change the session
    jobs.stop(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    ss[K.DATA] = data
    state.reset_for_new_benchmark(ss)
    for key in state.SAVED:
        if key in ws.settings and state.plausible(key, ws.settings[key]):
            ss[key] = state.restored(key, ws.settings[key])
    res = ws.evaluations.get(EVALUATION) or next(iter(ws.evaluations.values()), None)
    ss[K.EV_RUN] = None
    if res is not None:
        reps = tuple(dict.fromkeys(e.representation for e in res.entries if e.representation))
        ss[K.EV_RUN] = jobs.restore_evaluation(res, token=data.token, benchmark_name=data.benchmark.name,
                                               representations=reps).key
    return data


def _uploader_key() -> str:
    return f"ws_upload_{st.session_state.get(K.WS_NONCE, 0)}"


def _on_upload() -> None:
    f = st.session_state.get(_uploader_key())
    if f is None:
        return
    try:
        data = restore(st.session_state, f.getvalue())
    except InputError as exc:
        state.flash("error", f"{exc} The current workspace is kept.")
        return
    except Exception as exc:  # noqa: BLE001 - a file that passed every check and still fails: a message, not a trace
        state.flash("error", f"workspace file: cannot be loaded ({type(exc).__name__}); please report it. "
                             "The current workspace is kept.")
        return
    st.session_state[K.WS_NONCE] = int(st.session_state.get(K.WS_NONCE, 0)) + 1
    state.flash("success", f"Loaded the workspace '{data.title}': {data.benchmark.n_datasets} datasets, "
                           f"{data.benchmark.n_models} models"
                           + (", with its evaluation result." if st.session_state.get(K.EV_RUN) else "."))


def section() -> None:
    """The sidebar's Save / Load workspace controls."""
    try:
        data = session.active()
    except InputError:
        return
    with st.sidebar:
        st.markdown("**Workspace**")
        # the values are taken now (the file is built on click, outside this script run); the
        # evaluation result is looked up in the job registry on click, so a run that ends later is included
        snap = {**state.saved(st.session_state), K.EV_RUN: st.session_state.get(K.EV_RUN)}
        st.download_button(
            "Save workspace", lambda: workspace_bytes(snap, data), file_name=file_name(data),
            mime="application/zip", icon=":material/save:", key="ws_save", width="stretch",
            help="One file with the benchmark, its descriptor tables, your settings and the finished "
                 "evaluation result. Load it later to continue where you left off.",
        )
        st.file_uploader(
            "Load workspace", type=["subsetsel"], key=_uploader_key(), on_change=_on_upload,
            help="A .subsetsel file saved by this app; it replaces the current workspace.",
        )
