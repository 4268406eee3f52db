"""The dashboard's reading of an upload travels with everything it writes.

A BBH-style upload (models as rows, columns set aside, two tasks of the opposite direction,
a gap dropped with its model) is read by the upload check the Benchmark page uses; the
*Settings as run.toml* text the Evaluate page offers holds that reading whole, and
``subsetsel report --scores FILE --config run.toml`` gives the same leaderboard. A
workspace file, a kept session and every download's provenance keep the reading too.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)

from subsetsel_app import upload
from subsetsel_app.provenance import selection_provenance
from subsetsel_app.views import workspace
from subsetsel_core.cli.main import main
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.outputs.run_config import read_run_config
from subsetsel_core.selection.subsets import select_datasets
from subsetsel_core.workspace.files import load_workspace

BBH = H.ROOT / "tests" / "fixtures" / "leaderboards" / "bbh_style_leaderboard.csv"
READING = ScoreFormat(layout="models-as-rows", model_column="Model", fold_column=None, higher_is_better=True,
                      missing="drop-models", drop_columns=("Rank", "Company", "Release", "Parameters", "Average"),
                      lower_is_better_datasets=("navigate", "snarks"))


TASKS = ("boolean_expressions", "causal_judgement", "date_understanding", "disambiguation_qa", "formal_fallacies",
         "geometric_shapes", "hyperbaton", "logical_deduction", "navigate", "snarks")
DESCRIPTORS = ("dataset,steps,choices\n" + "".join(f"{t},{i % 4 + 1},{(i * 7) % 5 + 2}\n" for i, t in enumerate(TASKS))
               ).encode()


def _uploaded(with_descriptors: bool = False) -> Any:
    tables = [upload.UploadedTable("features_tasks.csv", DESCRIPTORS)] if with_descriptors else []
    check = upload.check_upload(upload.UploadedTable(BBH.name, BBH.read_bytes()), READING, tables)
    assert check.ok, check.error
    assert check.data is not None and check.data.reading == READING
    return check.data


def _config_text(data: Any) -> str:
    """The Evaluate page's run.toml for ``data`` (the function behind the download button)."""
    from streamlit.testing.v1 import AppTest

    def script() -> None:
        import streamlit as st

        from subsetsel_app import state
        from subsetsel_app.views import outputs

        state.init()
        st.session_state["ev_trials"] = 3
        st.session_state["ev_krange"] = (2, 4)
        st.session_state["ev_strategies"] = ["random"]
        st.session_state["ev_permute"] = False
        st.code(outputs.config_file(st.session_state["data"]).decode("utf-8"), language="toml")

    at = AppTest.from_function(script, default_timeout=H.TIMEOUT)
    at.session_state["data"] = data
    at.run()
    assert not at.exception, at.exception
    return str(at.code[0].value)


def _order(folder: Path, models: tuple[str, ...]) -> list[str]:
    import html

    text = (folder / "report.html").read_text(encoding="utf-8")
    start = text.index("Leaderboard of the full benchmark")
    section = text[start:text.index("</table>", start)]
    return sorted(models, key=lambda m: section.find(f">{html.escape(m)}<"))


def test_the_uploads_run_toml_replays_its_leaderboard(tmp_path: Path) -> None:
    data = _uploaded()
    b = data.benchmark
    assert b.flipped == ("navigate", "snarks") and b.n_models == 11
    text = _config_text(data)
    assert "[reading]" in text and 'model_column = "Model"' in text and 'missing = "drop-models"' in text
    run_with = next(line for line in text.splitlines() if line.startswith("# run with: "))
    assert shlex.split(run_with.removeprefix("# run with: "))[:4] == ["subsetsel", "report", "--scores", BBH.name]
    toml = tmp_path / "bbh_run.toml"
    toml.write_text(text, encoding="utf-8")
    assert read_run_config(toml).reading == READING
    out = tmp_path / "out"
    assert main(["report", "--scores", str(BBH), "--config", str(toml), "--out", str(out), "--no-images"]) == 0
    assert _order(out, b.models) == list(b.leaderboard()["model"])


def test_workspace_session_and_provenance_keep_the_reading() -> None:
    data = _uploaded()
    sel = select_datasets(data.benchmark, None, "random", 3, seed=0)
    assert selection_provenance(data, sel, None)["settings"]["reading"] == READING.to_dict()
    raw = workspace.workspace_bytes({"seed": 0}, data)
    ws = load_workspace(raw)
    assert ws.settings["_app"]["reading"] == READING.to_dict()
    assert ws.provenance is not None and ws.provenance["settings"]["reading"] == READING.to_dict()
    back = workspace.active_from_workspace(ws, "x" * 20)
    assert back.reading == READING and back.missing == "drop-models"


def test_a_damaged_reading_in_a_workspace_file_is_refused_with_its_key() -> None:
    import pytest

    from subsetsel_app.settings_check import check_app_description
    from subsetsel_core.errors import InputError

    check_app_description({"reading": READING.to_dict()}, ())
    check_app_description({"reading": None}, ())  # a benchmark without one (a results folder)
    for bad, needle in (({"layout": "diagonal"}, "unknown score-table layout"),
                        ({"drop_columns": "Rank"}, "reading.drop_columns: must be a list of names"),
                        ("models-as-rows", "must be a table of the reading's keys")):
        with pytest.raises(InputError, match="_app.reading") as exc:
            check_app_description({"reading": bad}, (), "mine.subsetsel")
        assert needle in str(exc.value) and exc.value.field == "workspace"


def test_the_run_with_line_of_an_upload_with_descriptors_runs_as_written(tmp_path: Path) -> None:
    data = _uploaded(with_descriptors=True)
    assert set(data.tables) == {"tasks"}
    text = _config_text(data)
    assert 'representation = "tasks"' in text
    run_with = next(line for line in text.splitlines() if line.startswith("# run with: "))
    argv = shlex.split(run_with.removeprefix("# run with: "))
    assert argv[:6] == ["subsetsel", "report", "--scores", BBH.name, "--features", "features_tasks.csv"]
    (tmp_path / BBH.name).write_bytes(BBH.read_bytes())
    (tmp_path / "features_tasks.csv").write_bytes(DESCRIPTORS)
    (tmp_path / argv[argv.index("--config") + 1]).write_text(text, encoding="utf-8")
    files = {BBH.name, "features_tasks.csv", argv[argv.index("--config") + 1], "DIR"}
    args = [str(tmp_path / a) if a in files else a for a in argv[1:]]
    assert main([*args, "--no-images"]) == 0  # the line as written, in the folder of the files
    assert _order(tmp_path / "DIR", data.benchmark.models) == list(data.benchmark.leaderboard()["model"])
    sidecar = json.loads((tmp_path / "DIR" / "subset.json").read_text(encoding="utf-8"))
    assert sidecar["representation_recipe"]["tables"] == ["tasks"]
