"""How each function an expression may call is type-checked and computed with pandas.

`functions.FUNCTIONS` names a builder here for every function: given the checker, the call and
its compiled arguments, the builder checks their types (and that configuring arguments are
constants) and returns the compiled call. By family: text, numbers, dates, then the choices
(coalesce, if). The row-wise helpers (`rounded`, `text_to_date`, `first_not_null`, `choose`)
are also what a compiled script carries (runtime/compile/expressions.py), so they stay plain
functions of Series. The same functions in DuckDB SQL are in `sql_functions.py`.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from datetime import date, datetime
from functools import partial, reduce

from runtime.lazy import pd
from runtime.tables.schema import a_type

from . import decimals
from .decimals import (
    DECIMAL,
    decimal_choose,
    decimal_first_not_null,
    decimal_rounded,
    decimal_whole,
)
from .lexer import MAX_INTEGER
from .nodes import Call
from .sizes import joined_sizes, replaced_sizes
from .type_checks import Checker
from .values import (
    NULL,
    NUMBERS,
    Compiled,
    as_series,
    constant,
    derive,
    index_of,
    is_true,
    null_mask,
    resolve,
    to_date,
    to_nullable,
    with_nulls,
)

MAX_DIGITS = 15
"""`round()` accepts between -MAX_DIGITS and MAX_DIGITS digits."""

_DATE_TEXT = r"(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ].*)?"
_EXACT_FLOATS = 2.0**52  # every float at least this large is a whole number


def _string(checker: Checker, node: Call, arg: Compiled) -> Compiled:
    return checker.expect(arg, ("string",), "a string", f"{node.name}()")


def _number(checker: Checker, node: Call, arg: Compiled) -> Compiled:
    return checker.expect(arg, NUMBERS, "a number", f"{node.name}()")


def _setting(checker: Checker, node: Call, arg: Compiled, type: str, param: str) -> object:
    """The value of an argument that must be a constant of `type` (None for null)."""
    what = a_type(type)
    arg = checker.expect(arg, (type,), what, f"{node.name}()")
    if not arg.is_constant:
        raise checker.error(
            arg.node,
            f"{checker.describe(arg.node)} must be a constant",
            f"{node.name}() cannot take its {param} from a column",
        )
    return arg.constant


def text_map(method: Callable[[pd.Series], pd.Series], type: str = "string") -> Callable:
    """A builder for a function of one string, such as upper()."""

    def build(checker: Checker, node: Call, text: Compiled) -> Compiled:
        text = _string(checker, node, text)
        return derive(node, type, text.nullable, method, text)

    return build


def text_test(method: Callable[[pd.Series, str], pd.Series], param: str) -> Callable:
    """A builder for a test of a string against a constant `param`, such as contains()."""

    def build(checker: Checker, node: Call, text: Compiled, part: Compiled) -> Compiled:
        text = _string(checker, node, text)
        value = _setting(checker, node, part, "string", param)
        if value is None:
            return constant(node, None, "boolean")

        def test(series: pd.Series) -> pd.Series:
            return with_nulls(method(series, value), null_mask(series))

        return derive(node, "boolean", text.nullable, test, text)

    return build


def build_replace(
    checker: Checker, node: Call, text: Compiled, old: Compiled, new: Compiled
) -> Compiled:
    """replace(text, old, new): every `old` replaced, counted against the size bound."""
    text = _string(checker, node, text)
    old_value = _setting(checker, node, old, "string", "old")
    new_value = _setting(checker, node, new, "string", "new")
    if old_value is None or new_value is None:
        return constant(node, None, "string")

    def replace(series: pd.Series) -> pd.Series:
        checker.bound(node, "replace", replaced_sizes(series, len(series), old_value, new_value))
        return series.str.replace(old_value, new_value, regex=False)

    return derive(node, "string", text.nullable, replace, text)


def build_substr(
    checker: Checker, node: Call, text: Compiled, start: Compiled, length: Compiled | None = None
) -> Compiled:
    """substr(text, start, length?): a slice from a constant position, counted from 1."""
    text = _string(checker, node, text)
    first = _setting(checker, node, start, "integer", "start")
    count = None if length is None else _setting(checker, node, length, "integer", "length")
    if first is None or (length is not None and count is None):
        return constant(node, None, "string")
    if first < 1:
        raise checker.error(start.node, f"{node.name}() counts from 1", "start must be 1 or more")
    if count is not None and count < 0:
        raise checker.error(length.node, f"{node.name}() cannot take a negative length")
    stop = None if count is None else min(first - 1 + count, MAX_INTEGER)
    return derive(node, "string", text.nullable, lambda s: s.str.slice(first - 1, stop), text)


def build_concat(checker: Checker, node: Call, *parts: Compiled) -> Compiled:
    """concat(text, ...): the texts joined, a null counting as `''`."""
    parts = tuple(_string(checker, node, part) for part in parts)

    def concat(*items: object) -> object:
        checker.bound(node, "concat", joined_sizes(*items))
        texts = [item.fillna("") if isinstance(item, pd.Series) else item for item in items]
        return reduce(operator.add, texts)

    return derive(node, "string", False, concat, *parts)


def numeric_map(method: Callable, keeps_integers: bool = False) -> Callable:
    """A builder for a function of one number that keeps its type, such as abs()."""

    def build(checker: Checker, node: Call, number: Compiled) -> Compiled:
        number = _number(checker, node, number)
        if keeps_integers and number.type == "integer":
            return number
        impl = method
        if keeps_integers and number.type == DECIMAL:  # floor, ceil: scale 0
            impl = partial(decimal_whole, node.name)
        return derive(node, number.type, number.nullable, impl, number)

    return build


def build_round(
    checker: Checker, node: Call, number: Compiled, digits: Compiled | None = None
) -> Compiled:
    """round(number, digits?): halves to even, keeping the number's type."""
    number = _number(checker, node, number)
    places = 0 if digits is None else _setting(checker, node, digits, "integer", "digits")
    if places is None:
        return constant(node, None, number.type)
    if abs(places) > MAX_DIGITS:
        limits = f"between -{MAX_DIGITS} and {MAX_DIGITS}"
        raise checker.error(digits.node, f"round() takes {limits} digits")
    if number.type == "integer" and places >= 0:
        return number
    impl = decimal_rounded if number.type == DECIMAL else rounded
    return derive(node, number.type, number.nullable, partial(impl, places), number)


