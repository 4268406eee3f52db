"""Save the whole workspace to one file and load it back (sidebar section).

The file is :func:`subsetsel_core.workspace.files.save_workspace`'s safe zip: the active
benchmark, its descriptor tables, the session's settings (the keys of
:data:`subsetsel_app.state.KEYS` marked ``saved_in_workspace``) and the finished
evaluation result with the permutation test after it. Loading it restores all of that into
the session: the benchmark becomes the active one, the settings their widgets' values, and
the evaluation result is shown on the Evaluate page as a finished run, with its verdict.

A session's evaluation goes into its workspace only when it was run on the active benchmark
(its run's token is the benchmark's): after a switch the file holds the new benchmark without
the old run. The core stores each evaluation with its benchmark's digest and leaves out, with
a note (:attr:`Restored.dropped`), one that belongs to another benchmark.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from subsetsel_app import jobs, limits, session, state
from subsetsel_app.active_data import ActiveData
from subsetsel_app.provenance import workspace_provenance
from subsetsel_app.settings_check import check_app_description, check_settings
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.result import EvaluationResult
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.loading.manifest import RepresentationSpec
from subsetsel_core.representations.descriptors import load_descriptors
from subsetsel_core.workspace.files import Workspace, load_workspace, save_workspace

#: Name of the evaluation result inside the file.
EVALUATION = "evaluation"
#: Where the app's own description of the benchmark goes in the settings.
APP = "_app"
SUFFIX = ".subsetsel"


def finished_result(ss: Mapping[str, Any], data: ActiveData | None = None) -> EvaluationResult | None:
    """The session's evaluation result if its run has ended (finished or stopped); with ``data``,
    only if the run was made on that benchmark."""
    job = jobs.get(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    if job is None or job.running or job.result is None:
        return None
    if data is not None and getattr(job.request, "token", None) != data.token:
        return None
    return job.result


def finished_permutation(ss: Mapping[str, Any]) -> PermutationTest | None:
    """The finished permutation test that followed the session's evaluation, if any."""
    run = ss[K.EV_RUN] if K.EV_RUN in ss else None
    job = jobs.get(jobs.permutation_key(run)) if run else None
    return job.result if job is not None and job.status == "done" else None


def workspace_from_state(ss: Mapping[str, Any], data: ActiveData) -> Workspace:
    """The workspace of a session: ``data`` (the active benchmark), settings, the finished
    result of a run on ``data`` and the permutation test after it, and its provenance
    (:func:`subsetsel_app.provenance.workspace_provenance`)."""
    settings: dict[str, Any] = state.saved(ss)
    settings[APP] = {
        "title": data.title, "source": data.source, "description": data.description, "metric": data.metric,
        "citation": data.citation,
        "specs": {n: {"kind": s.kind, "title": s.title, "description": s.description,
                      "columns": None if s.columns is None else list(s.columns)}
                  for n, s in data.specs.items()},
        "reading": None if data.reading is None else data.reading.to_dict(),
    }
    res = finished_result(ss, data)
    test = finished_permutation(ss) if res is not None else None
    seed = settings.get(K.SEED)
    prov = workspace_provenance(data, state.saved(ss), seed=seed if isinstance(seed, int) else None,
                                config=res.config if res is not None else None)
    return Workspace(data.benchmark, dict(data.tables), settings, {EVALUATION: res} if res is not None else {},
                     permutation_tests={EVALUATION: test} if test is not None else {}, provenance=prov)


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
    raw = app.get("reading")
    reading = None if raw is None else ScoreFormat.from_dict(raw, label="workspace file: _app.reading")
    return ActiveData(
        token=f"workspace:{digest}", title=str(app.get("title") or b.name), source="workspace", benchmark=b,
        tables=tables, specs=specs, report=b.report, description=str(app.get("description") or ""),
        metric=str(app.get("metric") or ""), citation=str(app.get("citation") or ""),
        missing=reading.missing if reading is not None else "partial" if b.partial else "error",
        reading=reading,
    )


@dataclass(frozen=True)
class Restored:
    """A workspace loaded into a session.

    Attributes
    ----------
    data : ActiveData
        The benchmark, now the active one.
    reset : list of (key, old value, default)
        The settings the load reset to their defaults because the file does not hold them
        and the user had changed them (:func:`subsetsel_app.state.reset_for_new_benchmark`).
    dropped : tuple of str
        What the file held that was not loaded, and why (an evaluation of another benchmark).
    """

    data: ActiveData
    reset: list[tuple[str, Any, Any]]
    dropped: tuple[str, ...] = ()


