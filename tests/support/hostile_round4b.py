"""Hostile inputs, round four (second part): recipes, exports, report folders, workspace files, the shared server.

See :mod:`hostile_round4` for what a case is. The classes:

* ``recipes``: run.toml and JSON sidecars with unknown keys, wrong types, huge values, deep nesting, paths;
* ``exports``: LaTeX names that are TeX commands, critical-difference diagrams with no number or too many
  entries, report.html's figure data with names that try to leave the ``<script>`` element;
* ``reports``: ``--out`` an existing file, a pipe, a folder holding other files, links planted in it;
* ``workspace``: workspace files truncated, tampered, zip-bomb-like, with names that leave the archive;
* ``server``: benchmark roots and folders that point out of the roots, limits per session.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hostile_round3 import (
    MMLU,
    SECRET,
    VICTIM,
    Case,
    _bench,
    _clear,
    _config,
    _strict,
    _victim,
    cli,
)
from hostile_round4 import ROOT, bounded, env

LATEX_NAMES = ["^^5cinput{/etc/passwd}", "\\input{/etc/passwd}", "%comment", "{unbalanced", "}", "\\verb|x|",
               "\x0c\x08bell\x07", "\\catcode`\\@=11", "\\def\\x{\\x}\\x", "$$\\write18{rm -rf ~}$$", "a\u2028b"]
KNOWN_ELSEWHERE_B: set[str] = set()
"""Cases of this part that fail in code owned elsewhere."""


def _toml(text: str | bytes, needle: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        (tmp / "run.toml").write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        r = bounded(["report", "--benchmark", str(MMLU), "--config", str(tmp / "run.toml"), "--out",
                     str(tmp / "out"), "--no-images"])
        if isinstance(r, str):
            return r
        return _clear(r, needle) or (None if not (tmp / "out").exists() else "a report was written")
    return run


def _sidecar(edit: Callable[[dict], str], needle: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        r = cli("select", "--benchmark", str(MMLU), "--strategy", "kmeans", "--k", "3", "--sidecar", str(tmp / "s.json"))
        if r.code != 0:
            return f"could not make the sidecar: {r.err[-200:]}"
        (tmp / "s.json").write_text(edit(json.loads((tmp / "s.json").read_text())))
        out = bounded(["select", "--benchmark", str(MMLU), "--recipe", str(tmp / "s.json")])
        return out if isinstance(out, str) else _clear(out, needle)
    return run


def _set(key: str, value: object) -> Callable[[dict], str]:
    def edit(side: dict) -> str:
        d = side
        *path, last = key.split(".")
        for p in path:
            d = d[p]
        d[last] = value
        return json.dumps(side)
    return edit


def recipe_cases() -> list[Case]:
    """The recipe class."""
    return [
        Case("recipes", "run.toml: a misspelt key", _toml("trails = 5\n", "unknown key 'trails'")),
        Case("recipes", "run.toml: a misspelt key in a section", _toml("[evaluate]\ntrails = 5\n",
                                                                       "unknown key 'evaluate.trails'")),
        Case("recipes", "run.toml: trials as text", _toml('[evaluate]\ntrials = "many"\n', "'evaluate.trials'")),
        Case("recipes", "run.toml: a trillion trials", _toml("[evaluate]\ntrials = 999999999999\n",
                                                             "'evaluate.trials'")),
        Case("recipes", "run.toml: alpha = nan", _toml("[evaluate]\nalpha = nan\n", "'evaluate.alpha'")),
        Case("recipes", "run.toml: 5,000 nested arrays", _toml("seed = " + "[" * 5000 + "]" * 5000 + "\n",
                                                               "nests too deeply")),
        Case("recipes", "run.toml: a title of 900,000 characters", _toml('title = "' + "A" * 900_000 + '"\n',
                                                                         "'title' must be text of at most")),
        Case("recipes", "run.toml: a key given twice", _toml("seed = 1\nseed = 2\n", "not valid TOML")),
        Case("recipes", "run.toml: binary bytes", _toml(b"\x00\xff\xfe" * 100, "not UTF-8")),
        Case("recipes", "run.toml: a representation that is a path", _toml(
            '[evaluate]\nrepresentations = ["../../etc/passwd"]\n', "unknown descriptor table")),
        Case("recipes", "run.toml: [reading] with a misspelt key", _toml("[reading]\nlayot = 'wide'\n",
                                                                          "unknown key 'layot'")),
        Case("recipes", "sidecar: a table that is a path", _sidecar(_set("representation_recipe.tables",
                                                                         ["../../../etc/passwd"]), "'../../../etc/passwd'")),
        Case("recipes", "sidecar: k = 10**30", _sidecar(_set("k", 10**30), "'k'")),
        Case("recipes", "sidecar: k as text", _sidecar(_set("k", "3"), "'k'")),
        Case("recipes", "sidecar: a NaN token", _sidecar(lambda s: json.dumps(s).replace('"k": 3', '"k": NaN'),
                                                         "NaN")),
        Case("recipes", "sidecar: k given twice", _sidecar(lambda s: json.dumps(s)[:-1] + ', "k": 4}', "twice")),
        Case("recipes", "sidecar: 100,000 nested objects", _sidecar(lambda s: '{"a":' * 100_000 + "1" + "}" * 100_000,
                                                                    "s.json")),
    ]


# --------------------------------------------------------------------------- exports


def _latex_commands(tmp: Path) -> str | None:
    from subsetsel_core.outputs.latex import escape

    rows = [escape(n) for n in LATEX_NAMES]
    for n, e in zip(LATEX_NAMES, rows, strict=True):
        if re.search(r"\\(input|verb|catcode|def|write)\b", e) or "^^" in e or "%" in e.replace("\\%", ""):
            return f"{n!r} escaped as {e!r}: still a TeX command"
    if shutil.which("pdflatex") is None:
        return None
    body = "\n".join(rf"{r} & {i} \\" for i, r in enumerate(rows * 900))  # ~10,000 rows
    (tmp / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{longtable}\n\\begin{document}\n"
                                 f"\\begin{{longtable}}{{lr}}\n{body}\n\\end{{longtable}}\n\\end{{document}}\n",
                                 encoding="utf-8")
    r = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                       cwd=tmp, capture_output=True, text=True, timeout=300, errors="replace")
    if (tmp / "passwd").exists() or "root:" in r.stdout:
        return "pdflatex read a file it was not given"
    return None if r.returncode == 0 else "pdflatex stopped: " + r.stdout[-300:]


def _cd_all_nan(tmp: Path) -> str | None:
    from subsetsel_core.evaluation.critical_difference import from_scores
    from subsetsel_core.text import strict_json
    from subsetsel_core.viz.critical_difference import cd_figure

    cd = from_scores(np.full((10, 4), np.nan), ["a", "b", "c", "d"])
    if cd.labels or "no entry" not in cd.note:
        return "a diagram of no numbers was drawn without a word"
    cd_figure(cd)
    return _strict(strict_json.dumps(cd.to_json_dict()))


def _cd_inf(tmp: Path) -> str | None:
    from subsetsel_core.evaluation.critical_difference import from_scores
    from subsetsel_core.text import strict_json

    x = np.random.default_rng(2).normal(size=(10, 4))
    x[:, 1] = np.inf
    cd = from_scores(x, ["a", "</script><script>alert(1)</script>", "c", "d"])
    if "alert" in " ".join(cd.labels) or "alert" not in cd.note:
        return "the infinite entry was neither left out nor noted"
    return _strict(strict_json.dumps(cd.to_json_dict()))


_CD_MANY = """
import numpy as np
from subsetsel_core.evaluation.critical_difference import from_scores
from subsetsel_core.viz.critical_difference import cd_figure
try:
    cd_figure(from_scores(np.random.default_rng(3).normal(size=(10, 10_000)), [f"\\\\input{{x}}{i}" for i in range(10_000)]))
