"""The complete reading of a score table travels with the run: ``[reading]`` in run.toml and
``settings.reading`` in every output's provenance; ``subsetsel report --scores FILE --config
run.toml`` reads the table exactly so and gives the same leaderboard.

The table is BBH-style: models as rows, a Rank, a company, release dates, sizes and an
Average set aside, one gap, and two tasks whose direction is the opposite of the rest.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from pathlib import Path

import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.outputs.provenance import read_provenance
from subsetsel_core.outputs.run_config import RunConfig, config_toml, read_run_config

BBH = Path(__file__).resolve().parents[2] / "fixtures" / "leaderboards" / "bbh_style_leaderboard.csv"
READING = ScoreFormat(layout="models-as-rows", model_column="Model", fold_column=None, higher_is_better=True,
                      missing="drop-models", drop_columns=("Rank", "Company", "Release", "Parameters", "Average"),
                      lower_is_better_datasets=("navigate", "snarks"))


def test_the_reading_is_written_whole_and_read_back() -> None:
    d = READING.to_dict()
    assert set(d) == {f.name for f in dataclasses.fields(ScoreFormat)} >= {
        "layout", "dataset_column", "model_column", "score_column", "fold_column", "higher_is_better", "missing",
        "drop_columns", "lower_is_better_datasets", "higher_is_better_datasets"}
    assert ScoreFormat.from_dict(json.loads(json.dumps(d))) == READING
    wide = ScoreFormat(layout="wide", dataset_column="task", fold_column="seed", higher_is_better=False,
                       missing="partial", higher_is_better_datasets=("acc",))
    assert ScoreFormat.from_dict(json.loads(json.dumps(wide.to_dict()))) == wide
    assert ScoreFormat.from_dict({}) == ScoreFormat()  # a key left out takes its default
    cfg = RunConfig(missing="drop-models", reading=READING)
    text = config_toml(cfg)
    assert "[reading]" in text and 'fold_column = ""' in text and 'lower_is_better_datasets = ["navigate", "snarks"]' \
        in text
    assert read_run_config(text.encode()) == cfg
    assert cfg.to_dict()["reading"] == d


@pytest.mark.parametrize(("body", "needle"), [
    ('[reading]\nlayout = 3\n', "run.toml: reading.layout: must be text in quotes"),
    ('[reading]\ncolumns = "a"\n', "run.toml: reading: unknown key 'columns'; the keys are layout"),
    ('[reading]\ndrop_columns = "Rank"\n', "reading.drop_columns: must be a list of names"),
    ('[reading]\nhigher_is_better = "yes"\n', "reading.higher_is_better: must be true or false"),
    ('[reading]\nlayout = "diagonal"\n', "unknown score-table layout 'diagonal'"),
    ('missing = "error"\n[reading]\nmissing = "partial"\n', "'missing' (error) and 'reading.missing' (partial) "
                                                            "disagree"),
])
def test_a_bad_reading_names_its_key(body: str, needle: str) -> None:
    with pytest.raises(InputError, match=re.escape(needle)) as exc:
        read_run_config(body.encode(), label="run.toml")
    assert exc.value.field == "config"


def _leaderboard_in_report(folder: Path, models: tuple[str, ...]) -> list[str]:
    """The models in the order the report's "Leaderboard of the full benchmark" table lists them."""
    text = (folder / "report.html").read_text(encoding="utf-8")
    start = text.index("Leaderboard of the full benchmark")
    section = text[start:text.index("</table>", start)]
    at = {m: section.find(f">{html.escape(m)}<") for m in models}
    assert all(pos >= 0 for pos in at.values()), at
    return sorted(at, key=at.__getitem__)


def _report(tmp_path: Path, name: str, *extra: str) -> Path:
    out = tmp_path / name
    assert main(["report", "--scores", str(BBH), *extra, "--out", str(out), "--no-images"]) == 0
    return out


def test_report_with_the_config_replays_the_same_leaderboard(tmp_path: Path) -> None:
    bench = load_scores(BBH, READING)
    assert bench.flipped == ("navigate", "snarks") and bench.n_models == 11 and bench.n_datasets == 10
    expected = list(bench.leaderboard()["model"])
    toml = tmp_path / "bbh_run.toml"
    toml.write_text(config_toml(RunConfig(missing="drop-models", strategies=("random",), trials=3, k_max=4,
                                          images=False, reading=READING)), encoding="utf-8")

    out = _report(tmp_path, "replay", "--config", str(toml))
    assert _leaderboard_in_report(out, bench.models)[:15] == expected[:15]
    prov = read_provenance((out / "evaluation.json").read_bytes())
    assert prov is not None and prov["settings"]["reading"] == READING.to_dict()
    assert read_provenance((out / "subset.csv").read_bytes())["settings"]["reading"] == READING.to_dict()
    assert read_run_config(out / "run.toml").reading == READING  # the config as run carries it on

    # without the reading the table is guessed: the two tasks keep the file's direction, another leaderboard
    guessed = _report(tmp_path, "guessed", "--missing", "drop-models")
    assert _leaderboard_in_report(guessed, bench.models) != expected
    prov = read_provenance((guessed / "evaluation.json").read_bytes())
    assert prov is not None and prov["settings"]["reading"]["lower_is_better_datasets"] == []
    # the config as run records the guessed reading, and replays that leaderboard in turn
    as_run = read_run_config(guessed / "run.toml")
    assert as_run.reading is not None and as_run.reading.to_dict() == prov["settings"]["reading"]
    again = _report(tmp_path, "again", "--config", str(guessed / "run.toml"))
    assert _leaderboard_in_report(again, bench.models) == _leaderboard_in_report(guessed, bench.models)


def test_a_reading_option_next_to_the_configs_reading_is_refused(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    toml = tmp_path / "run.toml"
    toml.write_text(config_toml(RunConfig(reading=READING, missing="drop-models")), encoding="utf-8")
    assert main(["report", "--scores", str(BBH), "--config", str(toml), "--layout", "wide", "--out",
                 str(tmp_path / "o"), "--no-images"]) == 2
    err = capsys.readouterr().err
    assert "the config's [reading] says how bbh_style_leaderboard.csv is read, and --layout says it too" in err