def restore(ss: MutableMapping[str, Any], raw: bytes) -> ActiveData:
    """Load a workspace file into a session (benchmark, settings, evaluation result).

    Raises
    ------
    InputError
        Not a workspace file, a damaged one, or settings out of their widgets' ranges
        (:mod:`subsetsel_app.settings_check`); the session is left unchanged.
    """
    ws = load_workspace(raw, label="workspace file")
    return restore_workspace(ss, ws, hashlib.sha256(raw).hexdigest()[:20]).data


def restore_workspace(ss: MutableMapping[Any, Any], ws: Workspace, digest: str, *, label: str = "workspace file",
                      adjust: Callable[[ActiveData], ActiveData] | None = None) -> Restored:
    """Load a read workspace into a session (see :func:`restore`); ``adjust`` may change the
    :class:`ActiveData` made of it before the session sees it.

    Raises
    ------
    InputError
        Settings out of their widgets' ranges, a damaged description; the session is left unchanged.
    """
    check_settings(ws.settings, ws.benchmark.n_datasets, label)
    check_app_description(ws.settings.get(APP), tuple(ws.descriptors), label)
    data = active_from_workspace(ws, digest)
    data = adjust(data) if adjust is not None else data
    old = ss.get(K.DATA)
    auto = session.filled_in(old, ss) if old is not None else {}
    # everything parsed: now change the session
    jobs.stop(ss[K.EV_RUN] if K.EV_RUN in ss else None)
    ss[K.DATA] = data
    reset = state.reset_for_new_benchmark(ss, auto=auto)
    for key in state.SAVED:
        if key in ws.settings and state.plausible(key, ws.settings[key]):
            ss[key] = state.restored(key, ws.settings[key])
    reset = [c for c in reset if c[0] not in ws.settings]
    name = EVALUATION if EVALUATION in ws.evaluations else next(iter(ws.evaluations), None)
    ss[K.EV_RUN] = None
    if name is not None:
        res = ws.evaluations[name]
        reps = tuple(dict.fromkeys(e.representation for e in res.entries if e.representation))
        ss[K.EV_RUN] = jobs.restore_evaluation(res, token=data.token, benchmark_name=data.benchmark.name,
                                               representations=reps, permutation=ws.permutation_tests.get(name)).key
    return Restored(data, reset, tuple(ws.dropped))


def _uploader_key() -> str:
    return f"ws_upload_{st.session_state.get(K.WS_NONCE, 0)}"


def _on_upload() -> None:
    f = st.session_state.get(_uploader_key())
    if f is None:
        return
    try:
        limits.check_upload(f.name, f.size)
        raw = f.getvalue()
        loaded = restore_workspace(st.session_state, load_workspace(raw, label="workspace file"),
                                   hashlib.sha256(raw).hexdigest()[:20])
    except InputError as exc:
        state.flash("error", f"{exc} The current workspace is kept.")
        return
    except Exception as exc:  # noqa: BLE001 - a file that passed every check and still fails: a message, not a trace
        state.flash("error", f"workspace file: cannot be loaded ({type(exc).__name__}); please report it. "
                             "The current workspace is kept.")
        return
    st.session_state[K.WS_NONCE] = int(st.session_state.get(K.WS_NONCE, 0)) + 1
    data = loaded.data
    state.flash("success", f"Loaded the workspace '{data.title}': {data.benchmark.n_datasets} datasets, "
                           f"{data.benchmark.n_models} models"
                           + (", with its evaluation result." if st.session_state.get(K.EV_RUN) else "."))
    if loaded.reset:
        state.flash("info", state.reset_notice(loaded.reset))
    for note in loaded.dropped:
        state.flash("info", note)


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
        st.file_uploader(  # (the callback checks the size: widgets.file_uploader would import this module back)
            "Load workspace", type=["subsetsel"], key=_uploader_key(), on_change=_on_upload,
            max_upload_size=limits.widget_mb(),
            help="A .subsetsel file saved by this app; it replaces the current workspace.",
        )
