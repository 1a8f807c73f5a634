"""`pivot` and `unpivot` give on DuckDB what they give on pandas: random small frames with
nulls in the index, the pivoted column and the values, declared values the data lacks, empty
inputs, inputs in a sort's order, and rows in order."""

from __future__ import annotations

import datetime
from decimal import Decimal
from random import Random

import pandas as pd
import pyarrow as pa
import pytest

from runtime.errors import NotLowerable
from runtime.operators.reshape import Pivot, PivotParams
from runtime.relational import Input
from runtime.tables.schema import Column, Schema, date_dtype
from tests.runtime.backends.both import Step, assert_same

FUNCTIONS = ["sum", "count", "mean", "min", "max", "first", "last"]


def sales(seed: int, rows: int) -> pd.DataFrame:
    """Shops, months, units and prices, each with nulls, in a random order."""
    rng = Random(seed)

    def column(values, dtype):
        return pd.array([rng.choice(values) for _ in range(rows)], dtype=dtype)

    days = [None, datetime.date(2024, 1, 1), datetime.date(2024, 2, 29)]
    return pd.DataFrame(
        {
            "shop": column([None, "a", "b", "é"], "str"),
            "open": column([None, True, False], "boolean"),
            "month": column([None, 1, 2, 3], "Int64"),
            "units": column([None, -2, 0, 5, 7], "Int64"),
            "price": column([None, 0.5, -1.25, 2.0], "float64"),
            "day": column(days, date_dtype()),
            "kind": column([None, "x", "y"], "str"),
        }
    )


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    area.mkdir()
    return area


def pivots(value: str, index: list[str], column="month", values=(1, 3, 4), **more) -> list[Step]:
    """One pivot step per function, each an exit."""
    return [
        Step(
            function,
            "pivot",
            {
                "index": index,
                "column": column,
                "values": list(values),
                "value": value,
                "function": function,
                **more,
            },
            {"in": "p"},
        )
        for function in FUNCTIONS
        if value != "day" or function not in ("sum", "mean")
    ]


@pytest.mark.parametrize(
    ("seed", "index"), [(1, []), (1, ["shop"]), (2, ["shop", "open"]), (3, []), (3, ["open"])]
)
def test_pivot_matches_pandas_for_every_function_in_group_order(root, seed, index):
    frames = {"p": sales(seed, rows=[0, 6, 12][seed - 1])}
    steps = [*pivots("units", index), *pivots("price", index, names="{value}_p")]
    for step in steps:  # ids must differ
        step.id = f"{step.params['value']}_{step.id}"
    exits = [step.id for step in steps]
    assert_same(steps, frames, root, exits=exits, ordered=exits)


@pytest.mark.parametrize("frame", ["rows", "empty"])
def test_pivot_on_text_and_date_columns_matches_pandas(root, frame):
    data = sales(7, rows=14 if frame == "rows" else 0)
    steps = [
        Step(
            "by_kind",
            "pivot",
            {
                "index": ["month"],
                "column": "kind",
                "values": ["y", "z"],
                "value": "day",
                "function": "max",
            },
            {"in": "p"},
        ),
        Step(
            "by_day",
            "pivot",
            {
                "index": ["kind"],
                "column": "day",
                "values": ["2024-02-29"],
                "value": "units",
                "function": "sum",
                "names": "on {value}",
            },
            {"in": "p"},
        ),
        Step(
            "by_open",
            "pivot",
            {
                "index": ["kind"],
                "column": "open",
                "values": [True, False],
                "value": "shop",
                "function": "last",
            },
            {"in": "p"},
        ),
    ]
    exits = [step.id for step in steps]
    assert_same(steps, {"p": data}, root, exits=exits, ordered=exits)


