"""A table saved as JSON records (``to_json(orient="records")``, a leaderboard's download) is read as the same table
its CSV is; what is not a flat list of objects is refused naming the item and key; result files stay results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.table import guess_table
from subsetsel_core.io.source_kind import is_result_source
from subsetsel_core.io.tables import read_table

SHAPES = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards" / "shapes"
LM_EVAL = Path(__file__).resolve().parents[2] / "fixtures" / "results"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBSETSEL_NO_CACHE", "1")


def _as_records(csv_name: str) -> bytes:
    """The CSV's rows as JSON objects, plain numbers as JSON numbers and empty cells as null."""
    df = read_table(SHAPES / csv_name, object_text=True)

    def value(cell: str) -> object:
        text = cell.strip()
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            return cell
        return int(text) if text.lstrip("-").isdigit() else number if repr(number) == text else cell

    rows = [{c: value(v) for c, v in zip(df.columns, row, strict=True)} for row in df.itertuples(index=False)]
    return json.dumps(rows, indent=1).encode()


#: The shapes' CSVs that read as tables (multirow.csv, a header in two rows, is refused as CSV and has no records form).
READABLE = sorted(p.name for p in SHAPES.glob("*.csv") if p.name != "multirow.csv")


@pytest.mark.parametrize("name", READABLE)
def test_records_read_as_the_csv_reads(name: str) -> None:
    csv_guess = guess_table(read_table(SHAPES / name, object_text=True), label=name)
    try:
        records = read_table(_as_records(name), label=name.replace(".csv", ".json"), object_text=True)
    except InputError as exc:
        pytest.fail(str(exc))
    g = guess_table(records, label=name)
    assert (g.layout, g.model_column, g.n_datasets, g.n_models) == (
        csv_guess.layout, csv_guess.model_column, csv_guess.n_datasets, csv_guess.n_models)
    assert (g.direction, g.direction_from) == (csv_guess.direction, csv_guess.direction_from)
    assert sorted(u.split(":")[0] for u in g.unsure) == sorted(u.split(":")[0] for u in csv_guess.unsure)


def test_cells_keep_their_text_and_gaps() -> None:
    raw = b'[{"model": "a", "MMLU": 70.10, "GSM8K": 1e2, "ok": true}, {"model": "b", "MMLU": null}]'
    df = read_table(raw, label="t.json", object_text=True)
    assert list(df.columns) == ["model", "MMLU", "GSM8K", "ok"]
    assert df.to_dict(orient="list") == {"model": ["a", "b"], "MMLU": ["70.10", ""], "GSM8K": ["1e2", ""],
                                         "ok": ["true", ""]}


