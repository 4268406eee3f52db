"""Result files as untrusted input: hostile values, wrong types, unreadable files and
duplicates, each an error naming the file and key (or, with ``--skip-unreadable``, a
printed warning listing the files skipped) — never a traceback, a Python repr as a name or
a silent drop. One table of cases, in the shapes a user or an attacker would send."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.result_folders import read_results

HUGE = "9" * 5000


def _lm(model: str, tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"results": tasks, "versions": {t: 1 for t in tasks},
            "config": {"model": "hf", "model_args": f"pretrained={model}"}, **extra}


def _mteb(task: Any, scores: Any) -> dict[str, Any]:
    return {"task_name": task, "mteb_version": "1.20.0", "dataset_revision": "x", "scores": scores,
            "evaluation_time": 1.0}


def _sub(x: Any, sub: str = "default") -> dict[str, Any]:
    return {"hf_subset": sub, "languages": ["eng-Latn"], "main_score": x, "ndcg_at_10": x}


def _eee(model: Any, results: list[Any], stamp: str = "1770000000.5") -> dict[str, Any]:
    return {"schema_version": "0.3.0", "evaluation_id": "x", "retrieved_timestamp": stamp,
            "model_info": {"name": "m", "id": model}, "evaluation_results": results}


def _res(name: Any, x: Any, lo: float = 0.0, hi: float = 1.0) -> dict[str, Any]:
    return {"evaluation_name": name, "source_data": {"dataset_name": "d", "source_type": "url", "url": ["u"]},
            "metric_config": {"metric_name": "accuracy", "lower_is_better": False, "min_score": lo, "max_score": hi},
            "score_details": {"score": x}}


def _lm_folder(root: Path, bad: str) -> None:
    """Two good runs and one file whose text is ``bad``."""
    for m, x in (("org/a", 0.5), ("org/b", 0.6)):
        _put(root / m.replace("/", "__") / "results.json", json.dumps(_lm(m, {"t1": {"acc": x}, "t2": {"acc": x},
                                                                                   "t3": {"acc": x / 2}})))
    _put(root / "org__c" / "results.json", bad)


def _put(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


def _mteb_folder(root: Path, data: Any, name: str = "T.json") -> None:
    for m, x in (("org__a", 0.5), ("org__b", 0.6)):
        _put(root / m / "rev" / "T.json", json.dumps(_mteb("T", {"test": [_sub(x)]})))
        _put(root / m / "rev" / "U.json", json.dumps(_mteb("U", {"test": [_sub(x)]})))
    _put(root / "org__c" / "rev" / name, data if isinstance(data, str) else json.dumps(data))


def _good_lm(x: str) -> str:
    return json.dumps(_lm("org/c", {"t1": {"acc": 0.1}, "t2": {"acc": 0.2}, "t3": {"acc": 0.3}})).replace("0.1", x)


#: (case, how the folder is made, what the error must say)
CASES: list[tuple[str, Callable[[Path], None], str]] = [
    ("a number of thousands of digits", lambda r: _lm_folder(r, _good_lm(HUGE)),
     r"org__c/results.json: 'results.t1.acc' is a number of 5000 digits, not a score"),
    ("NaN", lambda r: _lm_folder(r, _good_lm("NaN")), r"org__c/results.json: 'results.t1.acc' is NaN"),
    ("Infinity", lambda r: _lm_folder(r, _good_lm("-Infinity")), r"'results.t1.acc' is -Infinity"),
    ("1e999", lambda r: _lm_folder(r, _good_lm("1e999")), r"'results.t1.acc' is an infinite number \(beyond the range"),
    ("1e300", lambda r: _lm_folder(r, _good_lm("1e300")), r"'results.t1.acc' is 1e\+300, beyond"),
    ("an accuracy above 1", lambda r: _lm_folder(r, _good_lm("7.5")),
     r"org__c/results.json: 'results.t1.acc' is 7.5, outside 0–1"),
    ("a task's metrics as a list", lambda r: _lm_folder(r, json.dumps(_lm("org/c", {"t1": [0.1]}))),
     r"org__c/results.json: 'results.t1' is a list, not an object of metrics"),
    ("model_args as a list", lambda r: _lm_folder(r, json.dumps({**_lm("c", {"t1": {"acc": 0.1}}),
                                                                  "config": {"model_args": ["x"]}})),
     r"'config.model_args' is a list, not text or an object"),
    ("model_name as an object", lambda r: _lm_folder(r, json.dumps(_lm("c", {"t1": {"acc": 0.1}},
                                                                       model_name={"a": 1}))),
     r"'model_name' is an object, not text"),
    ("a JSON list instead of a results file", lambda r: _lm_folder(r, "[1, 2, 3]"),
     r"org__c/results.json: is not an lm-evaluation-harness results file"),
    ("broken JSON", lambda r: _lm_folder(r, '{"results": {'), r"org__c/results.json: is not valid JSON"),
    ("not UTF-8", lambda r: _lm_folder(r, b"\xff\xfe{\x00"), r"org__c/results.json: is not UTF-8"),
    ("an MTEB task name that is a list", lambda r: _mteb_folder(r, _mteb(["T"], {"test": [_sub(0.3)]})),
     r"org__c/rev/T.json: 'task_name' is a list, not text"),
    ("an MTEB split that is not a list", lambda r: _mteb_folder(r, _mteb("T", {"test": {"main_score": 0.3}})),
     r"'scores.test' is an object, not a list of subsets"),
    ("an MTEB hf_subset that is a number", lambda r: _mteb_folder(r, _mteb("T", {"test": [_sub(0.3, 7)]})),  # type: ignore[arg-type]
     r"'scores.test\[0\].hf_subset' is a number, not text"),
    ("an MTEB NaN main score", lambda r: _mteb_folder(r, '{"task_name": "T", "mteb_version": "1", "scores": '
                                                        '{"test": [{"hf_subset": "default", "main_score": NaN}]}}'),
     r"org__c/rev/T.json: 'scores.test\[0\].main_score' is NaN"),
    ("the same MTEB task twice in one revision", lambda r: (_mteb_folder(r, _mteb("T", {"test": [_sub(0.3)]})),
                                                            _mteb_folder(r, _mteb("T", {"test": [_sub(0.4)]}),
                                                                         "T_copy.json")),
     r"org/c has two results for task T in one revision: .*T.json and .*T_copy.json"),
    ("a score written as text", lambda r: _lm_folder(r, _good_lm('"0.1"')),
     r"org__c/results.json: 'results.t1.acc' is text \('0.1'\), not a score"),
    ("a score as a boolean", lambda r: _lm_folder(r, json.dumps(_lm("org/c", {
        "t1": {"acc": True}, "t2": {"acc": 0.2}, "t3": {"acc": 0.3}}))),
     r"org__c/results.json: 'results.t1.acc' is a boolean \(true\), not a score"),
    ("a task named by an empty string", lambda r: _lm_folder(r, _good_lm("0.1").replace('"t1"', '" "', 1)),
     r"org__c/results.json: a task in 'results' is named by an empty string \(\" \"\)"),
    ("an MTEB main score of -5 among scores from 0 to 1", lambda r: _mteb_folder(r, _mteb("T", {"test": [_sub(-5)]})),
     r"org__c/rev/T.json: 'scores.test\[0\].main_score' is -5, outside -1 to 1, where the task's other 2 models"),
    ("an MTEB task of two models, one main score in percent", lambda r: (
        _put(r / "org__a" / "rev" / "T.json", json.dumps(_mteb("T", {"test": [_sub(0.5)]}))),
        _put(r / "org__c" / "rev" / "T.json", json.dumps(_mteb("T", {"test": [_sub(61.5)]})))),
     r"org__c/rev/T.json: 'scores.test\[0\].main_score' is 61.5, outside -1 to 1, where the task's other model's"),
]


@pytest.mark.parametrize("case, make, message", CASES, ids=[c[0] for c in CASES])
def test_hostile_result_files_are_errors_naming_file_and_key(case: str, make: Callable[[Path], None],
                                                             message: str, tmp_path: Path):
    make(tmp_path / "run")
    with pytest.raises(InputError, match=message) as e:
        read_results(tmp_path / "run", label="run")
    assert "Traceback" not in str(e.value) and "ValueError" not in str(e.value)


@pytest.mark.parametrize("case, make, message", CASES[6:12], ids=[c[0] for c in CASES[6:12]])
def test_skip_unreadable_skips_each_file_with_a_warning(case: str, make: Callable[[Path], None], message: str,
                                                        tmp_path: Path):
    make(tmp_path / "run")
    t = read_results(tmp_path / "run", label="run", skip_unreadable=True)
    assert sorted(set(t.frame["model"])) == ["org/a", "org/b"]
    assert any(w.startswith("skipped 1 ") and "org__c/results.json" in w for w in t.warnings)


def test_legitimate_values_are_read(tmp_path: Path):
    """Negative correlations in MTEB, a task of speeds (every model above 1), text fields of a task
    and the same Every Eval Ever result listed twice with one score are no error."""
    for m, x, speed in (("org__a", -0.2, 900.0), ("org__b", 0.6, 1200.0), ("org__c", 0.1, 50.0)):
        _put(tmp_path / "mteb" / m / "rev" / "T.json", json.dumps(_mteb("T", {"test": [_sub(x)]})))
        _put(tmp_path / "mteb" / m / "rev" / "S.json", json.dumps(_mteb("S", {"test": [_sub(speed)]})))
    t = read_results(tmp_path / "mteb", label="mteb")
    assert sorted(t.frame[t.frame["dataset"] == "T"]["score"]) == pytest.approx([-0.2, 0.1, 0.6])
    assert sorted(t.frame[t.frame["dataset"] == "S"]["score"]) == pytest.approx([50.0, 900.0, 1200.0])
    _put(tmp_path / "eee" / "r.json", json.dumps(_eee("org/m", [_res("A", 0.4), _res("A", 0.4), _res("B", 0.2)])))
    _put(tmp_path / "eee" / "s.json", json.dumps(_eee("org/n", [_res("A", 0.3), _res("B", 0.1)])))
    t = read_results(tmp_path / "eee", label="eee")
    assert len(t.frame) == 4
    for m, x in (("org/a", 0.5), ("org/b", 0.6)):
        _put(tmp_path / "lm" / m / "r.json", json.dumps(_lm(m, {"t1": {"alias": "T one", "acc,none": x},
                                                                "t2": {"acc,none": x}})))
    t = read_results(tmp_path / "lm", label="lm")
    assert len(t.frame) == 4


def test_unused_hostile_values_are_no_error(tmp_path: Path):
    """A NaN or a huge number in a field the reading does not use changes nothing."""
    _lm_folder(tmp_path / "run", json.dumps(_lm("org/c", {"t1": {"acc": 0.1, "acc_norm": 0.2}, "t2": {"acc": 0.2},
                                                          "t3": {"acc": 0.3}})).replace('"acc_norm": 0.2',
                                                                                        f'"acc_norm": {HUGE}'))
    t = read_results(tmp_path / "run", label="run")
    assert set(t.frame["model"]) == {"org/a", "org/b", "org/c"}


def test_duplicates_are_an_error_naming_both_files_unless_the_rule_decides(tmp_path: Path):
    for name, x in (("a.json", 0.5), ("b.json", 0.7)):
        _put(tmp_path / "nodate" / name, json.dumps(_lm("org/a", {"t1": {"acc": x}, "t2": {"acc": x}})))
    _put(tmp_path / "nodate" / "c.json", json.dumps(_lm("org/c", {"t1": {"acc": 0.1}, "t2": {"acc": 0.2}})))
    with pytest.raises(InputError, match=r"org/a has two results for task t1 \(a.json and b.json\)"):
        read_results(tmp_path / "nodate", label="nodate")
    for name, x, date in (("a.json", 0.5, 1.0), ("b.json", 0.7, 2.0)):
        _put(tmp_path / "dated" / name, json.dumps(_lm("org/a", {"t1": {"acc": x}, "t2": {"acc": x}}, date=date)))
    _put(tmp_path / "dated" / "c.json", json.dumps(_lm("org/c", {"t1": {"acc": 0.1}, "t2": {"acc": 0.2}})))
    t = read_results(tmp_path / "dated", label="dated")
    assert t.frame.set_index(["dataset", "model"]).loc[("t1", "org/a"), "score"] == pytest.approx(0.7)
    assert any("kept the latest run" in w and "b.json over a.json" in w for w in t.warnings)
    # Every Eval Ever: equal retrieval times are an error naming both files
    for name in ("r1.json", "r2.json"):
        _put(tmp_path / "eee" / name, json.dumps(_eee("org/m", [_res("A", 0.4 if name == "r1.json" else 0.5)])))
    _put(tmp_path / "eee" / "r3.json", json.dumps(_eee("org/n", [_res("A", 0.3)])))
    with pytest.raises(InputError, match=r"org/m has two results for task A \(r1.json and r2.json\)"):
        read_results(tmp_path / "eee", label="eee")


@pytest.mark.parametrize("record, message", [
    (_eee("org/m", [_res("A", 1.7)]), r"r.json: 'evaluation_results\[0\].score_details.score' is 1.7, outside "
                                     r"the record's own range 0–1"),
    (_eee(["org/m"], [_res("A", 0.7)]), r"r.json: 'model_info.id' is a list, not text"),
    (_eee("org/m", [_res({"a": 1}, 0.7)]), r"r.json: 'evaluation_results\[0\].evaluation_name' is an object"),
    (_eee("org/m", ["not a result"]), r"'evaluation_results\[0\]' is text, not an object"),
    (_eee("org/m", [_res("A", False)]), r"r.json: 'evaluation_results\[0\].score_details.score' is a boolean "
                                       r"\(false\), not a score"),
    (_eee("org/m", [_res("A", "0.5")]), r"r.json: 'evaluation_results\[0\].score_details.score' is text"),
    (_eee("org/m", [_res("A", 0.5), _res("A", 0.9), _res("A", 0.1)]),
     r"r.json: evaluation 'A' \(metric 'accuracy'\) is listed 3 times in one record with different scores"),
])
def test_eee_hostile_records(record: dict[str, Any], message: str, tmp_path: Path):
    _put(tmp_path / "eee" / "r.json", json.dumps(record))
    _put(tmp_path / "eee" / "s.json", json.dumps(_eee("org/n", [_res("A", 0.3)])))
    with pytest.raises(InputError, match=message):
        read_results(tmp_path / "eee", label="eee")


def test_cli_errors_and_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    _lm_folder(tmp_path / "run", _good_lm(HUGE))
    assert main(["select", "--scores", str(tmp_path / "run"), "--strategy", "random", "--k", "1"]) == 2
    err = capsys.readouterr().err
    assert "org__c/results.json: 'results.t1.acc' is a number of 5000 digits" in err
    assert "unexpected error" not in err and "usage:" not in err and HUGE[:50] not in err
    _put(tmp_path / "run" / "org__c" / "results.json", "[1, 2]")
    _put(tmp_path / "run" / "org__d" / "results.json", "{broken")
    assert main(["select", "--scores", str(tmp_path / "run"), "--strategy", "random", "--k", "1"]) == 2
    assert "is not valid JSON" in capsys.readouterr().err
    assert main(["select", "--scores", str(tmp_path / "run"), "--skip-unreadable", "--strategy", "random",
                 "--k", "1", "--out", str(tmp_path / "s.csv")]) == 0
    err = capsys.readouterr().err
    assert "warning: skipped 2 file(s) that cannot be read: run/org__d/results.json (is not valid JSON" in err
    assert "run/org__c/results.json (not a result file of lm-evaluation-harness)" in err


def test_a_folder_that_cannot_be_listed_is_an_error_or_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _lm_folder(tmp_path / "run", _good_lm("0.1"))
    locked = tmp_path / "run" / "org__c"
    real = os.walk

    def walk(top, onerror=None, **kw):  # type: ignore[no-untyped-def]  # as os.walk does on a folder it may not list
        for folder, dirs, names in real(top, onerror=onerror, **kw):
            if "org__c" in dirs:
                dirs.remove("org__c")
                onerror(PermissionError(13, "Permission denied", str(locked)))
            yield folder, dirs, names

    monkeypatch.setattr("subsetsel_core.io.result_files.os.walk", walk)
    with pytest.raises(InputError, match=r"run/org__c: the folder cannot be read \(Permission denied\)"):
        read_results(tmp_path / "run", label="run")
    t = read_results(tmp_path / "run", label="run", skip_unreadable=True)
    assert any("run/org__c (the folder cannot be read" in w for w in t.warnings)


def test_a_damaged_archive_entry_is_an_error_or_skipped():
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for m, x in (("a", 0.5), ("b", 0.6)):
            z.writestr(f"run/org__{m}/results.json", json.dumps(_lm(f"org/{m}", {"t1": {"acc": x}, "t2": {"acc": x},
                                                                                  "t3": {"acc": x}})))
        z.writestr("run/org__c/results.json", json.dumps(_lm("org/c", {"t1": {"acc": 0.1}})) * 50)
    raw = bytearray(buf.getvalue())
    start = raw.index(b"run/org__c/results.json") + len("run/org__c/results.json")
    raw[start + 5:start + 40] = b"\x00" * 35  # damage the deflated bytes of org__c's file
    with pytest.raises(InputError, match=r"run.zip/run/org__c/results.json: cannot be read from the archive"):
        read_results([("run.zip", bytes(raw))], label="run")
    t = read_results([("run.zip", bytes(raw))], label="run", skip_unreadable=True)
    assert set(t.frame["model"]) == {"org/a", "org/b"}
    assert any("run.zip/run/org__c/results.json (cannot be read from the archive" in w for w in t.warnings)
