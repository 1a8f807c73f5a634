"""The whitelist of functions an expression may call, with their type rules and pandas code.

`FUNCTIONS` is the only way a name in an expression reaches code: a name that is not a key
here is an error. Each entry's `usage` string is both the documentation shown in errors and
the source of its argument count (`name?` is optional, `...` repeats the last argument).
Arguments that configure a function (a search string, a position) must be constants. Its
`returns` and one-line `help` are what the editor's completion, `GET /api/expressions` and
the function table of docs/expressions.md say of it (`runtime.expressions.language`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial, reduce

import numpy as np

from runtime.lazy import pd
from runtime.suggestions import suggestion

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


@dataclass(frozen=True)
class Function:
    """A callable name: its usage, e.g. `substr(text, start, length?)`, its builder, the type
    of its result and what it does, in one line."""

    usage: str
    build: Callable[..., Compiled]
    returns: str
    help: str

    @property
    def name(self) -> str:
        return self.usage.partition("(")[0]

    @property
    def arity(self) -> tuple[int, int | None]:
        """The least and most arguments accepted (None: no limit)."""
        params = self.usage[len(self.name) + 1 : -1].split(", ")
        if params[-1] == "...":
            return len(params) - 1, None
        return sum(not param.endswith("?") for param in params), len(params)


def lookup(checker: Checker, node: Call) -> Function:
    """The function `node` calls, after checking it exists and gets the right argument count."""
    function = FUNCTIONS.get(node.name)
    if function is None:
        hint = suggestion(node.name, FUNCTIONS)
        raise checker.error(node, f"unknown function '{node.name}'", hint)
    least, most = function.arity
    if len(node.args) < least or (most is not None and len(node.args) > most):
        raise checker.error(
            node,
            f"{node.name}() expects {_count(least, most)} but got {len(node.args)}",
            f"usage: {function.usage}",
        )
    return function


def _count(least: int, most: int | None) -> str:
    noun = "argument" if (most or least) == 1 else "arguments"
    if most is None:
        return f"at least {least} {noun}"
    return f"{least} {noun}" if least == most else f"{least} or {most} {noun}"


def _string(checker: Checker, node: Call, arg: Compiled) -> Compiled:
    return checker.expect(arg, ("string",), "a string", f"{node.name}()")


def _number(checker: Checker, node: Call, arg: Compiled) -> Compiled:
    return checker.expect(arg, NUMBERS, "a number", f"{node.name}()")


def _setting(checker: Checker, node: Call, arg: Compiled, type: str, param: str) -> object:
    """The value of an argument that must be a constant of `type` (None for null)."""
    what = "an integer" if type == "integer" else f"a {type}"
    arg = checker.expect(arg, (type,), what, f"{node.name}()")
    if not arg.is_constant:
        raise checker.error(
            arg.node,
            f"{checker.describe(arg.node)} must be a constant",
            f"{node.name}() cannot take its {param} from a column",
        )
    return arg.constant


def _text_map(method: Callable[[pd.Series], pd.Series], type: str = "string") -> Callable:
    """A builder for a function of one string, such as upper()."""

    def build(checker: Checker, node: Call, text: Compiled) -> Compiled:
        text = _string(checker, node, text)
        return derive(node, type, text.nullable, method, text)

    return build


def _text_test(method: Callable[[pd.Series, str], pd.Series], param: str) -> Callable:
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


def _replace(
    checker: Checker, node: Call, text: Compiled, old: Compiled, new: Compiled
) -> Compiled:
    text = _string(checker, node, text)
    old_value = _setting(checker, node, old, "string", "old")
    new_value = _setting(checker, node, new, "string", "new")
    if old_value is None or new_value is None:
        return constant(node, None, "string")

    def replace(series: pd.Series) -> pd.Series:
        checker.bound(node, "replace", replaced_sizes(series, len(series), old_value, new_value))
        return series.str.replace(old_value, new_value, regex=False)

    return derive(node, "string", text.nullable, replace, text)


def _substr(
    checker: Checker, node: Call, text: Compiled, start: Compiled, length: Compiled | None = None
) -> Compiled:
    text = _string(checker, node, text)
    first = _setting(checker, node, start, "integer", "start")
    count = None if length is None else _setting(checker, node, length, "integer", "length")
    if first is None or (length is not None and count is None):
        return constant(node, None, "string")
    if first < 1:
        raise checker.error(start.node, "substr() counts from 1", "start must be 1 or more")
    if count is not None and count < 0:
        raise checker.error(length.node, "substr() cannot take a negative length")
    stop = None if count is None else min(first - 1 + count, MAX_INTEGER)
    return derive(node, "string", text.nullable, lambda s: s.str.slice(first - 1, stop), text)


def _concat(checker: Checker, node: Call, *parts: Compiled) -> Compiled:
    parts = tuple(_string(checker, node, part) for part in parts)

    def concat(*items: object) -> object:
        checker.bound(node, "concat", joined_sizes(*items))
        texts = [item.fillna("") if isinstance(item, pd.Series) else item for item in items]
        return reduce(operator.add, texts)

    return derive(node, "string", False, concat, *parts)


def _numeric_map(method: Callable, keeps_integers: bool = False) -> Callable:
    """A builder for a function of one number that keeps its type, such as abs()."""

    def build(checker: Checker, node: Call, number: Compiled) -> Compiled:
        number = _number(checker, node, number)
        if keeps_integers and number.type == "integer":
            return number
        return derive(node, number.type, number.nullable, method, number)

    return build


def _round(
    checker: Checker, node: Call, number: Compiled, digits: Compiled | None = None
) -> Compiled:
    number = _number(checker, node, number)
    places = 0 if digits is None else _setting(checker, node, digits, "integer", "digits")
    if places is None:
        return constant(node, None, number.type)
    if abs(places) > MAX_DIGITS:
        limits = f"between -{MAX_DIGITS} and {MAX_DIGITS}"
        raise checker.error(digits.node, f"round() takes {limits} digits")
    if number.type == "integer" and places >= 0:
        return number

    return derive(node, number.type, number.nullable, partial(rounded, places), number)


def rounded(places: int, series: pd.Series) -> pd.Series:
    """`series` rounded to `places` decimal places, halves to even."""
    result = series.round(places)
    # numpy scales by 10**places first, which overflows for huge (already whole) floats
    return result.where(series.abs() < _EXACT_FLOATS, series) if places > 0 else result


def _date(checker: Checker, node: Call, value: Compiled) -> Compiled:
    types = ("string", "date", "datetime")
    value = checker.expect(value, types, "a string, date or datetime", "date()")
    if value.type != "string":
        return derive(node, "date", value.nullable, to_date, value)
    if not value.is_constant:
        return derive(node, "date", True, text_to_date, value)
    if value.constant is None:
        return constant(node, None, "date")
    parsed = text_to_date(pd.Series([value.constant], dtype="str")).iloc[0]
    if pd.isna(parsed):
        message = f"invalid date {checker.describe(value.node)}"
        raise checker.error(value.node, message, "expected YYYY-MM-DD")
    return constant(node, parsed, "date")


def text_to_date(text: pd.Series) -> pd.Series:
    """Dates from `YYYY-MM-DD` text (a time after a space or `T` is ignored); else null."""
    shaped = text.str.fullmatch(_DATE_TEXT)
    stamps = pd.to_datetime(text.str.slice(0, 10).where(shaped), format="%Y-%m-%d", errors="coerce")
    return to_date(stamps)


def _date_part(part: str) -> Callable:
    """A builder for year(), month() or day()."""

    def build(checker: Checker, node: Call, value: Compiled) -> Compiled:
        value = checker.expect(value, ("date", "datetime"), "a date or datetime", f"{part}()")
        return derive(node, "integer", value.nullable, lambda s: getattr(s.dt, part), value)

    return build


def _coalesce(checker: Checker, node: Call, *args: Compiled) -> Compiled:
    type = checker.common_type(args, "coalesce() needs values of one type")
    if type == NULL:
        return constant(node, None, NULL)
    args = tuple(resolve(arg, type) for arg in args)

    nullable = all(arg.nullable for arg in args)
    return derive(node, type, nullable, partial(first_not_null, type), *args)


def _if(
    checker: Checker, node: Call, condition: Compiled, then: Compiled, otherwise: Compiled
) -> Compiled:
    condition = checker.expect(condition, ("boolean",), "a boolean", "if()")
    type = checker.common_type([then, otherwise], "if() needs both results of one type")
    if type == NULL:
        return constant(node, None, NULL)
    then, otherwise = resolve(then, type), resolve(otherwise, type)

    nullable = then.nullable or otherwise.nullable
    return derive(node, type, nullable, partial(choose, type), condition, then, otherwise)


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


FUNCTIONS: dict[str, Function] = {
    function.name: function
    for function in (
        Function(
            "upper(text)",
            _text_map(lambda s: s.str.upper()),
            "string",
            "The text in upper case: `upper('Ab')` is `'AB'`.",
        ),
        Function(
            "lower(text)",
            _text_map(lambda s: s.str.lower()),
            "string",
            "The text in lower case: `lower('Ab')` is `'ab'`.",
        ),
        Function(
            "strip(text)",
            _text_map(lambda s: s.str.strip()),
            "string",
            "The text without leading and trailing whitespace: `strip('  a ')` is `'a'`.",
        ),
        Function(
            "len(text)",
            _text_map(lambda s: s.str.len(), "integer"),
            "integer",
            "The number of characters: `len('abc')` is `3`.",
        ),
        Function(
            "contains(text, part)",
            _text_test(lambda s, part: s.str.contains(part, regex=False), "part"),
            "boolean",
            "Whether `part` (constant, plain text, not a pattern) occurs in the text.",
        ),
        Function(
            "startswith(text, prefix)",
            _text_test(lambda s, prefix: s.str.startswith(prefix), "prefix"),
            "boolean",
            "Whether the text starts with `prefix` (constant).",
        ),
        Function(
            "endswith(text, suffix)",
            _text_test(lambda s, suffix: s.str.endswith(suffix), "suffix"),
            "boolean",
            "Whether the text ends with `suffix` (constant).",
        ),
        Function(
            "replace(text, old, new)",
            _replace,
            "string",
            "Every `old` replaced by `new` (both constant, plain text): "
            "`replace('a-b-c', '-', '/')` is `'a/b/c'`.",
        ),
        Function(
            "concat(text, ...)",
            _concat,
            "string",
            "The texts joined; a null counts as `''`, so the result is never null: "
            "`concat(first, ' ', last)`.",
        ),
        Function(
            "substr(text, start, length?)",
            _substr,
            "string",
            "Up to `length` characters from position `start` (counted from 1; both constant), "
            "or the rest of the text: `substr('abcdef', 2, 3)` is `'bcd'`.",
        ),
        Function(
            "abs(number)",
            _numeric_map(abs),
            "number",
            "The absolute value, of the same type.",
        ),
        Function(
            "round(number, digits?)",
            _round,
            "number",
            "Rounded to `digits` (constant, -15 to 15, default 0) decimal places, halves to "
            "even: `round(2.5)` is `2.0`, `round(1234, -2)` is `1200`. Keeps the type.",
        ),
        Function(
            "floor(number)",
            _numeric_map(np.floor, keeps_integers=True),
            "number",
            "Rounded down to a whole number, of the same type: `floor(2.7)` is `2.0`.",
        ),
        Function(
            "ceil(number)",
            _numeric_map(np.ceil, keeps_integers=True),
            "number",
            "Rounded up to a whole number, of the same type: `ceil(2.1)` is `3.0`.",
        ),
        Function(
            "date(value)",
            _date,
            "date",
            "A date from `YYYY-MM-DD` text (other text gives null), or a datetime's date.",
        ),
        Function(
            "year(value)",
            _date_part("year"),
            "integer",
            "The year of a date or datetime.",
        ),
        Function(
            "month(value)",
            _date_part("month"),
            "integer",
            "The month (1 to 12) of a date or datetime.",
        ),
        Function(
            "day(value)",
            _date_part("day"),
            "integer",
            "The day of the month of a date or datetime.",
        ),
        Function(
            "coalesce(value, ...)",
            _coalesce,
            "any",
            "The first argument that is not null; the arguments share a type.",
        ),
        Function(
            "if(condition, then, else)",
            _if,
            "any",
            "`then` where the condition is true, `else` where it is false or null; "
            "both of one type.",
        ),
    )
}
"""Every function an expression may call, by lower-case name."""
