"""Tests of the interaction-log statistics, with values computed by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.representations.interactions import (
    INTERACTION_COLUMNS,
    gini,
    interaction_statistics,
)

SHARED_STATS = (
    Path(__file__).resolve().parents[4] / "shared" / "data" / "test-only" / "recsys_30"
) / "features_stats.csv"


def _log(pairs: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(pairs, columns=["user", "item"])


# Three users, three items:
#   u1: a b c      item counts: a 3, b 2, c 1  (R = 6)
#   u2: a b        user counts: u1 3, u2 2, u3 1
#   u3: a
TRIANGLE = _log([("u1", "a"), ("u1", "b"), ("u1", "c"), ("u2", "a"), ("u2", "b"), ("u3", "a")])


def test_gini_by_hand():
    # Sorted ascending x = (1, 2, 3), n = 3, R = 6:
    # 1 - 2 * (3*1 + 2*2 + 1*3) / (4 * 6) = 1 - 20/24 = 1/6
    assert gini(np.array([3, 1, 2])) == pytest.approx(1 / 6)
    assert gini(np.array([4, 4, 4, 4])) == pytest.approx(0.0)
    # One element holds everything: (n - 1) / (n + 1).
    assert gini(np.array([0, 0, 0, 9])) == pytest.approx(3 / 5)
    assert gini(np.array([])) == 0.0


def test_triangle_log_by_hand():
    row = interaction_statistics({"tri": TRIANGLE}).loc["tri"]
    assert row["n_users"] == 3 and row["n_items"] == 3 and row["n_interactions"] == 6
    assert row["space_size"] == 9
    assert row["shape_users_per_item"] == 1.0
    assert row["density"] == pytest.approx(6 / 9)
    assert row["interactions_per_user"] == 2.0 and row["interactions_per_item"] == 2.0
    assert row["gini_item"] == pytest.approx(1 / 6)
    assert row["gini_user"] == pytest.approx(1 / 6)

    # Item popularity = distinct users / 3: a 1, b 2/3, c 1/3.
    # Per-user popularity bias: u1 (1 + 2/3 + 1/3)/3 = 2/3, u2 (1 + 2/3)/2 = 5/6, u3 1.
    pb = np.array([2 / 3, 5 / 6, 1.0])
    assert row["pop_bias_avg"] == pytest.approx(pb.mean())  # 5/6
    assert row["pop_bias_std"] == pytest.approx(pb.std(ddof=1))  # 1/6
    # Symmetric around the mean: skew 0; three equally spaced values: kurtosis -1.5.
    assert row["pop_bias_skew"] == pytest.approx(0.0, abs=1e-12)
    assert row["pop_bias_kurtosis"] == pytest.approx(-1.5)

    # Long tail: items by count a 3, b 2, c 1; cumulative shares 0.5, 0.833, 1.0.
    # The first share above 0.8 is at b, so the tail is {b, c}.
    # Shares: u1 2/3, u2 1/2, u3 0.
    lt = np.array([2 / 3, 1 / 2, 0.0])
    assert row["long_tail_avg"] == pytest.approx(lt.mean())
    assert row["long_tail_std"] == pytest.approx(lt.std(ddof=1))
    d = lt - lt.mean()
    m2 = np.mean(d**2)
    assert row["long_tail_skew"] == pytest.approx(np.mean(d**3) / m2**1.5)
    assert row["long_tail_kurtosis"] == pytest.approx(np.mean(d**4) / m2**2 - 3)


def test_full_matrix_degenerate_moments_are_zero():
    full = _log([(u, i) for u in "xyz" for i in "abc"])
    row = interaction_statistics({"full": full}).loc["full"]
    assert row["density"] == 1.0
    assert row["gini_item"] == 0.0 and row["gini_user"] == 0.0
    assert row["pop_bias_avg"] == 1.0  # every item seen by every user
    assert row["pop_bias_std"] == 0.0
    assert row["pop_bias_skew"] == 0.0 and row["pop_bias_kurtosis"] == 0.0
    # Counts 3, 3, 3: cumulative shares 1/3, 2/3, 1 -> tail = {c} (label order breaks ties).
    assert row["long_tail_avg"] == pytest.approx(1 / 3)
    assert row["long_tail_std"] == 0.0


def test_repeated_pairs_count_as_interactions_but_not_as_users():
    log = _log([("u1", "a"), ("u1", "a"), ("u2", "b")])
    row = interaction_statistics({"rep": log}).loc["rep"]
    assert row["n_interactions"] == 3 and row["density"] == pytest.approx(3 / 4)
    # Item a: 1 distinct user of 2 -> popularity 1/2 (not 2/2).
    assert row["pop_bias_avg"] == pytest.approx(0.5)


def test_long_frame_and_custom_columns_match_mapping():
    other = _log([("p", "x"), ("q", "x"), ("q", "y"), ("r", "z")])
    by_map = interaction_statistics({"tri": TRIANGLE, "other": other})
    long = pd.concat(
        [TRIANGLE.assign(dataset="tri"), other.assign(dataset="other")], ignore_index=True
    ).rename(columns={"user": "uid", "item": "iid", "dataset": "ds"})
    long["rating"] = 5.0  # extra columns are ignored
    by_long = interaction_statistics(long, user_col="uid", item_col="iid", dataset_col="ds")
    assert list(by_long.index) == ["other", "tri"]  # sorted for a long frame
    pd.testing.assert_frame_equal(by_long, by_map.loc[["other", "tri"]])


def test_independent_of_row_order_and_labels():
    rng = np.random.default_rng(0)
    log = pd.DataFrame({"user": rng.zipf(1.6, 800) % 60, "item": rng.zipf(1.4, 800) % 90}).astype(
        int
    )
    base = interaction_statistics({"d": log})
    shuffled = log.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(interaction_statistics({"d": shuffled}), base)
    # Relabelling users (not items: item labels break popularity ties) changes nothing.
    relabelled = log.assign(user=log["user"].map(lambda u: f"user-{u:03d}"))
    pd.testing.assert_frame_equal(interaction_statistics({"d": relabelled}), base)


def test_columns_match_recsys_benchmark_table():
    assert len(INTERACTION_COLUMNS) == 18
    if not SHARED_STATS.is_file():
        pytest.skip("shared recsys_30 data not present")
    table = pd.read_csv(SHARED_STATS)
    assert [c for c in table.columns if c not in ("dataset", "domain")] == list(INTERACTION_COLUMNS)
    # The identities between the published columns hold with our definitions.
    u, i, r = table["n_users"], table["n_items"], table["n_interactions"]
    np.testing.assert_allclose(table["space_size"], u * i)
    np.testing.assert_allclose(table["shape_users_per_item"], u / i)
    np.testing.assert_allclose(table["density"], r / (u * i))
    np.testing.assert_allclose(table["interactions_per_user"], r / u)
    # Popularity as a share of users: the published averages lie between 1/U and 1.
    assert ((table["pop_bias_avg"] >= 1 / u) & (table["pop_bias_avg"] <= 1)).all()
    assert (table["gini_item"].between(0, 1)).all()


@pytest.mark.parametrize(
    ("logs", "kwargs", "match"),
    [
        ([TRIANGLE], {}, "mapping"),
        ({}, {}, "empty"),
        ({"d": TRIANGLE.rename(columns={"user": "u"})}, {}, r"\['user'\] not found"),
        ({"d": TRIANGLE.iloc[:0]}, {}, "empty"),
        ({"d": _log([("u1", "a"), (None, "b")])}, {}, "missing user or item"),
        ({"d": [("u", "i")]}, {}, "DataFrame"),
        (TRIANGLE, {}, "no 'dataset' column"),
        (TRIANGLE.assign(dataset=[None] + ["x"] * 5), {}, "no 'dataset' value"),
    ],
)
def test_bad_input(logs, kwargs, match):
    with pytest.raises(InputError, match=match):
        interaction_statistics(logs, **kwargs)
