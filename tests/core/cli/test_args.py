"""Every CLI option and environment variable is checked: exit code 2 and one line, before any work.

The argparse types of :mod:`subsetsel_core.cli.args` are tested on their own (fast, in
process through :func:`subsetsel_core.cli.main.main`) and a few through a real subprocess.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from subsetsel_core.cli import args as A
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from hostile_corpus import clean_frame, features_frame  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    d = tmp_path_factory.mktemp("args")
    clean_frame().to_csv(d / "scores.csv", index=False)
    features_frame().to_csv(d / "features.csv", index=False)
    return str(d / "scores.csv"), str(d / "features.csv")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


BAD = [
    ("select", ["--strategy", "random", "--k", "3", "--seed", "-1"], "--seed"),
    ("select", ["--strategy", "random", "--k", "3", "--seed", "1.5"], "whole number"),
    ("select", ["--strategy", "random", "--k", "3", "--seed", "1e3"], "whole number"),
    ("select", ["--strategy", "random", "--k", "3", "--seed", str(2**64)], "2**63"),
    ("select", ["--strategy", "random", "--k", "0"], "--k"),
    ("select", ["--strategy", "random", "--k", "two"], "whole number"),
    ("select", ["--strategy", "random", "--budget", "nan"], "finite"),
    ("select", ["--strategy", "random", "--budget", "0"], "(0, 1]"),
    ("select", ["--strategy", "random", "--budget", "1.5"], "(0, 1]"),
    ("select", ["--strategy", "fafi-euclidean", "--k", "3", "--pca", "inf"], "finite"),
    ("select", ["--strategy", "random", "--k", "3", "--out", "/no/such/folder/x.csv"], "does not exist"),
    ("select", ["--strategy", "random", "--k", "3", "--out", "/tmp"], "is a folder"),
    ("select", ["--strategy", "random", "--k", "3", "--sidecar", "/no/such/folder/x.json"], "does not exist"),
    ("evaluate", ["--trials", "-5"], "--trials"),
    ("evaluate", ["--trials", "0"], "--trials"),
    ("evaluate", ["--trials", "10000000"], "--trials"),
    ("evaluate", ["--alpha", "nan"], "--alpha"),
    ("evaluate", ["--alpha", "1.01"], "--alpha"),
    ("evaluate", ["--model-fraction", "-0.5"], "--model-fraction"),
    ("evaluate", ["--k-min", "-1"], "--k-min"),
    ("evaluate", ["--k-max", "0"], "--k-max"),
    ("evaluate", ["--jobs", "-2"], "--jobs"),
    ("evaluate", ["--scheduler", "notanaddress"], "Dask scheduler address"),
    ("evaluate", ["--scheduler", "tcp://host:99999"], "port"),
    ("evaluate", ["--scheduler", "tcp://:8786"], "Dask scheduler address"),
    ("evaluate", ["--scheduler", "http://host:8786"], "Dask scheduler address"),
    ("evaluate", ["--scheduler", "tcp://ho st:8786"], "Dask scheduler address"),
    ("evaluate", ["--out", "/no/such/folder/r.json"], "does not exist"),
    ("check", ["--permutations", "-5"], "--permutations"),
    ("check", ["--permutations", "0"], "--permutations"),
    ("check", ["--trials", "-1"], "--trials"),
    ("advise", ["--target", "nan"], "--target"),
    ("advise", ["--target", "inf"], "--target"),
    ("generalise", ["--fraction", "1.5"], "--fraction"),
    ("generalise", ["--fraction", "1"], "--fraction"),
    ("generalise", ["--fraction", "0"], "--fraction"),
    ("generalise", ["--seed", "-7"], "--seed"),
]


@pytest.mark.parametrize(("command", "extra", "needle"), BAD, ids=[f"{c} {' '.join(e)}" for c, e, _ in BAD])
def test_bad_options_exit_2_with_a_message(command: str, extra: list[str], needle: str, files: tuple[str, str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    scores, feats = files
    code, err = run([command, "--scores", scores, "--features", feats, *extra], capsys)
    assert code == 2, err
    assert needle in err and "Traceback" not in err, err
    assert err.count("error:") == 1


def test_place_seed_and_target_range(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    scores, feats = files
    code, err = run(["place", "--reference", scores, "--subset", feats, "--scores", scores, "--seed", "-3"], capsys)
    assert code == 2 and "--seed" in err
    code, err = run(["advise", "--scores", scores, "--features", feats, "--trials", "2", "--k-max", "3",
                     "--target", "5"], capsys)
    assert code == 2 and "outside the range" in err and "--target" in err, err  # named in the message
    code, err = run(["advise", "--scores", scores, "--features", feats, "--trials", "2", "--k-max", "3",
                     "--metric", "mae", "--target", "-1"], capsys)
    assert code == 2 and "outside the range" in err, err


GOOD_VALUES = [
    (A.seed, "0", 0), (A.seed, str(2**63 - 1), 2**63 - 1), (A.seed, "1_000", 1000),
    (A.share, "1", 1.0), (A.share, "0.25", 0.25), (A.finite, "-3.5", -3.5),
    (A.scheduler_address, "tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"),
    (A.scheduler_address, "scheduler.local:8786", "scheduler.local:8786"),
    (A.scheduler_address, "tls://[::1]:8786", "tls://[::1]:8786"),
    (A.scheduler_address, "inproc://10.0.0.1/123/1", "inproc://10.0.0.1/123/1"),
    (A.count(0, 5), "5", 5),
]


@pytest.mark.parametrize(("parse", "text", "value"), GOOD_VALUES)
def test_good_values_are_accepted(parse, text, value) -> None:  # type: ignore[no-untyped-def]
    assert parse(text) == value


def test_output_path_rules(tmp_path: Path) -> None:
    assert A.output_path(str(tmp_path / "out.csv")) == str(tmp_path / "out.csv")
    for bad in ("", "   ", str(tmp_path), str(tmp_path / "missing" / "out.csv")):
        with pytest.raises(argparse.ArgumentTypeError):
            A.output_path(bad)


@pytest.mark.parametrize(("below", "message"), [
    ("f/x.csv", "f' is a file, not a folder, so nothing can be written below it"),
    ("f/g/x.csv", "f' is a file, not a folder"),
    ("missing/x.csv", "missing' does not exist; create it first"),
    ("missing/g/x.csv", "g' does not exist; create it first"),
])
def test_output_path_below_a_file_or_a_missing_folder(below: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        A.output_path(str(tmp_path / below))


ENV_BAD = [
    {"SUBSETSEL_MAX_TABLE_MB": "abc"}, {"SUBSETSEL_MAX_TABLE_MB": "nan"}, {"SUBSETSEL_MAX_TABLE_MB": "inf"},
    {"SUBSETSEL_MAX_TABLE_MB": "-1"}, {"SUBSETSEL_MAX_TABLE_MB": "0"}, {"SUBSETSEL_MAX_JSON_MB": "1e99"},
    {"SUBSETSEL_MAX_RESULT_FILES": "1.5"}, {"SUBSETSEL_MAX_RESULT_FILES": "0"},
    {"SUBSETSEL_NO_CACHE": "yes"}, {"SUBSETSEL_NO_CACHE": "false"},
    {"SUBSETSEL_CACHE_DIR": "/etc/hostname"}, {"SUBSETSEL_CACHE_DIR": "/etc/hostname/sub"},
]


@pytest.mark.parametrize("env", ENV_BAD, ids=lambda e: "=".join(next(iter(e.items()))))
def test_bad_environment_variables(env: dict[str, str]) -> None:
    with pytest.raises(InputError, match=next(iter(env))):
        A.check_environment(env)


def test_good_environment_variables(tmp_path: Path) -> None:
    A.check_environment({})
    A.check_environment({"SUBSETSEL_MAX_TABLE_MB": "0.5", "SUBSETSEL_NO_CACHE": "1", "SUBSETSEL_MAX_RESULT_FILES": "10",
                         "SUBSETSEL_CACHE_DIR": str(tmp_path / "new" / "cache"), "SUBSETSEL_MAX_JSON_MB": ""})


def test_through_a_real_process(files: tuple[str, str]) -> None:
    scores, feats = files
    base = [sys.executable, "-m", "subsetsel_core", "select", "--scores", scores, "--features", feats,
            "--strategy", "fafi-euclidean", "--k", "3"]
    for extra, env in (([], {"SUBSETSEL_MAX_TABLE_MB": "nan"}), ([], {"SUBSETSEL_CACHE_DIR": "/etc/hostname"}),
                       (["--seed", "-1"], {}), (["--out", "/no/such/dir/x.csv"], {})):
        r = subprocess.run(base + extra, capture_output=True, text=True, timeout=120, env={**os.environ, **env})
        assert r.returncode == 2, r.stderr
        assert "Traceback" not in r.stderr and r.stderr.count("error:") == 1, r.stderr
    r = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
