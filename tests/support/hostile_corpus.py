"""A corpus of hostile and messy score files, shared by the tests and benchmarks/hostile_inputs.py.

Each case writes its files into a folder and says what must happen: ``ok`` (a correct
result, checked by ``check``) or ``error`` (exit code 2 with a message containing
``needle``, no traceback).
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

DATASETS = [f"d{i}" for i in range(6)]
MODELS = ["A", "B", "C", "D"]



def _table(out: str) -> pd.DataFrame:
    """The subset CSV the CLI printed, without its provenance block ('# key: value' lines)."""
    from subsetsel_core.text.safe_csv import split_comments

    return pd.read_csv(io.StringIO(split_comments(out)[1]))


def clean_frame(seed: int = 0) -> pd.DataFrame:
    """A small valid long table: 6 datasets × 4 models, model A best, D worst."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in DATASETS:
        base = rng.uniform(0.5, 0.8)
        for j, m in enumerate(MODELS):
            rows.append((d, m, round(base + 0.05 * (3 - j) + rng.uniform(0, 0.01), 4)))
    return pd.DataFrame(rows, columns=["dataset", "model", "score"])


def features_frame() -> pd.DataFrame:
    """Descriptors for the clean table."""
    return pd.DataFrame({"dataset": DATASETS, "size": [10, 200, 35, 4000, 18, 90], "kind": list("abab" + "ca")})


@dataclass
class Case:
    """One hostile input."""

    name: str
    write: Callable[[Path], None]
    expect: str  # "ok" or "error"
    needle: str = ""
    args: list[str] = field(default_factory=list)
    scores_name: str = "scores.csv"
    check: Callable[[str], bool] | None = None
    slow: bool = False
    env: dict[str, str] = field(default_factory=dict)


def _text(name: str, text: str, encoding: str = "utf-8") -> Callable[[Path], None]:
    def w(folder: Path) -> None:
        (folder / name).write_bytes(text.encode(encoding))

    return w


def _bytes(name: str, data: bytes) -> Callable[[Path], None]:
    def w(folder: Path) -> None:
        (folder / name).write_bytes(data)

    return w


def _csv(df: pd.DataFrame, sep: str = ",", name: str = "scores.csv", encoding: str = "utf-8") -> Callable[[Path], None]:
    return _text(name, df.to_csv(index=False, sep=sep), encoding)


def _first_is(name: str) -> Callable[[str], bool]:
    """The output CSV's first chosen dataset (FAFI on the descriptors) is ``name``."""
    return lambda out: _table(out)["dataset"].iloc[0] == name


def _rows(n: int) -> Callable[[str], bool]:
    return lambda out: len(_table(out)) == n


def _million(folder: Path) -> None:
    nd, nm, nf = 1000, 100, 10
    d = np.repeat(np.arange(nd), nm * nf)
    m = np.tile(np.repeat(np.arange(nm), nf), nd)
    f = np.tile(np.arange(nf), nd * nm)
    s = np.random.default_rng(0).random(nd * nm * nf).round(4)
    pd.DataFrame({"dataset": [f"ds{i}" for i in d], "model": [f"m{i}" for i in m], "fold": f, "score": s}).to_csv(
        folder / "scores.csv", index=False)


