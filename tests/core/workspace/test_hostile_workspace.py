"""Hostile workspace files: every one refused with a clear message, in the library and the dashboard.

A valid workspace is taken apart and rebuilt with one defect each: a damaged zip (bad CRC,
cut short, a part twice), missing or unknown keys, wrong types (``"higher_is_better":
"false"``), wrong array shapes or dtypes, ``.npy`` headers declaring huge arrays, duplicate
names, out-of-range settings, absurd JSON. The library raises an ``InputError`` naming the
file (field ``workspace``) and allocates nothing the archive does not hold; the dashboard
shows the message, keeps the active benchmark, and never an exception box.
"""

from __future__ import annotations

import io
import json
import struct
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_descriptors, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.workspace.files import VERSION, Workspace, load_workspace, save_workspace


@pytest.fixture(scope="module")
def good() -> bytes:
    s = make_synthetic(n_datasets=12, n_models=5, n_folds=2, seed=3)
    bench = load_scores(s.scores, higher_is_better=True, name="syn")
    desc = load_descriptors(s.oracle.iloc[:, :4])
    rep = build_representation(desc, bench.datasets, name="oracle")
    res = evaluate(bench, rep, EvaluationConfig(strategies=("random", "kmeans"), trials=4, k_max=5))
    return save_workspace(Workspace(bench, {"oracle": desc}, {"seed": 3, "sel_k": 4}, {"run": res}))


def parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def rebuild(data: bytes, meta: Callable[[dict[str, Any]], Any] | None = None,
            replace: dict[str, bytes] | None = None, drop: tuple[str, ...] = (),
            extra: tuple[tuple[str, bytes], ...] = ()) -> bytes:
    """The workspace with its workspace.json edited, parts replaced, dropped or added."""
    p = parts(data)
    if meta is not None:
        m = json.loads(p["workspace.json"])
        out = meta(m)
        p["workspace.json"] = out if isinstance(out, bytes) else json.dumps(m).encode()
    p.update(replace or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, payload in p.items():
            if name not in drop:
                z.writestr(name, payload)
        with warnings.catch_warnings():  # a part twice is the point of some cases
            warnings.simplefilter("ignore", UserWarning)
            for name, payload in extra:
                z.writestr(name, payload)
    return buf.getvalue()


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=True)
    return buf.getvalue()


