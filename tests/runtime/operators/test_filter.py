"""`filter`: keeps the rows where its condition is true."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.errors import OperatorError
from runtime.operators.filter import Filter
from runtime.tables.schema import Column, Schema
from tests.runtime.operators.contract import OperatorContract, make_ctx

PEOPLE = pd.DataFrame(
    {"age": pd.array([12, 30, None, 70], dtype="Int64"), "country": ["FR", "DE", "FR", "US"]}
)


class TestFilterContract(OperatorContract):
    operator_cls = Filter
    params = {"condition": "age > 18 and country in ('FR', 'DE')"}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({}, r"params\.condition: Condition: required"),
        (
            {"condition": "age >"},
            r"params\.condition: Condition: unexpected end of expression at 1:6; expected an",
        ),
        (
            {"condition": "__import__('os')"},
            r"params\.condition: Condition: unknown function '__import__' at 1:1",
        ),
    ]


def run(condition: str, frame: pd.DataFrame = PEOPLE) -> pd.DataFrame:
    operator = Filter()
    return operator.run(make_ctx(operator, {"condition": condition}, "."), {"in": frame})["out"]


def test_keeps_rows_where_the_condition_is_true_and_drops_null_comparisons():
    assert run("age > 18")["age"].tolist() == [30, 70]


def test_is_null_finds_the_gaps():
    assert run("age is null")["country"].tolist() == ["FR"]


def test_an_unknown_column_is_an_error_with_a_suggestion():
    with pytest.raises(
        OperatorError, match=r"condition: unknown column 'agee' at 1:1; did you mean 'age'\?"
    ):
        run("agee > 1")


def test_the_output_schema_is_the_input_schema():
    schema = Schema.of(Column("age", "integer"), Column("country", "string"))
    operator = Filter()
    ctx = make_ctx(operator, {"condition": "age > 1"}, ".")
    assert operator.output_schema(ctx, {"in": schema}) == {"out": schema}


def test_a_condition_that_is_not_true_or_false_is_refused_before_running():
    operator = Filter()
    ctx = make_ctx(operator, {"condition": "age + 1"}, ".")
    with pytest.raises(
        OperatorError, match="condition: must be true or false, but it gives an integer"
    ):
        operator.output_schema(ctx, {"in": Schema.of(Column("age", "integer"))})