@pytest.mark.parametrize(("raw", "needle"), [
    (b'[{"model": "a", "scores": {"MMLU": 70}}]', "item 1's 'scores' is an object, not a single value"),
    (b'[{"model": "a", "MMLU": 70}, [1, 2]]', "item 2 of the JSON list is a list, not an object"),
    (b'[{"model": "a", "MMLU": 70, "MMLU": 71}]', "gives the key 'MMLU' twice"),
    (b'[{"model": "a", "MMLU": 70}', "is not valid JSON"),
    (b'[{"model": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}]", "nests too deeply"),
    (b'[{"model": "caf\xe9", "MMLU": 70}]', "not UTF-8"),
])
def test_what_is_not_a_flat_list_of_objects_is_refused_by_name(raw: bytes, needle: str) -> None:
    with pytest.raises(InputError, match=needle.replace("(", r"\(")):
        read_table(raw, label="t.json")


def test_records_renamed_csv_are_still_called_json() -> None:
    with pytest.raises(InputError, match="is a JSON file"):
        read_table(b'[{"model": "a", "MMLU": 70}, {"model": "b", "MMLU": 60}]', label="t.csv")


def test_results_stay_results_and_records_are_tables(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_bytes(b'[\n  {"model": "a", "MMLU": 70}]')
    assert not is_result_source(tmp_path / "t.json")
    assert not is_result_source(b' [{"model": "a"}]')
    lm_eval = next(LM_EVAL.rglob("results*.json"))
    assert is_result_source(lm_eval) and is_result_source(lm_eval.read_bytes())
    assert not is_result_source(b"[]")  # an empty list: the records reader says it holds no records
    with pytest.raises(InputError, match="a JSON list with no records"):
        read_table(b"[]", label="t.json")
    with pytest.raises(InputError, match="its 2 JSON objects hold no keys"):
        read_table(b"[{}, {}]", label="t.json")


def test_the_command_line_selects_from_records(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [{"model": f"m{j}", **{f"task{i}": round(float(rng.uniform(0.3, 0.9)), 3) for i in range(6)}}
            for j in range(5)]
    (tmp_path / "lb.json").write_text(json.dumps(rows))
    r = subprocess.run([sys.executable, "-m", "subsetsel_core", "select", "--scores", str(tmp_path / "lb.json"),
                        "--strategy", "random", "--k", "3", "--representation", "names"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    chosen = r.stdout.split("order,dataset\n", 1)[1].split()
    assert len(chosen) == 3 and all(line.split(",")[1].startswith("task") for line in chosen)
    assert "6 datasets" in r.stderr and "5 models" in r.stderr


def test_a_list_of_every_eval_ever_records_stays_results(tmp_path: Path) -> None:
    records = [json.loads(p.read_text()) for p in sorted((LM_EVAL / "eee").rglob("*.json"))]
    (tmp_path / "all.json").write_text(json.dumps(records))
    assert is_result_source(tmp_path / "all.json") and is_result_source((tmp_path / "all.json").read_bytes())
    from subsetsel_core.io.result_folders import read_results

    assert len(set(read_results(tmp_path / "all.json").frame["model"])) == 3


def _as_lines(csv_name: str) -> bytes:
    """The CSV's rows as JSON Lines: one object per line, as ``to_json(orient="records", lines=True)`` writes them."""
    rows = json.loads(_as_records(csv_name))
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


@pytest.mark.parametrize("name", ["glue.csv", "open_llm_v2.csv", "ogb_long.csv"])
@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson"])
def test_json_lines_read_as_the_csv_reads(name: str, suffix: str) -> None:
    csv_df = read_table(SHAPES / name, object_text=True)
    lines = read_table(_as_lines(name), label=name.replace(".csv", suffix), object_text=True)
    assert list(lines.columns) == list(csv_df.columns) and len(lines) == len(csv_df)
    g, c = guess_table(lines, label=name), guess_table(csv_df, label=name)
    assert (g.layout, g.model_column, g.n_datasets, g.n_models, g.direction) == (
        c.layout, c.model_column, c.n_datasets, c.n_models, c.direction)


@pytest.mark.parametrize(("raw", "needle"), [
    (b'{"model": "a", "MMLU": 70}\n\n{"model": "b", "MMLU": 60\n', "not valid JSON (Expecting ',' delimiter at line 3"),
    (b'{"model": "a", "MMLU": 70}\n[1, 2]\n', "line 2 is a list, not an object"),
    (b'{"model": "a"}\n{"model": "b", "x": {"y": 1}}\n', "line 2's 'x' is an object, not a single value"),
    (b'{"model": "a", "MMLU": 70, "MMLU": 1}\n', "line 1 gives the key 'MMLU' twice"),
    (b"\n  \n", "the file is empty"),
])
def test_json_lines_that_are_not_flat_objects_are_refused_by_line(raw: bytes, needle: str) -> None:
    with pytest.raises(InputError, match=needle.replace("(", r"\(")):
        read_table(raw, label="t.jsonl")


def test_messages_about_rows_name_json_items_and_lines() -> None:
    """A JSON list's rows are named by their item numbers, JSON Lines' by their lines (blank lines counted)."""
    from subsetsel_core.benchmark import load_scores

    items = b'[{"m": "a", "A": 0.5, "B": 0.7, "C": 0.1}, {"m": "b", "A": 0.6, "B": "x", "C": 0.3}, ' \
            b'{"m": "c", "A": 0.4, "B": 0.9, "C": 0.2}]'
    lines = b'{"m": "a", "A": 0.5, "B": 0.7, "C": 0.1}\n\n{"m": "b", "A": 0.6, "B": "x", "C": 0.3}\n' \
            b'{"m": "c", "A": 0.4, "B": 0.9, "C": 0.2}\n'
    for raw, label, at, cell in ((items, "t.json", 2, "item 2"), (lines, "t.jsonl", 3, "line 3")):
        with pytest.raises(InputError, match=f"not numbers in rows {at} "):
            load_scores(raw, label=label, layout="models-as-rows", model_column="m", higher_is_better=True)
        g = guess_table(read_table(raw, label=label, object_text=True), label=label)
        assert any(f"({cell}: 'x')" in u for u in g.unsure)


def test_a_json_list_named_jsonl_and_json_lines_named_json_are_told_apart() -> None:
    with pytest.raises(InputError, match="is one JSON list, not JSON Lines.*Give it a .json name"):
        read_table(b'[{"m": "a", "A": 1}, {"m": "b", "A": 2}]', label="t.jsonl")
    with pytest.raises(InputError, match="holds a JSON object on each line .*Give it a .jsonl name"):
        read_table(b'{"m": "a", "A": 1}\n{"m": "b", "A": 2}\n', label="t.json")
