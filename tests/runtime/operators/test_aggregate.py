"""`aggregate`: one row per group (or for the whole table), with dtypes by the convention."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest

from runtime.errors import ParamsError
from runtime.operators.aggregate import Aggregate
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.operators.contract import OperatorContract, assert_schema_predicts, make_ctx

SALES = pd.DataFrame(
    {
        "shop": pd.array(["b", "a", "b", None, "a"], dtype="str"),
        "units": pd.array([1, 2, None, 4, 5], dtype="Int64"),
        "price": [1.5, 2.0, 3.0, np.nan, 4.0],
        "paid": pd.array([True, None, False, True, True], dtype="boolean"),
        "day": pd.Series([datetime.date(2024, 1, d) for d in (5, 1, 3, 2, 4)], dtype=date_dtype()),
    }
)
FUNCTIONS = ["count", "size", "sum", "mean", "median", "std", "min", "max", "nunique", "first"]
EVERY_AGGREGATION = [
    *({"column": "units", "function": function} for function in [*FUNCTIONS, "last"]),
    *({"column": "price", "function": function} for function in FUNCTIONS),
    *(
        {"column": column, "function": function}
        for column in ("shop", "paid", "day")
        for function in ("count", "min", "max", "nunique", "first", "last")
    ),
    {"function": "size"},
]


def aggregate(params: dict, frame: pd.DataFrame = SALES) -> pd.DataFrame:
    """The aggregated frame, after checking that `output_schema` predicted it."""
    operator = Aggregate()
    predicted = operator.output_schema(make_ctx(operator, params, "."), {"in": schema_of(frame)})
    out = operator.run(make_ctx(operator, params, "."), {"in": frame})["out"]
    assert_schema_predicts(predicted["out"], out)
    return out


class TestAggregateContract(OperatorContract):
    operator_cls = Aggregate
    params = {"group_by": ["shop"], "aggregations": EVERY_AGGREGATION}
    inputs = {"in": SALES}
    bad_params = [
        ({}, r"params\.aggregations: Aggregations: required"),
        (
            {"aggregations": [{"function": "sum"}]},
            r"params\.aggregations\.0: Aggregations, item 1: sum needs a column or an expression",
        ),
        (
            {"aggregations": [{"column": "a", "function": "avg"}]},
            r"params\.aggregations\.0\.function: Aggregations, item 1, Function: must be one of",
        ),
        ({"group_by": ["a", "a"], "aggregations": [{"function": "size"}]}, "listed more than once"),
    ]


def test_one_row_per_group_sorted_by_key_with_the_null_group_last():
    out = aggregate(
        {
            "group_by": ["shop"],
            "aggregations": [
                {"column": "units", "function": "sum", "name": "units"},
                {"function": "size", "name": "rows"},
                {"column": "price", "function": "mean"},
            ],
        }
    )
    assert list(out.columns) == ["shop", "units", "rows", "price_mean"]
    assert out["shop"].tolist()[:2] == ["a", "b"] and pd.isna(out["shop"].iloc[2])
    assert out["units"].tolist() == [7, 1, 4]
    assert out["rows"].tolist() == [2, 2, 1]
    assert out["price_mean"].tolist()[:2] == [3.0, 2.25]


def test_counts_skip_nulls_and_first_and_last_are_the_first_and_last_values_present():
    out = aggregate(
        {
            "group_by": ["shop"],
            "aggregations": [
                {"column": "units", "function": "count"},
                {"column": "units", "function": "first"},
                {"column": "units", "function": "last"},
            ],
        }
    )
    b = out[out["shop"] == "b"].iloc[0]
    assert (b["units_count"], b["units_first"], b["units_last"]) == (1, 1, 1)


@pytest.mark.parametrize("group_by", [["shop"], ["shop", "paid"], ["day"], []])
def test_result_dtypes_follow_the_convention(group_by):
    aggregations = [a for a in EVERY_AGGREGATION if a.get("column") not in group_by]
    out = aggregate({"group_by": group_by, "aggregations": aggregations})
    dtypes = out.dtypes.astype(str)
    for name in ("units_count", "units_size", "units_sum", "units_nunique", "size"):
        assert dtypes[name] == "Int64", name
    for name in ("units_mean", "units_std", "units_median", "price_sum", "price_min"):
        assert dtypes[name] == "float64", name
    assert dtypes["units_min"] == "Int64"
    kept = {"shop_max": "str", "paid_first": "boolean", "day_last": str(date_dtype())}
    for name, dtype in kept.items():
        if name in dtypes:
            assert dtypes[name] == dtype, name


def test_without_group_columns_the_whole_table_is_one_row():
    out = aggregate(
        {
            "aggregations": [
                {"column": "units", "function": "sum"},
                {"column": "day", "function": "max"},
                {"column": "shop", "function": "first"},
                {"function": "size"},
            ]
        }
    )
    assert out.iloc[0].tolist() == [12, datetime.date(2024, 1, 5), "b", 5]


def test_the_whole_table_and_one_group_holding_every_row_agree():
    everything = aggregate({"aggregations": EVERY_AGGREGATION})
    one_group = aggregate(
        {"group_by": ["all"], "aggregations": EVERY_AGGREGATION}, SALES.assign(all=1)
    ).drop(columns="all")
    pd.testing.assert_frame_equal(everything, one_group)


def test_an_empty_table_gives_one_row_of_zero_counts_and_nulls():
    out = aggregate({"aggregations": EVERY_AGGREGATION}, SALES.iloc[:0])
    assert len(out) == 1
    assert out["units_count"].iloc[0] == 0 and out["units_sum"].iloc[0] == 0
    assert pd.isna(out["units_mean"].iloc[0]) and pd.isna(out["day_min"].iloc[0])


def test_sum_of_text_is_refused_at_the_aggregation_column():
    params = {"aggregations": [{"function": "size"}, {"column": "shop", "function": "sum"}]}
    with pytest.raises(
        ParamsError, match=r"aggregations\[1\]\.column: sum needs numbers, but 'shop' is string"
    ):
        aggregate(params)


def test_an_unknown_group_column_is_refused_with_a_suggestion():
    params = {"group_by": ["shp"], "aggregations": [{"function": "size"}]}
    with pytest.raises(ParamsError, match=r"group_by: unknown column 'shp'; did you mean 'shop'\?"):
        aggregate(params)


def test_two_output_columns_with_one_name_are_refused():
    params = {
        "group_by": ["shop"],
        "aggregations": [{"column": "units", "function": "sum", "name": "shop"}],
    }
    with pytest.raises(
        ParamsError, match=r"aggregations\[0\]\.name: the output already has a column named 'shop'"
    ):
        aggregate(params)


def test_two_aggregations_with_one_name_are_refused_at_the_second():
    params = {
        "aggregations": [{"function": "size", "name": "n"}, {"function": "size", "name": "n"}]
    }
    with pytest.raises(ParamsError, match=r"aggregations\[1\]\.name: the output already has"):
        aggregate(params)
