"""Tests for runtime.expressions: the grammar, the error messages, and the pandas semantics."""

from __future__ import annotations

import datetime as dt
import pathlib
import re

import numpy as np
import pandas as pd
import pytest

from runtime.expressions import (
    MAX_DEPTH,
    MAX_LENGTH,
    ExpressionError,
    compile_expression,
    condition_array,
    evaluate,
    filter_mask,
    infer_type,
    literal,
    parse,
    referenced_columns,
)
from runtime.expressions.nodes import (
    Between,
    Binary,
    Call,
    Column,
    In,
    IsNull,
    Literal,
    Logical,
    Unary,
)
from runtime.schema import DATE_DTYPE, Schema, schema_of
from runtime.schema import Column as SchemaColumn

NA = pd.NA


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["Ann", None, "cid", " Dan "],
            "age": [17, 30, 45, 18],
            "country": ["FR", "DE", None, "US"],
            "score": [1.5, np.nan, 3.0, -2.0],
            "visits": pd.array([1, None, 0, 4], dtype="Int64"),
            "member": pd.array([True, None, False, True], dtype="boolean"),
            "joined": pd.array(
                [dt.date(2024, 1, 31), None, dt.date(2020, 2, 29), dt.date(1999, 12, 31)],
                dtype=DATE_DTYPE,
            ),
            "seen": pd.to_datetime(
                ["2024-01-31 23:59", None, "2020-02-29 00:00", "1999-12-31 12:00"]
            ),
            "unit price": [2.0, 4.0, 8.0, 16.0],
        },
        index=["a", "b", "c", "d"],
    )


def values(text: str, frame: pd.DataFrame) -> list:
    """The evaluated values as a plain list, nulls as None."""
    return [None if pd.isna(value) else value for value in evaluate(text, frame)]


def fails(message: str):
    """Expect an ExpressionError whose str() is exactly `message`."""
    return pytest.raises(ExpressionError, match=f"^{re.escape(message)}$")


# --- literals and parsing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("2.5", 2.5),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1E-2", 0.01),
        ("'it\\'s'", "it's"),
        ('"say \\"hi\\""', 'say "hi"'),
        ("'back\\\\slash'", "back\\slash"),
        ("'tab\\there'", "tab\there"),
        ("true", True),
        ("FALSE", False),
        ("Null", None),
    ],
)
def test_literals_parse_to_their_values(text, value):
    assert parse(text) == Literal(value)


def test_integer_and_float_literals_keep_their_types():
    assert type(parse("1").value) is int
    assert type(parse("1.0").value) is float
    assert type(parse("1e3").value) is float


def test_bare_names_and_backticks_are_column_references():
    assert parse("age") == Column("age")
    assert parse("`unit price`") == Column("unit price")
    assert parse("`odd\\`name`") == Column("odd`name")
    assert parse("`and`") == Column("and")


def test_keywords_are_case_insensitive():
    assert parse("a AND b Or NOT c") == parse("a and b or not c")
    assert parse("x IS NOT NULL") == IsNull(Column("x"), negated=True)


def test_function_names_are_case_insensitive():
    assert parse("UPPER(name)") == Call("upper", (Column("name"),))


def test_both_spellings_of_equal_and_not_equal_mean_the_same():
    assert parse("a = 1") == parse("a == 1") == Binary("=", Column("a"), Literal(1))
    assert parse("a != 1") == parse("a <> 1") == Binary("!=", Column("a"), Literal(1))


def test_power_binds_tighter_than_a_unary_minus_on_its_left():
    assert parse("-2 ** 2") == Unary("-", Binary("**", Literal(2), Literal(2)))
    assert parse("2 ** -1") == Binary("**", Literal(2), Literal(-1))
    assert parse("2 ** 3 ** 2") == Binary("**", Literal(2), Binary("**", Literal(3), Literal(2)))