def test_pivot_first_and_last_follow_a_sorts_order(root):
    steps = [
        Step("sorted", "sort", {"by": [{"column": "price", "descending": True}]}, {"in": "p"}),
        *(
            Step(
                f,
                "pivot",
                {
                    "index": ["shop"],
                    "column": "month",
                    "values": [1, 2, 3],
                    "value": "units",
                    "function": f,
                },
                {"in": "sorted"},
            )
            for f in ("first", "last")
        ),
    ]
    assert_same(steps, {"p": sales(4, 16)}, root, exits=["first", "last"], ordered=["first"])


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("rows", [0, 5])
def test_unpivot_matches_pandas_row_after_row_and_column_after_column(root, seed, rows):
    steps = [
        Step(
            "mixed",
            "unpivot",
            {"index": ["shop", "day"], "columns": ["price", "units"]},
            {"in": "p"},
        ),
        Step(
            "texts",
            "unpivot",
            {"columns": ["kind", "shop"], "name": "n", "value": "v"},
            {"in": "p"},
        ),
        Step("sorted", "sort", {"by": [{"column": "units"}]}, {"in": "p"}),
        Step("after_sort", "unpivot", {"index": ["units"], "columns": ["day"]}, {"in": "sorted"}),
    ]
    exits = ["mixed", "texts", "after_sort"]
    steps += [Step(f"{exit}_kept", "limit", {"n": 100}, {"in": exit}) for exit in exits]
    ordered = [f"{exit}_kept" for exit in exits]  # a limit needs its input's order
    assert_same(steps, {"p": sales(seed, rows)}, root, exits=exits + ordered, ordered=ordered)


def test_sales_by_month_as_columns_and_back_match_pandas(root):
    steps = [
        Step(
            "wide",
            "pivot",
            {
                "index": ["shop"],
                "column": "month",
                "values": [1, 2, 3],
                "value": "units",
                "function": "sum",
                "names": "m{value}",
            },
            {"in": "p"},
        ),
        Step(
            "long",
            "unpivot",
            {"index": ["shop"], "columns": ["m1", "m2", "m3"], "name": "month", "value": "units"},
            {"in": "wide"},
        ),
        Step("limited", "limit", {"n": 4}, {"in": "long"}),
    ]
    assert_same(steps, {"p": sales(9, 20)}, root, exits=["wide", "limited"], ordered=["limited"])


def test_decimals_pivot_exactly_and_unpivot_as_decimals_as_on_pandas(root):
    prices = pa.array(
        [Decimal("1.10"), None, Decimal("2.25"), Decimal("0.05")], pa.decimal128(15, 2)
    )
    frame = pd.DataFrame(
        {
            "shop": pd.array(["a", "a", "b", None], dtype="str"),
            "month": pd.array([1, 2, 1, 1], dtype="Int64"),
            "price": pd.Series(prices, dtype=pd.ArrowDtype(prices.type)),
            "tax": pd.Series(prices, dtype=pd.ArrowDtype(prices.type)),
        }
    )
    steps = [
        Step(f, "pivot", {"index": ["shop"], "column": "month", "values": [1, 2],
                          "value": "price", "function": f}, {"in": "p"})
        for f in ("sum", "mean", "max", "first")
    ]  # fmt: skip
    steps.append(Step("long", "unpivot", {"columns": ["price", "tax"]}, {"in": "p"}))
    exits = [step.id for step in steps]
    assert_same(steps, {"p": frame}, root, exits=exits, ordered=exits)


def test_a_pivot_mean_of_decimals_past_15_digits_is_their_exact_sum_over_their_count(root):
    """10^17 + 0.01, -10^17 and 0.02 average to 0.01 (a mean of floats: 0.02 / 3)."""
    values = ["100000000000000000.01", "-100000000000000000", "0.02", "5"]
    prices = pa.array([Decimal(v) for v in values], pa.decimal128(38, 2))
    frame = pd.DataFrame(
        {
            "shop": pd.array(["a", "a", "a", "b"], dtype="str"),
            "month": pd.array([1, 1, 1, 2], dtype="Int64"),
            "price": pd.Series(prices, dtype=pd.ArrowDtype(prices.type)),
        }
    )
    pivot = {"column": "month", "values": [1, 2], "value": "price", "function": "mean"}
    steps = [
        Step("by_shop", "pivot", {"index": ["shop"], **pivot}, {"in": "p"}),
        Step("whole", "pivot", pivot, {"in": "p"}),
    ]
    outputs = assert_same(
        steps, {"p": frame}, root, exits=["by_shop", "whole"], ordered=["by_shop"]
    )
    assert outputs["by_shop"]["1"].tolist()[0] == 0.01
    assert outputs["whole"].iloc[0].tolist() == [0.01, 5.0]


def test_pivot_on_a_datetime_column_runs_on_pandas():
    schema = Schema.of(Column("at", "datetime"), Column("n", "integer"))
    params = PivotParams(column="at", values=["2024-01-01 10:00:00"], value="n")
    with pytest.raises(NotLowerable, match="pivoting on a datetime column runs on pandas"):
        Pivot().lower(params, {"in": Input(("p", "out"))}, {"in": schema})
