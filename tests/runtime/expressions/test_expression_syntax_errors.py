"""Syntax errors: each names the token, its line and column, and what was expected;
the limits on length and nesting are errors of the same form.
"""

from __future__ import annotations

import pytest

from runtime.expressions import MAX_DEPTH, MAX_LENGTH, ExpressionError, parse
from runtime.expressions.nodes import Literal
from tests.runtime.expressions.conftest import fails


def test_a_missing_operand_names_the_unexpected_token():
    with fails("unexpected ')' at 1:9; expected an expression"):
        parse("(age >= )")


@pytest.mark.parametrize(
    ("text", "word", "where"),
    [("end - start", "end", "'end' at 1:1"), ("case + 1", "case", "'+' at 1:6"),
     ("a + then", "then", "'then' at 1:5")],
)  # fmt: skip
def test_a_reserved_word_used_as_a_column_is_told_to_be_written_in_backticks(text, word, where):
    hint = f"'{word}' is a reserved word: write a column of that name as `{word}`"
    with fails(f"unexpected {where}; expected an expression; {hint}"):
        parse(text)
    parse(text.replace(word, f"`{word}`"))


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
