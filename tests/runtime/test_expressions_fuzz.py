"""Fuzz tests for runtime.expressions: hostile text never raises anything but ExpressionError,
and random well-typed expressions evaluate to exactly the type `infer_type` promised."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
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
from runtime.expressions.nodes import (
    Between,
    Binary,
    Call,
    Column,
    In,
    IsNull,
    Literal,
    Logical,
    Node,
    Unary,
)
from runtime.schema import DATE_DTYPE, schema_of, type_name_of

# Any warning from pandas or numpy is a bug; hypothesis' own notes about big reprs are not.
pytestmark = pytest.mark.filterwarnings("error", "ignore::hypothesis.errors.HypothesisWarning")

FUZZ = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BIG = 2**63 - 1
FRAME = pd.DataFrame(
    {
        "i": [0, 1, -5, BIG, -BIG],
        "ni": pd.array([3, None, 0, -7, 2**62], dtype="Int64"),
        "f": [0.0, -1.5, np.nan, 1e308, -0.0],
        "fi": [1.0, np.nan, 3.0, 0.0, -2.0],
        "s": ["abc", None, "", "ÄÖ ü\x00", "2024-02-29"],
        "u": ["  x ", "'quote'", "back\\slash", None, "2023-13-01 10:00"],
        "b": [True, False, True, False, True],
        "nb": pd.array([True, None, False, True, None], dtype="boolean"),
        "d": pd.Series(
            [
                dt.date(2024, 2, 29),
                None,
                dt.date(1970, 1, 1),
                dt.date(1, 1, 1),
                dt.date(9999, 12, 31),
            ],
            dtype=DATE_DTYPE,
        ),
        "t": pd.to_datetime(
            ["2024-01-01 10:00", None, "1969-12-31 23:59", "2262-04-11 00:00", "1677-09-22 00:00"]
        ),
        "tz": pd.to_datetime(["2024-01-01 10:00", None, None, None, None]).tz_localize("UTC"),
        "obj": pd.Series([1, "two", None, 3.5, b"x"], dtype=object),
        "unit price": [1.5, 2.0, None, 4.0, 5.0],
        "`odd\\name`": [1, 2, 3, 4, 5],
    },
    index=[10, 10, 3, 7, 5],
)
SCHEMA = schema_of(FRAME)
COLUMNS = {
    "integer": ["i", "ni", "`odd\\name`"],
    "float": ["f", "fi", "unit price"],
    "string": ["s", "u", "obj"],
    "boolean": ["b", "nb"],
    "date": ["d"],
    "datetime": ["t"],
}
FUNCTION_NAMES = ["upper", "lower", "strip", "len", "contains", "startswith", "endswith"]
FUNCTION_NAMES += ["replace", "concat", "substr", "abs", "round", "floor", "ceil", "date"]
FUNCTION_NAMES += ["year", "month", "day", "coalesce", "if"]


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
@given(
    st.none()
    | st.booleans()
    | st.integers(min_value=-BIG, max_value=BIG)
    | st.floats(allow_nan=False, allow_infinity=False)
)
def test_any_scalar_parameter_reads_back_as_its_literal(value):
    assert parse(literal(value)) == Literal(value)
    assert parse(f"{literal(value)} ** 2") == Binary("**", Literal(value), Literal(2))


# --- random syntax trees ---------------------------------------------------------------------


def render(node: Node, loud: bool = False) -> str:
    """Expression text for `node`, fully parenthesised; `loud` upper-cases keywords/names."""
    word = str.upper if loud else str.lower

    def inner(child: Node) -> str:
        return f"({render(child, loud)})"

    match node:
        case Literal(value=value):
            return (
                word(literal(value)) if value is None or isinstance(value, bool) else literal(value)
            )
        case Column(name=name):
            return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
        case Unary(op="not", operand=operand):
            return f"{word('not')} {inner(operand)}"
        case Unary(operand=operand):
            return f"-{inner(operand)}"
        case Binary(op=op, left=left, right=right):
            spelled = {"=": "==", "!=": "<>"}.get(op, op) if loud else op
            return f"{inner(left)} {spelled} {inner(right)}"
        case Logical(op=op, operands=operands):
            return f" {word(op)} ".join(inner(operand) for operand in operands)
        case IsNull(operand=operand, negated=negated):
            return f"{inner(operand)} {word('is not' if negated else 'is')} {word('null')}"
        case In(operand=operand, items=items, negated=negated):
            listed = ", ".join(render(item, loud) for item in items)
            return f"{inner(operand)} {word('not in' if negated else 'in')} ({listed})"
        case Between(operand=operand, low=low, high=high, negated=negated):
            keyword = word("not between" if negated else "between")
            return f"{inner(operand)} {keyword} {inner(low)} {word('and')} {inner(high)}"
        case Call(name=name, args=args):
            return f"{word(name)}({', '.join(render(arg, loud) for arg in args)})"
    raise AssertionError(node)


def negate(node: Node) -> Node:
    """`-node`, folded into a literal the way the parser folds it."""
    value = node.value if isinstance(node, Literal) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Literal(-value)
    return Unary("-", node)


def combine(op: str, operands: list[Node]) -> Node:
    """`a and b and c`, flattened the way the parser flattens it."""
    first, *rest = operands
    if isinstance(first, Logical) and first.op == op:
        return Logical(op, (*first.operands, *rest))
    return Logical(op, (first, *rest))


def call(name: str, *args: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(*args).map(lambda values: Call(name, tuple(values)))


SCALARS = {
    "integer": st.integers(-1000, 1000) | st.integers(-BIG, BIG),
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "string": st.text(max_size=6) | st.sampled_from(["2024-01-31", "ab", " "]),
    "boolean": st.booleans(),
    "date": st.dates().map(lambda day: day.isoformat()),
    "datetime": st.nothing(),
}


def constants(type: str) -> st.SearchStrategy:
    """Literals of `type` (dates as `date('...')`), or null."""
    literals = SCALARS[type].map(Literal)
    if type == "date":
        literals = literals.map(lambda text: Call("date", (text,)))
    return literals | st.just(Literal(None))


def leaves(type: str) -> st.SearchStrategy:
    return st.sampled_from(COLUMNS[type]).map(Column) | constants(type)


@functools.cache
def typed(type: str, depth: int) -> st.SearchStrategy:
    """Random well-typed expressions of `type`, at most `depth` levels of operators deep."""
    if depth == 0:
        return leaves(type)

    def sub(kind: str) -> st.SearchStrategy:
        return typed(kind, depth - 1)

    def choice(kind: str) -> st.SearchStrategy:
        return st.tuples(sub("boolean"), sub(kind), sub(kind))

    number = sub("integer") | sub("float")
    shared = [
        leaves(type),
        st.lists(sub(type), min_size=1, max_size=3).map(lambda xs: Call("coalesce", tuple(xs))),
        choice(type).map(lambda xs: Call("if", xs)),
    ]
    options = {
        "integer": [
            sub("integer").map(negate),
            st.tuples(st.sampled_from("+-*%"), sub("integer"), sub("integer")).map(
                lambda xs: Binary(*xs)
            ),
            call("abs", sub("integer")),
            call("len", sub("string")),
            st.tuples(st.sampled_from(["year", "month", "day"]), sub("date") | sub("datetime")).map(
                lambda xs: Call(xs[0], (xs[1],))
            ),
            call("round", sub("integer"), st.integers(-3, 3).map(Literal)),
            call("floor", sub("integer")),
        ],
        "float": [
            sub("float").map(negate),
            st.tuples(st.sampled_from("+-*%"), sub("float"), number).map(lambda xs: Binary(*xs)),
            st.tuples(st.sampled_from(["/", "**"]), number, number).map(lambda xs: Binary(*xs)),
            call("abs", sub("float")),
            call("round", sub("float"), st.integers(-15, 15).map(Literal)),
            call("round", number),
            call("ceil", sub("float")),
        ],
        "string": [
            st.tuples(sub("string"), sub("string")).map(lambda xs: Binary("+", *xs)),
            st.tuples(st.sampled_from(["upper", "lower", "strip"]), sub("string")).map(
                lambda xs: Call(xs[0], (xs[1],))
            ),
            call("replace", sub("string"), leaves("string"), leaves("string")).filter(
                lambda node: (
                    not isinstance(node.args[1], Column) and not isinstance(node.args[2], Column)
                )
            ),
            call("substr", sub("string"), st.integers(1, 12).map(Literal)),
            call(
                "substr",
                sub("string"),
                st.integers(1, BIG).map(Literal),
                st.integers(0, BIG).map(Literal),
            ),
            st.lists(sub("string"), min_size=1, max_size=4).map(
                lambda xs: Call("concat", tuple(xs))
            ),
        ],
        "boolean": [
            sub("boolean").map(lambda x: Unary("not", x)),
            st.tuples(
                st.sampled_from(["and", "or"]), st.lists(sub("boolean"), min_size=2, max_size=3)
            ).map(lambda xs: combine(*xs)),
            *[
                st.tuples(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), left, right).map(
                    lambda xs: Binary(*xs)
                )
                for left, right in [
                    (number, number),
                    (sub("string"), sub("string")),
                    (sub("date"), sub("date")),
                    (sub("boolean"), sub("boolean")),
                    (sub("datetime"), sub("datetime")),
                ]
            ],
            st.tuples(sub("string") | number | sub("date"), st.booleans()).map(
                lambda xs: IsNull(*xs)
            ),
            st.tuples(number, st.lists(number, min_size=1, max_size=4), st.booleans()).map(
                lambda xs: In(xs[0], tuple(xs[1]), xs[2])
            ),
            st.tuples(
                sub("string"), st.lists(leaves("string"), min_size=1, max_size=3), st.booleans()
            ).map(lambda xs: In(xs[0], tuple(xs[1]), xs[2])),
            st.tuples(number, number, number, st.booleans()).map(lambda xs: Between(*xs)),
            st.tuples(
                st.sampled_from(["contains", "startswith", "endswith"]),
                sub("string"),
                constants("string"),
            ).map(lambda xs: Call(xs[0], (xs[1], xs[2]))),
        ],
        "date": [
            call(
                "date",
                st.sampled_from(COLUMNS["string"]).map(Column) | sub("date") | sub("datetime"),
            ),
        ],
        "datetime": [],
    }
    # deferred() keeps the strategy's repr short however deep the nesting goes
    return st.deferred(lambda: st.one_of(*shared, *options[type]))


TYPES = list(COLUMNS)
WELL_TYPED = st.one_of([typed(type, 3) for type in TYPES])


@functools.cache
def untyped(depth: int) -> st.SearchStrategy:
    """Random syntax trees with no regard for types: mostly type errors, some not."""
    names = [name for name in SCHEMA.names if name != "tz"]  # zoned vs naive: a data error
    leaf = st.sampled_from([*names, "missing"]).map(Column) | st.builds(
        Literal,
        st.none() | st.booleans() | st.integers(-BIG, BIG) | st.floats() | st.text(max_size=5),
    ).filter(lambda node: not (isinstance(node.value, float) and not math.isfinite(node.value)))
    if depth == 0:
        return leaf
    sub = untyped(depth - 1)
    ops = ["+", "-", "*", "/", "%", "**", "=", "!=", "<", "<=", ">", ">="]
    return st.one_of(
        leaf,
        sub.map(negate),
        sub.map(lambda x: Unary("not", x)),
        st.tuples(st.sampled_from(ops), sub, sub).map(lambda xs: Binary(*xs)),
        st.tuples(st.sampled_from(["and", "or"]), st.lists(sub, min_size=2, max_size=3)).map(
            lambda xs: combine(*xs)
        ),
        st.tuples(sub, st.booleans()).map(lambda xs: IsNull(*xs)),
        st.tuples(sub, st.lists(sub, min_size=1, max_size=3), st.booleans()).map(
            lambda xs: In(xs[0], tuple(xs[1]), xs[2])
        ),
        st.tuples(sub, sub, sub, st.booleans()).map(lambda xs: Between(*xs)),
        st.tuples(st.sampled_from([*FUNCTION_NAMES, "nope"]), st.lists(sub, max_size=4)).map(
            lambda xs: Call(xs[0], tuple(xs[1]))
        ),
    )


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