except Exception as exc:
    print(f"refused: {type(exc).__name__}: {exc}")
"""


def _cd_many(tmp: Path) -> str | None:
    """10,000 entries, in a child process that is killed after 60 s (a thread could not be stopped)."""
    import sys

    try:
        r = subprocess.run([sys.executable, "-c", _CD_MANY], capture_output=True, text=True, timeout=60, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return "hangs: no diagram and no refusal after 60 s"
    if r.returncode != 0 or ("refused" in r.stdout and "entries" not in r.stdout):
        return f"crashed: {(r.stdout + r.stderr)[-300:]}"
    return None


def _figure_json(tmp: Path) -> str | None:
    import plotly.graph_objects as go

    from subsetsel_core.viz.report import Report, Section, build_html

    names = ["</script><script>alert(1)</script>", "<!--", "<![CDATA[", "\u2028", "</SCRIPT\t>"]
    fig = go.Figure(go.Bar(x=names, y=[1.0, float("nan"), float("inf"), 2.0, 3.0], name=names[0]))
    page = build_html(Report(names[0], sections=[Section(names[0], figure=fig, text=names[1])]))
    if page.lower().count("<script") != page.lower().count("</script"):
        return "a name opened or closed a script element"
    for blob in re.findall(r'<script type="application/json" id="[\w-]+">(.*?)</script>', page, flags=re.S):
        problem = _strict(blob) or ("'<' inside a script" if "<" in blob else None)
        if problem:
            return problem
    return None


def export_cases() -> list[Case]:
    """The export class."""
    return [
        Case("exports", "LaTeX: names that are TeX commands, 10,000 rows", _latex_commands),
        Case("exports", "critical difference: no entry has a number", _cd_all_nan),
        Case("exports", "critical difference: an infinite entry with a script name", _cd_inf),
        Case("exports", "critical difference: 10,000 entries", _cd_many),
        Case("exports", "report.html: names that try to leave the script", _figure_json),
    ]


# --------------------------------------------------------------------------- report folders


def _report(tmp: Path, out: Path) -> object:
    return bounded(["report", "--benchmark", str(MMLU), "--config", str(_config(tmp)), "--out", str(out),
                    "--no-images"], 300)


def _out_is_file(tmp: Path) -> str | None:
    (tmp / "out").write_text(VICTIM)
    r = _report(tmp, tmp / "out")
    if isinstance(r, str):
        return r
    return _clear(r, "is a file") or (None if (tmp / "out").read_text() == VICTIM else "the file was overwritten")


def _out_is_pipe(tmp: Path) -> str | None:
    os.mkfifo(tmp / "out")
    r = bounded(["select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "3", "--sidecar",
                 str(tmp / "out")], 60)
    return r if isinstance(r, str) else _clear(r, "out")


def _out_device(tmp: Path) -> str | None:
    import stat

    before = os.stat("/dev/null")
    if not stat.S_ISCHR(before.st_mode):
        return "/dev/null is not a device on this machine: something replaced it before this case ran"
    r = cli("select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "3", "--out", "/dev/null")
    after = os.stat("/dev/null")
    if (before.st_ino, before.st_mode) != (after.st_ino, after.st_mode):
        return "/dev/null was replaced"
    return None if r.code == 0 else _clear(r, "/dev/null: is a device")


def _out_has_other_files(tmp: Path) -> str | None:
    out = tmp / "out"
    (out / "figures").mkdir(parents=True)
    (out / "notes.txt").write_text(VICTIM)
    (out / "figures" / "mine.svg").write_text(VICTIM)
    r = _report(tmp, out)
    if isinstance(r, str):
        return r
    if getattr(r, "code", 1) != 0:
        return f"exit {getattr(r, 'code', '?')}: {getattr(r, 'err', '')[-300:]}"
    if (out / "notes.txt").read_text() != VICTIM or (out / "figures" / "mine.svg").read_text() != VICTIM:
        return "a file the report does not write was changed"
    return None


def _links_planted(tmp: Path) -> str | None:
    v = _victim(tmp)
    out = tmp / "out"
    out.mkdir()
    os.symlink(v, out / "subset.csv")
    os.symlink(v, out / "run.toml")
    r = _report(tmp, out)
    if isinstance(r, str):
        return r
    if v.read_text() != VICTIM:
        return "a file outside the output folder was written"
    return _clear(r, "is a symbolic link")  # type: ignore[arg-type]


def _out_under_a_file(tmp: Path) -> str | None:
    (tmp / "f").write_text(VICTIM)
    r = cli("select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "3", "--out", str(tmp / "f" / "x.csv"))
    return _clear(r, "/f' is a file, not a folder")


def report_cases() -> list[Case]:
    """The report-folder class."""
    return [
        Case("reports", "--out is an existing file", _out_is_file),
        Case("reports", "--sidecar is a named pipe", _out_is_pipe),
        Case("reports", "--out is /dev/null", _out_device),
        Case("reports", "--out holds other files", _out_has_other_files),
        Case("reports", "--out holds links at subset.csv and run.toml", _links_planted),
        Case("reports", "--out below a file", _out_under_a_file),
    ]


# --------------------------------------------------------------------------- workspace files


def _workspace_bytes() -> bytes:
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.workspace.files import Workspace, save_workspace

    return save_workspace(Workspace(load_scores(MMLU / "scores.csv")))


def _rezip(edit: Callable[[str, bytes], tuple[str, bytes] | None], extra: dict[str, bytes] | None = None) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(_workspace_bytes()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            got = edit(info.filename, src.read(info))
            if got is not None:
                z.writestr(got[0], got[1])
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def _meta(change: Callable[[str], str]) -> Callable[[], bytes]:
    return lambda: _rezip(lambda n, d: (n, change(d.decode()).encode()) if n == "workspace.json" else (n, d))


def _load(data: Callable[[], bytes], needle: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        from subsetsel_core.errors import InputError
        from subsetsel_core.workspace.files import load_workspace

        (tmp / "w.subsetsel").write_bytes(data())
        try:
            load_workspace(tmp / "w.subsetsel", label="w.subsetsel")
        except InputError as exc:
            text = str(exc)
            return None if needle in text and "\n" not in text else f"message lacks {needle!r}: {text[:300]}"
        return "loaded without a word"
    return run


def _bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("workspace.json", b" " * (100 * 2**20))
    return buf.getvalue()


def workspace_cases() -> list[Case]:
    """The workspace class."""
    return [
        Case("workspace", "cut in half", _load(lambda: _workspace_bytes()[: len(_workspace_bytes()) // 2], "w.subsetsel")),
        Case("workspace", "not a zip", _load(lambda: b"PK\x03\x04" + b"\x00" * 100, "w.subsetsel")),
        Case("workspace", "100 MB of spaces compressed to 100 KB", _load(_bomb, "w.subsetsel")),
        Case("workspace", "a NaN in workspace.json", _load(_meta(lambda t: t.replace('"version": 2', '"version": NaN')),
                                                           "workspace.json")),
        Case("workspace", "a key given twice in workspace.json",
             _load(_meta(lambda t: t[:-1] + ', "format": "x"}' if t.rstrip().endswith("}") else t), "format")),
        Case("workspace", "a model list that is a number", _load(_meta(lambda t: re.sub(r'"models": \[[^\]]*\]',
                                                                                        '"models": 5', t, count=1)),
                                                                 "models")),
        Case("workspace", "an entry named ../../escape", _load(lambda: _rezip(lambda n, d: (n, d), {
            "../../escape.json": b"{}"}), "w.subsetsel")),
    ]


# --------------------------------------------------------------------------- the shared server


def _root_link_out(tmp: Path) -> str | None:
    from subsetsel_core.loading.folder import scan_benchmarks

    root = tmp / "root"
    _bench(root / "ok")
    _bench(tmp / "outside" / "b", SECRET)
    os.symlink(tmp / "outside" / "b", root / "linked")
    cat = scan_benchmarks(root, within=root)
    if any(SECRET in repr(m) for m in cat.manifests) or SECRET in repr(cat.problems):
        return "a benchmark outside the root was offered or read"
    return None if any("linked" in str(p) for p, _ in cat.problems) else "the link out of the root was not listed"


def _manifest_path(path: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        from subsetsel_core.errors import InputError
        from subsetsel_core.loading.folder import load_benchmark_folder

        root = tmp / "root"
        b = _bench(root / "b")
        _bench(tmp / "secret", SECRET)
        m = json.loads((b / "manifest.json").read_text())
        m["scores"]["file"] = path.replace("SECRETDIR", str(tmp / "secret"))
        (b / "manifest.json").write_text(json.dumps(m))
        try:
            lb = load_benchmark_folder(b, within=root)
        except InputError as exc:
            return f"the secret was named: {exc}" if SECRET in str(exc) else None
        return "the secret was read" if SECRET in repr(lb.benchmark.datasets) else "a file outside the folder was read"
    return run


def _typed_outside(tmp: Path) -> str | None:
    from subsetsel_core.errors import InputError
    from subsetsel_core.io.roots import confine_directory

    root = tmp / "root"
    root.mkdir()
    answers = []
    for typed in (str(tmp / "secret"), str(tmp / "nosuch"), "../secret", "/etc", "root/../../secret"):
        (tmp / "secret").mkdir(exist_ok=True)
        try:
            confine_directory(typed, [root])
            return f"{typed!r} was let through"
        except InputError as exc:
            answers.append(str(exc).replace(typed, "TYPED"))
    return None if len(set(answers)) == 1 else "the answers differ: they tell what exists"


def _gzip_bomb(tmp: Path) -> str | None:
    import gzip

    from subsetsel_core.errors import InputError
    from subsetsel_core.loading.folder import load_benchmark_folder

    root = tmp / "root"
    b = _bench(root / "b")
    body = (b / "scores.csv").read_text() + ("d0,m0,0.5\n" * 3_000_000)
    (b / "scores.csv.gz").write_bytes(gzip.compress(body.encode(), 9))
    (b / "scores.csv").unlink()
    m = json.loads((b / "manifest.json").read_text())
    m["scores"]["file"] = "scores.csv.gz"
    (b / "manifest.json").write_text(json.dumps(m))
    with env(SUBSETSEL_MAX_TABLE_MB="5", SUBSETSEL_NO_CACHE="1"):
        try:
            load_benchmark_folder(b, within=root)
        except InputError as exc:
            return None if "SUBSETSEL_MAX_TABLE_MB" in str(exc) or "max_table_mb" in str(exc) else str(exc)[:300]
    return "a table over the limit once decompressed was read"


def _session_ids(tmp: Path) -> str | None:
    from subsetsel_app.session_store import SessionStore

    v = _victim(tmp)
    store = SessionStore(tmp / "store")
    for sid in ("../victim/precious", "..", "/etc/passwd", "a" * 10_000, "x\x00y", ""):
        try:
            if store.get(sid) is not None:
                return f"the id {sid[:20]!r} read a file"
            store.put(sid, b"overwrite")
        except ValueError as exc:  # refused as not an id: fine
            if "session id" not in str(exc):
                return f"crashed: {exc}"
    return None if v.read_text() == VICTIM else "an id wrote outside the store"


def _manifest_value(key: str, value: object, needle: str) -> Callable[[Path], str | None]:
    """A manifest whose ``key`` holds a hostile value: one short line naming the key."""
    def run(tmp: Path) -> str | None:
        from subsetsel_core.errors import InputError
        from subsetsel_core.loading.folder import load_benchmark_folder

        b = _bench(tmp / "root" / "b")
        m = json.loads((b / "manifest.json").read_text())
        m[key] = value
        (b / "manifest.json").write_text(json.dumps(m))
        try:
            load_benchmark_folder(b, within=tmp / "root")
        except InputError as exc:
            text = str(exc)
            if needle not in text or "\n" in text or len(text) > 600:
                return f"not one short line naming {needle!r}: {text[:200]}… ({len(text)} characters)"
            return None
        return "loaded without a word"
    return run


def _manifest_pipe(tmp: Path) -> str | None:
    from subsetsel_core.loading.folder import scan_benchmarks

    root = tmp / "root"
    _bench(root / "ok")
    (root / "piped").mkdir()
    os.mkfifo(root / "piped" / "manifest.json")
    box: dict[str, object] = {}
    t = threading.Thread(target=lambda: box.setdefault("cat", scan_benchmarks(root, within=root)), daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        with open(root / "piped" / "manifest.json", "wb"):  # let the blocked open return
            pass
        return "hangs on a pipe named manifest.json"
    cat = box["cat"]
    return None if any("piped" in str(p) for p, _ in cat.problems) else "the pipe was not listed"  # type: ignore[attr-defined]


def _folder_file(name: str, make: Callable[[Path], None], needle: str) -> Callable[[Path], str | None]:
    """``select --benchmark FOLDER`` whose file ``name`` is replaced by ``make``: a clear line, no hang."""
    def run(tmp: Path) -> str | None:
        b = _bench(tmp / "b")
        os.remove(b / name)
        make(b / name)
        r = bounded(["select", "--benchmark", str(b), "--strategy", "kmeans", "--k", "3"], 60)
        return r if isinstance(r, str) else _clear(r, needle)
    return run


def server_cases() -> list[Case]:
    """The shared-server class."""
    return [
        Case("server", "a root's sub-folder links out of the root", _root_link_out),
        Case("server", "a manifest names ../../secret", _manifest_path("../../secret/scores.csv")),
        Case("server", "a manifest names an absolute path", _manifest_path("SECRETDIR/scores.csv")),
        Case("server", "typed paths outside the roots get one answer", _typed_outside),
        Case("server", "a gzip bomb in a benchmark folder", _gzip_bomb),
        Case("server", "session ids that are paths", _session_ids),
        Case("server", "a manifest value of a million characters", _manifest_value(
            "higher_is_better", "x" * 1_000_000, "higher_is_better")),
        Case("server", "a manifest's representations as a huge object", _manifest_value(
            "representations", {str(i): i for i in range(100_000)}, "representations")),
        Case("server", "a pipe named manifest.json in a root", _manifest_pipe),
        Case("server", "a benchmark folder's scores.csv is a pipe", _folder_file("scores.csv", os.mkfifo, "is a pipe")),
        Case("server", "a benchmark folder's features.csv links to /dev/zero", _folder_file(
            "features.csv", lambda p: os.symlink("/dev/zero", p), "a link to a file outside the benchmark folder")),
    ]


def build_round4b() -> list[Case]:
    """Every case of this part."""
    return recipe_cases() + export_cases() + report_cases() + workspace_cases() + server_cases()