def test_multiplication_binds_tighter_than_addition():
    assert parse("1 + 2 * 3") == Binary("+", Literal(1), Binary("*", Literal(2), Literal(3)))
    assert parse("(1 + 2) * 3") == Binary("*", Binary("+", Literal(1), Literal(2)), Literal(3))


def test_arithmetic_is_left_associative():
    assert parse("8 - 4 - 2") == Binary("-", Binary("-", Literal(8), Literal(4)), Literal(2))


def test_and_binds_tighter_than_or_and_chains_flatten():
    a, b, c, d = (Column(name) for name in "abcd")
    assert parse("a or b and c or d") == Logical("or", (a, Logical("and", (b, c)), d))


def test_not_binds_looser_than_comparisons():
    assert parse("not a = 1") == Unary("not", Binary("=", Column("a"), Literal(1)))
    assert parse("not a and b") == Logical("and", (Unary("not", Column("a")), Column("b")))


def test_in_between_and_is_null_have_negated_forms():
    x = Column("x")
    assert parse("x not in (1, 2)") == In(x, (Literal(1), Literal(2)), negated=True)
    assert parse("x not between 1 and 2") == Between(x, Literal(1), Literal(2), negated=True)
    assert parse("x is not null") == IsNull(x, negated=True)


def test_between_takes_the_first_and_as_its_own():
    assert parse("x between 1 and 2 and y") == Logical(
        "and", (Between(Column("x"), Literal(1), Literal(2)), Column("y"))
    )


def test_referenced_columns_lists_every_column_read():
    text = "upper(name) = 'A' and `unit price` * 2 > coalesce(score, 0)"
    assert referenced_columns(text) == {"name", "unit price", "score"}


def test_referenced_columns_of_a_constant_is_empty():
    assert referenced_columns("1 + 2") == set()


# --- syntax errors ---------------------------------------------------------------------------


def test_a_missing_operand_names_the_unexpected_token():
    with fails("unexpected ')' at 1:9; expected an expression"):
        parse("(age >= )")


def test_a_stray_token_after_the_expression_is_an_error():
    with fails("unexpected ')' at 1:9; expected an operator or the end of the expression"):
        parse("age > 18)")


def test_an_empty_expression_is_an_error():
    with fails("unexpected end of expression at 1:1; expected an expression"):
        parse("")
    with fails("unexpected end of expression at 2:2; expected an expression"):
        parse(" \n ")


def test_an_unclosed_parenthesis_is_an_error():
    with fails("unexpected end of expression at 1:9; expected ')'"):
        parse("(age > 1")


def test_an_unterminated_string_is_an_error():
    with fails("unterminated string at 1:8"):
        parse("name = 'Ann")


def test_an_unterminated_backtick_is_an_error():
    with fails("unterminated column name at 1:1"):
        parse("`unit price")


def test_an_unknown_escape_is_an_error():
    with fails("invalid escape '\\q' at 1:3; use '\\\\' for a backslash"):
        parse("'a\\q'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a.b", "unexpected character '.' at 1:2"),
        ("x[0]", "unexpected character '[' at 1:2"),
        ("lambda: 1", "unexpected character ':' at 1:7"),
        ("a\x00", "unexpected character '\\x00' at 1:2"),
        ("age ; 1", "unexpected character ';' at 1:5"),
    ],
)
def test_characters_outside_the_grammar_are_errors(text, message):
    with fails(message):
        parse(text)


def test_comparisons_cannot_be_chained():
    with fails("unexpected '<' at 1:7; comparisons cannot be chained; use 'and'"):
        parse("1 < a < 3")


def test_is_must_be_followed_by_null():
    with fails("unexpected '5' at 1:6; expected 'null' or 'not null' after 'is'"):
        parse("x is 5")


def test_in_needs_a_parenthesised_list():
    with fails("unexpected '1' at 1:6; expected '(' after 'in'"):
        parse("x in 1")
    with fails("unexpected ')' at 1:7; expected an expression"):
        parse("x in ()")


def test_not_cannot_start_an_operand_of_a_comparison():
    with fails("unexpected 'not' at 1:5; expected an expression"):
        parse("a = not b")


