"""The server-side store of kept sessions (subsetsel_app.session_store) and the permutation
test in a workspace file: ids, caps, expiry, isolation, damaged entries."""

from __future__ import annotations

import json
import os
import stat
import time

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pytest

from subsetsel_app import session_store as S
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.workspace.files import Workspace, load_workspace, save_workspace

assert H.ROOT  # the import is for its side effect


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def _store(tmp_path, **kw) -> S.SessionStore:
    return S.SessionStore(tmp_path / "sessions", **kw)


def test_ids_are_random_url_safe_and_checked_before_any_path():
    ids = {S.new_id() for _ in range(200)}
    assert len(ids) == 200 and all(S.valid_id(i) and len(i) == 22 for i in ids)
    for bad in ("", "short", "a" * 21, "a" * 23, "../../../../etc/passwd", "a" * 20 + "/.", "a" * 21 + "\n",
                "ä" * 22, "a" * 21 + ".", None, 12, ["a" * 22]):
        assert not S.valid_id(bad), bad


def test_put_get_delete_and_file_modes(tmp_path):
    store = _store(tmp_path)
    sid = S.new_id()
    assert store.get(sid) is None
    assert store.put(sid, b"payload")
    got = store.get(sid)
    assert got is not None and got.data == b"payload" and abs(got.saved - time.time()) < 60
    path = store.folder / f"{sid}{S.SUFFIX}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert [p.name for p in store.folder.iterdir()] == [path.name]  # no temporary file left
    store.delete(sid)
    assert store.get(sid) is None


def test_an_invalid_id_is_never_a_path(tmp_path):
    store = _store(tmp_path)
    (tmp_path / "secret.subsetsel").write_bytes(b"not yours")
    assert store.get("../secret") is None and store.get("..%2Fsecret") is None
    with pytest.raises(ValueError):
        store.put("../secret", b"x")
    store.delete("../secret")
    assert (tmp_path / "secret.subsetsel").read_bytes() == b"not yours"


def test_sessions_are_isolated(tmp_path):
    store = _store(tmp_path)
    a, b = S.new_id(), S.new_id()
    store.put(a, b"alice")
    store.put(b, b"bob")
    assert store.get(a).data == b"alice" and store.get(b).data == b"bob"
    assert store.get(S.new_id()) is None  # an id nobody was given reads nothing
    assert not [n for n in dir(store) if "list" in n.lower()]  # and there is no way to list the ids


def test_entry_cap_and_lru_eviction(tmp_path):
    clock = Clock()
    store = _store(tmp_path, max_total=4000, clock=clock)
    assert store.max_entry == 1000
    assert not store.put(S.new_id(), b"x" * 1001)  # over the entry cap: not kept
    ids = [S.new_id() for _ in range(5)]
    for i, sid in enumerate(ids[:4]):
        clock.now += 10
        assert store.put(sid, bytes([i]) * 1000)
    clock.now += 10
    assert store.get(ids[0]) is not None  # used again: now the most recent
    clock.now += 10
    assert store.put(ids[4], b"e" * 1000)  # 5000 > 4000: the one idle longest goes
    assert store.get(ids[1]) is None
    assert all(store.get(s) is not None for s in (ids[0], ids[2], ids[3], ids[4]))
    assert sum(p.stat().st_size for p in store.folder.iterdir()) <= 4000


def test_expiry_after_idle_days(tmp_path):
    clock = Clock()
    store = _store(tmp_path, max_idle=7 * 86400, clock=clock)
    old, used = S.new_id(), S.new_id()
    store.put(old, b"old")
    store.put(used, b"used")
    clock.now += 5 * 86400
    assert store.get(used) is not None  # a read counts as use
    clock.now += 3 * 86400
    assert store.get(old) is None and not (store.folder / f"{old}{S.SUFFIX}").exists()
    assert store.get(used) is not None
    clock.now += 8 * 86400
    store.sweep()
    assert list(store.folder.iterdir()) == []


def test_the_cleanup_deletes_only_its_own_entries(tmp_path):
    import os

    clock = Clock()
    store = _store(tmp_path, max_idle=86400, clock=clock)
    store.put(S.new_id(), b"entry")
    others = [store.folder / "results.subsetsel", store.folder / f"notes{S.SUFFIX}", store.folder / "x.txt"]
    for p in others:  # a user's workspace file, a name that is no session id, anything else
        p.write_bytes(b"keep me")
        os.utime(p, (0, 0))  # far older than the expiry
    clock.now += 3 * 86400
    store.sweep()
    assert sorted(p.name for p in store.folder.iterdir()) == sorted(p.name for p in others)


