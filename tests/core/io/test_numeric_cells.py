"""The short-column path of ``parse_numbers`` gives the general path's results exactly."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.io import numeric_cells

PIECES = ["1", "0", "12.5", " 3 ", "-4", "+5", "1e3", ".5", "1.", "abc", "NA", "n/a", "-", "?", "", " ", "x y",
          "Foo", "inf", "Infinity", "NaN", "nan", "1,5", "1,250", "12%", "<b>1</b>", "<i>a</i>", "**2**", "3*", "a*",
          "a/b", "(x)", "±", "1 MB", "1_0", "0x1", "True", "\t7\n", "\x1c8\x1c", "\x1fab", "é", "日本", None, np.nan,
          3, 2.5, "1.5k", "—", "9.99999999999999999999", "1e400", "-0", "0.1234567890123456789"]
NUMBERS = ["1", "2.5", "-3", "1e-3", " 4 ", "5.0000000000000001", "7.", "0.30000000000000004"]
WORDS = ["abc", "def", "NA", "", "x-y", "a b", "?", "Sensor", "IMAGE", "none", " motion "]


def _general(values: pd.Series) -> tuple[pd.Series, pd.Series, list[str]]:
    """``_parse_text`` with the short-column path switched off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(numeric_cells, "_parse_short", lambda v: None)
        return numeric_cells._parse_text(values)


def _columns(n: int) -> list[pd.Series]:
    rng = random.Random(0)
    out = []
    for _ in range(n):
        size = rng.randint(1, 8)
        pool = rng.choice([PIECES, NUMBERS, WORDS])
        cells = [rng.choice(pool) for _ in range(size)]
        text = all(isinstance(c, str) for c in cells)
        out.append(pd.Series(cells, name=rng.choice(["col", None, 3]), index=pd.Index(rng.sample(range(100), size)),
                             dtype=rng.choice([object, "str"]) if text else object))
    return out


def test_short_path_equals_the_general_path() -> None:
    decided = 0
    for v in _columns(800):
        quick = numeric_cells._parse_short(v)
        if quick is None:
            continue
        decided += 1
        slow = _general(v)
        pd.testing.assert_series_equal(quick[0], slow[0], check_exact=True)
        pd.testing.assert_series_equal(quick[1], slow[1], check_exact=True)
        assert quick[2] == slow[2]
        assert np.array_equal(quick[0].to_numpy().view(np.int64), slow[0].to_numpy().view(np.int64)), v.tolist()
    assert decided > 300  # both cases are taken often


@pytest.mark.parametrize("cells", [["1", "2", "x"], ["12%", "3%"], ["<b>a</b>"], ["inf", "a"], ["é"], [1, "2"]])
def test_short_path_leaves_the_rest_to_the_general_path(cells: list[object]) -> None:
    assert numeric_cells._parse_short(pd.Series(cells, dtype=object)) is None


def test_long_columns_take_the_general_path() -> None:
    v = pd.Series([str(i) for i in range(numeric_cells.DISTINCT_MIN_ROWS)])  # every cell distinct
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(numeric_cells, "_parse_short", lambda v: pytest.fail("short path on a long column"))
        num, bad, notes = numeric_cells.parse_numbers(v)
    assert num.tolist() == list(range(len(v))) and not bad.any() and notes == []
