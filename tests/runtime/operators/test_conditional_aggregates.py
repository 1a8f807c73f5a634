"""`aggregate` over expressions and over the rows where a condition holds (`where`), and
`count_distinct`: values, empty groups, and problems named by node and field."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import ParamsError
from runtime.operators.aggregate import Aggregate, AggregateParams
from tests.runtime.operators.test_aggregate import aggregate

LINES = pd.DataFrame(
    {
        "order": pd.array([1, 1, 2, 3, 3], dtype="Int64"),
        "status": pd.array(["F", "O", "F", None, "O"], dtype="str"),
        "price": [10.0, 20.0, np.nan, 8.0, 4.0],
        "discount": [0.5, 0.0, 0.1, 0.25, 0.0],
        "qty": pd.array([2, None, 1, 4, 5], dtype="Int64"),
    }
)


def test_an_expression_is_summarised_per_group():
    out = aggregate(
        {
            "group_by": ["order"],
            "aggregations": [
                {"expression": "price * (1 - discount)", "function": "sum", "name": "revenue"},
                {"expression": "qty * 2", "function": "max", "name": "most"},
            ],
        },
        LINES,
    )
    assert out["revenue"].tolist() == [25.0, 0.0, 10.0]
    assert out["most"].tolist() == [4, 2, 10] and str(out["most"].dtype) == "Int64"


def test_only_rows_where_the_condition_holds_count_and_a_group_matching_none_stays():
    out = aggregate(
        {
            "group_by": ["order"],
            "aggregations": [
                {"column": "qty", "function": "sum", "where": "status = 'O'", "name": "open"},
                {"function": "size", "where": "status = 'O'", "name": "open_lines"},
                {"column": "price", "function": "count", "where": "qty > 1", "name": "n"},
                {"column": "price", "function": "mean", "where": "status = 'O'", "name": "m"},
            ],
        },
        LINES,
    )
    assert out["order"].tolist() == [1, 2, 3]
    assert out["open"].tolist() == [0, 0, 5]  # a null qty and no open line both give 0
    assert out["open_lines"].tolist() == [1, 0, 1]
    assert out["n"].tolist() == [1, 0, 2]
    assert out["m"].tolist()[0] == 20.0 and pd.isna(out["m"].iloc[1])


def test_a_condition_matching_no_row_of_the_whole_table_gives_zero_counts_and_sums():
    out = aggregate(
        {
            "aggregations": [
                {"column": "qty", "function": "sum", "where": "price > 100", "name": "s"},
                {"function": "size", "where": "price > 100", "name": "rows"},
                {"expression": "price", "function": "min", "where": "false", "name": "low"},
            ]
        },
        LINES,
    )
    assert out[["s", "rows"]].iloc[0].tolist() == [0, 0] and pd.isna(out["low"].iloc[0])


def test_count_distinct_is_nunique():
    out = aggregate(
        {
            "aggregations": [
                {"column": "status", "function": "count_distinct"},
                {"column": "status", "function": "nunique"},
                {"column": "status", "function": "count_distinct", "where": "qty > 2", "name": "c"},
            ]
        },
        LINES,
    )
    assert out.iloc[0].tolist() == [2, 2, 1]
    assert str(out["status_count_distinct"].dtype) == "Int64"


def test_only_the_columns_of_expressions_and_conditions_are_read():
    params = AggregateParams.model_validate(
        {
            "group_by": ["order"],
            "aggregations": [
                {"expression": "price * (1 - discount)", "function": "sum", "name": "r"},
                {"function": "size", "where": "status = 'O'", "name": "n"},
            ],
        }
    )
    assert Aggregate().input_columns(params, {"out": None}) == {
        "in": {"order", "price", "discount", "status"}
    }


@pytest.mark.parametrize(
    ("aggregation", "message"),
    [
        ({"column": "qty", "expression": "qty", "function": "sum", "name": "x"}, "not both"),
        ({"expression": "qty * 2", "function": "sum"}, "name the output column"),
        ({"expression": "qty", "function": "size", "name": "x"}, "takes no expression"),
    ],
)
def test_an_aggregation_says_what_it_summarises_once(aggregation, message):
    with pytest.raises(ValidationError, match=message):
        AggregateParams.model_validate({"aggregations": [aggregation]})


@pytest.mark.parametrize(
    ("aggregation", "field", "message"),
    [
        (
            {"expression": "prise * 2", "function": "sum", "name": "x"},
            "aggregations[1].expression",
            "unknown column 'prise'",
        ),
        (
            {"expression": "upper(status)", "function": "sum", "name": "x"},
            "aggregations[1].expression",
            "sum needs numbers, but this gives string values",
        ),
        (
            {"column": "qty", "function": "sum", "where": "qty + 1"},
            "aggregations[1].where",
            "must be true or false, but it gives integer values",
        ),
        (
            {"function": "size", "where": "stauts = 'O'"},
            "aggregations[1].where",
            "did you mean 'status'",
        ),
    ],
)
def test_a_bad_expression_or_condition_is_a_problem_at_its_field_before_running(
    aggregation, field, message, tmp_path
):
    LINES.to_parquet(tmp_path / "lines.parquet", index=False)
    params = {"aggregations": [{"function": "size"}, aggregation]}
    document = load_document(
        {
            "name": "t",
            "nodes": [
                {"id": "read", "operator": "parquet_input", "params": {"path": "lines.parquet"}},
                {"id": "totals", "operator": "aggregate", "params": params},
            ],
            "edges": [{"source": "read", "target": "totals"}],
        }
    )
    [problem] = infer_schemas(document, data_root=tmp_path).problems
    assert (problem.node, problem.field) == ("totals", f"params.{field}")
    assert message in problem.message
    with pytest.raises(ParamsError, match=message):
        aggregate(params, LINES)
