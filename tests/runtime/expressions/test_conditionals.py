"""`case ... end`, `nullif(a, b)` and `substring(text from start for length)`: SQL's
semantics (the first true branch wins, a null condition falls through, no `else` gives null),
results unified like `if()`'s, and errors that point at the part at fault."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.expressions import evaluate, infer_type, parse
from runtime.expressions.nodes import Binary, Call, Case, Column, Literal
from runtime.tables.schema import Column as SchemaColumn
from runtime.tables.schema import Schema
from tests.runtime.expressions.conftest import fails, values

ROWS = pd.DataFrame(
    {
        "n": pd.array([1, 2, None, 4], dtype="Int64"),
        "x": [0.5, 2.0, 3.0, float("nan")],
        "s": pd.Series(["a", "b", None, "abcdef"], dtype="str"),
        "ok": pd.array([True, None, False, True], dtype="boolean"),
    }
)
SCHEMA = Schema.of(
    SchemaColumn("n", "integer"),
    SchemaColumn("x", "float"),
    SchemaColumn("s", "string"),
    SchemaColumn("ok", "boolean"),
)


def test_the_first_true_branch_wins_and_without_else_the_rest_is_null():
    text = "case when n > 3 then 'big' when n > 1 then 'mid' when n >= 1 then 'small' end"
    assert values(text, ROWS) == ["small", "mid", None, "big"]


def test_a_null_condition_falls_through_to_the_next_branch_and_else():
    assert values("case when ok then 1 when n = 2 then 2 else 3 end", ROWS) == [1, 2, 3, 1]
    assert values("case when null then 1 else 2 end", ROWS) == [2, 2, 2, 2]


def test_the_simple_form_compares_as_equals_and_a_null_operand_matches_nothing():
    text = "case n when 1 then 'one' when 2.0 then 'two' when null then 'null' else 'other' end"
    assert values(text, ROWS) == ["one", "two", "other", "other"]
    assert values("case s when 'a' then 1 end", ROWS) == [1, None, None, None]


def test_integer_and_float_results_make_a_float_as_in_if():
    assert infer_type("case when ok then n else x end", SCHEMA) == ("float", True)
    assert values("case when ok then n else x end", ROWS) == [1.0, 2.0, 3.0, 4.0]
    assert infer_type("case when ok then 1 else 2 end", SCHEMA) == ("integer", False)
    assert infer_type("case when ok then 1 end", SCHEMA) == ("integer", True)
    assert infer_type("case when ok then null end", SCHEMA)[1] is True


def test_case_parses_in_both_forms_and_keywords_in_any_case():
    assert parse("CASE WHEN a THEN 1 ELSE 2 END") == Case(
        None, (Column("a"), Literal(1)), Literal(2)
    )
    assert parse("case a + 1 when 2 then 'x' when 3 then 'y' end") == Case(
        Binary("+", Column("a"), Literal(1)),
        (Literal(2), Literal("x"), Literal(3), Literal("y")),
    )
    assert parse("case when a then 1 end + 1") == Binary(
        "+", Case(None, (Column("a"), Literal(1))), Literal(1)
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("case when n then 1 end", "'when' expects a condition but 'n' is integer at 1:11"),
        (
            "case when ok then 1 else 'x' end",
            "'1' is integer but 'x' is string at 1:26; the results of 'case' must share one type",
        ),
        ("case s when 1 then 2 end", "'s' is string but '1' is integer at 1:13; "
         "they cannot be compared"),
        ("case when ok then 1", "unexpected end of expression at 1:20; "
         "expected 'when', 'else' or 'end'"),
        ("case end", "unexpected 'end' at 1:6; expected an expression"),
        ("case when ok 1 end", "unexpected '1' at 1:14; expected 'then'"),
        ("case ok then 1 end", "unexpected 'then' at 1:9; expected 'when'"),
    ],
)  # fmt: skip
def test_a_bad_case_names_the_part_at_fault(text, message):
    with fails(message):
        infer_type(text, SCHEMA)


def test_nullif_gives_null_where_the_values_are_equal_keeping_the_first_ones_type():
    assert values("nullif(n, 2)", ROWS) == [1, None, None, 4]
    assert infer_type("nullif(n, 2.0)", SCHEMA) == ("integer", True)
    assert values("nullif(n, 2.0)", ROWS) == [1, None, None, 4]
    assert values("nullif(s, 'a')", ROWS) == [None, "b", None, "abcdef"]
    assert values("nullif(n, null)", ROWS) == [1, 2, None, 4]
    assert values("nullif(x, n)", ROWS) == [0.5, None, 3.0, None]


def test_nullif_needs_comparable_values():
    with fails("'n' is integer but 'a' is string at 1:11; they cannot be compared"):
        infer_type("nullif(n, 'a')", SCHEMA)


def test_substring_reads_the_sql_form_as_substr():
    assert parse("substring(s from 2 for 3)") == Call(
        "substring", (Column("s"), Literal(2), Literal(3))
    )
    assert parse("SUBSTRING(s FROM 2)") == Call("substring", (Column("s"), Literal(2)))
    assert values("substring(s from 2 for 3)", ROWS) == ["", "", None, "bcd"]
    assert values("substring(s, 2, 3)", ROWS) == values("substr(s, 2, 3)", ROWS)
    assert list(evaluate("substring(s from 3)", ROWS).fillna("-")) == ["", "", "-", "cdef"]


def test_a_column_named_from_or_for_still_reads_in_substring():
    frame = pd.DataFrame({"from": ["abcdef"], "for": [2]})
    assert values("substring(from from 2 for 3)", frame) == ["bcd"]
    assert values("substring(from, 2)", frame) == ["bcdef"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("substring(s from 0)", "substring() counts from 1 at 1:18; start must be 1 or more"),
        ("substring(s from n)", "'n' must be a constant at 1:18; "
         "substring() cannot take its start from a column"),
        ("substring(s from 1 for 2, 3)", "unexpected ',' at 1:25; expected 'for' or ')'"),
        ("substring(s from 1 3)", "unexpected '3' at 1:20; expected 'for' or ')'"),
    ],
)  # fmt: skip
def test_a_bad_substring_names_the_part_at_fault(text, message):
    with fails(message):
        infer_type(text, SCHEMA)
