"""Round three of the hostile inputs (links, races, exports, argument errors, messages, printed warnings):
every case of :mod:`hostile_round3` passes. ``benchmarks/hostile_inputs.py`` prints the same table."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_round3 import Case, build_round3

CASES = build_round3()


def test_the_table_covers_every_class() -> None:
    assert {c.kind for c in CASES} == {"links", "races", "exports", "arguments", "messages", "warnings"}
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.kind}: {c.name}")
def test_round3_case(case: Case, tmp_path: Path) -> None:
    problem = case.run(tmp_path)
    assert problem is None, problem