def rounded(places: int, series: pd.Series) -> pd.Series:
    """`series` rounded to `places` decimal places, halves to even."""
    result = series.round(places)
    # numpy scales by 10**places first, which overflows for huge (already whole) floats
    return result.where(series.abs() < _EXACT_FLOATS, series) if places > 0 else result


def build_date(checker: Checker, node: Call, value: Compiled) -> Compiled:
    """date(value): a date from text (checked now when constant) or a datetime."""
    types = ("string", "date", "datetime")
    value = checker.expect(value, types, "a string, date or datetime", "date()")
    if value.type != "string":
        return derive(node, "date", value.nullable, to_date, value)
    if not value.is_constant:
        return derive(node, "date", True, text_to_date, value)
    if value.constant is None:
        return constant(node, None, "date")
    parsed = constant_date(value.constant)
    if parsed is None:
        message = f"invalid date {checker.describe(value.node)}"
        raise checker.error(value.node, message, "expected YYYY-MM-DD")
    return constant(node, parsed, "date")


def constant_date(text: str) -> date | None:
    """`text_to_date` of one text, without pandas: a constant such as TPC-H's
    `date('1994-01-01')` is read as the plan is made, and loading pandas for it would be a
    third of a DuckDB run's start-up."""
    if not re.fullmatch(_DATE_TEXT, text):
        return None
    try:
        return datetime.strptime(text[:10], "%Y-%m-%d").date()
    except ValueError:
        return None


def text_to_date(text: pd.Series) -> pd.Series:
    """Dates from `YYYY-MM-DD` text (a time after a space or `T` is ignored); else null."""
    shaped = text.str.fullmatch(_DATE_TEXT)
    stamps = pd.to_datetime(text.str.slice(0, 10).where(shaped), format="%Y-%m-%d", errors="coerce")
    return to_date(stamps)


def date_part(part: str) -> Callable:
    """A builder for year(), month() or day()."""

    def build(checker: Checker, node: Call, value: Compiled) -> Compiled:
        value = checker.expect(value, ("date", "datetime"), "a date or datetime", f"{part}()")
        return derive(node, "integer", value.nullable, lambda s: getattr(s.dt, part), value)

    return build


def build_coalesce(checker: Checker, node: Call, *args: Compiled) -> Compiled:
    """coalesce(value, ...): the first argument that is not null, row by row."""
    args = decimals.promoted(checker.text, args)
    type = checker.common_type(args, "coalesce() needs values of one type")
    if type == NULL:
        return constant(node, None, NULL)
    args = tuple(resolve(arg, type) for arg in args)

    nullable = all(arg.nullable for arg in args)
    impl = decimal_first_not_null if type == DECIMAL else partial(first_not_null, type)
    return derive(node, type, nullable, impl, *args)


def build_if(
    checker: Checker, node: Call, condition: Compiled, then: Compiled, otherwise: Compiled
) -> Compiled:
    """if(condition, then, else): `then` where the condition is true, else `else`."""
    condition = checker.expect(condition, ("boolean",), "a boolean", "if()")
    then, otherwise = decimals.promoted(checker.text, [then, otherwise])
    type = checker.common_type([then, otherwise], "if() needs both results of one type")
    if type == NULL:
        return constant(node, None, NULL)
    then, otherwise = resolve(then, type), resolve(otherwise, type)

    nullable = then.nullable or otherwise.nullable
    impl = decimal_choose if type == DECIMAL else partial(choose, type)
    return derive(node, type, nullable, impl, condition, then, otherwise)


def first_not_null(type: str, *items: object) -> pd.Series:
    """On each row, the first of `items` that is not null (null if all are)."""
    index = index_of(*items)
    result = _fillable(items[0], type, index)
    for item in items[1:]:
        result = result.where(result.notna(), _fillable(item, type, index))
    return result


def choose(type: str, test: object, yes: object, no: object) -> pd.Series:
    """`yes` where `test` is true, else `no` (a null test counts as false)."""
    index = index_of(test, yes, no)
    chosen = is_true(as_series(test, "boolean", index))
    return _fillable(yes, type, index).where(chosen, _fillable(no, type, index))


def _fillable(value: object, type: str, index: pd.Index) -> pd.Series:
    """`value` as a Series of `type` whose dtype can take nulls and any value of `type`."""
    return to_nullable(as_series(value, type, index))
