"""Benchmark folders, manifests, Parquet files, pipes and devices are untrusted input.

* a file of a benchmark folder that is a link out of the folder is refused, and the message
  never shows what the file holds; a link inside the folder is fine;
* absurd manifests (huge integers, deep nesting, keys twice, wrong types) get exit code 2
  and one line, never a traceback;
* one broken manifest never hides the good benchmarks of a directory, in the library and on
  the Benchmark page (listed as broken, with why);
* Parquet memory is bounded by the decoded size (a few hundred kB of dictionary-encoded
  strings that decode to a gigabyte are refused from the metadata);
* a device (``/dev/zero``) is refused at once and a pipe is read with the table cap.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.file_guard import read_input_file
from subsetsel_core.io.parquet_guard import check_parquet, decoded_size
from subsetsel_core.loading.folder import scan_benchmarks
from subsetsel_core.loading.manifest import read_manifest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from hostile_corpus import clean_frame, features_frame  # noqa: E402

SECRET = "hunter2-top-secret"
BASE: dict[str, Any] = {"name": "bench", "higher_is_better": True, "scores": {"file": "scores.csv"},
                        "representations": [{"name": "f", "kind": "tabular", "files": ["features.csv"]}]}


def folder(root: Path, name: str, manifest: str | dict[str, Any] | None = None) -> Path:
    d = root / name
    d.mkdir()
    text = manifest if isinstance(manifest, str) else json.dumps({**BASE, "name": name, **(manifest or {})})
    (d / "manifest.json").write_text(text, encoding="utf-8")
    clean_frame().to_csv(d / "scores.csv", index=False)
    features_frame().to_csv(d / "features.csv", index=False)
    return d


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "subsetsel_core", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``subsetsel ARGS`` run by :func:`subsetsel_core.cli.main.main` in this process (fast)."""
    from subsetsel_core.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def select(d: Path | str, *extra: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """``subsetsel select --benchmark D``: in a subprocess when given a timeout (it might block), else in process."""
    args = ("select", "--benchmark", str(d), "--strategy", "fafi-euclidean", "--k", "3", *extra)
    return cli(*args, **kw) if kw else in_process(*args)


def clear(r: subprocess.CompletedProcess[str], needle: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "unexpected error" not in r.stderr, r.stderr
    assert needle.lower() in r.stderr.lower(), r.stderr
    assert len(r.stderr) < 2000 and r.stderr.count("subsetsel: error") == 1


# --------------------------------------------------------------------------- links and special files


def test_a_link_out_of_the_folder_is_refused_without_showing_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text(f"dataset,{SECRET}\nd0,{SECRET}\n", encoding="utf-8")
    for what in ("features.csv", "scores.csv"):
        d = folder(tmp_path, f"out_{what.split('.')[0]}")
        (d / what).unlink()
        (d / what).symlink_to(secret)
        r = select(d)
        clear(r, "outside the benchmark folder")
        assert SECRET not in r.stderr
    d = folder(tmp_path, "linked_dir", {"scores": {"file": "data/scores.csv"}})
    (d / "data").symlink_to(tmp_path / "out_scores")  # a folder link out of it
    clear(select(d), "outside the benchmark folder")
    d = folder(tmp_path, "manifest_link")
    (d / "manifest.json").unlink()
    (tmp_path / "elsewhere.json").write_text(json.dumps(BASE))
    (d / "manifest.json").symlink_to(tmp_path / "elsewhere.json")
    clear(select(d), "outside the benchmark folder")


def test_a_link_inside_the_folder_is_fine(tmp_path: Path) -> None:
    d = folder(tmp_path, "inside")
    (d / "real_features.csv").write_bytes((d / "features.csv").read_bytes())
    (d / "features.csv").unlink()
    (d / "features.csv").symlink_to("real_features.csv")
    r = select(d)
    assert r.returncode == 0, r.stderr


def test_pipes_and_devices_in_a_folder_are_refused_without_blocking(tmp_path: Path) -> None:
    d = folder(tmp_path, "fifo")
    (d / "features.csv").unlink()
    os.mkfifo(d / "features.csv")  # opening it would wait for a writer forever
    clear(select(d, timeout=60), "is a pipe")
    d = folder(tmp_path, "manifest_fifo")
    (d / "manifest.json").unlink()
    os.mkfifo(d / "manifest.json")
    clear(select(d, timeout=60), "is a pipe")


def test_devices_given_as_files_are_refused_at_once() -> None:
    for args in (("select", "--scores", "/dev/zero", "--strategy", "random", "--k", "2"),
                 ("select", "--scores", "/dev/urandom", "--strategy", "random", "--k", "2"),
                 ("place", "--reference", "/dev/zero", "--subset", "x.csv", "--scores", "y.csv")):
        clear(cli(*args, timeout=60), "is a device")


def test_a_pipe_is_read_with_the_table_cap(tmp_path: Path) -> None:
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    text = clean_frame().to_csv(index=False)
    writer = threading.Thread(target=lambda: fifo.write_text(text), daemon=True)
    writer.start()
    r = cli("select", "--scores", str(fifo), "--strategy", "random", "--k", "3", timeout=60)
    assert r.returncode == 0, r.stderr
    big = tmp_path / "big.csv"
    os.mkfifo(big)

    def flood() -> None:
        try:
            with open(big, "w") as fh:
                fh.write("dataset,model,score\n" + "d,m,1\n" * 400_000)
        except BrokenPipeError:
            pass

    threading.Thread(target=flood, daemon=True).start()
    r = cli("select", "--scores", str(big), "--strategy", "random", "--k", "3", env={"SUBSETSEL_MAX_TABLE_MB": "1"},
            timeout=60)
    clear(r, "over the limit")


def test_read_input_file_caps_and_refuses(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_bytes(b"x" * 100)
    assert read_input_file(p, "t.csv", 100) == b"x" * 100
    with pytest.raises(InputError, match="over the limit"):
        read_input_file(p, "t.csv", 99)
    with pytest.raises(InputError, match="is a device"):
        read_input_file(Path("/dev/zero"), "zero", 10)
    with pytest.raises(InputError, match="is a folder"):
        read_input_file(tmp_path, "dir", 10)


# --------------------------------------------------------------------------- absurd manifests

ABSURD = {
    "huge integer": ('{"name": "x", "higher_is_better": true, "format_version": ' + "9" * 5000
                     + ', "scores": "scores.csv"}', "number too long"),
    "deep nesting": ('{"name": "x", "higher_is_better": true, "parameters": ' + '{"a": ' * 50000 + "1"
                     + "}" * 50000 + ', "scores": "scores.csv"}', "nesting too deep"),
    "nesting over the cap": ('{"name": "x", "higher_is_better": true, "parameters": {"a": ' + "[" * 100 + "]" * 100
                             + '}, "scores": "scores.csv"}', "levels deep"),
    "key twice": ('{"name": "x", "name": "y", "higher_is_better": true, "scores": "scores.csv"}', "given twice"),
    "version true": (json.dumps({**BASE, "format_version": True}), "format_version"),
    "version NaN": ('{"name": "x", "higher_is_better": true, "format_version": NaN, "scores": "scores.csv"}',
                    "format_version"),
    "direction as text": (json.dumps({**BASE, "higher_is_better": "false"}), "must be true or false"),
    "name a number": (json.dumps({**BASE, "name": 5}), "must be a string"),
    "scores a list": (json.dumps({**BASE, "scores": ["scores.csv"]}), "must be an object"),
    "representations an object": (json.dumps({**BASE, "representations": {"a": 1}}), "must be a list"),
    "representation a number": (json.dumps({**BASE, "representations": [5]}), "must be an object"),
    "columns numbers": (json.dumps({**BASE, "representations": [{"name": "f", "kind": "tabular", "files": [
        "features.csv"], "columns": [1, 2]}]}), "column names"),
    "a list": ("[1, 2, 3]", "JSON object"),
    "not UTF-8": (b"\xff\xfe{".decode("latin-1"), "JSON"),
    "file out of the folder": (json.dumps({**BASE, "scores": {"file": "../x/scores.csv"}}), "outside"),
}


@pytest.mark.parametrize("name", list(ABSURD))
def test_absurd_manifests_get_exit_2(name: str, tmp_path: Path) -> None:
    text, needle = ABSURD[name]
    d = folder(tmp_path, "absurd", text)
    with pytest.raises(InputError, match="manifest.json"):
        read_manifest(d)
    clear(select(d), needle)


def test_one_broken_manifest_never_hides_the_others(tmp_path: Path) -> None:
    folder(tmp_path, "a_good")
    folder(tmp_path, "z_good")
    for i, (text, _) in enumerate(ABSURD.values()):
        folder(tmp_path, f"broken_{i:02d}", text)
    d = folder(tmp_path, "manifest_dir")
    (d / "manifest.json").unlink()
    (d / "manifest.json").mkdir()
    d = folder(tmp_path, "manifest_pipe")
    (d / "manifest.json").unlink()
    os.mkfifo(d / "manifest.json")
    (tmp_path / "not_a_benchmark").mkdir()
    cat = scan_benchmarks(tmp_path)
    assert [m.name for m in cat.manifests] == ["a_good", "z_good"]
    broken = {p.name: msg for p, msg in cat.problems}
    assert len(broken) == len(ABSURD) + 2 and "not_a_benchmark" not in broken
    assert all(msg for msg in broken.values())
    frame = cat.to_frame()
    assert (frame["status"] == "error").sum() == len(ABSURD) + 2


def test_the_benchmark_page_lists_good_and_broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import apphelpers as H

    folder(tmp_path, "a_good")
    folder(tmp_path, "broken_deep", ABSURD["deep nesting"][0])
    folder(tmp_path, "broken_types", ABSURD["direction as text"][0])
    monkeypatch.setenv("SUBSETSEL_BENCHMARK_ROOTS", str(tmp_path))  # the server offers this directory
    at = H.new_app()
    H.goto(at, "benchmark")
    assert not at.exception, [e.value for e in at.exception]
    assert [o for o in at.selectbox(key="bench_choice").options if "a_good" in o]
    warnings = " ".join(str(w.value) for w in at.warning).replace("\\", "")  # Markdown escapes
    assert "broken_deep" in warnings and "broken_types" in warnings and "true or false" in warnings


# --------------------------------------------------------------------------- Parquet


def dictionary_bomb(rows: int = 2_000_000) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    zeros = pa.array(np.zeros(rows, dtype=np.int32))
    table = pa.table({"dataset": pa.DictionaryArray.from_arrays(zeros, pa.array(["x" * 1000])),
                      "model": pa.DictionaryArray.from_arrays(zeros, pa.array(["m"])),
                      "score": pa.array(np.zeros(rows))})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def test_parquet_is_bounded_by_its_decoded_size() -> None:
    raw = dictionary_bomb()
    assert len(raw) < 2**20  # under a megabyte on disk …
    assert decoded_size(raw, 2**40) > 2 * 10**9  # … two gigabytes once decoded
    with pytest.raises(InputError, match="decoded"):
        check_parquet(raw, "bomb.parquet", 200 * 2**20)
    small = io.BytesIO()
    clean_frame().to_parquet(small)
    check_parquet(small.getvalue(), "ok.parquet", 2**20)


def test_nested_parquet_columns_are_refused() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table({"dataset": ["a"], "score": pa.array([[1.0, 2.0]])}), buf)
    with pytest.raises(InputError, match="nested"):
        check_parquet(buf.getvalue(), "nested.parquet", 2**20)


def _tables_checks_parquet() -> bool:
    from subsetsel_core.io import tables

    return "check_parquet" in Path(tables.__file__).read_text(encoding="utf-8")


@pytest.mark.skipif(not _tables_checks_parquet(), reason="io/tables.py does not call check_parquet yet")
def test_the_cli_refuses_a_parquet_bomb(tmp_path: Path) -> None:
    (tmp_path / "bomb.parquet").write_bytes(dictionary_bomb())
    clear(cli("select", "--scores", str(tmp_path / "bomb.parquet"), "--strategy", "random", "--k", "2"), "decoded")

