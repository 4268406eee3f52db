"""What changed the benchmark against its files (a dropped model, a flipped direction, rewritten names,
another encoding) is a warning on the dashboard — in the upload's validation report, at the top of the
Benchmark page and on the start page once the benchmark is used — never a note alone; the lines are the
ones the command line prints (one function, :meth:`ValidationReport.changes`). A table of cases, in the
shapes a user sends (AppTest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_core.cli import data as cli_data
from subsetsel_core.io import validation

MIXED = (b"Model,MMLU - EM,GSM8K - EM,ARC - EM,Calibration - ECE\nm1,0.6,0.7,0.5,0.30\nm2,0.5,0.6,0.4,0.20\n"
         b"m3,0.4,0.3,0.45,0.10\nm4,0.3,0.2,0.2,0.25\n")


def _cells(edit: Callable[[list[str]], list[str]]) -> bytes:
    lines = H.tiny_long_csv().decode().splitlines()
    return ("\n".join([lines[0], *(",".join(edit(line.split(","))) for line in lines[1:])]) + "\n").encode()


#: (case, file name, bytes, widget settings, what the warning says).
CASES: list[tuple[str, str, bytes, dict[str, str], str]] = [
    ("spaces trimmed around names", "spaces.csv", _cells(lambda c: [c[0], " " + c[1], c[2], c[3]]), {},
     "removed spaces around 64 'model' names"),
    ("a table not in UTF-8", "cp.csv", H.tiny_long_csv().decode().replace("ds_0", "dsé_0").encode("cp1252"), {},
     "not UTF-8; read as cp1252"),
    ("models dropped for their gaps", "gap.csv",
     b"\n".join(H.tiny_long_csv().splitlines()[:1] + H.tiny_long_csv().splitlines()[2:]) + b"\n",
     {"up_missing": "drop-models"}, "dropped 1 models with gaps"),
    ("a dataset's direction flipped", "mixed.csv", MIXED, {}, "(Calibration - ECE); their scores are negated"),
]


def _warnings(at: Any) -> list[str]:
    return [str(w.value).replace("\\", "") for w in at.warning]


def _notes(at: Any) -> str:
    return " ".join(str(m.value) for e in at.expander if str(e.label).startswith("Notes") for m in e.markdown)


def test_the_dashboard_and_the_command_line_share_one_list_of_changes() -> None:
    assert cli_data.changes is validation.changes  # the CLI prints what this function returns
    report = validation.ValidationReport((validation.Finding("info", "direction", "flipped"),
                                          validation.Finding("info", "ties", "ties"),
                                          validation.Finding("warning", "dropped", "dropped")))
    assert report.changes() == ("flipped", "dropped") and validation.changes(report) == ["flipped", "dropped"]


@pytest.mark.parametrize(("case", "name", "content", "settings", "needle"), CASES, ids=[c[0] for c in CASES])
def test_a_change_to_the_benchmark_is_a_warning_on_every_summary(case: str, name: str, content: bytes,
                                                                 settings: dict[str, str], needle: str) -> None:
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value((name, content, "text/csv"))
    at.run()
    for key, value in settings.items():
        at.selectbox(key=key).select(value)
        at.run()
    assert not at.exception and not at.error, [str(e.value) for e in at.error]
    shown = [w for w in _warnings(at) if needle in w]
    assert len(shown) == 1, _warnings(at)  # the upload's validation report says it as a warning …
    assert needle not in _notes(at).replace("\\", "")  # … and not (also) as a note
    use = at.button(key="use_upload_btn")
    assert not use.disabled, use.help
    use.click()
    at.run()
    data = at.session_state["data"]
    assert data.source == "upload"
    expected = [m for m in data.report.changes() if needle in m]
    assert expected and expected[0] == shown[0]  # the very line the command line prints
    assert len([w for w in _warnings(at) if needle in w]) == 2  # the active benchmark's, and the upload's
    H.goto(at, "home")
    assert [w for w in _warnings(at) if needle in w] == expected
    H.goto(at, "report")  # the Report page, and the HTML report's sections
    assert [w for w in _warnings(at) if needle in w] == expected
    assert any("How the benchmark differs from its files" in str(c.value) for c in at.caption)
    from streamlit.testing.v1 import AppTest

    first = AppTest.from_file(H.APP, default_timeout=H.TIMEOUT)  # AppTest keeps the sidebar of a first run only
    first.session_state["data"] = data
    first.run()
    side = " ".join(str(c.value) for c in first.sidebar.caption)
    assert f"Read with {len(data.report.changes())} change(s) against its files" in side
    assert [w for w in _warnings(first) if needle in w] == expected  # the start page


def test_a_benchmark_read_as_written_shows_no_change() -> None:
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("clean.csv", H.tiny_long_csv(), "text/csv"))
    at.run()
    at.radio(key="up_higher").set_value("higher is better")
    at.run()
    assert at.session_state["data"].report.changes() == ()
    assert not [w for w in _warnings(at) if "Not usable yet" not in w]
    H.goto(at, "home")
    assert not at.warning
