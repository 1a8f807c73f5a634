"""`like`, `not like`, `ilike`, `not ilike`: SQL's patterns (`%` any run, `_` one character,
no escape unless `escape` names one), a constant pattern, null for a null text, and errors
that point at the part at fault."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.expressions import infer_type, parse
from runtime.expressions.nodes import Binary, Column, Like, Literal, Logical, Unary
from runtime.expressions.nulls import null_rejected_columns
from runtime.tables.schema import Column as SchemaColumn
from runtime.tables.schema import Schema
from tests.runtime.expressions.conftest import fails, values

TEXTS = pd.DataFrame(
    {
        "s": pd.Series(
            ["abc", "a%c", None, "ÄBC", "a\nc", "a\\c", "", "a.c", "🎉c", "a_c"], dtype="str"
        )
    }
)


def matches(text: str) -> list:
    return values(text, TEXTS)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("'a%'", [True, True, None, False, True, True, False, True, False, True]),
        ("'a_c'", [True, True, None, False, True, True, False, True, False, True]),
        ("'_c'", [False, False, None, False, False, False, False, False, True, False]),
        ("'%'", [True, True, None, True, True, True, True, True, True, True]),
        ("''", [False, False, None, False, False, False, True, False, False, False]),
        ("'abc'", [True, False, None, False, False, False, False, False, False, False]),
        ("'a.c'", [False, False, None, False, False, False, False, True, False, False]),
        ("'a\\\\c'", [False, False, None, False, False, True, False, False, False, False]),
        ("'a%%c'", [True, True, None, False, True, True, False, True, False, True]),
    ],
)
def test_like_matches_the_whole_text_with_percent_and_underscore_as_wildcards(pattern, expected):
    assert matches(f"s like {pattern}") == expected


def test_regex_metacharacters_and_backslashes_match_themselves():
    frame = pd.DataFrame({"s": ["(a+)+$", "aaa", "x\\%y", "x%y", "[.*]"]})
    assert values("s like '(a+)+$'", frame) == [True, False, False, False, False]
    assert values("s like 'x\\\\%y'", frame) == [False, False, True, False, False]
    assert values("s like '[.*]'", frame) == [False, False, False, False, True]


def test_a_backslash_at_the_end_of_a_pattern_matches_one_at_the_end_of_the_text():
    """pyarrow's own `match_like` (26) finds no text ending in a backslash for `%\\\\`."""
    frame = pd.DataFrame({"s": ["\\", "x\\", "x", "\\x"]})
    assert values("s like '%\\\\'", frame) == [True, True, False, False]
    assert values("s like '_\\\\'", frame) == [False, True, False, False]


def test_not_like_is_the_opposite_and_null_stays_null():
    assert matches("s not like 'a%'") == [
        None if value is None else not value for value in matches("s like 'a%'")
    ]


def test_an_escape_character_makes_a_wildcard_match_itself():
    assert matches("s like 'a!%c' escape '!'") == [False, True, None] + [False] * 7
    assert matches("s like 'a!_c' escape '!'") == [False, False, None] + [False] * 6 + [True]
    assert values("s like '!!' escape '!'", pd.DataFrame({"s": ["!", "!!"]})) == [True, False]


def test_without_an_escape_clause_a_backslash_is_an_ordinary_character():
    frame = pd.DataFrame({"s": ["a%", "a\\%", "a\\x"]})
    assert values("s like 'a\\\\%'", frame) == [False, True, True]


def test_ilike_ignores_case_of_text_and_pattern():
    assert matches("s ilike 'äbc'") == [False, False, None, True] + [False] * 6
    assert matches("s ilike 'ABC'")[:4] == [True, False, None, False]
    assert matches("s not ilike 'A%'")[:3] == [False, False, None]


def test_a_null_pattern_or_escape_gives_null():
    assert matches("s like null") == [None] * 10
    assert matches("s like 'a' escape null") == [None] * 10
    assert infer_type("s like null", Schema.of(SchemaColumn("s", "string"))) == ("boolean", True)


def test_like_binds_as_a_comparison():
    tree = parse("not s like 'a%' and t ilike 'b' or s not like 'c' escape '!'")
    assert tree == Logical(
        "or",
        (
            Logical(
                "and",
                (
                    Unary("not", Like(Column("s"), Literal("a%"))),
                    Like(Column("t"), Literal("b"), insensitive=True),
                ),
            ),
            Like(Column("s"), Literal("c"), Literal("!"), negated=True),
        ),
    )
    assert parse("s + 'x' LIKE 'a' + '%'") == Like(
        Binary("+", Column("s"), Literal("x")), Binary("+", Literal("a"), Literal("%"))
    )


def test_a_pattern_computed_from_constants_is_a_constant():
    assert matches("s like 'a' + '%'") == matches("s like 'a%'")


def test_a_column_named_like_a_keyword_needs_backticks_but_escape_does_not():
    frame = pd.DataFrame({"like": ["a"], "escape": ["b"]})
    assert values("`like` like 'a'", frame) == [True]
    assert values("escape like 'b'", frame) == [True]
    with fails("unexpected 'like' at 1:1; expected an expression"):
        parse("like like 'a'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "s like t",
            "'t' must be a constant at 1:8; 'like' cannot take its pattern from a column",
        ),
        ("n like 'a'", "'like' expects a string but 'n' is integer at 1:1"),
        ("s ilike 1", "'ilike' expects a string pattern but '1' is integer at 1:9"),
        (
            "s like 'a!' escape '!'",
            "a pattern cannot end with its escape character at 1:8; "
            "escape the escape character itself",
        ),
        ("s not like 'a' escape '!!'", "the escape of 'not like' must be one character at 1:23"),
        ("s like", "unexpected end of expression at 1:7; expected an expression"),
    ],
)
def test_a_bad_like_names_the_part_at_fault(text, message):
    schema = Schema.of(
        SchemaColumn("s", "string"), SchemaColumn("t", "string"), SchemaColumn("n", "integer")
    )
    with fails(message):
        infer_type(text, schema)


def test_like_rejects_the_nulls_of_the_column_it_tests():
    assert null_rejected_columns("s like 'a%'") == {"s"}
    assert null_rejected_columns("s not ilike 'a%'") == {"s"}
