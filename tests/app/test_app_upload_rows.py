"""Rows set aside on the Benchmark page: a summary row is asked about, never dropped silently;
the *Rows set aside* box takes it out of the benchmark as ``--drop-rows`` does on the command
line, and the settings file says so (AppTest)."""

from __future__ import annotations

from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import leaderboard_shapes as shapes

BOARD = shapes.with_average_row().encode()


def _use(at: Any) -> Any:
    at.button(key="use_upload_btn").click()
    at.run()
    assert not at.exception
    return at.session_state["data"]


def test_a_summary_row_is_asked_about_and_set_aside_by_name() -> None:
    at = H.upload_scores("board.csv", BOARD)
    box = at.multiselect(key="up_drop_rows")
    assert box.value == [] and "Average" in box.options and "m0" in box.options  # nothing decided for the user
    page = " ".join(str(x.value) for x in [*at.warning, *at.info, *at.markdown]).replace("\\", "")
    assert "summary row" in page and "Rows set aside" in page
    assert at.button(key="use_upload_btn").disabled
    box.set_value(["Average"])
    at.run()
    assert not H.errors(at) and not at.button(key="use_upload_btn").disabled
    data = _use(at)
    assert data.benchmark.n_models == 6 and "Average" not in data.benchmark.models
    assert data.benchmark.n_datasets == 5


def test_a_row_set_aside_is_in_the_settings_file_and_replays() -> None:
    from subsetsel_core import load_scores
    from subsetsel_core.outputs.run_config import RunConfig, config_toml, read_run_config

    at = H.upload_scores("board.csv", BOARD)
    at.multiselect(key="up_drop_rows").set_value(["Average", "m5"])
    at.run()
    data = _use(at)
    assert data.benchmark.n_models == 5 and "m5" not in data.benchmark.models
    assert tuple(data.reading.drop_rows) == ("Average", "m5")
    text = config_toml(RunConfig(reading=data.reading))
    assert "drop_rows" in text and '"m5"' in text
    replayed = load_scores(BOARD, read_run_config(text.encode()).reading, label="board.csv")
    assert list(replayed.models) == list(data.benchmark.models)  # `report --config run.toml` reads the same table
    at.multiselect(key="up_drop_rows").set_value(["Average"])  # taken back: m5 is a model again
    at.run()
    assert _use(at).benchmark.n_models == 6
