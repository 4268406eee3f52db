"""Critical-difference diagrams with entries or trials whose AUC is not a number: left out, with a note, and
the numbers and JSON stay finite and strict."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from subsetsel_core.evaluation.critical_difference import from_scores
from subsetsel_core.text import strict_json


def _scores() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(size=(12, 4)) + np.array([3.0, 2.0, 1.0, 0.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_an_entry_with_a_non_number_is_left_out_with_a_note(bad: float) -> None:
    x = _scores()
    x[3, 2] = bad
    cd = from_scores(x, ["A", "B", "C", "D"])
    assert cd.dropped == ("C",) and "C" not in cd.labels and set(cd.labels) == {"A", "B", "D"}
    assert "left out" in cd.note and "C" in cd.note and cd.note in cd.describe()
    assert all(math.isfinite(r) for r in cd.mean_ranks)
    text = strict_json.dumps(cd.to_json_dict())
    json.loads(text, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert json.loads(text)["dropped"] == ["C"]


def test_a_trial_with_no_number_at_all_is_left_out_and_the_entries_kept() -> None:
    x = _scores()
    x[5, :] = np.nan
    cd = from_scores(x, ["A", "B", "C", "D"])
    assert cd.dropped == () and cd.n_blocks == 11 and "1 trial(s)" in cd.note
    assert cd.mean_ranks == from_scores(np.delete(_scores(), 5, axis=0), ["A", "B", "C", "D"]).mean_ranks


def test_all_not_a_number_draws_nothing_and_says_why() -> None:
    from subsetsel_core.viz.critical_difference import cd_figure

    cd = from_scores(np.full((5, 3), np.nan), ["A", "B", "C"])
    assert cd.labels == () and cd.dropped == ("A", "B", "C") and "no entry has a number" in cd.note
    fig = cd_figure(cd, title="t")
    assert "no entry has a number" in fig.layout.annotations[0].text
    json.loads(strict_json.dumps(cd.to_json_dict()), parse_constant=lambda c: pytest.fail(c))


def test_the_figure_carries_the_note() -> None:
    from subsetsel_core.viz.critical_difference import cd_figure

    x = _scores()
    x[0, 1] = np.nan
    fig = cd_figure(from_scores(x, ["A", "B", "C", "D"], test="nemenyi"))
    assert any("left out" in (a.text or "") for a in fig.layout.annotations)
    assert all("nan" not in str(s.path) for s in fig.layout.shapes if s.path)


@pytest.mark.parametrize("test", ["wilcoxon-holm", "nemenyi"])
def test_more_entries_than_the_cap_draw_nothing_and_say_the_count_and_the_cap(test: str) -> None:
    from subsetsel_core.evaluation.critical_difference import MAX_ENTRIES
    from subsetsel_core.viz.critical_difference import cd_figure

    k = MAX_ENTRIES + 1
    cd = from_scores(np.random.default_rng(0).normal(size=(6, k)), [f"e{i}" for i in range(k)], test=test)
    assert cd.labels == () and len(cd.dropped) == k and cd.friedman_p is None
    assert f"{k:,} entries, more than the {MAX_ENTRIES}" in cd.note
    assert f"{k:,} entries" in cd_figure(cd, title="t").layout.annotations[0].text


def test_the_cap_counts_the_entries_with_a_number() -> None:
    from subsetsel_core.evaluation.critical_difference import MAX_ENTRIES

    x = np.random.default_rng(1).normal(size=(6, MAX_ENTRIES + 1))
    x[:, 0] = np.nan
    cd = from_scores(x, [f"e{i}" for i in range(MAX_ENTRIES + 1)], test="nemenyi")
    assert len(cd.labels) == MAX_ENTRIES and cd.dropped == ("e0",)