def test_error_positions_count_lines_and_columns_from_one():
    with pytest.raises(ExpressionError) as caught:
        parse("age > 1 and\n  country = )")
    assert (caught.value.line, caught.value.column) == (2, 13)
    assert caught.value.message == "unexpected ')'"


def test_expression_error_is_a_value_error_with_message_line_and_column():
    error = ExpressionError("boom", 3, 4, "try again")
    assert isinstance(error, ValueError)
    assert (error.message, error.line, error.column) == ("boom", 3, 4)
    assert str(error) == "boom at 3:4; try again"


def test_numbers_beyond_64_bits_are_errors():
    with fails("number 9223372036854775808 is out of range at 1:5"):
        parse("x = 9223372036854775808")
    with fails("number 1e999 is out of range at 1:1"):
        parse("1e999")
    assert parse("-9223372036854775807") == Literal(-(2**63 - 1))


def test_text_longer_than_the_limit_is_an_error():
    with fails(f"expression is too long ({MAX_LENGTH + 1} characters) at 1:1; the limit is 10000"):
        parse("1" + " " * MAX_LENGTH)


@pytest.mark.parametrize(
    "text",
    [
        "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1),
        "-" * (MAX_DEPTH + 1) + "x",
        "x" + " + 1" * MAX_DEPTH,
        "upper(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1),
    ],
)
def test_nesting_deeper_than_the_limit_is_an_error(text):
    with pytest.raises(
        ExpressionError, match=r"^expression is nested too deeply at 1:\d+; the limit is 64 levels$"
    ):
        parse(text)


def test_nesting_up_to_the_limit_is_accepted():
    depth = MAX_DEPTH - 1
    assert parse("(" * depth + "1" + ")" * depth) == Literal(1)


def test_text_must_be_a_string():
    with fails("an expression must be text, not int"):
        parse(42)


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
        ("date(seen)", DATE_DTYPE),
    ],
)
def test_results_use_the_projects_dtypes(people, text, dtype):
    assert evaluate(text, people).dtype == dtype


# --- arithmetic ------------------------------------------------------------------------------


def test_arithmetic_follows_the_usual_precedence(people):
    assert values("-2 ** 2", people) == [-4.0] * 4
    assert values("1 + 2 * 3 - 4 / 2", people) == [5.0] * 4
    assert values("age % 10", people) == [7, 0, 5, 8]


def test_modulo_takes_the_sign_of_the_divisor_like_python(people):
    assert values("-7 % 3", people) == [2] * 4
    assert values("7.5 % -2", people) == [-0.5] * 4


def test_division_always_gives_a_float(people):
    assert values("age / 2", people) == [8.5, 15.0, 22.5, 9.0]


def test_division_and_modulo_by_zero_give_null(people):
    assert values("age / 0", people) == [None] * 4
    assert values("age % 0", people) == [None] * 4
    assert values("age / (visits - 1)", people) == [None, None, -45.0, 6.0]
    assert values("age % visits", people) == [0, None, None, 2]


def test_power_always_gives_a_float(people):
    assert values("2 ** 3", people) == [8.0] * 4
    assert values("(-8) ** 0.5", people) == [None] * 4


def test_float_overflow_gives_infinity(people):
    assert values("1e308 * 10", people) == [float("inf")] * 4


def test_integer_overflow_wraps_around(people):
    assert values("9223372036854775807 + age - age + 1", people) == [-(2**63)] * 4


def test_arithmetic_with_null_gives_null(people):
    assert values("visits + 1", people) == [2, None, 1, 5]
    assert values("age + null", people) == [None] * 4


def test_plus_on_two_strings_concatenates(people):
    assert values("name + '!'", people) == ["Ann!", None, "cid!", " Dan !"]


def test_integer_columns_held_as_float_with_nan_work_like_integers():
    frame = pd.DataFrame({"n": [1.0, np.nan, 3.0]})
    assert values("n + 1", frame) == [2.0, None, 4.0]
    assert list(filter_mask("n > 1", frame)) == [False, False, True]


