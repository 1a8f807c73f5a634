"""`validate`: rows that pass every rule go to `valid`, the others to `invalid` with reasons."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pytest
from pydantic import ValidationError

from runtime.errors import ParamsError
from runtime.operators.validate import Validate, ValidateParams
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.operators.contract import OperatorContract, make_ctx

PEOPLE = pd.DataFrame(
    {
        "id": pd.array([1, 2, 2, 4, 5], dtype="Int64"),
        "age": pd.array([30, 150, None, -1, 40], dtype="Int64"),
        "code": pd.array(["AB12", "x", "CD34", None, "EF56"], dtype="str"),
        "country": pd.array(["FR", "DE", "XX", "FR", None], dtype="str"),
        "joined": pd.Series(
            [datetime.date(2024, 1, d) for d in (1, 2, 3, 4, 31)], dtype=date_dtype()
        ),
    }
)
RULES = [
    {"rule": "not_null", "column": "code"},
    {"rule": "range", "column": "age", "min": 0, "max": 130},
    {"rule": "regex", "column": "code", "pattern": "[A-Z]{2}[0-9]{2}"},
    {"rule": "allowed_values", "column": "country", "values": ["FR", "DE"]},
    {"rule": "unique", "column": "id"},
]


def validate(rules: list[dict], frame: pd.DataFrame = PEOPLE) -> tuple[pd.DataFrame, pd.DataFrame]:
    operator = Validate()
    outputs = operator.run(make_ctx(operator, {"rules": rules}, "."), {"in": frame})
    return outputs["valid"], outputs["invalid"]


def reasons(rules: list[dict], frame: pd.DataFrame = PEOPLE) -> dict[int, str]:
    """The invalid rows' reasons, by id."""
    _, invalid = validate(rules, frame)
    return dict(zip(invalid["id"], invalid["_reason"], strict=True))


class TestValidateContract(OperatorContract):
    operator_cls = Validate
    params = {"rules": RULES}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({"rules": []}, r"params\.rules: Rules: must not be empty"),
        (
            {"rules": [{"rule": "regex", "column": "a", "pattern": "("}]},
            r"params\.rules\.0\.regex\.pattern: Rules, item 1, Pattern: not a valid regular",
        ),
        (
            {"rules": [{"rule": "range", "column": "a"}]},
            r"params\.rules\.0\.range: Rules, item 1: a range needs a min, a max or both",
        ),
        (
            {"rules": [{"rule": "between", "column": "a"}]},
            r"params\.rules\.0: Rules, item 1: 'rule' must be one of 'not_null'",
        ),
        (
            {"rules": [{"rule": "unique"}]},
            r"params\.rules\.0\.unique: Rules, item 1: set column or columns$",
        ),
        (
            {"rules": [{"rule": "allowed_values", "column": "a", "values": [None]}]},
            r"params\.rules\.0\.allowed_values\.values\.0: Rules, item 1, Values, item 1: null is",
        ),
    ]


def test_rows_passing_every_rule_are_valid_with_the_input_columns_only():
    valid, invalid = validate(RULES)
    assert valid["id"].tolist() == [1, 5]
    assert list(valid.columns) == list(PEOPLE.columns)
    assert list(invalid.columns) == [*PEOPLE.columns, "_reason"]
    assert invalid["id"].tolist() == [2, 2, 4]


def test_each_failed_rule_is_worded_and_several_are_joined_in_rule_order():
    _, invalid = validate(RULES)
    assert invalid["_reason"].tolist() == [
        "age: 150 is above the maximum 130; code: x does not match [A-Z]{2}[0-9]{2}; "
        "id: 2 appears more than once",
        "country: XX is not one of FR, DE; id: 2 appears more than once",
        "code: is missing; age: -1 is below the minimum 0",
    ]


def test_only_not_null_catches_nulls_the_other_rules_skip_them():
    frame = pd.DataFrame({"id": pd.array([1, None, None], dtype="Int64")})
    rules = [
        {"rule": "range", "column": "id", "max": 0},
        {"rule": "allowed_values", "column": "id", "values": [7]},
        {"rule": "unique", "column": "id"},
    ]
    _, invalid = validate(rules, frame)
    assert invalid["_reason"].tolist() == ["id: 1 is above the maximum 0; id: 1 is not one of 7"]
    _, invalid = validate([{"rule": "not_null", "column": "id"}], frame)
    assert len(invalid) == 2


def test_the_whole_value_must_match_the_pattern():
    rules = [{"rule": "regex", "column": "code", "pattern": "[A-Z]{2}"}]
    assert len(validate(rules)[0]) == 1  # only the null code passes
    rules = [{"rule": "regex", "column": "code", "pattern": "[A-Z]{2}.*"}]
    assert validate(rules)[1]["code"].tolist() == ["x"]


