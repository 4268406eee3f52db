"""Provenance in the template of a new model's scores and in workspace files: written, read back.

The template CSV carries the subset CSV's leading ``# key: value`` block (formula-safe,
skipped by ``pandas.read_csv(comment="#")``, by ``subsetsel place`` and by the dashboard's
uploader, also after a spreadsheet saved it again); a workspace file holds the record
under ``"provenance"`` in ``workspace.json``, checked on load like every other field, and an
older file without it still loads.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.outputs import export
from subsetsel_core.outputs.provenance import PROVENANCE_KEYS, provenance
from subsetsel_core.selection.placement import read_model_scores
from subsetsel_core.text.safe_csv import split_comments
from subsetsel_core.version import VERSION
from subsetsel_core.workspace.files import Workspace, load_workspace, save_workspace

MMLU = H.ROOT / "sample_data" / "mmlu"
FORMULA = "=cmd|' /C calc'!A0"
def _record(**settings: Any) -> dict[str, Any]:
    return provenance(seed=7, inputs={"mmlu/scores.csv": "ab" * 32},
                      settings={"benchmark": "mmlu", "strategy": "kmeans", "k": 3, "seed": 7,
                                "representation_recipe": {"tables": ["subjects"]}, **settings})


def _filled(text: str, score: float = 0.5) -> str:
    return text.replace(",\n", f",{score}\n")


# --------------------------------------------------------------------------- the template CSV


def test_template_starts_with_the_provenance_block_and_pandas_skips_it() -> None:
    rec = _record()
    text = export.template_csv(["a", "+aug", "c,d"], rec)
    assert text.startswith(f'# subsetsel_version: "{VERSION}"\n')
    meta, body = split_comments(text)
    assert list(meta) == list(PROVENANCE_KEYS) and meta == rec
    assert body.startswith("dataset,score\n")
    frame = pd.read_csv(io.StringIO(text), comment="#", keep_default_na=False)
    assert list(frame.columns) == ["dataset", "score"] and frame["dataset"].tolist() == ["a", "'+aug", "c,d"]
    assert export.template_csv(["a"]) == "dataset,score\na,\n"  # no record: no block


def test_a_filled_in_template_is_read_back_by_the_core_and_the_dashboard() -> None:
    from subsetsel_app.views.placement import parse_upload

    names = ["a", "+aug", "c,d", "@risk"]
    filled = _filled(export.template_csv(names, _record()), 0.75)
    scores = read_model_scores(filled.encode("utf-8"), label="filled.csv")
    assert scores["dataset"].tolist() == names and scores["score"].tolist() == [0.75] * 4
    parsed = parse_upload("filled.csv", filled.encode("utf-8"))
    assert not parsed.problems, parsed.problems
    assert [r[0] for r in parsed.rows] == names and {r[2] for r in parsed.rows} == {0.75}


def test_a_template_saved_again_by_a_spreadsheet_is_still_read() -> None:
    """A spreadsheet splits the comment lines at commas and quotes their first cells when it saves."""
    from subsetsel_app.views.placement import parse_upload

    filled = _filled(export.template_csv(["a", "b"], _record()), 0.25)
    rows = list(csv.reader(io.StringIO(filled)))
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    resaved = "\ufeff" + out.getvalue()
    assert '\r\n"# settings: ' in resaved  # the block as the spreadsheet wrote it
    scores = read_model_scores(resaved.encode("utf-8"), label="resaved.csv")
    assert scores["dataset"].tolist() == ["a", "b"] and scores["score"].tolist() == [0.25, 0.25]
    parsed = parse_upload("resaved.csv", resaved.encode("utf-8"))
    assert not parsed.problems and [r[0] for r in parsed.rows] == ["a", "b"]


def test_a_tampered_provenance_value_is_neutralised_like_every_cell() -> None:
    rec = _record(benchmark=FORMULA, include=[FORMULA, "x;=1+2"])
    rec["input_sha256"] = {f"{FORMULA}.csv": "00", "a,@SUM(A1)": "11"}
    text = export.template_csv([FORMULA, "b"], rec)
    assert not [c for c in H.cells_by_any_reader(text) if H.live_formula(c)]
    meta, _ = split_comments(text)
    assert meta == rec  # the block reads back as written
    frame = pd.read_csv(io.StringIO(text), comment="#", keep_default_na=False)
    assert frame["dataset"].tolist() == ["'" + FORMULA, "b"]


def test_subsetsel_place_reads_a_filled_in_template_with_its_block(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from subsetsel_core.cli.main import main

    subset = tmp_path / "subset.csv"
    assert main(["select", "--benchmark", str(MMLU), "--strategy", "random", "--k", "4", "--out", str(subset)]) == 0
    chosen = pd.read_csv(subset, comment="#")["dataset"].tolist()
    new = tmp_path / "new.csv"
    new.write_text(_filled(export.template_csv(chosen, _record()), 0.6), encoding="utf-8")
    capsys.readouterr()
    assert main(["place", "--benchmark", str(MMLU), "--subset", str(subset), "--scores", str(new)]) == 0
    assert "estimated position" in capsys.readouterr().out


def test_the_dashboard_template_names_what_made_the_subset() -> None:
    from subsetsel_app import active_data
    from subsetsel_app.views.placement import template_bytes
    from subsetsel_core.selection.subsets import select_datasets

    data = active_data.load_folder_data(MMLU)
    sel = select_datasets(data.benchmark, None, "random", 4, seed=5)
    text = template_bytes(data, list(sel.datasets), sel).decode("utf-8")
    meta, body = split_comments(text)
    assert meta["subsetsel_version"] == VERSION and meta["made_by"] == "dashboard" and meta["seed"] == 5
    assert {"strategy": "random", "k": 4, "seed": 5}.items() <= meta["settings"].items()
    assert meta["settings"]["benchmark"] == data.name and "representation_recipe" in meta["settings"]
    assert any(k.endswith("scores.csv") and len(v) == 64 for k, v in meta["input_sha256"].items())
    assert pd.read_csv(io.StringIO(body))["dataset"].tolist() == list(sel.datasets)
    assert not split_comments(template_bytes(data, list(sel.datasets)).decode("utf-8"))[0]
    side = export.read_sidecar(text.encode("utf-8"))  # select --recipe replays the template's subset
    assert (side.benchmark, side.strategy, side.k, side.seed, side.datasets) == (
        data.benchmark.name, "random", 4, 5, tuple(sel.datasets))


# --------------------------------------------------------------------------- workspace files


def _bench() -> Benchmark:
    rng = np.random.default_rng(1)
    return Benchmark(rng.normal(size=(8, 1, 4)), tuple(f"d{i}" for i in range(8)), tuple(f"m{i}" for i in range(4)))


def _meta(raw: bytes) -> dict[str, Any]:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        return json.loads(z.read("workspace.json"))


def _with_meta(raw: bytes, edit: Callable[[dict[str, Any]], Any]) -> bytes:
    meta = _meta(raw)
    edit(meta)
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(buf, "w") as dst:
        for item in src.infolist():
            dst.writestr(item.filename, json.dumps(meta) if item.filename == "workspace.json" else src.read(item))
    return buf.getvalue()


def test_a_workspace_keeps_its_provenance() -> None:
    rec = _record()
    raw = save_workspace(Workspace(_bench(), settings={"seed": 7}, provenance=rec))
    assert _meta(raw)["provenance"] == rec
    assert load_workspace(raw).provenance == rec
    bare = save_workspace(Workspace(_bench()))  # no record given: the product's version at least
    assert _meta(bare)["provenance"] == {"subsetsel_version": VERSION}
    assert load_workspace(bare).provenance == {"subsetsel_version": VERSION}


def test_an_older_workspace_without_provenance_still_loads() -> None:
    raw = _with_meta(save_workspace(Workspace(_bench(), settings={"seed": 2}, provenance=_record())),
                     lambda m: m.pop("provenance"))
    back = load_workspace(raw)
    assert back.provenance is None and back.settings == {"seed": 2} and back.benchmark.datasets == _bench().datasets


@pytest.mark.parametrize(("edit", "message"), [
    (lambda p: p.update(seed="7"), "'provenance.seed' must be a whole number"),
    (lambda p: p.update(seed=-1), "'provenance.seed' is -1, outside"),
    (lambda p: p.update(made_by="someone"), "'provenance.made_by' is 'someone', not one of"),
    (lambda p: p.update(settings=[1]), "'provenance.settings' must be an object"),
    (lambda p: p.update(command=3), "'provenance.command' must be a string"),
    (lambda p: p["input_sha256"].update({"x.csv": FORMULA}), "'provenance.input_sha256.x.csv' must be a hexadecimal"),
    (lambda p: p.update(extra=1), "'provenance.extra' is not a known field"),
    (lambda p: p.pop("subsetsel_version"), "'provenance.subsetsel_version' is missing"),
])
def test_a_malformed_provenance_is_refused_with_the_field(edit: Callable[[dict[str, Any]], Any],
                                                          message: str) -> None:
    raw = _with_meta(save_workspace(Workspace(_bench(), provenance=_record())), lambda m: edit(m["provenance"]))
    with pytest.raises(InputError, match=re.escape(message)) as err:
        load_workspace(raw, label="w.subsetsel")
    assert str(err.value).startswith("w.subsetsel: workspace.json: ") and "damaged or was edited" in str(err.value)
    assert err.value.field == "workspace"


def test_a_provenance_that_is_not_an_object_is_refused() -> None:
    raw = _with_meta(save_workspace(Workspace(_bench())), lambda m: m.update(provenance=[1, 2]))
    with pytest.raises(InputError, match="'provenance' must be an object"):
        load_workspace(raw)


def _session(data: Any) -> dict[str, Any]:
    return {"seed": 7, "sel_strategy": "kmeans", "sel_k": 4, "sel_include": [], "sel_exclude": [],
            "rep_tables": list(data.tables)[:1]}


def test_the_dashboard_workspace_and_the_kept_session_record_provenance(tmp_path: Path) -> None:
    from subsetsel_app import active_data, persist
    from subsetsel_app import session_store as S
    from subsetsel_app.views import workspace

    data = active_data.load_folder_data(MMLU)
    ss = _session(data)
    for raw in (workspace.workspace_bytes(ss, data), persist.session_bytes(ss, data)):
        prov = load_workspace(raw).provenance
        assert prov is not None and prov["subsetsel_version"] == VERSION and prov["made_by"] == "dashboard"
        assert prov["seed"] == 7 and prov["settings"]["benchmark"] == data.name
        assert prov["settings"]["sel_strategy"] == "kmeans" and prov["settings"]["sel_k"] == 4
        assert prov["settings"]["rep_tables"] == ss["rep_tables"]
        assert any(k.endswith("scores.csv") and len(v) == 64 for k, v in prov["input_sha256"].items())
    # a kept session with its provenance is restored; one whose provenance was tampered with is refused
    store = S.SessionStore(tmp_path / "sessions")
    good, bad = S.new_id(), S.new_id()
    kept = persist.session_bytes(ss, data)
    store.put(good, kept)
    store.put(bad, _with_meta(kept, lambda m: m["provenance"].update(seed="x")))
    fresh: dict[str, Any] = {}
    level, text = persist.restore_into(fresh, store, good)
    assert level == "info" and text.startswith("Restored your session"), text
    assert fresh["sel_k"] == 4 and fresh["data"].benchmark.datasets == data.benchmark.datasets
    other: dict[str, Any] = {"seed": 3}
    level, text = persist.restore_into(other, store, bad)
    assert level == "warning" and "'provenance.seed' must be a whole number" in text and "fresh session" in text
    assert other == {"seed": 3} and store.get(bad) is None


def test_an_uploaded_workspace_with_or_without_provenance_loads_in_the_dashboard() -> None:
    from subsetsel_app import active_data
    from subsetsel_app.views import workspace

    data = active_data.load_folder_data(MMLU)
    raw = workspace.workspace_bytes(_session(data), data)
    old = _with_meta(raw, lambda m: m.pop("provenance"))
    for blob in (raw, old):
        ss: dict[str, Any] = {}
        got = workspace.restore(ss, blob)
        assert got.benchmark.datasets == data.benchmark.datasets and ss["sel_strategy"] == "kmeans"
    with pytest.raises(InputError, match="'provenance.made_by'"):
        workspace.restore({}, _with_meta(raw, lambda m: m["provenance"].update(made_by=FORMULA)))