def _big(folder: Path, mb: int) -> None:
    line = b"some_dataset_name,some_model_name,0,0.123456789\n"
    with open(folder / "scores.csv", "wb") as fh:
        fh.write(b"dataset,model,fold,score\n")
        chunk = line * (2**20 // len(line))
        for _ in range(mb):
            fh.write(chunk)


def _gzip_bomb(folder: Path) -> None:
    with gzip.open(folder / "scores.csv.gz", "wb", compresslevel=9) as fh:
        fh.write(b"dataset,model,score\n")
        zeros = b"0" * (2**20)
        for _ in range(300):
            fh.write(zeros)


def _zip_as_parquet(folder: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb.bin", b"\0" * (50 * 2**20))
    (folder / "scores.parquet").write_bytes(buf.getvalue())


def build_cases() -> list[Case]:
    """Every case of the corpus."""
    c = clean_frame()
    ok_first = "d3"  # FAFI (Euclidean) on size/kind picks the largest 'size' first
    cases = [
        Case("clean CSV", _csv(c), "ok", check=_first_is(ok_first)),
        Case("empty file", _text("scores.csv", ""), "error", "empty"),
        Case("header only", _text("scores.csv", "dataset,model,score\n"), "error", "no rows"),
        Case("semicolon delimiter", _csv(c, ";"), "ok", check=_first_is(ok_first)),
        Case("tab delimiter", _csv(c, "\t"), "ok", check=_first_is(ok_first)),
        Case("UTF-8 BOM", _text("scores.csv", "\ufeff" + c.to_csv(index=False)), "ok", check=_first_is(ok_first)),
        Case("Latin-1 encoding", _csv(c.assign(model=c["model"] + "é"), encoding="latin-1"), "ok", check=_rows(3)),
        Case("quoted newline in a model name", _csv(c.assign(model=c["model"].replace("B", "B\nnew"))), "ok", check=_rows(3)),
        Case("decimal commas", _csv(c.assign(score=c["score"].map(lambda v: f"{v}".replace(".", ","))), ";"), "ok",
             check=_first_is(ok_first)),
        Case("thousands separators", _csv(c.assign(score=(c["score"] * 10000).map(lambda v: f"{v:,.1f}"))), "ok",
             check=_first_is(ok_first)),
        Case("percent signs", _csv(c.assign(score=(c["score"] * 100).map(lambda v: f"{v:.2f}%"))), "ok",
             check=_first_is(ok_first)),
        Case("mixed percent signs", _csv(c.assign(score=[f"{v}%" if i % 2 else str(v) for i, v in enumerate(c["score"])])),
             "error", "percent sign"),
        Case("NaN cell", _csv(c.assign(score=["NaN" if i == 3 else v for i, v in enumerate(c["score"])])), "error",
             "missing"),
        Case("NaN cell, drop-models", _csv(c.assign(score=["NaN" if i == 3 else v for i, v in enumerate(c["score"])])),
             "ok", args=["--missing", "drop-models"], check=_rows(3)),
        Case("'-' and empty cells", _csv(c.assign(score=["-" if i == 3 else "" if i == 7 else v for i, v in enumerate(c["score"])])),
             "error", "missing"),
        Case("inf cell", _csv(c.assign(score=["inf" if i == 3 else v for i, v in enumerate(c["score"])])), "error", "infinite"),
        Case("text in a score", _csv(c.assign(score=["n.a." if i == 3 else v for i, v in enumerate(c["score"])])), "error",
             "not numbers in rows 5"),
        Case("duplicate rows", _csv(pd.concat([c, c.iloc[:2]])), "error", "repeat"),
        Case("names differing only in case", _csv(pd.concat([c, c[c.dataset == "d1"].assign(dataset="D1")])), "ok",
             check=_rows(3)),
        Case("trailing spaces in names", _csv(c.assign(dataset=c["dataset"] + "  ")), "ok", check=_first_is(ok_first)),
        Case("unicode and very long names", _csv(c.assign(model=c["model"].map(lambda m: "模型-" + m * 300))), "ok",
             check=_rows(3)),
        Case("a single dataset", _csv(c[c.dataset == "d0"]), "error", "at least 3"),
        Case("a single model", _csv(c[c.model == "A"]), "error", "at least 2"),
        Case("all scores tied", _csv(c.assign(score=0.5)), "ok", check=_rows(3)),
        # the layout and the columns are guessed: 'Accuracy' is the score column, a wide file is wide
        Case("score column named Accuracy", _csv(c.rename(columns={"score": "Accuracy"})), "ok",
             check=_first_is(ok_first)),
        Case("wide file without --wide", _csv(c.pivot(index="dataset", columns="model", values="score").reset_index()),
             "ok", check=_first_is(ok_first)),
        Case("wide file with --wide", _csv(c.pivot(index="dataset", columns="model", values="score").reset_index()),
             "ok", args=["--wide"], check=_first_is(ok_first)),
        Case("binary file renamed to .csv", _bytes("scores.csv", bytes(range(256)) * 40), "error", "binary"),
        Case("zip (Excel) renamed to .csv", _bytes("scores.csv", b"PK\x03\x04" + b"\x14" * 200), "error", "zip"),
        Case("zip bomb disguised as .parquet", _zip_as_parquet, "error", "Parquet", scores_name="scores.parquet"),
        Case("gzip bomb (300 MB of zeros)", _gzip_bomb, "error", "over the limit", scores_name="scores.csv.gz"),
        Case("file over the size limit (limit set to 1 MB)", lambda f: _big(f, 2), "error", "over the limit",
             env={"SUBSETSEL_MAX_TABLE_MB": "1"}),
        Case("formula injection in names", _csv(c.assign(dataset=c["dataset"].map(lambda d: "=HYPERLINK(" + d + ")"))),
             "ok", check=lambda out: _table(out)["dataset"].str.startswith("'=").all()),
        Case("1-million-row file", _million, "ok", slow=True, check=_rows(3)),
        Case("200 MB file", lambda f: _big(f, 201), "error", "limit", slow=True),
    ]
    return cases


def features_for(case: Case, folder: Path) -> Path:
    """Descriptors matching the case's datasets (written next to the scores)."""
    p = folder / "features.csv"
    f = features_frame()
    if case.name == "names differing only in case":
        f = pd.concat([f, pd.DataFrame({"dataset": ["D1"], "size": [7], "kind": ["a"]})])
    if case.name == "formula injection in names":
        f = f.assign(dataset=f["dataset"].map(lambda d: "=HYPERLINK(" + d + ")"))
    if case.name == "1-million-row file":
        f = pd.DataFrame({"dataset": [f"ds{i}" for i in range(1000)], "size": np.arange(1000) % 37})
    f.to_csv(p, index=False)
    return p


# --------------------------------------------------------------------------- the dashboard's upload path

@dataclass(frozen=True)
class DashboardExpect:
    """What the Benchmark page's uploader must do with a case.

    Attributes
    ----------
    expect : {"ok", "error"}
        A loaded benchmark (``ok``) or an error message on the page (``error``).
    needle : str
        Text the error message must contain.
    settings : dict of str to str
        Session-state values of the page's widgets to set after the upload (the dashboard's
        equivalent of the case's CLI arguments), e.g. ``{"up_missing": "drop-models"}``.
    why : str
        Why the page's outcome differs from the CLI's, if it does.
    """

    expect: str
    needle: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    why: str = ""


_DASHBOARD_OVERRIDES: dict[str, DashboardExpect] = {}


def dashboard_expectation(case: Case) -> DashboardExpect:
    """The Benchmark page's expected outcome for a case (the CLI's, with its arguments as widget settings)."""
    if case.name in _DASHBOARD_OVERRIDES:
        return _DASHBOARD_OVERRIDES[case.name]
    settings: dict[str, str] = {}
    args = list(case.args)
    while args:
        a = args.pop(0)
        if a == "--wide":
            settings["up_layout"] = "wide"
        elif a == "--missing":
            settings["up_missing"] = args.pop(0)
        elif a == "--layout":
            settings["up_layout"] = args.pop(0)
        else:
            raise ValueError(f"no widget for the CLI argument {a}")
    return DashboardExpect(case.expect, case.needle, settings)
