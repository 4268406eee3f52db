"""Exports safe to open, read back by the product; terminal output free of control characters.

Every CSV the product writes goes through :mod:`subsetsel_core.text.safe_csv`: hostile text cells
neutralised, cells a reader could split quoted, numbers kept as numbers. Checked on the
writer itself (against pandas on plain tables, on hostile cells, a round trip by
:func:`restore` for any text), on the files the CLI writes (subset CSV, budget curves) and
the dashboard offers (subset CSV, template), and on reading them back (``subsetsel place``,
``--include``, ``--recipe``, the placement uploader). Names with escape sequences and
endless names never reach a terminal as they are.
"""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import apphelpers as H  # puts the repository root on sys.path
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsetsel_core.errors import InputError
from subsetsel_core.io.tables import read_table
from subsetsel_core.outputs import export
from subsetsel_core.text.safe_csv import csv_text, neutralise, restore, restore_frame
from subsetsel_core.text.safe_text import MESSAGE, printable, safe_message

#: Dataset names a spreadsheet would run, a reader could split, or a terminal would obey.
HOSTILE = ["+aug", "@risk", "-minus", '=HYPERLINK("http://x")', "=1+2", "\tlead_tab", "\rlead_cr",
           "a,b", "a;=cmd()", "p|=q", 'say "hi"', "two\nlines", "'=already", "''+twice", "－fullwidth", "plain"]
cells_by_any_reader, live_formula = H.cells_by_any_reader, H.live_formula


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- the writer


def test_plain_tables_are_written_as_pandas_writes_them() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"order": np.arange(1, 6), "dataset": list("abcde"), "x": rng.normal(size=5),
                       "f32": np.float32([0.1, 1, 2, 3, np.nan]), "flag": [True, False, True, True, False],
                       "text": ["1", "-0.5", "", None, "x"], "mixed": [1, "a", 2.5, None, np.nan],
                       "n": pd.array([1, None, 3, 4, 5], dtype="Int64"), "big": [np.inf, -1e308, 1e16, 5e-324, 0]})
    assert csv_text(df) == df.to_csv(index=False)
    assert csv_text(df.set_index("dataset"), index_label="dataset") == df.set_index("dataset").to_csv(
        index_label="dataset")


def test_hostile_cells_are_neutralised_and_quoted() -> None:
    df = pd.DataFrame({"dataset": HOSTILE, "value": np.linspace(-1, 1, len(HOSTILE)),
                       "=header": ["-0.5"] * len(HOSTILE)})
    text = csv_text(df)
    cells = cells_by_any_reader(text)
    assert not [c for c in cells if live_formula(c)], [c for c in cells if live_formula(c)]
    assert text.splitlines()[0] == "dataset,value,'=header"  # header cells too
    back = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert len(back) == len(HOSTILE)  # no row split by a CR, LF or separator
    restored = restore_frame(back)
    assert restored["dataset"].tolist() == HOSTILE
    assert list(restored.columns) == ["dataset", "value", "=header"]
    # numbers stay numbers: the negative values are plain numeric cells, never prefixed
    assert pd.to_numeric(back["value"]).tolist() == pytest.approx(df["value"].tolist())
    assert back["value"].iloc[0] == "-1.0" and back["'=header"].iloc[0] == "-0.5"


def test_comment_lines_are_formula_safe_and_skipped_by_readers() -> None:
    meta = {"benchmark": 'x,=HYPERLINK("y")', "note": "line\nbreak\u2028", "list": ["-a", "@b;+c", "a|=d"]}
    text = export.subset_csv(pd.DataFrame({"dataset": ["a"]}), metadata=meta)
    head = text.splitlines()[:3]
    assert all(line.startswith("# ") for line in head), head  # unquoted: '#' first, so readers skip it
    assert not [c for c in cells_by_any_reader(text) if live_formula(c)]
    assert pd.read_csv(io.StringIO(text), comment="#")["dataset"].tolist() == ["a"]
    from subsetsel_core.text.safe_csv import split_comments

    back, body = split_comments(text)
    assert back == meta and body == "dataset\na\n"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("'=+-@\t\r\n,;|\"ab1.eE ") + ["＝", "＠"]), max_size=12))
def test_restore_undoes_neutralise_for_any_text(text: str) -> None:
    assert restore(neutralise(text)) == text
    assert not live_formula(neutralise(text)) or _number(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("'=+-@\t\r\n,;|\"ab1")), min_size=1, max_size=8),
                min_size=1, max_size=6, unique=True))
