"""Random expression syntax trees over one awkward frame, for the expression fuzz tests.

`typed(type, depth)` draws trees that type-check to `type` over `FRAME`; `untyped(depth)`
draws any tree, typed or not. `render` turns a tree back into text that parses to it.
"""

from __future__ import annotations

import datetime as dt
import functools
import math

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from runtime.expressions import literal
from runtime.expressions.nodes import (
    Between,
    Binary,
    Call,
    Case,
    Column,
    In,
    Interval,
    IsNull,
    Like,
    Literal,
    Logical,
    Node,
    Unary,
)
from runtime.expressions.patterns import like_parts
from runtime.tables.schema import date_dtype, schema_of
from tests.strategies import INT64_MAX as BIG
from tests.strategies import finite_floats, int64s

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
            dtype=date_dtype(),
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
FUNCTION_NAMES += ["year", "month", "day", "coalesce", "if", "substring", "nullif"]
FUNCTION_NAMES += ["quarter", "week", "dayofweek", "dayofyear", "hour", "minute", "second"]
FUNCTION_NAMES += ["timestamp", "date_add", "date_diff", "date_trunc"]
DATE_PARTS = ["year", "quarter", "month", "week", "day", "dayofweek", "dayofyear"]
DATE_UNITS = ["day", "week", "month", "quarter", "year"]
INTERVALS = st.builds(
    Interval,
    st.integers(-30, 30) | st.sampled_from([-999_999_999, 120_000, 999_999_999]),
    st.sampled_from(DATE_UNITS),
)
"""Intervals a date can move by (far ones give null: outside the years 1 to 9999)."""


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
        case Call(name="date" | "timestamp" as name, args=(Literal(value=str()) as text,)) if loud:
            return f"{word(name)} {render(text)}"  # the SQL spelling: date '2024-01-31'
        case Call(name=name, args=(operand,)) if loud and name in DATE_PARTS:
            return f"{word('extract')}({word(name)} {word('from')} {render(operand, loud)})"
        case Like(operand=operand, pattern=pattern, escape=escape):
            keyword = ("not " if node.negated else "") + ("ilike" if node.insensitive else "like")
            escaped = "" if escape is None else f" {word('escape')} {inner(escape)}"
            return f"{inner(operand)} {word(keyword)} {inner(pattern)}{escaped}"
        case Case(operand=operand, branches=branches, otherwise=otherwise):
            parts = [word("case")] + ([] if operand is None else [inner(operand)])
            for index, branch in enumerate(branches):
                parts += [word("then" if index % 2 else "when"), inner(branch)]
            if otherwise is not None:
                parts += [word("else"), inner(otherwise)]
            return " ".join([*parts, word("end")])
        case Call(name="substring", args=(text, start, *length)):
            rest = f" {word('for')} {render(length[0], loud)}" if length else ""
            return f"{word('substring')}({render(text, loud)} {word('from')} {inner(start)}{rest})"
        case Call(name=name, args=args):
            return f"{word(name)}({', '.join(render(arg, loud) for arg in args)})"
        case Interval(amount=amount, unit=unit):
            return f"{word('interval')} '{amount}' {word(unit)}"
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


def _valid_pattern(parts: tuple) -> bool:
    try:
        like_parts(parts[0], parts[1], False)
    except ValueError:
        return False
    return True


PATTERNS = st.tuples(
    st.text(alphabet="%_ab!\\.*Äß\n", max_size=5), st.none() | st.just("!")
).filter(_valid_pattern)
"""A LIKE pattern with, sometimes, `!` as its escape: wildcards, regex metacharacters, a
backslash, letters with case, a newline."""


def like(operand: st.SearchStrategy) -> st.SearchStrategy:
    def made(xs: tuple) -> Like:
        text, (pattern, escape), negated, insensitive = xs
        escaped = None if escape is None else Literal(escape)
        return Like(text, Literal(pattern), escaped, negated, insensitive)

    return st.tuples(operand, PATTERNS, st.booleans(), st.booleans()).map(made)


def case(condition: st.SearchStrategy, result: st.SearchStrategy, operand=None):
    """`case [operand] when condition then result ... [else result] end`."""
    branches = st.lists(st.tuples(condition, result), min_size=1, max_size=3)
    heads = st.just(None) if operand is None else operand
    return st.tuples(heads, branches, st.none() | result).map(
        lambda xs: Case(xs[0], tuple(part for branch in xs[1] for part in branch), xs[2])
    )


SCALARS = {
    "integer": st.integers(-1000, 1000) | int64s,
    "float": finite_floats,
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
        case(sub("boolean"), sub(type)),
        case(leaves("string"), sub(type), operand=sub("string")),
        case(number, sub(type), operand=number),
        call(
            "nullif",
            sub(type),
            sub(type) | (number if type in ("integer", "float") else leaves(type)),
        ),
    ]
    options = {
        "integer": [
            sub("integer").map(negate),
            st.tuples(st.sampled_from("+-*%"), sub("integer"), sub("integer")).map(
                lambda xs: Binary(*xs)
            ),
            call("abs", sub("integer")),
            call("len", sub("string")),
            st.tuples(st.sampled_from(DATE_PARTS), sub("date") | sub("datetime")).map(
                lambda xs: Call(xs[0], (xs[1],))
            ),
            st.tuples(st.sampled_from(["hour", "minute", "second"]), sub("datetime")).map(
                lambda xs: Call(xs[0], (xs[1],))
            ),
            st.tuples(sub("date"), sub("date").filter(lambda x: x != Literal(None))).map(
                lambda xs: Binary("-", *xs)  # `date - null` is a date, as in DuckDB
            ),
            call("date_diff", st.sampled_from(DATE_UNITS).map(Literal), sub("date"), sub("date")),
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
            call("substring", sub("string"), st.integers(1, 12).map(Literal)),
            call(
                "substring",
                sub("string"),
                st.integers(1, 12).map(Literal),
                st.integers(0, 12).map(Literal),
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
            like(sub("string")),
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
            st.tuples(st.sampled_from("+-"), sub("date"), INTERVALS).map(lambda xs: Binary(*xs)),
            st.tuples(INTERVALS, sub("date")).map(lambda xs: Binary("+", *xs)),
            st.tuples(  # `null + i` is an integer: the date side is not a bare null
                st.sampled_from("+-"),
                sub("date").filter(lambda x: x != Literal(None)),
                sub("integer"),
            ).map(lambda xs: Binary(*xs)),
            call("date_add", sub("date"), INTERVALS),
            call("date_trunc", st.sampled_from(DATE_UNITS).map(Literal), sub("date")),
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
        st.none() | st.booleans() | int64s | st.floats() | st.text(max_size=5),
    ).filter(lambda node: not (isinstance(node.value, float) and not math.isfinite(node.value)))
    if depth == 0:
        return leaf
    sub = untyped(depth - 1)
    ops = ["+", "-", "*", "/", "%", "**", "=", "!=", "<", "<=", ">", ">="]
    return st.one_of(
        leaf,
        INTERVALS,  # a value only beside + and - and in date_add(): an error anywhere else
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
        st.tuples(sub, sub, st.none() | sub, st.booleans(), st.booleans()).map(
            lambda xs: Like(*xs)
        ),
        case(sub, sub, operand=st.none() | sub),
        st.tuples(st.sampled_from([*FUNCTION_NAMES, "nope"]), st.lists(sub, max_size=4)).map(
            lambda xs: Call(xs[0], tuple(xs[1]))
        ),
    )