# --- comparisons and null logic --------------------------------------------------------------


def test_a_comparison_with_null_is_null_and_a_filter_drops_it(people):
    assert values("score > 1", people) == [True, None, True, False]
    assert list(filter_mask("score > 1", people)) == [True, False, True, False]


def test_equality_with_null_is_never_true(people):
    assert list(filter_mask("country = null", people)) == [False] * 4
    assert list(filter_mask("country != null", people)) == [False] * 4


def test_not_of_a_null_comparison_is_still_dropped_by_a_filter(people):
    assert values("not (score > 1)", people) == [False, None, False, True]
    assert list(filter_mask("not (score > 1)", people)) == [False, False, False, True]


def test_is_null_and_is_not_null_find_nulls(people):
    assert values("country is null", people) == [False, False, True, False]
    assert values("country is not null", people) == [True, True, False, True]
    assert values("score is null", people) == [False, True, False, False]


def test_and_or_follow_three_valued_logic(people):
    assert values("member and true", people) == [True, None, False, True]
    assert values("member and false", people) == [False] * 4
    assert values("member or true", people) == [True] * 4
    assert values("member or false", people) == [True, None, False, True]


def test_in_matches_any_listed_value(people):
    assert values("country in ('FR', 'DE')", people) == [True, True, None, False]
    assert values("country not in ('FR', 'DE')", people) == [False, False, None, True]
    assert values("age in (17, visits)", people) == [True, None, False, False]


def test_in_with_a_null_item_is_null_unless_it_matches(people):
    assert values("country in ('FR', null)", people) == [True, None, None, None]
    assert list(filter_mask("country not in ('FR', null)", people)) == [False] * 4


def test_between_is_inclusive(people):
    assert values("age between 18 and 30", people) == [False, True, False, True]
    assert values("age not between 18 and 30", people) == [True, False, True, False]


def test_strings_dates_and_datetimes_compare_in_their_natural_order(people):
    assert values("name < 'B'", people) == [True, None, False, True]
    assert values("joined >= date('2020-02-29')", people) == [True, None, True, False]
    assert values("seen > seen", people) == [False, None, False, False]


def test_the_issue_example_filters_as_expected(people):
    mask = filter_mask("age > 18 and country in ('FR', 'DE')", people)
    assert list(people.index[mask]) == ["b"]


# --- functions -------------------------------------------------------------------------------


def test_string_functions(people):
    assert values("upper(name)", people) == ["ANN", None, "CID", " DAN "]
    assert values("lower(name)", people) == ["ann", None, "cid", " dan "]
    assert values("strip(name)", people) == ["Ann", None, "cid", "Dan"]
    assert values("len(name)", people) == [3, None, 3, 5]


def test_contains_startswith_and_endswith_match_plain_text_not_patterns(people):
    assert values("contains(name, 'n')", people) == [True, None, False, True]
    assert values("contains(name, '.')", people) == [False, None, False, False]
    assert values("startswith(country, 'F')", people) == [True, False, None, False]
    assert values("endswith(name, 'd')", people) == [False, None, True, False]


def test_replace_substitutes_plain_text(people):
    assert values("replace(name, 'n', '.')", people) == ["A..", None, "cid", " Da. "]


def test_substr_counts_from_one_and_takes_an_optional_length(people):
    assert values("substr(name, 2)", people) == ["nn", None, "id", "Dan "]
    assert values("substr(name, 2, 1)", people) == ["n", None, "i", "D"]
    assert values("substr(name, 10, 3)", people) == ["", None, "", ""]


def test_concat_takes_any_number_of_strings_and_skips_nulls(people):
    assert values("concat(name)", people) == ["Ann", "", "cid", " Dan "]
    assert values("concat(name, '/', country, '/')", people) == [
        "Ann/FR/",
        "/DE/",
        "cid//",
        " Dan /US/",
    ]