def test_any_names_survive_a_round_trip(names: list[str]) -> None:
    text = csv_text(pd.DataFrame({"dataset": names, "score": [""] * len(names)}))
    back = restore_frame(pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False))
    assert back["dataset"].tolist() == names


# --------------------------------------------------------------------------- the CLI's files, read back


@pytest.fixture(scope="module")
def hostile_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hostile_names")
    rows = [(name, m, 0.5 + 0.08 * j + 0.01 * i) for i, name in enumerate(HOSTILE) for j, m in enumerate("ABCD")]
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(d / "scores.csv", index=False)
    pd.DataFrame({"dataset": HOSTILE, "size": (np.arange(len(HOSTILE)) + 1) ** 2,
                  "note": [f"-{i}" if i % 2 else f"@n{i}" for i in range(len(HOSTILE))]}).to_csv(
        d / "features.csv", index=False)
    return d


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "subsetsel_core", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


def test_subset_csv_of_the_cli_is_safe_and_read_back(hostile_bench: Path, tmp_path: Path) -> None:
    d = hostile_bench
    out, side = tmp_path / "subset.csv", tmp_path / "subset.json"
    r = cli("select", "--scores", str(d / "scores.csv"), "--features", str(d / "features.csv"),
            "--strategy", "fafi-euclidean", "--k", str(len(HOSTILE)), "--out", str(out), "--sidecar", str(side))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    assert not [c for c in cells_by_any_reader(text) if live_formula(c)]
    table = restore_frame(read_table(out.read_bytes(), label="subset.csv"))
    assert sorted(table["dataset"]) == sorted(n.strip() for n in HOSTILE)  # the loader strips names
    # the sidecar reproduces it
    r2 = cli("select", "--scores", str(d / "scores.csv"), "--features", str(d / "features.csv"), "--recipe", str(side))
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout.split("\n# input_sha256")[1].split("\n", 1)[1] == text.split("\n# input_sha256")[1].split("\n", 1)[1]
    # its names, as the CSV shows them, work as --include
    shown = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, comment="#")["dataset"]
    pick = [n for n in shown if n.startswith("'")][:2]
    r3 = cli("select", "--scores", str(d / "scores.csv"), "--features", str(d / "features.csv"),
             "--strategy", "fafi-euclidean", "--k", "3", f"--include={','.join(pick)}")
    assert r3.returncode == 0, r3.stderr
    first = restore_frame(pd.read_csv(io.StringIO(r3.stdout), dtype=str, keep_default_na=False,
                                      comment="#"))["dataset"][:2]
    assert first.tolist() == [restore(p) for p in pick]
    # subsetsel place reads the subset CSV, and a template filled in
    tmpl = tmp_path / "new.csv"
    tmpl.write_text(export.template_csv(list(table["dataset"])).replace(",\n", ",0.9\n"), encoding="utf-8")
    r4 = cli("place", "--reference", str(d / "scores.csv"), "--subset", str(out), "--scores", str(tmpl))
    assert r4.returncode == 0, r4.stderr
    assert "estimated position" in r4.stdout


