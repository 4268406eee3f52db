"""Hostile inputs, round three: links, races, exports and messages, as a user or an attacker sends them.

Shared by ``tests/core/test_hostile_round3.py`` and ``benchmarks/hostile_inputs.py``. Each case builds its
files in a fresh folder, runs the product (the command line in this process, or the library) and returns
None when the product did the right thing, else what went wrong. The classes:

* ``links``: symbolic links planted where the product writes (a report folder, ``--out`` files, the
  session store, the score cache) — never written through, refused by name;
* ``races``: a file or a folder swapped for a link to a secret while a benchmark folder is loaded — the
  secret is never read;
* ``exports``: LaTeX that pdflatex cannot take, critical-difference diagrams with NaN, strict JSON;
* ``arguments``: argument errors — one line, no usage block;
* ``messages``: files that are not what their name says, and what the message says about them;
* ``warnings``: changes to the benchmark (a flipped direction, dropped models, duplicate or stray
  result files) — printed on stderr.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from hostile_corpus import clean_frame, features_frame

ROOT = Path(__file__).resolve().parents[2]
MMLU = ROOT / "sample_data" / "mmlu"
VICTIM = "victim's file: must never change\n"
SECRET = "SECRETNAME"
RACE_LOADS = 150


@dataclass(frozen=True)
class Case:
    """One hostile input of round three: its class, its name and the check that runs it."""

    kind: str
    name: str
    run: Callable[[Path], str | None]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def cli(*argv: str) -> Run:
    """``subsetsel ARGV`` in this process."""
    from subsetsel_core.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return Run(code, out.getvalue(), err.getvalue())


def _clear(r: Run, needle: str) -> str | None:
    """None when ``r`` is exit 2 with one clear line containing ``needle``."""
    if r.code != 2:
        return f"exit {r.code}, expected 2: {r.err[-300:]}"
    if "Traceback" in r.err or "unexpected error" in r.err:
        return f"not a clear message: {r.err[-300:]}"
    if needle not in r.err:
        return f"message lacks {needle!r}: {r.err[-300:]}"
    return None


def _victim(tmp: Path) -> Path:
    v = tmp / "victim" / "precious.txt"
    v.parent.mkdir(parents=True, exist_ok=True)
    v.write_text(VICTIM)
    return v


def _untouched(v: Path) -> str | None:
    if v.read_text() != VICTIM or sorted(p.name for p in v.parent.iterdir()) != ["precious.txt"]:
        return "a file outside the output folder was written"
    return None


def _config(tmp: Path) -> Path:
    cfg = tmp / "run.toml"
    cfg.write_text('seed = 1\n[evaluate]\nstrategies = ["random", "kmeans"]\ntrials = 3\nk_max = 3\n'
                   'metrics = ["spearman"]\n[select]\nk = 3\n', encoding="utf-8")
    return cfg


# --------------------------------------------------------------------------- links


def _report_link(planted: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        v = _victim(tmp)
        out = tmp / "out"
        out.mkdir()
        target = v.parent if planted == "figures" else v
        os.symlink(target, out / planted)
        r = cli("report", "--benchmark", str(MMLU), "--config", str(_config(tmp)), "--out", str(out), "--no-images")
        return _untouched(v) or _clear(r, f"{planted}: is a symbolic link")
    return run


def _report_dir_link(tmp: Path) -> str | None:
    v = _victim(tmp)
    os.symlink(v.parent, tmp / "out")
    r = cli("report", "--benchmark", str(MMLU), "--config", str(_config(tmp)), "--out", str(tmp / "out"))
    return _untouched(v) or _clear(r, "is a symbolic link")


def _out_link(*argv: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        v = _victim(tmp)
        os.symlink(v, tmp / "out.file")
        r = cli(*argv, "--out", str(tmp / "out.file"))
        return _untouched(v) or _clear(r, "out.file: is a symbolic link")
    return run


def _dangling(tmp: Path) -> str | None:
    v = _victim(tmp)
    os.symlink(v.parent / "created-by-attack.sh", tmp / "subset.csv")
    r = cli("select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "3", "--out", str(tmp / "subset.csv"))
    return _untouched(v) or _clear(r, "is a symbolic link")


def _session_store(tmp: Path) -> str | None:
    from subsetsel_app.session_store import SUFFIX, SessionStore, new_id

    v = _victim(tmp)
    store = SessionStore(tmp / "store")
    store.put(new_id(), b"x")
    sid = new_id()
    os.symlink(v, tmp / "store" / f"{sid}{SUFFIX}")
    if store.get(sid) is not None:
        return "a link in the session store was read"
    store.put(sid, b"overwrite")
    return _untouched(v)


def _score_cache(tmp: Path) -> str | None:
    from subsetsel_core.benchmark import load_scores

    v = _victim(tmp)
    os.symlink(v.parent, tmp / "cache")
    old = {k: os.environ.get(k) for k in ("SUBSETSEL_CACHE_DIR", "SUBSETSEL_NO_CACHE")}
    os.environ["SUBSETSEL_CACHE_DIR"] = str(tmp / "cache")
    os.environ.pop("SUBSETSEL_NO_CACHE", None)
    try:
        load_scores(MMLU / "scores.csv")
    finally:
        for k, val in old.items():
            if val is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = val
    return _untouched(v)


# --------------------------------------------------------------------------- races


def _bench(d: Path, prefix: str = "") -> Path:
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({
        "name": prefix + "bench", "higher_is_better": True, "scores": {"file": "scores.csv"},
        "representations": [{"name": "f", "kind": "tabular", "files": ["features.csv"]}]}), encoding="utf-8")
    clean_frame().assign(dataset=lambda f: prefix + f["dataset"]).to_csv(d / "scores.csv", index=False)
    features_frame().assign(dataset=lambda f: prefix + f["dataset"]).to_csv(d / "features.csv", index=False)
    return d


def _race(swapped: str) -> Callable[[Path], str | None]:
    """A thread swaps ``swapped`` (a file of the folder, or the folder) for a link to a secret and back."""
    def run(tmp: Path) -> str | None:
        from subsetsel_core.errors import InputError
        from subsetsel_core.loading.folder import load_benchmark_folder

        root = tmp / "root"
        secret = _bench(tmp / "outside" / "bench", SECRET)
        if swapped == "folder":
            real = _bench(root / "real")
            target, put_back, link_to = root / "bench", "real", secret
        else:
            real = _bench(root / "bench")
            keep = tmp / f"keep-{swapped}"
            shutil.copy(real / swapped, keep)
            target, put_back, link_to = real / swapped, str(keep), secret / swapped
        stop = threading.Event()

        def swap() -> None:
            n = 0
            while not stop.is_set():
                tmp_name = target.with_name(f".swap{n % 2}")
                if n % 2:
                    os.symlink(link_to, tmp_name)
                elif swapped == "folder":
                    os.symlink(put_back, tmp_name)
                else:
                    os.link(put_back, tmp_name)
                os.replace(tmp_name, target)
                n += 1

        t = threading.Thread(target=swap, daemon=True)
        old = os.environ.get("SUBSETSEL_NO_CACHE")
        os.environ["SUBSETSEL_NO_CACHE"] = "1"
        t.start()
        leaks = 0
        try:
            for _ in range(RACE_LOADS):
                try:
                    lb = load_benchmark_folder(root / "bench", within=root)
                    seen = repr((lb.benchmark.datasets, list(lb.descriptors["f"].index)))
                except InputError as exc:
                    seen = str(exc)
                leaks += SECRET in seen
        finally:
            stop.set()
            t.join(10)
            if old is None:
                os.environ.pop("SUBSETSEL_NO_CACHE", None)
            else:
                os.environ["SUBSETSEL_NO_CACHE"] = old
        return f"the secret was read in {leaks} of {RACE_LOADS} loads" if leaks else None
    return run


# --------------------------------------------------------------------------- exports


HOSTILE_NAMES = ["line\u2028separator", "para\u2029graph", "ctl\x00\x1b[31m\x7f", "zero\u200bwidth\u202e",
                 "中文😀", "кириллица", "\\input{/etc/passwd}", "50%_&_$x$#~^", "tab\tand\nnewline"]


def _latex(tmp: Path) -> str | None:
    from subsetsel_core.outputs.latex import escape

    rows = "\n".join(rf"{escape(n)} & 1 \\" for n in HOSTILE_NAMES)
    bad = [n for n in HOSTILE_NAMES if any(c in escape(n) for c in "\u2028\u2029\x00\x1b\n")]
    if bad:
        return f"not escaped: {bad}"
    if shutil.which("pdflatex") is None:
        return None
    (tmp / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                 f"\\begin{{tabular}}{{lr}}\n{rows}\n\\end{{tabular}}\n\\end{{document}}\n",
                                 encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp,
                       capture_output=True, text=True, timeout=120, errors="replace")
    return None if r.returncode == 0 else "pdflatex stopped: " + r.stdout[-300:]


def _strict(text: str) -> str | None:
    def refuse(c: str) -> None:
        raise ValueError(c)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError as exc:
        return f"not strict JSON ({exc})"
    return None


def _cd_nan(tmp: Path) -> str | None:
    from subsetsel_core.evaluation.critical_difference import from_scores
    from subsetsel_core.text import strict_json
    from subsetsel_core.viz.critical_difference import cd_figure

    x = np.random.default_rng(1).normal(size=(10, 4))
    x[:, 2] = np.nan
    cd = from_scores(x, ["a", "b", "c", "d"])
    if "c" in cd.labels or "c" not in cd.note:
        return "the NaN entry was neither left out nor noted"
    cd_figure(cd)
    return _strict(strict_json.dumps(cd.to_json_dict()))


def _report_json(tmp: Path) -> str | None:
    r = cli("report", "--benchmark", str(MMLU), "--config", str(_config(tmp)), "--out", str(tmp / "out"),
            "--no-images")
    if r.code != 0:
        return f"report failed: {r.err[-300:]}"
    for f in ("evaluation.json", "subset.json", "figures/figures.json"):
        problem = _strict((tmp / "out" / f).read_text(encoding="utf-8"))
        if problem:
            return f"{f}: {problem}"
    return None


def _strict_helper(tmp: Path) -> str | None:
    from subsetsel_core.text import strict_json

    return _strict(strict_json.dumps({"a": float("nan"), "b": [np.inf, -np.inf], "c": np.float64("nan")}))


# --------------------------------------------------------------------------- arguments


def _argument(argv: list[str], needle: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        r = cli(*argv)
        if len(r.err.strip().splitlines()) != 1 or "usage:" in r.err:
            return f"not one line: {r.err[:200]}"
        return _clear(r, needle)
    return run


# --------------------------------------------------------------------------- messages


def _scores_file(name: str, data: bytes | Callable[[], bytes], needle: str | None) -> Callable[[Path], str | None]:
    """``select --scores NAME``: a clear message containing ``needle``, or a result (needle None)."""
    def run(tmp: Path) -> str | None:
        (tmp / name).write_bytes(data() if callable(data) else data)
        features_frame().to_csv(tmp / "features.csv", index=False)
        r = cli("select", "--scores", str(tmp / name), "--features", str(tmp / "features.csv"),
                "--strategy", "fafi-euclidean", "--k", "3")
        if needle is None:
            return None if r.code == 0 and "d3" in r.out else f"exit {r.code}: {r.err[-300:]}"
        problem = _clear(r, needle)
        if problem is None and any(w in r.err for w in ("Arrow", "pyarrow", "C error", "Error tokenizing", "thrift")):
            return f"library internals in the message: {r.err[-300:]}"
        return problem
    return run


def _wide_csv() -> bytes:
    """The clean table with datasets as rows and one column per model."""
    return clean_frame().pivot(index="dataset", columns="model", values="score").reset_index().to_csv(
        index=False).encode()


def _latex_table() -> bytes:
    """The clean table as a paper's LaTeX tabular."""
    wide = clean_frame().pivot(index="dataset", columns="model", values="score")
    lines = ["\\begin{tabular}{l" + "c" * wide.shape[1] + "}", "\\toprule",
             " & ".join(["Dataset", *wide.columns]) + " \\\\", "\\midrule"]
    lines += [" & ".join([str(d), *(f"{v:.3f}" for v in row)]) + " \\\\" for d, row in wide.iterrows()]
    return "\n".join([*lines, "\\bottomrule", "\\end{tabular}", ""]).encode()