@pytest.mark.parametrize("dtype", ["str", "object"])
def test_a_catastrophic_pattern_is_answered_by_a_linear_time_engine(dtype):
    """`(a+)+$` against thirty `a`s and a `!` makes Python's `re` try 2**30 ways (about a
    minute per value); RE2 answers in microseconds. pandas hands object columns (text read
    from JSON or SQL) and patterns pyarrow refuses to `re`, so matching never goes through it.
    """
    codes = ["a" * 30 + "!"] * 100 + ["aaa"]
    frame = pd.DataFrame({"id": range(len(codes)), "code": pd.Series(codes, dtype=dtype)})
    valid, invalid = validate([{"rule": "regex", "column": "code", "pattern": "(a+)+$"}], frame)
    assert valid["code"].tolist() == ["aaa"]
    assert len(invalid) == 100


@pytest.mark.parametrize(
    "pattern", [r"(a)\1", r"(?P<x>a)(?P=x)", "(?=A)..", "(?!x)..", "(?<=A).", "(?<!x)."]
)
def test_backreferences_and_lookaround_are_refused_when_params_are_checked(pattern):
    with pytest.raises(ValidationError, match="lookaround and backreferences are not supported"):
        ValidateParams.model_validate(
            {"rules": [{"rule": "regex", "column": "code", "pattern": pattern}]}
        )


def test_a_pattern_matches_the_whole_value_whatever_its_flags_say():
    frame = pd.DataFrame({"id": [1, 2], "code": pd.array(["AB\nCD", "AB"], dtype="str")})
    for pattern in ("(?m)AB$", "(?s)AB"):
        valid, _ = validate([{"rule": "regex", "column": "code", "pattern": pattern}], frame)
        assert valid["code"].tolist() == ["AB"], pattern


def test_unique_over_several_columns_looks_at_the_combination():
    rules = [{"rule": "unique", "columns": ["id", "country"]}]
    frame = PEOPLE.assign(country="FR")
    assert reasons(rules, frame) == {2: "id, country: 2, FR appears more than once"}
    assert len(validate(rules)[1]) == 0


def test_range_bounds_are_converted_to_the_column_type():
    rules = [{"rule": "range", "column": "joined", "min": "2024-01-02", "max": "2024-01-30"}]
    assert reasons(rules) == {
        1: "joined: 2024-01-01 is below the minimum 2024-01-02",
        5: "joined: 2024-01-31 is above the maximum 2024-01-30",
    }


def test_a_range_over_a_decimal_column_compares_exact_values_with_its_bounds():
    money = pa.decimal128(15, 2)
    prices = pd.Series(pa.array([Decimal("0.07"), None, Decimal("12.50")], money))
    frame = pd.DataFrame({"id": [1, 2, 3], "price": prices.astype(pd.ArrowDtype(money))})
    rules = [{"rule": "range", "column": "price", "min": 0.07, "max": 10}]
    assert reasons(rules, frame) == {3: "price: 12.50 is above the maximum 10"}


def test_allowed_values_are_converted_to_the_column_type():
    assert reasons([{"rule": "allowed_values", "column": "id", "values": ["1", 2, 4.0]}]) == {
        5: "id: 5 is not one of 1, 2, 4.0"
    }


def test_nothing_invalid_gives_an_empty_invalid_table_with_its_columns():
    valid, invalid = validate([{"rule": "range", "column": "id", "min": 0}])
    assert len(valid) == len(PEOPLE)
    assert list(invalid.columns) == [*PEOPLE.columns, "_reason"] and len(invalid) == 0


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            {"rule": "regex", "column": "age", "pattern": "1"},
            r"rules\[0\]\.column: regex needs text, but 'age' is integer",
        ),
        (
            {"rule": "range", "column": "code", "min": 1},
            r"rules\[0\]\.column: range needs numbers, dates or datetimes, but 'code' is string",
        ),
        (
            {"rule": "range", "column": "age", "min": 10, "max": 5},
            r"rules\[0\]\.max: 5 is below the minimum",
        ),
        (
            {"rule": "range", "column": "joined", "min": "soon"},
            r"rules\[0\]\.min: \"soon\" is not a valid date for column 'joined'",
        ),
        (
            {"rule": "allowed_values", "column": "age", "values": [1, "old"]},
            r"rules\[0\]\.values: \"old\" is not a valid integer for column 'age'",
        ),
        (
            {"rule": "unique", "columns": ["id", "cuntry"]},
            r"rules\[0\]\.columns: unknown column 'cuntry'; did you mean 'country'\?",
        ),
        ({"rule": "not_null", "column": "ag"}, r"rules\[0\]\.column: unknown column 'ag'"),
    ],
    ids=[
        "regex-on-numbers",
        "range-on-text",
        "min-above-max",
        "bad-date",
        "bad-value",
        "unknown",
        "typo",
    ],
)
def test_rules_that_do_not_fit_the_input_are_refused_before_running(rule, message):
    operator = Validate()
    ctx = make_ctx(operator, {"rules": [rule]}, ".")
    with pytest.raises(ParamsError, match=message):
        operator.output_schema(ctx, {"in": schema_of(PEOPLE)})


def test_an_input_that_already_has_a_reason_column_is_refused():
    with pytest.raises(ParamsError, match="rules: the input already has a column named '_reason'"):
        validate(RULES, PEOPLE.assign(_reason="x"))