def test_budget_curves_csv_goes_through_the_writer(hostile_bench: Path, tmp_path: Path) -> None:
    d = hostile_bench
    out = tmp_path / "budget.csv"
    r = cli("evaluate", "--scores", str(d / "scores.csv"), "--features", str(d / "features.csv"),
            "--strategies", "random,fafi-euclidean", "--trials", "3", "--budget", "0.5", "--cost-column", "size",
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    frame = pd.read_csv(out, comment="#")  # the provenance block: '# key: value' lines
    assert text.startswith("# subsetsel_version: ") and "\n# command: \"subsetsel evaluate " in text
    assert text == csv_text(frame) or not [c for c in cells_by_any_reader(text) if live_formula(c)]
    assert frame.select_dtypes("number").shape[1] >= 2  # numbers stay numbers


def test_template_and_placement_upload_round_trip() -> None:
    import apphelpers  # noqa: F401 - puts the repository root on sys.path

    from subsetsel_app.views.placement import parse_upload

    tmpl = export.template_csv(HOSTILE)
    assert not [c for c in cells_by_any_reader(tmpl) if live_formula(c)]
    filled = tmpl.replace(",\n", ",0.75\n")
    parsed = parse_upload("filled.csv", filled.encode("utf-8"))
    assert not parsed.problems, parsed.problems
    assert [r[0] for r in parsed.rows] == HOSTILE


def test_dashboard_subset_download_is_the_cli_writer() -> None:
    import apphelpers  # noqa: F401

    from subsetsel_core import load_scores
    from subsetsel_core.selection.subsets import select_datasets
    from subsetsel_core.synthetic import make_synthetic

    s = make_synthetic(n_datasets=10, n_models=4, n_folds=1, seed=2)
    bench = load_scores(s.scores)
    sel = select_datasets(bench, None, "random", 4, seed=1)
    table = export.subset_table(sel)
    table["dataset"] = ["+x", "@y", "-z", "w"]
    assert export.subset_csv(table) == csv_text(table)


# --------------------------------------------------------------------------- terminal output


ESC_NAME = "\x1b[2J\x1b]0;pwned\x07evil\u202ename"


def test_messages_escape_control_characters_and_shorten_names() -> None:
    exc = InputError(f"unknown dataset '{ESC_NAME}' and '{'x' * 5000}'")
    msg = str(exc)
    assert "\x1b" not in msg and "\x07" not in msg and "\u202e" not in msg
    assert "\\x1b[2J" in msg and "\\u202e" in msg
    assert len(msg) < 400 and "characters]" in msg and "x" * 200 not in msg
    long = InputError("word " * 2000)
    assert len(str(long)) <= MESSAGE
    assert safe_message(str(exc)) == str(exc)  # idempotent
    assert printable("tab\there", newlines=True) == "tab\\there"


def test_cli_messages_and_lines_never_pass_escape_sequences(hostile_bench: Path, tmp_path: Path) -> None:
    d = tmp_path
    names = [ESC_NAME, "ok_a", "ok_b", "ok_c", "n" * 3000]
    rows = [(n, m, 0.5 + 0.1 * j + 0.01 * i) for i, n in enumerate(names) for j, m in enumerate("AB")]
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(d / "s.csv", index=False)
    for args in (("select", "--scores", str(d / "s.csv"), "--strategy", "random", "--k", "2",
                  "--include", "\x1b[31mred"),
                 ("select", "--scores", str(d / "s.csv"), "--strategy", "\x1b[2Jnope", "--k", "2"),
                 ("select", "--scores", str(d / "s.csv"), "--strategy", "random", "--k", "2", "--seed", "\x1b[5m")):
        r = cli(*args)
        assert r.returncode == 2, r.stderr
        assert "\x1b" not in r.stderr and "Traceback" not in r.stderr and len(r.stderr) < 2000, r.stderr
    side = tmp_path / "sub.json"
    r = cli("select", "--scores", str(d / "s.csv"), "--strategy", "random", "--k", "5", "--sidecar", str(side),
            "--out", str(tmp_path / "sub.csv"))
    assert r.returncode == 0, r.stderr
    r = cli("select", "--scores", str(d / "s.csv"), "--recipe", str(side), "--name", "other\x1b[2J")
    assert "\x1b" not in r.stderr, r.stderr


def test_csv_on_a_terminal_is_escaped_but_exact_in_a_pipe(tmp_path: Path) -> None:
    d = tmp_path
    names = [ESC_NAME, "ok_a", "ok_b", "ok_c"]
    rows = [(n, m, 0.5 + 0.1 * j + 0.01 * i) for i, n in enumerate(names) for j, m in enumerate("AB")]
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(d / "s.csv", index=False)
    args = [sys.executable, "-m", "subsetsel_core", "select", "--scores", str(d / "s.csv"), "--strategy", "random",
            "--k", "4"]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and ESC_NAME in piped.stdout
    leader, follower = pty.openpty()
    with subprocess.Popen(args, stdout=follower, stderr=subprocess.PIPE) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=300)
    os.close(leader)
    shown = b"".join(chunks).decode("utf-8")
    assert proc.returncode == 0
    assert "\x1b" not in shown and "\\x1b[2J" in shown


def test_json_output_escapes_control_characters(tmp_path: Path) -> None:
    names = [ESC_NAME, "ok_a", "ok_b"]
    rows = [(n, m, 0.5 + 0.1 * j + 0.01 * i) for i, n in enumerate(names) for j, m in enumerate("AB")]
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(tmp_path / "s.csv", index=False)
    r = cli("select", "--scores", str(tmp_path / "s.csv"), "--strategy", "random", "--k", "3", "--format", "json")
    assert r.returncode == 0 and "\x1b" not in r.stdout
    assert ESC_NAME in json.loads(r.stdout)["datasets"]
