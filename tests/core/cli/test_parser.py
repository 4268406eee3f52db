"""The parser: one command's parser built alone parses as the whole one; commands' own settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from subsetsel_core.cli.main import COMMANDS, build_parser, main
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.settings.table import SETTINGS

ROOT = Path(__file__).resolve().parents[3]
TSC = str(ROOT / "sample_data" / "tsc_bakeoff")

ARGVS = [
    ["evaluate", "--benchmark", "x", "--trials", "3", "--strategies", "random,fafi-cosine"],
    ["select", "--benchmark", "x", "--strategy", "fafi-cosine", "--k", "4"],
    ["check", "--benchmark", "x"],
    ["advise", "--benchmark", "x", "--metric", "kendall"],
    ["generalise", "--benchmark", "x", "--fraction", "0.25"],
    ["place", "--reference", "r.csv", "--subset", "s.csv", "--scores", "n.csv"],
    ["headroom", "--benchmark", "x", "--splits", "3"],
    ["theory", "--benchmark", "x"],
    ["inspect", "scores.csv"],
    ["report", "--config", "run.toml", "--out", "folder"],
]


def test_every_command_is_exercised() -> None:
    assert {argv[0] for argv in ARGVS} == set(COMMANDS)


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: a[0])
def test_one_commands_parser_parses_as_the_whole_parser(argv: list[str]) -> None:
    alone = build_parser(argv)
    assert list(alone.commands) == [argv[0]]  # the other commands' parsers are not built
    assert vars(alone.parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_an_unknown_first_word_builds_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(build_parser(["evalute"]).commands) == list(COMMANDS)
    with pytest.raises(SystemExit):
        build_parser(["evalute"]).parse_args(["evalute"])
    assert "did you mean 'evaluate'" in capsys.readouterr().err


def test_the_commands_own_defaults_are_the_tables() -> None:
    check = build_parser().parse_args(["check", "--benchmark", "x"])
    assert check.trials == SETTINGS["check_trials"].default
    assert check.mantel_permutations == SETTINGS["mantel_permutations"].default
    assert check.permutations == SETTINGS["permutations"].default
    gen = build_parser().parse_args(["generalise", "--benchmark", "x"])
    assert gen.trials == SETTINGS["generalise_trials"].default and gen.fraction == SETTINGS["held_out"].default
    head = build_parser().parse_args(["headroom", "--benchmark", "x"])
    assert head.trials == SETTINGS["headroom_trials"].default and head.splits == SETTINGS["splits"].default
    assert head.fraction == SETTINGS["held_out"].default


@pytest.mark.parametrize("argv", [["generalise", "--fraction", "1"], ["headroom", "--fraction", "0"],
                                  ["headroom", "--splits", "0"], ["check", "--mantel-permutations", "0"],
                                  ["check", "--trials", "100001"]], ids=" ".join)
def test_the_commands_own_options_refuse_what_lies_past_the_bounds(argv: list[str],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([argv[0], "--benchmark", "x", *argv[1:]])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert argv[1] in err and "Traceback" not in err, err


def test_the_help_states_a_numbers_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["headroom", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default {SETTINGS['splits'].default})" in out and f"(default {SETTINGS['held_out'].default:g})" in out


@pytest.mark.skipif(not Path(TSC).is_dir(), reason="the TSC sample is not there")
def test_advise_defaults_to_the_metrics_own_target(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["advise", "--benchmark", TSC, "--representation", "ucr_info", "--trials", "2", "--strategies",
                 "random", "--metric", "kendall", "--k-max", "4"])
    assert code == 0
    target = METRICS["kendall"].default_target(None)
    assert target != 0.9 and f"≥ {target:g}" in capsys.readouterr().out