def _parquet() -> bytes:
    buf = io.BytesIO()
    clean_frame().to_parquet(buf)
    return buf.getvalue()


def _recipe_unknown_table(tmp: Path) -> str | None:
    r = cli("select", "--benchmark", str(MMLU), "--strategy", "kmeans", "--k", "3", "--sidecar", str(tmp / "s.json"))
    if r.code != 0:
        return r.err
    side = json.loads((tmp / "s.json").read_text())
    side["representation_recipe"]["tables"] = ["subjects_v2"]
    (tmp / "s.json").write_text(json.dumps(side))
    r = cli("select", "--benchmark", str(MMLU), "--recipe", str(tmp / "s.json"))
    return _clear(r, "one of: subjects, description, minilm")


# --------------------------------------------------------------------------- warnings


def _lm(model: str, tasks: dict[str, float], date: float = 1.0) -> dict[str, object]:
    return {"date": date, "results": {t: {"alias": t, "acc,none": v} for t, v in tasks.items()}, "versions": {t: 1 for t in tasks},
            "higher_is_better": {t: {"acc": True} for t in tasks},
            "config": {"model": "hf", "model_args": f"pretrained={model}"}}


def _results_warning(extra: Callable[[Path], None], needle: str,
                     args: tuple[str, ...] = ()) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        res = tmp / "res"
        for j, m in enumerate(("a", "b", "c")):
            (res / m).mkdir(parents=True)
            (res / m / "r.json").write_text(json.dumps(_lm(m, {f"t{i}": 0.1 * i + 0.05 * j for i in range(1, 6)})))
        extra(res)
        r = cli("select", "--scores", str(res), "--strategy", "random", "--k", "3", *args)
        return _printed(r, needle)
    return run


