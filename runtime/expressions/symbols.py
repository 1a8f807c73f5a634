"""The expression language's symbols (`+`, `==`, `and`, `in`, ...): how each is type-checked,
and how it computes over whole Series at once. (Not to be confused with pipeline operators.)

Nulls: arithmetic and comparisons with a null give null; `and`, `or` and `not` follow SQL's
three-valued logic (`null and false` is false, `null or true` is true, `not null` is null);
division and modulo by zero give null. Functions live in `functions.py`.
"""

from __future__ import annotations

import operator
from functools import partial, reduce

from runtime.lazy import np, pd
from runtime.tables.schema import type_name_of

from . import decimals
from .dates import date_arithmetic, interval, involves_dates
from .decimals import DECIMAL, decimal_between, decimal_compare, decimal_in
from .nodes import Between, Binary, In, Interval, IsNull, Logical, Unary
from .sizes import joined_sizes
from .type_checks import Checker
from .values import (
    NULL,
    NUMBERS,
    Compiled,
    as_series,
    broadcast,
    conform,
    constant,
    derive,
    floats,
    index_of,
    is_true,
    null_mask,
    resolve,
    to_nullable,
    with_nulls,
)

COMPARISONS = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
"""The comparison symbols, each with the function comparing two values by it."""
_CANNOT_COMPARE = "they cannot be compared"


def unary(checker: Checker, node: Unary, operand: Compiled) -> Compiled:
    """`-x` on a number, `not x` on a boolean."""
    if node.op == "not":
        operand = checker.expect(operand, ("boolean",), "a boolean", "'not'")
        return derive(node, "boolean", operand.nullable, operator.invert, operand)
    if operand.type == NULL:
        return constant(node, None, NULL)
    operand = checker.expect(operand, NUMBERS, "a number", "'-'")
    return derive(node, operand.type, operand.nullable, operator.neg, operand)