def test_math_functions_keep_the_number_type(people):
    assert values("abs(score)", people) == [1.5, None, 3.0, 2.0]
    assert values("floor(score)", people) == [1.0, None, 3.0, -2.0]
    assert values("ceil(score * -1)", people) == [-1.0, None, -3.0, 2.0]
    assert values("floor(age)", people) == [17, 30, 45, 18]
    assert values("abs(visits - 2)", people) == [1, None, 2, 2]


def test_round_rounds_halves_to_even_and_takes_negative_digits(people):
    assert values("round(2.5)", people) == [2.0] * 4
    assert values("round(score * 1.234, 2)", people) == [1.85, None, 3.7, -2.47]
    assert values("round(age, -1)", people) == [20, 30, 40, 20]


def test_date_reads_iso_text_and_drops_the_time_of_day(people):
    frame = pd.DataFrame(
        {"text": ["2024-01-31", "2024-01-31T10:00:00Z", "31/01/2024", None, "2024-02-30"]}
    )
    expected = [dt.date(2024, 1, 31), dt.date(2024, 1, 31), None, None, None]
    assert values("date(text)", frame) == expected
    assert values("date(seen)", people) == [
        dt.date(2024, 1, 31),
        None,
        dt.date(2020, 2, 29),
        dt.date(1999, 12, 31),
    ]


def test_date_of_a_literal_is_a_date_on_every_row(people):
    result = evaluate("date('2024-01-31')", people)
    assert result.dtype == DATE_DTYPE
    assert list(result) == [dt.date(2024, 1, 31)] * 4


def test_year_month_and_day_work_on_dates_and_datetimes(people):
    assert values("year(joined)", people) == [2024, None, 2020, 1999]
    assert values("month(seen)", people) == [1, None, 2, 12]
    assert values("day(joined)", people) == [31, None, 29, 31]


def test_coalesce_takes_the_first_non_null_value(people):
    assert values("coalesce(visits, 0)", people) == [1, 0, 0, 4]
    assert values("coalesce(country, name, '?')", people) == ["FR", "DE", "cid", "US"]
    assert values("coalesce(visits, score)", people) == [1.0, None, 0.0, 4.0]


def test_if_chooses_per_row_and_treats_a_null_condition_as_false(people):
    assert values("if(age >= 18, 'adult', 'minor')", people) == ["minor", "adult", "adult", "adult"]
    assert values("if(member, visits, -1)", people) == [1, -1, -1, 4]


# --- evaluation ------------------------------------------------------------------------------


def test_results_keep_the_frames_index(people):
    assert list(evaluate("age + 1", people).index) == ["a", "b", "c", "d"]
    assert list(filter_mask("age > 18", people).index) == ["a", "b", "c", "d"]


def test_constants_are_broadcast_to_every_row(people):
    result = evaluate("1 + 2", people)
    assert list(result) == [3] * 4 and list(result.index) == list(people.index)


def test_constants_over_an_empty_frame_give_an_empty_series():
    empty = pd.DataFrame({"age": pd.Series([], dtype="int64")})
    assert len(evaluate("'x'", empty)) == 0
    assert len(evaluate("age > 1", empty)) == 0
    assert filter_mask("true", empty).dtype == bool


def test_a_compiled_expression_can_be_reused_on_many_frames(people):
    adults = compile_expression("age >= 18", schema_of(people))
    assert list(adults(people)) == [False, True, True, True]
    assert list(adults(people.iloc[:1])) == [False]


def test_filter_mask_is_plain_bool_without_nulls(people):
    mask = filter_mask("member", people)
    assert mask.dtype == bool
    assert list(mask) == [True, False, False, True]


def test_condition_array_is_a_numpy_mask_by_position_with_null_as_false(people):
    mask = condition_array("score > 1", people)  # people's index is labels, not positions
    assert isinstance(mask, np.ndarray) and mask.dtype == bool
    assert mask.tolist() == list(filter_mask("score > 1", people))


