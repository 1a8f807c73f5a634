"""Parsing: literals, column names, keywords, and how operators bind and associate."""

from __future__ import annotations

import pytest

from runtime.expressions import parse, referenced_columns
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