def test_configuration_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SUBSETSEL_NO_STATE", "1")
    assert S.SessionStore.from_env() is None and S.store_dir() is None
    monkeypatch.setenv("SUBSETSEL_NO_STATE", "0")
    monkeypatch.setenv("SUBSETSEL_STATE_DIR", str(tmp_path / "here"))
    monkeypatch.setenv("SUBSETSEL_STATE_MB", "8")
    monkeypatch.setenv("SUBSETSEL_STATE_DAYS", "2")
    store = S.SessionStore.from_env()
    assert store is not None and store.folder == tmp_path / "here"
    assert store.max_total == 8 * 2**20 and store.max_entry == 2 * 2**20 and store.days == 2
    monkeypatch.delenv("SUBSETSEL_STATE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("SUBSETSEL_STATE_DAYS", "soon")
    store = S.SessionStore.from_env()
    assert store.folder == tmp_path / "cache" / "subsetsel" / "sessions" and store.days == S.DEFAULT_DAYS


def test_unknown_invalid_and_damaged_entries_give_a_note_and_leave_the_session(tmp_path):
    from subsetsel_app import persist

    store = _store(tmp_path)
    ss: dict = {"seed": 3}
    level, text = persist.restore_into(ss, store, S.new_id())
    assert level == "info" and "unknown or has expired" in text and "7 days" in text
    level, text = persist.restore_into(ss, store, "../../etc/passwd")
    assert level == "warning" and "not a valid id" in text
    for damaged in (b"", b"garbage", b"PK\x03\x04" + os.urandom(200)):
        sid = S.new_id()
        store.put(sid, damaged)
        level, text = persist.restore_into(ss, store, sid)
        assert level == "warning" and "could not be restored" in text and "fresh session" in text, text
        assert store.get(sid) is None  # the damaged entry is gone
    assert ss == {"seed": 3}


# --------------------------------------------------------------------------- the permutation test in a workspace


def _tested_result():
    from subsetsel_core.evaluation.permutation import permutation_test
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.result import EvaluationConfig
    from subsetsel_core.representations.descriptors import Representation

    rng = np.random.default_rng(0)
    bench = Benchmark(rng.normal(size=(12, 1, 5)), tuple(f"d{i:02d}" for i in range(12)),
                      tuple(f"m{i}" for i in range(5)))
    rep = Representation("feat", rng.normal(size=(12, 3)), ("a", "b", "c"), bench.datasets)
    cfg = EvaluationConfig(strategies=("random", "fafi-euclidean", "fafi-cosine"), trials=4, k_min=2, k_max=6, seed=1)
    res = evaluate(bench, {"feat": rep}, cfg)
    pt = permutation_test(bench, {"feat": rep}, cfg, permutations=9, observed=res)
    return bench, res, pt


def test_workspace_keeps_the_permutation_test():
    bench, res, pt = _tested_result()
    raw = save_workspace(Workspace(bench, evaluations={"evaluation": res}, permutation_tests={"evaluation": pt}))
    back = load_workspace(raw).permutation_tests["evaluation"]
    assert json.dumps(back.to_json_dict()) == json.dumps(pt.to_json_dict())
    assert (back.keys, back.metrics, back.permutations, back.trials, back.seed, back.drawn, back.complete) == \
        (pt.keys, pt.metrics, pt.permutations, pt.trials, pt.seed, pt.drawn, pt.complete)
    np.testing.assert_array_equal(back.ks, pt.ks)
    assert load_workspace(save_workspace(Workspace(bench, evaluations={"evaluation": res}))).permutation_tests == {}


@pytest.mark.parametrize(("edit", "message"), [
    (lambda p: p.update(keys=["random"]), "'evaluations.evaluation.permutation.keys' names 'random'"),
    (lambda p: p.update(seed=99), "is not the seed of the evaluation"),
    (lambda p: p.update(ks=[1, 2]), "are not the subset sizes"),
    (lambda p: p["p_adjusted"][next(iter(p["p_adjusted"]))].update(spearman=1.5), "outside 0…1"),
    (lambda p: p["null"][next(iter(p["null"]))].update(spearman=["x"]), "must be a finite number"),
    (lambda p: p.update(extra=1), "is not a known field"),
    (lambda p: p.pop("drawn"), "'evaluations.evaluation.permutation.drawn' is missing"),
])
def test_a_damaged_permutation_test_is_refused(edit, message):
    import io
    import zipfile

    bench, res, pt = _tested_result()
    raw = save_workspace(Workspace(bench, evaluations={"evaluation": res}, permutation_tests={"evaluation": pt}))
    zin = zipfile.ZipFile(io.BytesIO(raw))
    meta = json.loads(zin.read("workspace.json"))
    edit(meta["evaluations"]["evaluation"]["permutation"])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in zin.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else zin.read(info))
    with pytest.raises(InputError, match=message.replace(".", r"\.").replace("'", "'")):
        load_workspace(out.getvalue())


def _rewritten(raw: bytes, edit) -> bytes:  # type: ignore[no-untyped-def]
    import io
    import zipfile

    zin = zipfile.ZipFile(io.BytesIO(raw))
    meta = json.loads(zin.read("workspace.json"))
    edit(meta["evaluations"]["evaluation"]["permutation"])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in zin.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else zin.read(info))
    return out.getvalue()


def test_a_workspace_of_the_holm_version_is_read_by_maxt_or_refused():
    from subsetsel_core.evaluation.maxt import adjusted_p

    bench, res, pt = _tested_result()
    raw = save_workspace(Workspace(bench, evaluations={"evaluation": res}, permutation_tests={"evaluation": pt}))

    def old(p):  # type: ignore[no-untyped-def]
        p["p_holm"] = p.pop("p_adjusted")
        p.pop("stopped")

    back = load_workspace(_rewritten(raw, old)).permutation_tests["evaluation"]
    null = np.column_stack([pt.null[k]["spearman"] for k in pt.keys])
    want = adjusted_p(np.array([pt.gain[k]["spearman"] for k in pt.keys]), null)
    assert [back.p_adjusted[k]["spearman"] for k in pt.keys] == want.tolist()

    def ragged(p):  # type: ignore[no-untyped-def]
        old(p)
        p["null"][next(iter(p["null"]))]["spearman"] = p["null"][next(iter(p["null"]))]["spearman"][:-1]

    with pytest.raises(InputError, match="older version"):
        load_workspace(_rewritten(raw, ragged))