def huge_header(shape: tuple[int, ...] = (100000, 10000, 1000)) -> bytes:
    """A .npy declaring 10¹² float64 (by default), with 16 bytes of data."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + repr(shape) + ", }"
    header += " " * (118 - len(header)) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\x00" * 16


def bad_crc(data: bytes) -> bytes:
    """The archive with one byte of scores.npy's compressed data changed."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo("scores.npy")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw = bytearray(data)
    raw[start + info.compress_size // 2] ^= 0xFF
    return bytes(raw)


def set_(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(m: dict[str, Any]) -> None:
        *head, last = path.split(".")
        target = m
        for key in head:
            target = target[key] if not key.isdigit() else target[int(key)]
        if value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return edit


_DELETE = object()


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[bytes], bytes]
    needle: str


CASES = [
    Case("bad CRC", bad_crc, "damaged"),
    Case("cut short", lambda d: d[: len(d) // 2], "zip"),
    Case("no workspace.json", lambda d: rebuild(d, drop=("workspace.json",)), "no workspace.json"),
    Case("a part twice", lambda d: rebuild(d, extra=(("scores.npy", b"x"),)), "twice"),
    Case("not JSON", lambda d: rebuild(d, meta=lambda m: b"{oops"), "damaged"),
    Case("missing benchmark", lambda d: rebuild(d, meta=set_("benchmark", _DELETE)), "'benchmark' is missing"),
    Case("unknown key", lambda d: rebuild(d, meta=set_("surprise", 1)), "'surprise' is not a known field"),
    Case("unknown benchmark key", lambda d: rebuild(d, meta=set_("benchmark.extra", 1)), "not a known field"),
    Case("higher_is_better as text", lambda d: rebuild(d, meta=set_("benchmark.higher_is_better", "false")),
         "must be true or false"),
    Case("version as text", lambda d: rebuild(d, meta=set_("version", "1")), "'version' must be a whole number"),
    Case("newer version", lambda d: rebuild(d, meta=set_("version", 99)), "newer subsetsel"),
    Case("datasets not a list", lambda d: rebuild(d, meta=set_("benchmark.datasets", "d0,d1")), "list of names"),
    Case("duplicate dataset", lambda d: rebuild(d, meta=lambda m: m["benchmark"]["datasets"].__setitem__(1, m[
        "benchmark"]["datasets"][0])), "twice"),
    Case("empty model name", lambda d: rebuild(d, meta=lambda m: m["benchmark"]["models"].__setitem__(0, " ")),
         "is empty"),
    Case("one model too few", lambda d: rebuild(d, meta=lambda m: m["benchmark"]["models"].pop()), "shape"),
    Case("scores 2-D", lambda d: rebuild(d, replace={"scores.npy": npy(np.zeros((12, 5)))}), "dimension"),
    Case("scores of text", lambda d: rebuild(d, replace={"scores.npy": npy(np.array([["a"]]))}), "dtype"),
    Case("scores pickled", lambda d: rebuild(d, replace={"scores.npy": npy(np.array([object()], dtype=object))}),
         "not a plain numeric array"),
    Case("scores with NaN", lambda d: rebuild(d, replace={"scores.npy": npy(np.full((12, 2, 5), np.nan))}), "NaN"),
    Case("huge npy header", lambda d: rebuild(d, replace={"scores.npy": huge_header()}), "declares"),
    Case("huge evaluation header", lambda d: rebuild(d, replace={"evaluations/0/0_spearman.npy": huge_header(
        (10**6, 10**6))}), "declares"),
    Case("npy data cut short", lambda d: rebuild(d, replace={"scores.npy": npy(np.zeros((12, 2, 5)))[:-8]}),
         "declares"),
    Case("negative seed", lambda d: rebuild(d, meta=set_("evaluations.run.config.seed", -1)), "seed"),
    Case("seed as float", lambda d: rebuild(d, meta=set_("evaluations.run.config.seed", 1.5)), "whole number"),
    Case("alpha 0", lambda d: rebuild(d, meta=set_("evaluations.run.config.alpha", 0)), "alpha"),
    Case("unknown strategy", lambda d: rebuild(d, meta=set_("evaluations.run.config.strategies", ["nope"])),
         "not one of"),
    Case("trials_done over trials", lambda d: rebuild(d, meta=set_("evaluations.run.trials_done", 400)),
         "trials_done"),
    Case("complete but short", lambda d: rebuild(d, meta=set_("evaluations.run.trials_done", 2)), "complete"),
    Case("ks decreasing", lambda d: rebuild(d, meta=set_("evaluations.run.ks", [5, 4, 3, 2])), "increase"),
    Case("k past the datasets", lambda d: rebuild(d, meta=set_("evaluations.run.ks", [2, 3, 4, 99])), "ks[3]"),
    Case("entry key twice", lambda d: rebuild(d, meta=lambda m: m["evaluations"]["run"]["entries"].__setitem__(
        1, dict(m["evaluations"]["run"]["entries"][0]))), "twice"),
    Case("values of the wrong shape", lambda d: rebuild(d, replace={"evaluations/0/0_spearman.npy": npy(
        np.zeros((3, 4)))}), "shape"),
    Case("values out of range", lambda d: rebuild(d, replace={"evaluations/0/0_spearman.npy": npy(
        np.full((4, 4), 5.0))}), "outside"),
    Case("descriptor table missing", lambda d: rebuild(d, drop=("descriptors/0.csv",)), "no part"),
    Case("descriptor dataset twice", lambda d: rebuild(d, replace={"descriptors/0.csv": b"dataset,x\na,1\na,2\n"}),
         "twice"),
    Case("descriptor without dataset", lambda d: rebuild(d, replace={"descriptors/0.csv": b"name,x\na,1\n"}),
         "no 'dataset' column"),
    Case("recipe of an unknown table", lambda d: rebuild(d, meta=set_("recipes", {"r": {"tables": ["nope"]}})),
         "not a descriptor table"),
    Case("recipe mistyped", lambda d: rebuild(d, meta=set_("recipes", {"r": {"tables": "oracle"}})), "recipe"),
    Case("deep JSON", lambda d: rebuild(d, meta=lambda m: json.dumps(m).replace(
        '"settings": {', '"settings": {"deep": ' + "[" * 5000 + "]" * 5000 + ", ").encode()), "nested"),
    Case("huge integer", lambda d: rebuild(d, meta=lambda m: json.dumps(m).replace(
        f'"version": {VERSION}', f'"version": {VERSION}' + "0" * 5000).encode()), "cannot be read"),
    Case("NaN in JSON", lambda d: rebuild(d, meta=lambda m: json.dumps(m).replace(
        '"alpha": 0.8', '"alpha": NaN').encode()), "not a JSON number"),
    Case("duplicate JSON key", lambda d: rebuild(d, meta=lambda m: json.dumps(m).replace(
        f'"version": {VERSION}', f'"version": {VERSION}, "version": {VERSION}').encode()), "given twice"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_library_refuses_with_a_clear_message(case: Case, good: bytes) -> None:
    data = case.make(good)
    with pytest.raises(InputError) as exc:
        load_workspace(data, label="mine.subsetsel")
    msg = str(exc.value)
    assert exc.value.field == "workspace"
    assert case.needle.lower() in msg.lower(), msg
    assert len(msg) < 600


def test_the_good_file_loads(good: bytes) -> None:
    ws = load_workspace(good)
    assert ws.benchmark.n_datasets == 12 and set(ws.evaluations) == {"run"} and set(ws.descriptors) == {"oracle"}


def test_a_zip_bomb_is_refused_before_decompressing(good: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_MAX_TABLE_MB", "1")  # 4 MB for the whole archive
    bomb = rebuild(good, extra=(("padding.bin", b"\0" * (6 * 2**20)),))
    assert len(bomb) < 100_000
    with pytest.raises(InputError, match="unpacks to"):
        load_workspace(bomb)


def test_devices_and_pipes_are_refused_or_capped(tmp_path: Any) -> None:
    with pytest.raises(InputError, match="device"):
        load_workspace("/dev/zero")
    import os
    import threading

    fifo = tmp_path / "w.subsetsel"
    os.mkfifo(fifo)
    threading.Thread(target=lambda: fifo.write_bytes(b"not a zip"), daemon=True).start()
    with pytest.raises(InputError, match="zip"):
        load_workspace(fifo)


def test_strings_names_and_descriptors_round_trip_with_hostile_names() -> None:
    s = make_synthetic(n_datasets=6, n_models=3, n_folds=1, seed=1)
    names = ["+aug", "@risk", "-minus", "=cmd()", "a;=b", "plain"]
    sc = s.scores.copy()
    mapping = dict(zip(sorted(sc["dataset"].unique()), names, strict=True))
    sc["dataset"] = sc["dataset"].map(mapping)
    bench = load_scores(sc)
    table = s.oracle.iloc[:, :4].copy()
    table["dataset"] = table["dataset"].map(mapping)
    table["note"] = ["=x", "-1", "+y", "@z", "t", "-0.5"]
    desc = load_descriptors(table)
    back = load_workspace(save_workspace(Workspace(bench, {"d": desc})))
    assert back.benchmark.datasets == bench.datasets
    assert sorted(back.descriptors["d"].index) == sorted(names)
    assert sorted(back.descriptors["d"]["note"]) == sorted(["=x", "-1", "+y", "@z", "t", "-0.5"])
    with zipfile.ZipFile(io.BytesIO(save_workspace(Workspace(bench, {"d": desc})))) as z:
        text = z.read("descriptors/0.csv").decode()
    assert "\n=" not in text and ",=" not in text and "\n+" not in text


# --------------------------------------------------------------------------- the dashboard

DASHBOARD_CASES = [c for c in CASES if c.name in {
    "bad CRC", "cut short", "higher_is_better as text", "duplicate dataset", "scores 2-D", "huge npy header",
    "negative seed", "values out of range", "deep JSON", "huge integer"}]


def _settings_case(edit: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    return lambda d: rebuild(d, meta=edit)


SETTINGS_CASES = [
    Case("setting: negative seed", _settings_case(set_("settings.seed", -1)), "'seed'"),
    Case("setting: seed as text", _settings_case(set_("settings.seed", "3")), "'seed'"),
    Case("setting: trials over the widget", _settings_case(set_("settings.ev_trials", 9000)), "'ev_trials'"),
    Case("setting: alpha NaN-like", _settings_case(set_("settings.ev_alpha", 0.0)), "'ev_alpha'"),
    Case("setting: k range reversed", _settings_case(set_("settings.ev_krange", [9, 2])), "'ev_krange'"),
    Case("setting: text as a flag", _settings_case(set_("settings.rep_text", "false")), "'rep_text'"),
    Case("setting: unknown strategy", _settings_case(set_("settings.sel_strategy", "nope")), "'sel_strategy'"),
    Case("setting: unknown table kind", _settings_case(set_("settings._app", {"specs": {"oracle": {"kind": "x"}}})),
         "kind"),
]


@pytest.mark.parametrize("case", [*CASES, *SETTINGS_CASES], ids=lambda c: c.name)
def test_dashboard_restore_refuses_and_leaves_the_session(case: Case, good: bytes) -> None:
    import apphelpers  # noqa: F401 - puts the repository root on sys.path

    from subsetsel_app.views import workspace

    session: dict[str, Any] = {"data": "before", "seed": 0}
    with pytest.raises(InputError) as exc:
        workspace.restore(session, case.make(good))
    assert case.needle.lower() in str(exc.value).lower(), str(exc.value)
    assert session == {"data": "before", "seed": 0}


@pytest.mark.parametrize("case", [*DASHBOARD_CASES[:5], *SETTINGS_CASES[:3]], ids=lambda c: c.name)
def test_dashboard_shows_a_message_and_keeps_the_benchmark(case: Case, good: bytes) -> None:
    import apphelpers as H

    at = H.new_app()
    before = at.session_state["data"]
    at.file_uploader(key="ws_upload_0").set_value((f"{case.name}.subsetsel", case.make(good), "application/zip"))
    at.run()
    errs = [str(e.value) for e in at.error]
    assert not at.exception, [e.value for e in at.exception]
    assert any(case.needle.lower() in e.lower().replace("\\", "") and "current workspace is kept" in e
               for e in errs), errs
    assert at.session_state["data"] is before


def test_dashboard_loads_the_good_file(good: bytes) -> None:
    import apphelpers as H

    at = H.new_app()
    at.file_uploader(key="ws_upload_0").set_value(("good.subsetsel", good, "application/zip"))
    at.run()
    assert not at.exception and at.session_state["data"].benchmark.n_datasets == 12
    assert at.session_state["seed"] == 3