def _printed(r: Run, needle: str) -> str | None:
    if r.code != 0:
        return f"exit {r.code}: {r.err[-300:]}"
    if not any(line.startswith("warning: ") and needle in line for line in r.err.splitlines()):
        return f"no printed warning with {needle!r}: {r.err[-300:]}"
    return None


def _table_warning(edit: Callable[[pd.DataFrame], pd.DataFrame], args: list[str],
                   needle: str) -> Callable[[Path], str | None]:
    def run(tmp: Path) -> str | None:
        edit(clean_frame()).to_csv(tmp / "scores.csv", index=False)
        return _printed(cli("select", "--scores", str(tmp / "scores.csv"), "--strategy", "random", "--k", "3",
                            *args), needle)
    return run


def build_round3() -> list[Case]:
    """Every case of round three."""
    ev = ["evaluate", "--benchmark", str(MMLU), "--strategies", "random", "--trials", "2", "--k-max", "3"]
    return [
        Case("links", "report --out: a link at evaluation.json", _report_link("evaluation.json")),
        Case("links", "report --out: a link at report.html", _report_link("report.html")),
        Case("links", "report --out: figures/ is a link", _report_link("figures")),
        Case("links", "report --out: the folder is a link", _report_dir_link),
        Case("links", "select --out: a link", _out_link("select", "--benchmark", str(MMLU), "--strategy", "random",
                                                         "--k", "3")),
        Case("links", "select --out: a dangling link", _dangling),
        Case("links", "evaluate --out: a link", _out_link(*ev)),
        Case("links", "inspect --out: a link", _out_link("inspect", str(MMLU / "scores.csv"))),
        Case("links", "session store: a planted entry link", _session_store),
        Case("links", "score cache: the folder is a link", _score_cache),
        Case("races", "scores.csv swapped with a link out", _race("scores.csv")),
        Case("races", "features.csv swapped with a link out", _race("features.csv")),
        Case("races", "manifest.json swapped with a link out", _race("manifest.json")),
        Case("races", "the benchmark folder swapped with a link out of its root", _race("folder")),
        Case("exports", "LaTeX: separators, controls, other scripts compile", _latex),
        Case("exports", "critical difference: a NaN entry", _cd_nan),
        Case("exports", "report: every JSON strict", _report_json),
        Case("exports", "JSON helper: NaN and infinity", _strict_helper),
        Case("arguments", "unknown option", _argument(["select", "--bogus"], "has no option --bogus")),
        Case("arguments", "misspelt command", _argument(["selct"], "did you mean 'select'")),
        Case("arguments", "bad choice", _argument(["select", "--strategy", "kmean"], "did you mean 'kmeans'")),
        Case("arguments", "missing required option", _argument(["report"], "--out is required")),
        Case("arguments", "not a number", _argument(["select", "--k", "ten"], "--k")),
        Case("messages", "JSON renamed .csv", _scores_file("scores.csv", json.dumps(
            clean_frame().to_dict(orient="records"), indent=2).encode(), "is a JSON file")),
        Case("messages", "gzipped Parquet", _scores_file("scores.parquet.gz", lambda: gzip.compress(_parquet()),
                                                         None)),
        Case("messages", "Parquet cut short", _scores_file("scores.parquet", lambda: _parquet()[:300],
                                                           "cut short")),
        Case("messages", "gzip damaged inside", _scores_file("scores.csv.gz", lambda: (lambda z: z[:20] + b"\xff" * 12
                                                                                       + z[32:])(gzip.compress(
            clean_frame().to_csv(index=False).encode())), "compressed data is damaged")),
        Case("messages", "Excel sep=; first line", _scores_file(
            "scores.csv", lambda: b"sep=;\r\n" + clean_frame().to_csv(index=False, sep=";").encode(), None)),
        Case("messages", "a row with an extra cell", _scores_file(
            "scores.csv", clean_frame().to_csv(index=False).encode() + b"d0,A,0.5,extra\n", "has 4 cells")),
        Case("messages", "only a names column", _scores_file("scores.csv", b"dataset\nd0\nd1\nd2\n",
                                                             "only the column 'dataset'")),
        Case("messages", "a title line above the header", _scores_file(
            "scores.csv", lambda: b"Table 2: Results (accuracy, %)\n" + clean_frame().to_csv(index=False).encode(),
            "line 1 looks like a title")),
        Case("messages", "a header in two rows", _scores_file("scores.csv", lambda: b"Scores,Group 1,,Group 2,\n" + _wide_csv(),
                                                              "header in two rows")),
        Case("messages", "R's write.table header (the row-name column unnamed)", _scores_file(
            "scores.csv", lambda: _wide_csv().split(b",", 1)[1], "R's write.table")),
        Case("messages", "a delimiter at the end of every row", _scores_file(
            "scores.csv", lambda: _wide_csv().replace(b"\n", b",\n").replace(b",\n", b"\n", 1), None)),
        Case("messages", "a LaTeX tabular saved as .csv", _scores_file("scores.csv", lambda: _latex_table(),
                                                                      "is a LaTeX table")),
        Case("messages", "a quote left open names its line", _scores_file(
            "scores.csv", lambda: _wide_csv() + b'"unfinished,1,2,3,4\n', "a quote opened on line 8 is never closed")),
        Case("messages", "an Excel sep= line that the header contradicts", _scores_file(
            "scores.csv", lambda: b"sep=;\n" + _wide_csv(), "line 1 says 'sep=;'")),
        Case("messages", "an empty JSON list", _scores_file("scores.json", b"[]", "a JSON list with no records")),
        Case("messages", "recipe naming a table that does not exist", _recipe_unknown_table),
        Case("warnings", "a flipped direction", _table_warning(lambda d: d, ["--lower-is-better-datasets", "d0"],
                                                               "negated")),
        Case("warnings", "a dropped model", _table_warning(lambda d: d.drop(index=[0]), ["--missing", "drop-models"],
                                                           "dropped")),
        Case("warnings", "a duplicate result resolved", _results_warning(
            lambda res: (res / "a" / "rerun.json").write_text(json.dumps(_lm("a", {"t1": 0.9}, date=2.0))),
            "several files")),
        Case("warnings", "a JSON file that is not a result", _results_warning(
            lambda res: (res / "notes.json").write_text('{"comment": 1}'), "notes.json", ("--skip-unreadable",))),
    ]
