"""Hostile inputs, round four: result folders and leaderboard options, as a user or an attacker sends them.

Shared by ``tests/core/outputs/test_hostile_round4.py`` and ``benchmarks/hostile_inputs.py``; the other
classes (recipes, exports, report folders, workspace files, the shared server) are in
:mod:`hostile_round4b`. Each case builds its files in a fresh folder, runs the product and returns None when
the product did the right thing (one clear line and exit 2 for bad input, a printed warning for a dropped
file, never a traceback, a hang or a silently wrong answer), else what went wrong. The classes:

* ``results``: lm-evaluation-harness, MTEB and Every Eval Ever folders with BOMs, duplicate keys, NaN tokens,
  numbers as text, deep nesting, files over the limit, pipes and links to devices or secrets in the folder;
* ``options``: leaderboard options that name nothing or contradict each other.

Cases whose failure lies in code this table's authors do not own are listed in :data:`KNOWN_ELSEWHERE`.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from hostile_corpus import clean_frame
from hostile_round3 import SECRET, Case, Run, _clear, _lm, _printed, cli

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "results"
SCI = "results/org__embed-base/main/SciFact.json"
EEE1 = "data/fixture-board/acme/chat-7b/00000000-0000-4000-8000-000000000000.json"
HANG_SECONDS = 60

KNOWN_ELSEWHERE: set[str] = set()
"""Cases that fail in readers, guessers or the command line (owned elsewhere): the report lists them."""


@contextmanager
def env(**values: str | None) -> Iterator[None]:
    """Environment variables set for the block, restored after it."""
    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def bounded(argv: list[str], seconds: float = HANG_SECONDS) -> Run | str:
    """``cli(*argv)`` in a thread: its result, or a problem when it does not end in ``seconds``."""
    box: dict[str, Run] = {}
    t = threading.Thread(target=lambda: box.setdefault("r", cli(*argv)), daemon=True)
    t.start()
    t.join(seconds)
    return box["r"] if "r" in box else f"hangs: no answer after {seconds:.0f} s"


# --------------------------------------------------------------------------- result folders


def _lm_folder(tmp: Path) -> Path:
    res = tmp / "res"
    for j, m in enumerate(("a", "b", "c", "d")):
        (res / m).mkdir(parents=True)
        (res / m / "r.json").write_text(json.dumps(_lm(m, {f"t{i}": 0.1 * i + 0.05 * j for i in range(1, 6)})))
    return res


def _a(res: Path) -> Path:
    return res / "a" / "r.json"


def _a_text() -> str:
    return json.dumps(_lm("a", {f"t{i}": 0.1 * i for i in range(1, 6)}))


Edit = Callable[[Path, Path], None]  # (results folder, tmp)


def _folder_of(kind: str, tmp: Path) -> Path:
    if kind == "lm":
        return _lm_folder(tmp)
    d = tmp / kind
    shutil.copytree(FIX / kind, d)
    return d


def results(kind: str, edit: Edit, expect: str, needle: str, *args: str) -> Callable[[Path], str | None]:
    """``select --scores FOLDER`` after ``edit``: ``expect`` is "error" (exit 2 with ``needle``), "warning" (exit
    0 with a printed warning holding ``needle``) or "ok" (exit 0; ``needle`` is a text stdout must not hold)."""
    def run(tmp: Path) -> str | None:
        res = _folder_of(kind, tmp)
        edit(res, tmp)
        with env(SUBSETSEL_NO_CACHE="1"):
            r = bounded(["select", "--scores", str(res), "--strategy", "random", "--k", "2", *args])
        if isinstance(r, str):
            return r
        if expect == "error":
            return _clear(r, needle)
        if expect == "warning":
            return _printed(r, needle)
        if r.code != 0:
            return f"exit {r.code}: {r.err[-300:]}"
        return f"{needle!r} in the output" if needle and needle in r.out + r.err else None
    return run


def _replace(rel: str | None, old: str, new: str) -> Edit:
    def edit(res: Path, tmp: Path) -> None:
        p = _a(res) if rel is None else res / rel
        if rel is None:
            p.write_text(_a_text())
        text = p.read_text()
        if old not in text:
            raise AssertionError(f"the case's file has no {old!r}")
        p.write_text(text.replace(old, new, 1))
    return edit


def _write(data: bytes | Callable[[], bytes]) -> Edit:
    def edit(res: Path, tmp: Path) -> None:
        _a(res).write_bytes(data() if callable(data) else data)
    return edit


def _fifo(res: Path, tmp: Path) -> None:
    os.mkfifo(res / "a" / "z.json")


def _link_to(target: str) -> Edit:
    def edit(res: Path, tmp: Path) -> None:
        os.symlink(target, res / "a" / "z.json")
    return edit


def _secret_file(res: Path, tmp: Path) -> None:
    (tmp / "secret").mkdir()
    (tmp / "secret" / "s.json").write_text(json.dumps(_lm(SECRET, {f"t{i}": 0.3 for i in range(1, 6)})))
    os.symlink(tmp / "secret" / "s.json", res / "a" / "z.json")


def _secret_folder(res: Path, tmp: Path) -> None:
    (tmp / "secret").mkdir()
    (tmp / "secret" / "s.json").write_text(json.dumps(_lm(SECRET, {f"t{i}": 0.3 for i in range(1, 6)})))
    os.symlink(tmp / "secret", res / "e")


def _loop(res: Path, tmp: Path) -> None:
    os.symlink("..", res / "a" / "loop")
    os.symlink("loop2", res / "a" / "loop2.json")


def _big(res: Path, tmp: Path) -> None:
    _a(res).write_text(_a_text()[:-1] + ', "pad": "' + "x" * (2 * 2**20) + '"}')


def _over_limit(res: Path, tmp: Path) -> None:
    _big(res, tmp)
    os.environ["SUBSETSEL_MAX_JSON_MB"] = "1"


def _eee_repeated(res: Path, tmp: Path) -> None:
    p = res / EEE1
    d = json.loads(p.read_text())
    d["evaluation_results"] = d["evaluation_results"] + [dict(d["evaluation_results"][0], score_details={"score": s})
                                                         for s in (0.9, 0.1)]
    p.write_text(json.dumps(d))


def _odd_names(res: Path, tmp: Path) -> None:
    _replace(None, '"t1"', '"t1\\nwarning: every check passed"')(res, tmp)
    p = _a(res)
    p.write_text(p.read_text().replace("pretrained=a", "pretrained=\\u202egnp.exe\\u001b]0;pwned\\u0007"))
    for m in "bcd":
        q = res / m / "r.json"
        q.write_text(q.read_text().replace('"t1"', '"t1\\nwarning: every check passed"'))


def _ansi_in_message(res: Path, tmp: Path) -> None:
    _replace(None, '"t2"', '"\\u001b[2J\\u001b[31mt2"')(res, tmp)


def _no_injected_lines(tmp: Path) -> str | None:
    res = _lm_folder(tmp)
    _odd_names(res, tmp)
    with env(SUBSETSEL_NO_CACHE="1"):
        r = bounded(["select", "--scores", str(res), "--strategy", "random", "--k", "5"])
    if isinstance(r, str):
        return r
    if r.code != 0:
        return f"exit {r.code}: {r.err[-300:]}"
    if any(line.startswith("warning: every check passed") for line in r.err.splitlines()) or "\x1b" in r.out + r.err:
        return "a name started a line of its own in a message or sent a terminal escape"
    import pandas as pd

    names = set(pd.read_csv(io.StringIO(r.out), comment="#")["dataset"])
    return None if "t1\nwarning: every check passed" in names else f"the subset CSV does not hold the name: {names}"


def _ansi_error(tmp: Path) -> str | None:
    res = _lm_folder(tmp)
    _ansi_in_message(res, tmp)
    os.remove(res / "b" / "r.json")
    with env(SUBSETSEL_NO_CACHE="1"):
        r = bounded(["select", "--scores", str(res), "--strategy", "random", "--k", "2"])
    if isinstance(r, str):
        return r
    return "a raw terminal escape in the message" if "\x1b" in r.err else None


def _limit_case(tmp: Path) -> str | None:
    with env(SUBSETSEL_MAX_JSON_MB=None):
        return results("lm", _over_limit, "error", "SUBSETSEL_MAX_JSON_MB")(tmp)


def _dup_in_task() -> str:
    return _a_text().replace('"acc,none": 0.1}', '"acc,none": 0.1, "acc,none": 0.9}', 1)


def _cache_link(tmp: Path) -> str | None:
    """The cache folder is a link planted to another folder: reading a results folder writes nothing there."""
    victim = tmp / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("x")
    os.symlink(victim, tmp / "cache")
    res = _lm_folder(tmp)
    with env(SUBSETSEL_CACHE_DIR=str(tmp / "cache"), SUBSETSEL_NO_CACHE=None):
        r = bounded(["select", "--scores", str(res), "--strategy", "random", "--k", "2"])
    if isinstance(r, str):
        return r
    return None if sorted(q.name for q in victim.iterdir()) == ["precious.txt"] else \
        f"the cache wrote through the link: {sorted(q.name for q in victim.iterdir())}"


def result_cases() -> list[Case]:
    """The result-folder class."""
    text = _a_text
    return [
        Case("results", "lm-eval: a UTF-8 byte-order mark", results("lm", _write(lambda: b"\xef\xbb\xbf" + text().encode()),
                                                                     "ok", "")),
        Case("results", "lm-eval: UTF-16 text", results("lm", _write(lambda: text().encode("utf-16")), "error",
                                                        "is not UTF-8")),
        Case("results", "lm-eval: 'results' given twice", results("lm", _write(lambda: (text()[:-1] + ', "results": '
                                                                                         '{"t1": {"acc,none": 0.99}}}').encode()),
                                                                  "error", "'results' appears twice")),
        Case("results", "lm-eval: a metric given twice in a task", results("lm", _write(lambda: _dup_in_task().encode()),
                                                                           "error", "'acc,none' appears twice")),
        Case("results", "MTEB: main_score given twice", results("mteb", _replace(SCI, '"main_score": 0.702',
                                                                                 '"main_score": 0.702, "main_score": 0.1'),
                                                                "error", "'main_score' appears twice")),
        Case("results", "Every Eval Ever: score given twice", results("eee", _replace(EEE1, '"score": 0.612',
                                                                                      '"score": 0.612, "score": 0.9'),
                                                                      "error", "'score' appears twice")),
        Case("results", "MTEB: a NaN token", results("mteb", _replace(SCI, '"main_score": 0.702', '"main_score": NaN'),
                                                     "error", "SciFact.json: 'scores.test[0].main_score' is NaN")),
        Case("results", "lm-eval: an -Infinity token", results("lm", _replace(None, '"acc,none": 0.1', '"acc,none": '
                                                                              '-Infinity'), "error", "-Infinity")),
        Case("results", "lm-eval: a score written as text", results("lm", _replace(None, '"acc,none": 0.1',
                                                                                   '"acc,none": "0.1"'),
                                                                    "error", "r.json: 'results.t1.acc,none'")),
        Case("results", "Every Eval Ever: a score that is true or false", results(
            "eee", _replace(EEE1, '"score": 0.612', '"score": false'), "error", "score_details.score")),
        Case("results", "lm-eval: an integer of 5,001 digits", results("lm", _replace(None, '"acc,none": 0.1',
                                                                                      '"acc,none": 1' + "0" * 5000),
                                                                       "error", "5001 digits")),
        Case("results", "lm-eval: 100,000 nested lists", results("lm", _write(b'{"results": ' + b"[" * 100000
                                                                              + b"]" * 100000 + b"}"),
                                                                 "error", "nests too deeply")),
        Case("results", "a named pipe among the result files", results("lm", _fifo, "error", "z.json: is a pipe")),
        Case("results", "a named pipe, --skip-unreadable", results("lm", _fifo, "warning", "z.json",
                                                                   "--skip-unreadable")),
        Case("results", "a link to /dev/zero among the result files", results("lm", _link_to("/dev/zero"),
                                                                              "warning", "'a/z.json'")),
        Case("results", "a link to a secret result file", results("lm", _secret_file, "warning", "'a/z.json'")),
        Case("results", "a link to a secret folder", results("lm", _secret_folder, "warning", "'e/'")),
        Case("results", "links in a loop", results("lm", _loop, "error", "loop2.json")),
        Case("results", "a result file over the size limit", _limit_case),
        Case("results", "MTEB: a negative main_score among scores from 0 to 1", results(
            "mteb", _replace(SCI, '"main_score": 0.702', '"main_score": -5'), "error", "SciFact.json")),
        Case("results", "Every Eval Ever: one result listed 3 times in one record", results(
            "eee", lambda res, tmp: _eee_repeated(res, tmp), "error", "00000000-0000-4000-8000-000000000000.json")),
        Case("results", "lm-eval: a task named by an empty string", results("lm", _replace(None, '"t1"', '""'),
                                                                            "error", "r.json")),
        Case("results", "names with a newline, a right-to-left mark, an escape", _no_injected_lines),
        Case("results", "a terminal escape in a name quoted by an error", _ansi_error),
        Case("results", "the results cache folder is a link", _cache_link),
    ]


# --------------------------------------------------------------------------- leaderboard options


def _wide(tmp: Path) -> Path:
    f = clean_frame().pivot_table(index="model", columns="dataset", values="score").reset_index()
    f["Notes"] = "x"
    f.to_csv(tmp / "w.csv", index=False)
    return tmp / "w.csv"


def _long(tmp: Path) -> Path:
    clean_frame().to_csv(tmp / "s.csv", index=False)
    return tmp / "s.csv"


def option(table: Callable[[Path], Path], args: list[str], needle: str,
           command: str = "select") -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        extra = ["--strategy", "random", "--k", "3"] if command == "select" else ["--strategies", "random",
                                                                                  "--trials", "2"]
        r = cli(command, "--scores", str(table(tmp)), *extra, *args)
        return _clear(r, needle)
    return run


def option_cases() -> list[Case]:
    """The leaderboard-option class."""
    mr = ["--layout", "models-as-rows", "--model-column", "model"]
    return [
        Case("options", "--keep-columns names a column that does not exist",
             option(_wide, ["--keep-columns", "NoSuch"], "--keep-columns")),
        Case("options", "--drop-columns names a column that does not exist",
             option(_wide, ["--drop-columns", "NoSuch"], "no column 'NoSuch'")),
        Case("options", "--keep-columns and --drop-columns name the same column",
             option(_wide, ["--keep-columns", "Notes", "--drop-columns", "Notes"], "both")),
        Case("options", "--keep-columns on a column of text", option(_wide, ["--keep-columns", "Notes"], "'Notes'")),
        Case("options", "--lower-is-better with --higher-is-better",
             option(_long, ["--lower-is-better", "--higher-is-better"], "cannot be given together")),
        Case("options", "one dataset in both direction lists",
             option(_long, ["--lower-is-better-datasets", "d0", "--higher-is-better-datasets", "d0"], "'d0'")),
        Case("options", "a per-dataset direction for a dataset that does not exist",
             option(_long, ["--lower-is-better-datasets", "nosuch"], "'nosuch'")),
        Case("options", "--dataset-column names a column that does not exist",
             option(_long, ["--dataset-column", "NoSuch"], "NoSuch")),
        Case("options", "--model-column names a column that does not exist",
             option(_wide, ["--layout", "models-as-rows", "--model-column", "NoSuch"], "no model column 'NoSuch'")),
        Case("options", "--score-column is the model column", option(_long, ["--score-column", "model"],
                                                                     "mapped twice")),
        Case("options", "the model column set aside", option(_wide, [*mr, "--drop-columns", "model"], "one role")),
        Case("options", "--release-column names a column that does not exist",
             option(_long, ["--release-column", "NoSuch"], "NoSuch", command="generalise")),
    ]


def build_round4() -> list[Case]:
    """Every case of round four (both parts)."""
    from hostile_round4b import build_round4b

    return result_cases() + option_cases() + build_round4b()


def known_elsewhere() -> set[str]:
    """The names of the cases that fail in code owned elsewhere (both parts)."""
    from hostile_round4b import KNOWN_ELSEWHERE_B

    return KNOWN_ELSEWHERE | KNOWN_ELSEWHERE_B
