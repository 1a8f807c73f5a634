"""An aggregate split into partial and combining steps gives the aggregate's own result, for
any split of the rows into partitions."""

from __future__ import annotations

from itertools import pairwise

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.operators.aggregate import Aggregate, AggregateParams
from runtime.operators.context import NodeContext
from runtime.plan.decompose import DECOMPOSABLE, SplitAggregate, undecomposable
from tests.strategies import bounded

KEYS = st.sampled_from(["a", "b", "c", None])
VALUES = st.none() | st.integers(-1000, 1000)


def aggregated(frame: pd.DataFrame, params: AggregateParams) -> pd.DataFrame:
    ctx = NodeContext("agg", params, data_root=".")
    return Aggregate().run(ctx, {"in": frame})["out"]


def split_then_combined(parts: list[pd.DataFrame], params: AggregateParams) -> pd.DataFrame:
    split = SplitAggregate(params)
    partials = pd.concat([aggregated(part, split.partial()) for part in parts], ignore_index=True)
    return split.finished(aggregated(partials, split.combining()))


def frame_of(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "key": pd.Series([key for key, _, _ in rows], dtype="str"),
            "amount": pd.Series([amount for _, amount, _ in rows], dtype="Int64"),
            "price": pd.Series(
                [None if price is None else price / 7 for _, _, price in rows], dtype="float64"
            ),
        }
    )


@bounded(150)
@given(
    rows=st.lists(st.tuples(KEYS, VALUES, VALUES), max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    grouped=st.booleans(),
    functions=st.lists(st.sampled_from(DECOMPOSABLE), min_size=1, max_size=4),
)
def test_any_split_of_the_rows_combines_to_the_aggregate_of_them_all(
    rows, cuts, grouped, functions
):
    frame = frame_of(rows)
    bounds = [0, *sorted(min(cut, len(frame)) for cut in cuts), len(frame)]
    parts = [frame.iloc[start:end] for start, end in pairwise(bounds)]
    params = AggregateParams(
        group_by=["key"] if grouped else [],
        aggregations=[
            {
                "column": "amount" if index % 2 else "price",
                "function": function,
                "name": f"out{index}",
            }
            for index, function in enumerate(functions)
        ],
    )

    expected = aggregated(frame, params)
    found = split_then_combined(parts, params)

    pd.testing.assert_frame_equal(
        found.reset_index(drop=True), expected.reset_index(drop=True), check_exact=False
    )


def test_partial_columns_never_take_a_group_columns_name():
    params = AggregateParams(
        group_by=["__part0_sum"], aggregations=[{"column": "x", "function": "sum"}]
    )
    partial = SplitAggregate(params).partial()
    assert "__part0_sum" not in [call.name for call in partial.aggregations]


@pytest.mark.parametrize("function", ["median", "std", "nunique", "first", "last"])
def test_functions_that_need_a_whole_group_are_not_split(function):
    params = AggregateParams(aggregations=[{"column": "x", "function": function}])
    assert undecomposable(params) == f"{function} needs all of a group's values at once"


@bounded(15)
@given(
    rows=st.lists(st.tuples(KEYS, VALUES, VALUES), max_size=30),
    cut=st.integers(0, 30),
    functions=st.lists(st.sampled_from(DECOMPOSABLE), min_size=1, max_size=3),
)
def test_a_split_keeps_each_aggregations_expression_and_condition(rows, cut, functions):
    frame = frame_of(rows)
    parts = [frame.iloc[:cut], frame.iloc[cut:]]
    aggregations = [
        {"function": function, "name": f"out{index}", "where": "amount > 0"}
        | (
            {"expression": "amount * 2"}
            if index % 2 and function != "size"
            else {"column": "price"}
        )
        for index, function in enumerate(functions)
    ]
    params = AggregateParams(group_by=["key"], aggregations=aggregations)

    found = split_then_combined(parts, params)

    pd.testing.assert_frame_equal(
        found.reset_index(drop=True),
        aggregated(frame, params).reset_index(drop=True),
        check_exact=False,
    )
