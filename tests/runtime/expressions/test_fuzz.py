"""Fuzz tests for runtime.expressions: hostile text never raises anything but ExpressionError,
and random well-typed expressions evaluate to exactly the type `infer_type` promised."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.expressions import (
    MAX_DEPTH,
    MAX_LENGTH,
    ExpressionError,
    compile_expression,
    evaluate,
    filter_mask,
    infer_type,
    literal,
    parse,
    referenced_columns,
)
from runtime.expressions.nodes import Binary, Literal
from runtime.tables.schema import type_name_of
from tests.runtime.expression_trees import FRAME, SCHEMA, WELL_TYPED, render, untyped
from tests.strategies import bounded, parameter_values

# Any warning from pandas or numpy is a bug; hypothesis' own notes about big reprs are not.
pytestmark = pytest.mark.filterwarnings("error", "ignore::hypothesis.errors.HypothesisWarning")

FUZZ = bounded(300, tolerate=[HealthCheck.too_slow, HealthCheck.data_too_large])


def only_expression_errors(text: str) -> None:
    """Run every entry point on `text`; anything but ExpressionError fails the test."""
    for call in (
        lambda: parse(text),
        lambda: referenced_columns(text),
        lambda: infer_type(text, SCHEMA),
        lambda: evaluate(text, FRAME),
        lambda: filter_mask(text, FRAME),
    ):
        with contextlib.suppress(ExpressionError):
            call()


# --- hostile text ----------------------------------------------------------------------------

TOKENS = [
    "(", ")", ",", "+", "-", "*", "/", "%", "**", "=", "==", "!=", "<>", "<", "<=", ">", ">=",
    "and", "OR", "not", "in", "is", "null", "true", "False", "between", "i", "s", "d", "t", "nb",
    "`unit price`", "`", "'", '"', "'x'", '"y\\"z"', "0", "1.5", "1e3", ".5", "1e999",
    "99999999999999999999", "-", "upper", "substr", "date", "if", "coalesce", "concat", "len",
    "'2024-01-31'", ".", "[", "]", "{", "}", ":", "lambda", "__import__", "\\", "\x00", "é", " ",
    "like", "ILIKE", "escape", "'a%'", "'_'", "case", "when", "then", "else", "END", "substring",
    "from", "for", "nullif",
]  # fmt: skip

HOSTILE = [
    "__import__('os')",
    "__import__('os').system('true')",
    "a.b",
    "s.__class__",
    "x[0]",
    "s[0:1]",
    "lambda: 1",
    "(lambda x: x)(1)",
    "exec('1')",
    "eval('1')",
    "open('/etc/passwd')",
    "().__class__.__bases__",
    "{}",
    "{'a': 1}",
    "f'{i}'",
    "'a' 'b'",
    "i; i",
    "i if b else i",
    "@i",
    "$i",
    "${param}",
    "i\x00",
    "'\x00'",
    "\u202ei > 1",
    "ä > 1",
    "`",
    "``",
    "`i",
    "'abc",
    '"abc',
    "'\\q'",
    "'\\",
    "1" * 5000,
    "9" * 400 + ".0",
    "1e308 * 10",
    "1e-400",
    "-" * 3000 + "1",
    "not " * 2000 + "b",
    "(" * 5000 + "1" + ")" * 5000,
    "upper(" * 1000 + "s" + ")" * 1000,
    "2" + " ** 2" * 2000,
    "i" + " + i" * 3000,
    "b" + " and b" * 2000,
    "i in (" + ", ".join(["1"] * 3000) + ")",
    "x" * MAX_LENGTH,
    "x" * (MAX_LENGTH + 1),
    "",
    "   \n\t ",
    "\ud800",
    "'\udfff'",
    "i / 0",
    "i % 0",
    "ni % 0",
    "i * i * i",
    "-i",
    "abs(-9223372036854775807 - 1)",
    "round(f, 15)",
    "round(f, -15)",
    "substr(s, 9223372036854775807, 9223372036854775807)",
    "date(u)",
    "t = tz",
    "if(nb, t, tz)",
    "coalesce(t, tz)",
    "date(tz) = d",
    "year(tz)",
    "obj + 'x'",
    "len(obj)",
    "`odd\\\\name\\`` * 2",
]


@FUZZ
@given(st.text(max_size=60))
def test_random_text_raises_nothing_but_expression_error(text):
    only_expression_errors(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=25), st.sampled_from([" ", ""]))
def test_random_token_soup_raises_nothing_but_expression_error(tokens, separator):
    only_expression_errors(separator.join(tokens))


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_raises_nothing_but_expression_error(text):
    only_expression_errors(text)


@FUZZ
@given(st.integers(min_value=1, max_value=MAX_LENGTH), st.sampled_from(["(", "-", "not ", "f("]))
def test_any_nesting_depth_is_accepted_or_rejected_cleanly(depth, opener):
    closer = ")" if opener in ("(", "f(") else ""
    text = opener * depth + "1" + closer * depth
    only_expression_errors(text[: MAX_LENGTH + 1])


def test_nesting_beyond_the_limit_is_an_expression_error_not_a_recursion_error():
    for text in ("(" * 1000 + "1" + ")" * 1000, "i" + " + i" * MAX_DEPTH):
        with pytest.raises(ExpressionError, match="nested too deeply"):
            parse(text)


@FUZZ
@given(st.integers(min_value=-(10**30), max_value=10**30) | st.floats())
def test_any_number_is_read_or_rejected_cleanly(number):
    only_expression_errors(str(number))
    only_expression_errors(f"i + {number}")


# --- literal() round trip --------------------------------------------------------------------


@FUZZ
@given(st.text())
def test_any_string_parameter_reads_back_as_one_string_literal(value):
    text = literal(value)
    assert parse(text) == Literal(value)
    assert list(evaluate(text, FRAME)) == [value] * len(FRAME)


@FUZZ
@given(parameter_values)
def test_any_scalar_parameter_reads_back_as_its_literal(value):
    assert parse(literal(value)) == Literal(value)
    assert parse(f"{literal(value)} ** 2") == Binary("**", Literal(value), Literal(2))


# --- random syntax trees ---------------------------------------------------------------------


def same_value(left: object, right: object) -> bool:
    if pd.isna(left) or pd.isna(right):
        return bool(pd.isna(left) and pd.isna(right))
    if isinstance(left, float | np.floating):
        return math.isclose(left, right, rel_tol=1e-9) or left == right
    return left == right


def check_evaluation(text: str) -> None:
    """`text` type-checks; its value has that type, every row, and no nulls unless nullable."""
    type_name, nullable = infer_type(text, SCHEMA)
    result = evaluate(text, FRAME)
    assert result.index.equals(FRAME.index)
    assert type_name_of(result.dtype) == type_name, (result.dtype, type_name)
    if not nullable:
        assert not result.isna().any()
    for position in range(len(FRAME)):
        alone = evaluate(text, FRAME.iloc[[position]])
        assert same_value(alone.iloc[0], result.iloc[position]), (position, alone, result)
    empty = compile_expression(text, SCHEMA)(FRAME.iloc[:0])
    assert len(empty) == 0 and type_name_of(empty.dtype) == type_name
    if type_name == "boolean":
        mask = filter_mask(text, FRAME)
        assert mask.dtype == bool and list(mask) == [
            not pd.isna(value) and bool(value) for value in result
        ]


@FUZZ
@given(WELL_TYPED, st.booleans())
def test_well_typed_trees_render_parse_back_and_evaluate_to_their_inferred_type(tree, loud):
    text = render(tree, loud)
    assert parse(text) == tree
    check_evaluation(text)


@FUZZ
@given(untyped(3))
def test_random_trees_either_fail_to_type_check_or_evaluate_to_their_inferred_type(tree):
    text = render(tree)
    try:
        infer_type(text, SCHEMA)
    except ExpressionError:
        only_expression_errors(text)
        return
    check_evaluation(text)
