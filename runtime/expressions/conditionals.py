"""`case ... end` and `nullif(a, b)`: how they are type-checked and computed with pandas.

As in SQL: `case when c1 then v1 when c2 then v2 else v end` gives the result of the first
condition that is true on the row; a null condition is not true and falls through to the next.
`case x when a then v ... end` compares `x = a` the way `=` does (a null `x` matches nothing).
Without `else`, a row no branch takes is null. The results share a type as `if()`'s and
`coalesce()`'s do (integers and floats make floats). `nullif(a, b)` is `a`, but null where
`a = b` is true; it keeps `a`'s type. (`if()` stays, in function_builders.py.)

`choose_case` and `null_if` are plain functions of Series: a compiled script carries them.
"""

from __future__ import annotations

from functools import partial

from runtime.lazy import pa, pd

from . import decimals
from .decimals import DECIMAL, decimal_compare, decimal_results
from .nodes import Call, Case
from .symbols import compare
from .type_checks import Checker
from .values import (
    NULL,
    Compiled,
    as_series,
    broadcast,
    constant,
    derive,
    index_of,
    is_true,
    resolve,
    to_nullable,
)

_CANNOT_COMPARE = "they cannot be compared"


def case_parts(node: Case, items: list) -> tuple[object, list, list, object]:
    """A case's operand (or None), conditions, results and else (or None), from `items`
    given in the node's child order (operand, when, then, when, then..., else)."""
    items = list(items)
    operand = items.pop(0) if node.operand is not None else None
    otherwise = items.pop() if node.otherwise is not None else None
    return operand, items[0::2], items[1::2], otherwise


def build_case(checker: Checker, node: Case, *args: Compiled) -> Compiled:
    """`case [x] when ... then ... [else ...] end`, type-checked."""
    operand, whens, thens, otherwise = case_parts(node, list(args))
    if operand is not None:
        operand, *whens = decimals.promoted(checker.text, [operand, *whens])
        shared = checker.common_type([operand, *whens], _CANNOT_COMPARE)
        shared = "string" if shared == NULL else shared
        operand = resolve(operand, shared)
        whens = [resolve(when, shared) for when in whens]
    else:
        shared = "boolean"
        whens = [checker.expect(when, ("boolean",), "a condition", "'when'") for when in whens]
    results = [*thens, *([otherwise] if otherwise is not None else [])]
    results = decimals.promoted(checker.text, results)
    type = checker.common_type(results, "the results of 'case' must share one type")
    if type == NULL:
        return constant(node, None, NULL)
    results = [resolve(result, type) for result in results]
    nullable = otherwise is None or any(result.nullable for result in results)
    inputs = [operand] if operand is not None else []
    for when, then in zip(whens, results, strict=False):
        inputs += [when, then]
    if otherwise is not None:
        inputs.append(results[-1])
    chooser = decimal_case if type == DECIMAL else choose_case
    impl = partial(chooser, type, shared, operand is not None, otherwise is not None)
    return derive(node, type, nullable, impl, *inputs)


def decimal_case(
    type: str, shared: str, has_operand: bool, has_else: bool, *items: object
) -> pd.Series:
    """`choose_case` over decimal results, first brought to the type they share."""
    items = list(items)
    if not has_else:
        items.append(pa.scalar(None, pa.null()))
    first = 2 if has_operand else 1
    results = [*range(first, len(items) - 1, 2), len(items) - 1]  # the thens, the else
    met = decimal_results(items[0], *(items[position] for position in results))
    for position, result in zip(results, met, strict=True):
        items[position] = result
    return choose_case(type, shared, has_operand, True, *items)


def choose_case(
    type: str, shared: str, has_operand: bool, has_else: bool, *items: object
) -> pd.Series:
    """On each row, the result of the first branch whose condition is true (with an operand:
    whose value equals it), else the `else` value or null. `items`: [operand,] when, then,
    ..., [else]; results of `type`, an operand and its values of `shared`."""
    index = index_of(*items)
    items = list(items)
    operand = as_series(items.pop(0), shared, index) if has_operand else None
    fallback = items.pop() if has_else else None
    result = to_nullable(as_series(fallback, type, index)) if has_else else None
    if result is None:
        result = broadcast(None, type, index)
    equal = decimal_compare if shared == DECIMAL else compare
    for when, then in reversed(list(zip(items[0::2], items[1::2], strict=True))):
        test = equal("=", operand, when) if has_operand else when
        taken = is_true(as_series(test, "boolean", index))
        result = to_nullable(as_series(then, type, index)).where(taken, result)
    return result


def build_nullif(checker: Checker, node: Call, value: Compiled, other: Compiled) -> Compiled:
    """nullif(a, b): `a`, null where `a = b`; compared as `=` compares, of `a`'s type."""
    checker.common_type([value, other], _CANNOT_COMPARE)  # comparable, or an error
    if value.type == NULL:
        return constant(node, None, NULL)
    if other.type == NULL:
        return value  # `a = null` is never true
    impl = partial(null_if, value.type)
    return derive(node, value.type, True, impl, value, other)


def null_if(type: str, value: object, other: object) -> pd.Series:
    """`value` (of `type`) with nulls where it equals `other`."""
    value = to_nullable(as_series(value, type, index_of(value, other)))
    return value.mask(is_true(compare("=", value, other)))
