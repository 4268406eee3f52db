"""What the command line prints: every change to the benchmark is a warning on stderr, and every argument
error is one line. Each message is rendered from a table of cases, in the shapes a user sends."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_corpus import clean_frame

from subsetsel_core.cli.main import main


def _lm(model: str, tasks: dict[str, float], date: float = 1.0) -> dict[str, object]:
    return {"date": date, "results": {t: {"alias": t, "acc,none": v} for t, v in tasks.items()}, "versions": {t: 1 for t in tasks},
            "higher_is_better": {t: {"acc": True} for t in tasks},
            "config": {"model": "hf", "model_args": f"pretrained={model}"}}


def _results(folder: Path, extra: Callable[[Path], None]) -> Path:
    tasks = {f"task{i}": 0.1 * i for i in range(1, 6)}
    for j, m in enumerate(("org/a", "org/b", "org/c")):
        d = folder / "res" / m.split("/")[1]
        d.mkdir(parents=True)
        (d / "results.json").write_text(json.dumps(_lm(m, {t: v + 0.05 * j for t, v in tasks.items()})))
    extra(folder / "res")
    return folder / "res"


def _scores(folder: Path, frame_edit: Callable[..., object] | None = None, encoding: str = "utf-8") -> Path:
    df = clean_frame()
    if frame_edit is not None:
        df = frame_edit(df)
    p = folder / "scores.csv"
    p.write_bytes(df.to_csv(index=False).encode(encoding))  # type: ignore[union-attr]
    return p


def _dup(res: Path) -> None:
    (res / "a" / "rerun.json").write_text(json.dumps(_lm("org/a", {"task1": 0.99}, date=2.0)))  # the later run


def _not_results(res: Path) -> None:
    (res / "notes.json").write_text(json.dumps({"comment": "not a result"}))


#: (case, files, options, what stderr must say). Each changes the benchmark read from the files.
WARNINGS: list[tuple[str, Callable[[Path], Path], list[str], str]] = [
    ("a direction flipped for some datasets", _scores, ["--lower-is-better-datasets", "d0,d1"], "negated"),
    ("models dropped for their gaps", lambda f: _scores(f, lambda d: d.drop(index=[0])),
     ["--missing", "drop-models"], "dropped 1 models"),
    ("datasets dropped for their gaps", lambda f: _scores(f, lambda d: d.drop(index=[0])),
     ["--missing", "drop-datasets"], "dropped 1 datasets"),
    ("spaces trimmed around names", lambda f: _scores(f, lambda d: d.assign(model=" " + d["model"])), [],
     "removed spaces"),
    ("a table not in UTF-8", lambda f: _scores(f, lambda d: d.assign(dataset=d["dataset"] + "é"), "cp1252"), [],
     "not UTF-8"),
    ("two results for one model and task", lambda f: _results(f, _dup), [], "several files"),
    ("a JSON file that is not a result", lambda f: _results(f, _not_results), ["--skip-unreadable"], "notes.json"),
]


@pytest.mark.parametrize(("case", "files", "extra", "needle"), WARNINGS, ids=[w[0] for w in WARNINGS])
def test_a_change_to_the_benchmark_is_a_printed_warning(case: str, files: Callable[[Path], Path], extra: list[str],
                                                         needle: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    src = files(tmp_path)
    code = main(["select", "--scores", str(src), "--strategy", "random", "--k", "3", *extra])
    err = capsys.readouterr().err
    assert code == 0, err
    lines = [line for line in err.splitlines() if needle in line]
    assert lines and all(line.startswith("warning: ") for line in lines), err


def test_nothing_changed_prints_no_warning_about_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _scores(tmp_path)
    assert main(["select", "--scores", str(src), "--strategy", "random", "--k", "3", "--higher-is-better"]) == 0
    err = capsys.readouterr().err
    assert not any(w in err for w in ("negated", "dropped", "removed spaces", "set aside"))


#: (argv, what the one line must say).
ARGUMENT_ERRORS: list[tuple[list[str], str]] = [
    (["selct"], "'selct' is not a command (did you mean 'select'?)"),
    ([], "give a command: select"),
    (["select", "--k", "x"], "--k: must be a whole number"),
    (["select", "--k"], "--k needs a value"),
    (["select", "--strategy", "kmean"], "did you mean 'kmeans'?"),
    (["select", "--bogus", "1"], "has no option --bogus"),
    (["select", "--benchmrk", "x"], "did you mean '--benchmark'?"),
    (["select", "--scores", "a.csv", "stray.csv"], "takes no value 'stray.csv'"),
    (["select", "--lower-is-better", "--higher-is-better"], "cannot be given together"),
    (["select", "--sc", "x"], "short for several options"),
    (["report"], "--out is required; add --out DIR"),
    (["evaluate", "--trials", "0"], "--trials"),
    (["select", "--format", "xml"], "Use one of: csv, json"),
]


@pytest.mark.parametrize(("argv", "needle"), ARGUMENT_ERRORS, ids=[" ".join(a) or "(none)" for a, _ in ARGUMENT_ERRORS])
def test_an_argument_error_is_one_line(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert len(err.strip().splitlines()) == 1 and "usage:" not in err, err
    assert needle in err, err
    assert "Namespace(" not in err and "Traceback" not in err