def binary(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Compiled:
    """Arithmetic or a comparison."""
    if node.op in COMPARISONS:
        return _comparison(checker, node, left, right)
    if node.op in ("+", "-") and involves_dates(left, right):
        return date_arithmetic(checker, node, left, right)
    return _arithmetic(checker, node, left, right)


def _arithmetic(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Compiled:
    exact = decimals.arithmetic(checker, node, left, right, _arithmetic)
    if exact is not None:
        return exact
    op = node.op
    if op == "+":
        allowed, what = ("integer", "float", "string"), "numbers or strings"
    else:
        allowed, what = NUMBERS, "numbers"
    for side in (left, right):
        checker.expect(side, allowed, what, f"'{op}'")
    type = checker.common_type([left, right], "'+' needs two numbers or two strings")
    if type == NULL:
        return constant(node, None, NULL)
    left, right = resolve(left, type), resolve(right, type)
    if op in ("/", "**"):
        type = "float"
    nullable = left.nullable or right.nullable or type == "float" or op == "%"
    folded = _integer_constant(op, left, right) if type == "integer" else None
    if folded is not None:
        return constant(node, folded, type)
    if op == "%":
        impl = partial(modulo, type)
    elif type == "string":
        impl = partial(_joined, checker, node)
    else:
        impl = _ARITHMETIC[op]
    return derive(node, type, nullable, impl, left, right)


def _integer_constant(op: str, left: Compiled, right: Compiled) -> int | None:
    """`left op right` of two integer constants, in Python, where it fits 64 bits: folded as
    the plan is made, without loading pandas (TPC-H Q19's `1 + 10`). None for the rest,
    which the compiler folds with pandas."""
    if op not in ("+", "-", "*") or not (left.is_constant and right.is_constant):
        return None
    if left.constant is None or right.constant is None:
        return None
    value = _ARITHMETIC[op](left.constant, right.constant)
    return value if -(2**63) <= value < 2**63 else None


def _joined(checker: Checker, node: Binary, left: object, right: object) -> object:
    """`left + right` on strings, refused before it is built if it would be too large."""
    checker.bound(node, "'+'", joined_sizes(left, right))
    return left + right


def divide(left: object, right: object) -> pd.Series:
    """`left / right` as floats, null where the divisor is zero."""
    numerator, denominator = floats(left), floats(right)
    quotient = np.where(denominator == 0, np.nan, np.divide(numerator, denominator))
    return pd.Series(quotient, index=index_of(left, right))


def modulo(type: str, left: object, right: object) -> pd.Series:
    """`left % right` in `type`, null where the divisor is zero."""
    # Both sides as nullable Series: pandas sends `scalar % Int64` through float64 when a
    # divisor is zero, losing digits of large integers.
    index = index_of(left, right)
    dividend = to_nullable(as_series(left, type, index))
    divisor = to_nullable(as_series(right, type, index))
    return with_nulls(dividend % divisor, is_true(divisor == 0))


def power(left: object, right: object) -> pd.Series:
    """`left ** right` as floats, null where either side is null."""
    raised = pd.Series(np.power(floats(left), floats(right)), index=index_of(left, right))
    return with_nulls(raised, null_mask(left, right))  # numpy says nan ** 0 and 1 ** nan are 1


_ARITHMETIC = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": divide,
    "**": power,
}


def _comparison(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Compiled:
    left, right = _resolved(checker, [left, right])
    nullable = left.nullable or right.nullable
    impl = partial(decimal_compare if left.type == DECIMAL else compare, node.op)
    return derive(node, "boolean", nullable, impl, left, right)


def _resolved(checker: Checker, operands: list[Compiled]) -> list[Compiled]:
    """Comparable operands, with bare nulls given the others' type."""
    operands = decimals.promoted(checker.text, operands)
    type = checker.common_type(operands, _CANNOT_COMPARE)
    return [resolve(operand, "string" if type == NULL else type) for operand in operands]


def compare(op: str, left: object, right: object) -> pd.Series:
    """`left op right` as booleans, null where either side is null."""
    zoned = {value.dt.tz is not None for value in (left, right) if _is_datetime(value)}
    if len(zoned) == 2:
        raise TypeError("cannot compare a time-zone-aware datetime with a naive one")
    # On the arrays, not the Series: both sides come from one frame, so there is nothing to
    # align, and a Series comparison costs several times as much on a small frame.
    raw = COMPARISONS[op](_array_of(left), _array_of(right))
    result = pd.Series(raw, index=index_of(left, right), copy=False)
    if isinstance(result.dtype, pd.BooleanDtype):
        return result  # masked arrays (Int64, boolean) already give null where a side is null
    return with_nulls(conform(result, "boolean"), null_mask(left, right))


def _array_of(value: object) -> object:
    return value.array if isinstance(value, pd.Series) else value


def _is_datetime(value: object) -> bool:
    if not isinstance(value, pd.Series) or value.dtype.kind != "M":
        return False  # the cheap test first: this runs on every comparison
    return type_name_of(value.dtype) == "datetime"


def logical(checker: Checker, node: Logical, *operands: Compiled) -> Compiled:
    """`a and b and ...` or `a or b or ...`, in three-valued logic."""
    operands = tuple(
        checker.expect(operand, ("boolean",), "booleans", f"'{node.op}'") for operand in operands
    )
    combine = operator.and_ if node.op == "and" else operator.or_
    nullable = any(operand.nullable for operand in operands)
    return derive(node, "boolean", nullable, lambda *items: reduce(combine, items), *operands)


def is_null(checker: Checker, node: IsNull, operand: Compiled) -> Compiled:
    """`x is null` / `x is not null`; never null itself."""
    test = pd.Series.notna if node.negated else pd.Series.isna
    return derive(node, "boolean", False, test, resolve(operand, "string"))


def membership(checker: Checker, node: In, operand: Compiled, *items: Compiled) -> Compiled:
    """`x in (a, b, ...)`: like `x = a or x = b or ...`, with constants matched in one pass."""
    operand, *items = _resolved(checker, [operand, *items])
    choices = [item.constant for item in items if item.is_constant and item.constant is not None]
    has_null = any(item.is_constant and item.constant is None for item in items)
    columns = [item for item in items if not item.is_constant]
    impl = partial(is_in, operand.type, choices, has_null, node.negated)
    if operand.type == DECIMAL:  # exact whatever the scales: one comparison per choice
        impl = partial(decimal_in, choices, has_null, node.negated)
    nullable = operand.nullable or any(item.nullable for item in items)
    return derive(node, "boolean", nullable, impl, operand, *columns)


def is_in(
    type: str, choices: list, has_null: bool, negated: bool, value: object, *others: object
) -> pd.Series:
    """`value in (choices..., others...)` (a null among them when `has_null`), or `not in`."""
    value = as_series(value, type, index_of(value, *others))
    found = with_nulls(value.isin(choices), null_mask(value))
    for other in others:
        found = found | compare("=", value, other)
    if has_null:
        found = found | broadcast(None, "boolean", value.index)
    return ~found if negated else found


def between(
    checker: Checker, node: Between, operand: Compiled, low: Compiled, high: Compiled
) -> Compiled:
    """`x between low and high`: `x >= low and x <= high`."""
    operand, low, high = _resolved(checker, [operand, low, high])
    impl = partial(is_between, operand.type, node.negated)
    if operand.type == DECIMAL:
        impl = partial(decimal_between, node.negated)
    nullable = operand.nullable or low.nullable or high.nullable
    return derive(node, "boolean", nullable, impl, operand, low, high)


def is_between(
    type: str, negated: bool, value: object, minimum: object, maximum: object
) -> pd.Series:
    """`minimum <= value <= maximum` (or not, when `negated`), null where a side is null."""
    value = as_series(value, type, index_of(value, minimum, maximum))
    inside = compare(">=", value, minimum) & compare("<=", value, maximum)
    return ~inside if negated else inside


RULES = {
    Unary: unary,
    Binary: binary,
    Logical: logical,
    IsNull: is_null,
    In: membership,
    Between: between,
    Interval: interval,
}
"""The builder for each operator node type: `rule(checker, node, *compiled children)`."""