def test_a_frame_whose_column_names_are_not_strings_can_still_be_filtered():
    frame = pd.DataFrame({0: [1, 5], "age": [20, 10]})
    assert condition_array("`0` > 2 or age > 15", frame).tolist() == [True, True]


def test_a_null_filter_keeps_no_rows(people):
    assert list(filter_mask("null", people)) == [False] * 4


def test_comparing_zoned_and_naive_datetimes_is_an_error_when_run():
    naive = pd.Series(pd.to_datetime(["2024-01-01"]))
    frame = pd.DataFrame({"naive": naive, "zoned": naive.dt.tz_localize("UTC")})
    with fails(
        "cannot evaluate 'naive = zoned' at 1:1; "
        "cannot compare a time-zone-aware datetime with a naive one"
    ):
        evaluate("naive = zoned", frame)


def test_infer_type_checks_columns_and_types(people):
    with fails("unknown column 'agee' at 1:1; did you mean 'age'?"):
        infer_type("agee + 1", schema_of(people))
    with fails("'-' expects numbers but 'name' is string at 1:1"):
        infer_type("name - 1", schema_of(people))


def test_duplicate_index_labels_and_non_string_column_names_are_handled():
    frame = pd.DataFrame({0: [1, 2, 3], "b": ["x", "y", None]}, index=[7, 7, 7])
    assert values("`0` * 2 + len(b)", frame) == [3, 5, None]


def test_columns_are_converted_from_other_dtypes():
    frame = pd.DataFrame(
        {
            "small": pd.Series([1, 2], dtype="int8"),
            "arrow": pd.Series(["a", None], dtype="string[pyarrow]"),
            "mixed": pd.Series([1, "b"], dtype=object),
        }
    )
    assert values("small * 100", frame) == [100, 200]
    assert values("upper(arrow)", frame) == ["A", None]
    assert values("mixed + '!'", frame) == ["1!", "b!"]


# --- literal(): the only way pipeline parameters reach an expression --------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Ann", "'Ann'"),
        ("it's", "'it\\'s'"),
        ("a\\b", "'a\\\\b'"),
        ("line\nbreak", "'line\\nbreak'"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (42, "42"),
        (-3, "(-3)"),
        (2.5, "2.5"),
        (-0.5, "(-0.5)"),
        (1e300, "1e+300"),
    ],
)
def test_literal_writes_parameters_as_expression_text(value, text):
    assert literal(value) == text
    assert parse(text) == Literal(value)


@pytest.mark.parametrize(
    "hostile",
    ["') or (1=1", "' or '1'='1", "\\' or 1=1 --", "x\\", "`age`", '"; drop', "${other}", "\x00"],
)
def test_hostile_string_parameters_stay_one_string_literal(people, hostile):
    text = f"name = {literal(hostile)}"
    assert parse(text) == Binary("=", Column("name"), Literal(hostile))
    assert list(filter_mask(text, people)) == [False] * 4


def test_negative_parameters_keep_their_sign_under_power(people):
    assert values(f"{literal(-3)} ** 2", people) == [9.0] * 4


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "the parameter value nan cannot be used in an expression"),
        (float("inf"), "the parameter value inf cannot be used in an expression"),
        (2**63, "an integer parameter beyond 64 bits cannot be used in an expression"),
        ([1, 2], "a parameter of type list cannot be used in an expression"),
        ({"a": 1}, "a parameter of type dict cannot be used in an expression"),
    ],
)
def test_literal_rejects_values_with_no_literal_form(value, message):
    with fails(message):
        literal(value)


# --- safety ----------------------------------------------------------------------------------

PACKAGE = pathlib.Path(__file__).parents[2] / "runtime" / "expressions"


def test_the_package_never_evaluates_text_or_imports_django():
    forbidden = re.compile(
        r"(?<![\w.])(eval|exec|compile|__import__)\(|\.(eval|query)\(|import django|from django"
    )
    for path in PACKAGE.glob("*.py"):
        assert not forbidden.search(path.read_text()), path.name
