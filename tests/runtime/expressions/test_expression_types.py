"""Checking against a schema (unknown names, wrong types, bad arguments) and the
result types and dtypes an expression gives.
"""

from __future__ import annotations

import pytest

from runtime.expressions import compile_expression, evaluate, filter_mask, infer_type, parse
from runtime.tables.schema import Column as SchemaColumn
from runtime.tables.schema import Schema, date_dtype, schema_of
from tests.runtime.expressions.conftest import fails

# --- checking against a schema ---------------------------------------------------------------


def test_an_unknown_column_suggests_the_closest_name(people):
    with fails("unknown column 'agee' at 1:1; did you mean 'age'?"):
        evaluate("agee > 18", people)


def test_an_unknown_function_suggests_the_closest_name(people):
    with fails("unknown function 'uper' at 1:1; did you mean 'upper'?"):
        evaluate("uper(name)", people)


def test_calls_outside_the_whitelist_are_refused_by_the_parser():
    with fails("unknown function '__import__' at 1:1"):
        parse("__import__('os')")
    with fails("unknown function 'exec' at 1:5"):
        parse("1 + exec('1')")


def test_a_wrong_argument_count_names_the_function_and_its_usage(people):
    with fails(
        "substr() expects 2 or 3 arguments but got 1 at 1:1; usage: substr(text, start, length?)"
    ):
        evaluate("substr(name)", people)
    with fails("upper() expects 1 argument but got 2 at 1:1; usage: upper(text)"):
        evaluate("upper(name, name)", people)
    with fails("concat() expects at least 1 argument but got 0 at 1:1; usage: concat(text, ...)"):
        evaluate("concat()", people)


def test_comparing_different_types_is_an_error(people):
    with fails("'age' is integer but 'abc' is string at 1:7; they cannot be compared"):
        evaluate("age > 'abc'", people)


def test_a_string_function_on_a_number_is_an_error(people):
    with fails("upper() expects a string but 'age' is integer at 1:7"):
        evaluate("upper(age)", people)


def test_and_on_a_non_boolean_is_an_error(people):
    with fails("'and' expects booleans but 'age' is integer at 1:1"):
        evaluate("age and member", people)


def test_arithmetic_on_strings_other_than_plus_is_an_error(people):
    with fails("'*' expects numbers but 'name' is string at 1:1"):
        evaluate("name * 2", people)
    with fails(
        "'name' is string but 'age' is integer at 1:8; '+' needs two numbers or two strings"
    ):
        evaluate("name + age", people)


def test_if_needs_both_results_of_one_type(people):
    with fails("'age' is integer but 'x' is string at 1:17; if() needs both results of one type"):
        evaluate("if(member, age, 'x')", people)


def test_function_settings_must_be_constants(people):
    message = "'country' must be a constant at 1:16; "
    with fails(message + "contains() cannot take its part from a column"):
        evaluate("contains(name, country)", people)


def test_substr_counts_from_one(people):
    with fails("substr() counts from 1 at 1:14; start must be 1 or more"):
        evaluate("substr(name, 0, 2)", people)


def test_round_limits_its_digits(people):
    with fails("round() takes between -15 and 15 digits at 1:14"):
        evaluate("round(score, 16)", people)


def test_an_invalid_date_literal_is_an_error(people):
    with fails("invalid date '2024-02-30' at 1:6; expected YYYY-MM-DD"):
        evaluate("date('2024-02-30')", people)


def test_a_filter_must_be_boolean(people):
    message = (
        "a filter must be a condition, but this expression gives integer values at 1:1; "
        "compare it with something, e.g. 'x > 0'"
    )
    with fails(message):
        filter_mask("age + 1", people)


def test_a_column_missing_from_the_data_is_an_error_at_evaluation(people):
    schema = Schema.of(SchemaColumn("height", "float"))
    with fails("column 'height' is missing from the data at 1:1"):
        compile_expression("height > 1", schema)(people)


# --- types -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("age", ("integer", False)),
        ("age + 1", ("integer", False)),
        ("age * 1.5", ("float", True)),
        ("age / 2", ("float", True)),
        ("visits + 1", ("integer", True)),
        ("upper(name)", ("string", True)),
        ("concat(name, country)", ("string", False)),
        ("len(country)", ("integer", True)),
        ("age > 18", ("boolean", False)),
        ("score > 1", ("boolean", True)),
        ("score is null", ("boolean", False)),
        ("coalesce(visits, 0)", ("integer", False)),
        ("coalesce(visits, score)", ("float", True)),
        ("if(age > 18, 'adult', null)", ("string", True)),
        ("date('2024-01-31')", ("date", False)),
        ("date(name)", ("date", True)),
        ("year(seen)", ("integer", True)),
        ("null", ("boolean", True)),
    ],
)
def test_infer_type_gives_the_result_type_and_nullability(people, text, expected):
    assert infer_type(text, schema_of(people)) == expected


@pytest.mark.parametrize(
    ("text", "dtype"),
    [
        ("age + 1", "int64"),
        ("visits + 1", "Int64"),
        ("age / 2", "float64"),
        ("age > 18", "bool"),
        ("score > 1", "boolean"),
        ("upper(name)", "str"),
        ("date(seen)", date_dtype()),
    ],
)
def test_results_use_the_projects_dtypes(people, text, dtype):
    assert evaluate(text, people).dtype == dtype
