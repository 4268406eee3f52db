"""The hostile corpus (tests/support/hostile_corpus.py) through the Benchmark page's file uploader (AppTest).

Every case is uploaded into the page's score uploader (with the matching descriptor table),
the page's widgets are set as the case's CLI arguments would be, and the page must give
either a benchmark that loads correctly (checked with the corpus's own check on the subset
the CLI would write) or a clear error message — never an exception element. A failed
upload must leave the active benchmark as it was. All cases run in one session, one after
the other, as a user trying file after file would; the large ones (1-million-row file,
200 MB file, bombs) are generated on the fly into a temporary folder.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import pytest

from subsetsel_core.outputs.export import subset_csv, subset_table
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.selection.subsets import select_datasets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from hostile_corpus import Case, build_cases, dashboard_expectation, features_for  # noqa: E402

CASES = build_cases()
RUN_TIMEOUT = 90.0  # seconds one page run may take (AppTest raises beyond it)
FIX_WORDS = re.compile(
    r"\b(give|save|export|use|add|choose|replace|make|split|check|keep|fill|rename|type|fix|remove|delete|"
    r"unzip|leave|name|drop)\b", re.IGNORECASE)
CLI_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")


@dataclass
class Outcome:
    """What the page did with one case."""

    case: str
    expect: str
    got: str  # "ok", "error", "exception", "nothing"
    correct: bool
    clear: bool
    message: str
    seconds: float
    kept_previous: bool


def _unescape(text: str) -> str:
    """Markdown-escaped page text back to plain text (``\\_`` → ``_``)."""
    return re.sub(r"\\(.)", r"\1", text)


def _uploader(at: Any, prefix: str) -> Any:
    return next(u for u in at.file_uploader if str(u.key).startswith(prefix))


def _set_widget(at: Any, key: str, value: str) -> None:
    for kind in ("selectbox", "radio"):
        found = [w for w in getattr(at, kind) if w.key == key]
        if found:
            found[0].set_value(value)
            return
    raise AssertionError(f"no widget with key {key}")


def _mime(name: str) -> str:
    return "text/csv" if name.endswith(".csv") else "application/octet-stream"


def subset_csv_like_the_cli(data: Any, k: int = 3) -> str:
    """The CSV ``subsetsel select --strategy fafi-euclidean --k 3`` writes, from a loaded upload.

    Parameters
    ----------
    data : ActiveData
        The benchmark the page loaded (with its ``features`` descriptor table).
    k : int
        Subset size.

    Returns
    -------
    str
        The subset as neutralised CSV text (what the corpus's ``check`` functions read).
    """
    desc = data.tables["features"]
    rep = build_representation(desc, data.benchmark.datasets, name="features", text="tfidf")
    sel = select_datasets(data.benchmark, rep, "fafi-euclidean", k, seed=0)
    return subset_csv(subset_table(sel, desc))


def is_clear(message: str, needle: str, label: str) -> bool:
    """A message that names the file and the problem (``needle``) and says what to do, in page terms."""
    return (needle.lower() in message.lower() and label in message and bool(FIX_WORDS.search(message))
            and not CLI_FLAG.search(message) and len(message) < 2000)


def feed(at: Any, case: Case, folder: Path) -> Outcome:
    """Upload one case into the Benchmark page and judge what the page shows."""
    exp = dashboard_expectation(case)
    before = at.session_state["data"].token
    at.button(key="clear_upload_btn").click()
    at.run(timeout=RUN_TIMEOUT)
    case.write(folder)
    feats = features_for(case, folder)
    old_env = {k: os.environ.get(k) for k in case.env}
    os.environ.update(case.env)
    t0 = time.perf_counter()
    try:
        _uploader(at, "up_scores_").set_value(
            (case.scores_name, (folder / case.scores_name).read_bytes(), _mime(case.scores_name)))
        _uploader(at, "up_desc_").set_value([("features.csv", feats.read_bytes(), "text/csv")])
        at.run(timeout=RUN_TIMEOUT)
        if not at.exception and [w for w in at.selectbox if w.key == "up_missing"]:
            for key, value in {"up_missing": "error", **exp.settings}.items():
                _set_widget(at, key, value)
            at.run(timeout=RUN_TIMEOUT)
        texts = [_unescape(str(e.value)) for e in at.error]
        use = [b for b in at.button if b.key == "use_upload_btn"]
        page_text = " ".join(str(getattr(e, "value", "")) for e in at.main)
        if at.exception or "Traceback" in page_text:
            got, message = "exception", "; ".join(str(e.value)[:300] for e in at.exception) or "Traceback"
        elif texts:
            got, message = "error", " | ".join(texts)
        elif use:
            got, message = "ok", ""
        else:
            got, message = "nothing", ""
        kept = at.session_state["data"].token == before
        correct = clear = False
        if got == "ok" and exp.expect == "ok":
            use[0].click()
            at.run(timeout=RUN_TIMEOUT)
            data = at.session_state["data"]
            activated = any("Using the uploaded benchmark" in str(m.value) for m in at.success)
            correct = (not at.exception and activated and data.source == "upload"
                       and (case.check is None or case.check(subset_csv_like_the_cli(data))))
        elif got == "error" and exp.expect == "error":
            label = case.scores_name
            clear = is_clear(message, exp.needle, label)
        seconds = time.perf_counter() - t0
    finally:
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        for p in folder.iterdir():
            p.unlink()
    return Outcome(case.name, exp.expect, got, correct, clear, message, seconds, kept)


def test_hostile_corpus_through_the_upload_page(tmp_path: Path) -> None:
    at = H.goto(H.new_app(), "benchmark")
    # a previous upload is active: every failed upload after it must leave it in place
    _uploader(at, "up_scores_").set_value(("baseline.csv", H.tiny_long_csv(), "text/csv"))
    at.run(timeout=RUN_TIMEOUT)
    at.button(key="use_upload_btn").click()
    at.run(timeout=RUN_TIMEOUT)
    assert at.session_state["data"].name == "baseline"

    outcomes: list[Outcome] = []
    for case in CASES:
        outcomes.append(feed(at, case, tmp_path))

    print(f"\n{'case':48} {'expect':6} {'got':9} {'result':14} {'s':>5}")
    for o in outcomes:
        verdict = ("correct" if o.correct else "clear message" if o.clear else "FAIL")
        print(f"{o.case[:48]:48} {o.expect:6} {o.got:9} {verdict:14} {o.seconds:5.1f}")
    n_ok = sum(o.expect == "ok" for o in outcomes)
    n_correct = sum(o.correct for o in outcomes)
    n_err = sum(o.expect == "error" for o in outcomes)
    n_clear = sum(o.clear for o in outcomes)
    print(f"cases {len(outcomes)}: correct {n_correct} of {n_ok} expected to load, "
          f"clear message {n_clear} of {n_err} expected to fail, "
          f"exceptions {sum(o.got == 'exception' for o in outcomes)}")

    assert len(outcomes) == len(CASES) == 35
    assert not [o.case for o in outcomes if o.got == "exception"]
    bad = [(o.case, o.got, o.message[:400]) for o in outcomes if not (o.correct or o.clear)]
    assert not bad, bad
    assert not [o.case for o in outcomes if o.expect == "error" and not o.kept_previous]

    # the session still works: a small upload again, then another page
    at.button(key="clear_upload_btn").click()
    at.run(timeout=RUN_TIMEOUT)
    _uploader(at, "up_scores_").set_value(("baseline.csv", H.tiny_long_csv(), "text/csv"))
    at.run(timeout=RUN_TIMEOUT)
    at.button(key="use_upload_btn").click()
    at.run(timeout=RUN_TIMEOUT)
    assert at.session_state["data"].name == "baseline"
    H.goto(at, "select")
    assert not H.errors(at), H.errors(at)


#: The settings of the Benchmark page's upload form (keys of subsetsel_core.errors.FIELDS).
UPLOAD_FIELDS = ("layout", "dataset_column", "model_column", "score_column", "fold_column", "direction", "missing",
                 "aliases", "descriptor_dataset_column")


@pytest.mark.parametrize("field", UPLOAD_FIELDS)
def test_messages_name_the_page_widgets_not_cli_options(field: str) -> None:
    from subsetsel_app.upload import error_text
    from subsetsel_core.errors import InputError

    out = error_text(InputError("scores.csv: something is wrong with this setting.", field=field))
    assert out.startswith("scores.csv: something is wrong with this setting. ")
    assert not CLI_FLAG.search(out), out
    assert "CLI" not in out
    assert "above" in out or "box" in out
