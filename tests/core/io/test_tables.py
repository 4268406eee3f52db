"""Reading a score table once per distinct cell gives what reading every cell gives.

:func:`~subsetsel_core.io.numeric_cells.parse_numbers` and the score loader work on the
distinct cells of a text column (:func:`~subsetsel_core.io.tables.text_codes`). Padding
each cell with its own number of leading spaces makes every cell distinct without
changing what it means (cells are stripped first), so the padded column takes the
cell-by-cell path: both must agree, on random tables with gaps, ties, repeats and
spreadsheet-style numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsetsel_core.benchmark import Benchmark, load_scores
from subsetsel_core.errors import InputError
from subsetsel_core.io.numeric_cells import DISTINCT_MIN_ROWS, parse_numbers
from subsetsel_core.io.tables import text_codes

ODD = ["85%", "85 %", "0,85", "1,234.5", "1.234,5", "1 234", "1\u00a0234", "12'345", "NA", "n/a", "", "-",
       "?", "nan", "inf", "-inf", "abc", "1_000", "1e400", "12345678901234567890", "9007199254740993",
       "0.1000000000000000055511151231257827", "1,5", "1,000", "0.5%", "TRUE", "—", "+0.3", ".5", "5."]
PLAIN = st.integers(0, 40).map(lambda i: repr(i / 40))
CELL = st.one_of(PLAIN, PLAIN, st.sampled_from(ODD))


def _padded(cells: list[str]) -> list[str]:
    return [" " * i + c for i, c in enumerate(cells)]


def _assert_same_numbers(a: tuple[pd.Series, pd.Series, list[str]], b: tuple[pd.Series, pd.Series, list[str]]) -> None:
    np.testing.assert_array_equal(a[0].to_numpy(), b[0].to_numpy())
    np.testing.assert_array_equal(a[1].to_numpy(), b[1].to_numpy())
    assert a[2] == b[2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["0.5", "0.25", "1", "85%"]) | CELL, min_size=1, max_size=60),
       st.integers(0, 8))
def test_parse_numbers_distinct_cells_as_every_cell(cells: list[str], repeat: int) -> None:
    cells = cells * (repeat + 1)  # longer than DISTINCT_MIN_ROWS cells, sometimes
    index = pd.RangeIndex(7, 7 + len(cells))
    every = parse_numbers(pd.Series(_padded(cells), index=index, dtype=object))
    for values in (pd.Series(cells, index=index, dtype=object), pd.Series(cells, index=index, dtype=str)):
        got = parse_numbers(values)
        _assert_same_numbers(got, every)
        assert got[0].index.equals(index) and got[1].index.equals(index)


def test_parse_numbers_missing_cells_among_repeats() -> None:
    cells = ["0.5", None, "0.5", np.nan, "85%", None] * DISTINCT_MIN_ROWS
    got = parse_numbers(pd.Series(cells, dtype=object))
    every = parse_numbers(pd.Series([" " * i + c if isinstance(c, str) else c for i, c in enumerate(cells)], dtype=object))
    _assert_same_numbers(got, every)


def test_text_codes() -> None:
    codes, distinct = text_codes(pd.Series(["b", None, "a", "b", np.nan], dtype=object))
    assert distinct.iloc[:2].tolist() == ["b", "a"] and pd.isna(distinct.iloc[2])
    assert codes.tolist() == [0, 2, 1, 0, 2]
    codes, distinct = text_codes(pd.Series(["x", "y", "x"], dtype=str))
    assert codes.tolist() == [0, 1, 0] and distinct.tolist() == ["x", "y"]
    # factorising would merge 1, 1.0 and True, whose text differs
    assert text_codes(pd.Series([1, 1.0, True, "1"], dtype=object)) is None
    assert text_codes(pd.Series([1.5, 2.5])) is None
    runs = pd.Series(["a"] * 100 + ["b"] * 100 + ["a"] * 100, dtype=object)  # sorted tables come in runs
    codes, distinct = text_codes(runs)
    assert distinct.tolist() == ["a", "b"] and codes.tolist() == [0] * 100 + [1] * 100 + [0] * 100


@st.composite
def long_tables(draw: st.DrawFn) -> pd.DataFrame:
    """A long table with folds, in dataset order (runs), with gaps, repeats and odd cells."""
    nd, nm, nf = draw(st.integers(2, 12)), draw(st.integers(1, 5)), draw(st.integers(1, 8))
    names = draw(st.sampled_from([[f"d{i}" for i in range(nd)], [str(i) for i in range(nd)],
                                  [f" d{i}" if i % 2 else f"D{i}" for i in range(nd)]]))
    odd = draw(st.booleans())
    rows = [(d, f"m{m}", str(f), draw(CELL) if odd else draw(PLAIN))
            for d in names for m in range(nm) for f in range(nf)]
    if draw(st.booleans()):  # gaps
        for i in sorted(draw(st.sets(st.integers(0, len(rows) - 1), max_size=3)), reverse=True):
            del rows[i]
    if rows and draw(st.integers(0, 9)) == 0:  # a repeated row
        rows.append(rows[draw(st.integers(0, len(rows) - 1))])
    return pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"])


def _outcome(source: bytes | pd.DataFrame, **kw: str) -> Benchmark | InputError:
    try:
        return load_scores(source, label="t.csv", **kw)
    except InputError as exc:
        return exc


def _assert_same_benchmark(a: Benchmark | InputError, b: Benchmark | InputError, *, spaces: bool = False) -> None:
    if isinstance(a, InputError) or isinstance(b, InputError):
        assert isinstance(a, InputError) and isinstance(b, InputError), (a, b)
        assert (a.field, a.rows) == (b.field, b.rows)
        if not spaces:
            assert str(a) == str(b)
        return
    np.testing.assert_array_equal(a.scores, b.scores)
    assert (a.datasets, a.models, a.folds) == (b.datasets, b.models, b.folds)

    def findings(x: Benchmark) -> list[tuple[str, str, str]]:
        return [(f.level, f.topic, f.message) for f in x.report.findings if not (spaces and f.topic == "whitespace")]

    assert findings(a) == findings(b) and a.report.facts == b.report.facts


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=120, deadline=None)
@given(long_tables(), st.sampled_from(["error", "drop-models", "drop-datasets"]))
def test_load_scores_distinct_cells_as_every_cell(df: pd.DataFrame, missing: str) -> None:
    csv = _outcome(df.to_csv(index=False).encode(), missing=missing)
    _assert_same_benchmark(csv, _outcome(df.astype(str), missing=missing))
    _assert_same_benchmark(csv, _outcome(df.astype(object), missing=missing))
    padded = df.assign(score=_padded(df["score"].tolist()), dataset=_padded(df["dataset"].tolist()))
    _assert_same_benchmark(csv, _outcome(padded.to_csv(index=False).encode(), missing=missing), spaces=True)
    if not isinstance(csv, InputError):  # without repeats the row order does not matter
        shuffled = df.sample(frac=1.0, random_state=0)
        _assert_same_benchmark(csv, _outcome(shuffled.to_csv(index=False).encode(), missing=missing))


def test_numeric_labels_that_tie_keep_their_first_order() -> None:
    rows = [(d, m, f, "0.5") for f in ("1.0", "01", "1") for d in ("a", "b", "c") for m in ("x", "y")]
    b = load_scores(pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"]))
    assert b.folds == ("1.0", "01", "1")


def test_wide_repeated_rows_name_the_first_cell() -> None:
    text = b"dataset,A,B\nx,1,2\ny,3,4\nx,5,6\nz,1,1\n"
    with pytest.raises(InputError, match="e.g. dataset 'x', model 'A'") as exc:
        load_scores(text, label="w.csv", layout="wide")
    assert exc.value.field == "fold_column" and exc.value.rows == (2, 4)  # each repeated row once


def test_large_table_with_odd_numbers_as_every_cell() -> None:
    rng = np.random.default_rng(0)
    rows = [(f"d{d}", f"m{m}", str(f), f"{rng.integers(0, 40) / 40:.3f}".replace(".", ","))
            for d in range(10) for m in range(4) for f in range(10)]
    df = pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"])
    got = load_scores(df.to_csv(index=False, sep=";").encode(), label="t.csv")
    every = df.assign(score=_padded(df["score"].tolist()))
    _assert_same_benchmark(got, _outcome(every.to_csv(index=False, sep=";").encode()), spaces=True)
    assert any("decimal commas" in f.message for f in got.report.findings)
