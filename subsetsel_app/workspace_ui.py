"""Save the whole workspace to one file and load it back (sidebar section).

The file is :func:`subsetsel_core.workspace.save_workspace`'s safe zip: the active
benchmark, its descriptor tables, the session's settings (representation, selection,
evaluation, seed) and the finished evaluation result. Loading it restores all of that into
the session: the benchmark becomes the active one, the settings their widgets' values, and
the evaluation result is shown on the Evaluate page as a finished run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

import streamlit as st

from subsetsel_core.descriptors import load_descriptors
from subsetsel_core.errors import InputError
from subsetsel_core.io.folder import RepresentationSpec
from subsetsel_core.workspace import Workspace, load_workspace, save_workspace

from . import data as D
from . import runner, state
from .model import ActiveData
from .state import K

#: Session-state keys saved in a workspace (plain JSON values; tuples become lists).
SETTINGS: tuple[str, ...] = (
    K.REP_TABLES, K.REP_COLUMNS, K.REP_TEXT, K.REP_LOG, K.REP_PCA, K.REP_PCA_VAR, K.MAP_METHOD, K.MAP_COLOR,
    K.SEED,
    K.SEL_STRATEGY, K.SEL_K, K.SEL_INCLUDE, K.SEL_EXCLUDE, K.SEL_METRIC,
    K.EV_STRATEGIES, K.EV_REPS, K.EV_TRIALS, K.EV_ALPHA, K.EV_BETA, K.EV_KRANGE, K.EV_METRIC, K.EV_BANDS,
    K.RP_TITLE,
)
#: Settings stored as tuples in the session.
_TUPLES = {K.EV_KRANGE}
#: Name of the evaluation result inside the file.
EVALUATION = "evaluation"
#: Where the app's own description of the benchmark goes in the settings.
APP = "_app"
WS_NONCE = "ws_nonce"  # int: bumped to clear the workspace uploader after a load
SUFFIX = ".subsetsel"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return value.item()
    return value


def finished_result(ss: Mapping[str, Any]):  # noqa: ANN201 - EvaluationResult | None
    """The session's evaluation result if its run has ended (finished or stopped)."""
    run = runner.get_run(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    if run is None or run.running or run.latest is None:
        return None
    return run.latest


def workspace_from_state(ss: Mapping[str, Any], data: ActiveData) -> Workspace:
    """The workspace of a session: ``data`` (the active benchmark), settings and the finished result."""
    settings: dict[str, Any] = {k: _jsonable(ss[k]) for k in SETTINGS if k in ss}
    settings[APP] = {
        "title": data.title, "source": data.source, "description": data.description, "metric": data.metric,
        "citation": data.citation,
        "specs": {n: {"kind": s.kind, "title": s.title, "description": s.description,
                      "columns": None if s.columns is None else list(s.columns)}
                  for n, s in data.specs.items()},
    }
    res = finished_result(ss)
    evaluations = {EVALUATION: res} if res is not None else {}
    return Workspace(data.benchmark, dict(data.tables), settings, evaluations)


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
        token=f"workspace:{digest}",
        title=str(app.get("title") or b.name),
        source="workspace",
        benchmark=b,
        tables=tables,
        specs=specs,
        report=b.report,
        description=str(app.get("description") or ""),
        metric=str(app.get("metric") or ""),
        citation=str(app.get("citation") or ""),
    )


def _plausible(key: str, value: Any) -> bool:
    """Whether a setting read from a file has the type of its default (others are ignored)."""
    default = state.DEFAULTS.get(key)
    if value is None or default is None:
        return value is None or isinstance(value, str | list | bool | int | float)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int | float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(default, list | tuple):
        return isinstance(value, list) and all(isinstance(v, str | int | float) for v in value)
    return isinstance(value, type(default))


def restore(ss: MutableMapping[str, Any], raw: bytes) -> ActiveData:
    """Load a workspace file into a session (benchmark, settings, evaluation result).

    Raises
    ------
    InputError
        Not a workspace file, or a damaged one; the session is left unchanged.
    """
    ws = load_workspace(raw, label="workspace file")
    digest = hashlib.sha256(raw).hexdigest()[:20]
    data = active_from_workspace(ws, digest)
    # everything parsed: now change the session
    runner.stop_run(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    ss[K.DATA] = data
    for key in state.BENCHMARK_DEPENDENT:
        ss[key] = state._copy(state.DEFAULTS[key])
    for key in SETTINGS:
        if key in ws.settings and _plausible(key, ws.settings[key]):
            v = ws.settings[key]
            ss[key] = tuple(v) if key in _TUPLES and isinstance(v, list) else v
    res = ws.evaluations.get(EVALUATION) or next(iter(ws.evaluations.values()), None)
    if res is not None:
        reps = tuple(dict.fromkeys(e.representation for e in res.entries if e.representation))
        ss[K.EV_RUN] = runner.restore_run(res, token=data.token, benchmark_name=data.benchmark.name, representations=reps).id
    else:
        ss[K.EV_RUN] = None
    return data


def _on_upload() -> None:
    key = f"ws_upload_{st.session_state.get(WS_NONCE, 0)}"
    f = st.session_state.get(key)
    if f is None:
        return
    try:
        data = restore(st.session_state, f.getvalue())
    except InputError as exc:
        state.flash("error", f"{exc} The current workspace is kept.")
        return
    st.session_state[WS_NONCE] = int(st.session_state.get(WS_NONCE, 0)) + 1
    state.flash("success", f"Loaded the workspace '{data.title}': {data.benchmark.n_datasets} datasets, "
                           f"{data.benchmark.n_models} models"
                           + (", with its evaluation result." if st.session_state.get(K.EV_RUN) else "."))


def section() -> None:
    """The sidebar's Save / Load workspace controls."""
    try:
        data = D.active()
    except InputError:
        return
    with st.sidebar:
        st.markdown("**Workspace**")
        # the values are taken now (the file is built on click, outside this script run); the
        # evaluation result is looked up in the run registry on click, so a run that ends later is included
        snap = {k: _jsonable(st.session_state[k]) for k in (*SETTINGS, K.EV_RUN) if k in st.session_state}
        st.download_button(
            "Save workspace", lambda: workspace_bytes(snap, data), file_name=file_name(data),
            mime="application/zip", icon=":material/save:", key="ws_save", width="stretch",
            help="One file with the benchmark, its descriptor tables, your settings and the finished "
                 "evaluation result. Load it later to continue where you left off.",
        )
        st.file_uploader(
            "Load workspace", type=["subsetsel"], key=f"ws_upload_{st.session_state.get(WS_NONCE, 0)}",
            on_change=_on_upload, help="A .subsetsel file saved by this app; it replaces the current workspace.",
        )
