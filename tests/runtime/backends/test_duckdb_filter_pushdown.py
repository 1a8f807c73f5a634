"""A filter on DuckDB reaches the optimizer as the bare condition: an OR over both sides of a
join is split into one condition per side, pushed below the join (TPC-H Q19's shape), with
the rows pandas keeps, nulls included."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.runtime.backends.both import Step, assert_same, explained

CHOSEN = "(a == 1 and b == 2) or (a == 3 and b == 4)"


def frames() -> dict[str, pd.DataFrame]:
    left = {"k": pd.array(range(8), dtype="Int64"), "a": pd.array([1, 3, 1, 3, None, 1, 2, 3])}
    right = {"k2": pd.array(range(8), dtype="Int64"), "b": pd.array([2, 4, 4, None, 2, 2, 2, 4])}
    return {"l": integers(left), "r": integers(right)}


def integers(columns: dict[str, list]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.array(values, dtype="Int64") for name, values in columns.items()})


JOINED = Step("j", "join", {"left_on": ["k"], "right_on": ["k2"]}, {"left": "l", "right": "r"})


@pytest.mark.parametrize("condition", [CHOSEN, f"not ({CHOSEN})", "a == 1 or b > a"])
def test_a_filter_above_a_join_keeps_the_rows_pandas_keeps(tmp_path, condition):
    chosen = Step("chosen", "filter", {"condition": condition}, {"in": "j"})
    assert_same([JOINED, chosen], frames(), tmp_path)


def test_an_or_over_both_sides_of_a_join_is_pushed_below_it_one_side_each(tmp_path):
    chosen = Step("chosen", "filter", {"condition": CHOSEN}, {"in": "j"})
    below = {
        node["extra_info"]["Expression"]
        for join in explained([JOINED, chosen], frames(), tmp_path)
        if "JOIN" in join["name"]
        for node in join["children"]
        if node["name"] == "FILTER"
    }
    assert below == {"((a = 1) OR (a = 3))", "((b = 2) OR (b = 4))"}
