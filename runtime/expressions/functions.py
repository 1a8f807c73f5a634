"""The whitelist of functions an expression may call, with their type rules and pandas code.

`FUNCTIONS` is the only way a name in an expression reaches code: a name that is not a key
here is an error. Each entry's `usage` string is both the documentation shown in errors and
the source of its argument count (`name?` is optional, `...` repeats the last argument).
Arguments that configure a function (a search string, a position) must be constants. Its
`returns` and one-line `help` are what the editor's completion, `GET /api/expressions` and
the function table of docs/expressions.md say of it (`runtime.expressions.language`). How
each one is type-checked and computed is in `function_builders.py`, by family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime.lazy import np
from runtime.suggestions import suggestion

from .conditionals import build_nullif
from .dates import build_date_add, build_date_diff, build_date_trunc, build_timestamp, part_builder
from .function_builders import (
    build_coalesce,
    build_concat,
    build_date,
    build_if,
    build_replace,
    build_round,
    build_substr,
    date_part,
    numeric_map,
    text_map,
    text_test,
)
from .nodes import Call
from .type_checks import Checker
from .values import Compiled


def _floor(values):
    """numpy's floor, looked up when called: numpy loads with the first frame."""
    return np.floor(values)


def _ceil(values):
    """numpy's ceil, looked up when called."""
    return np.ceil(values)


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


DATE_FUNCTIONS = (
    Function(
        "quarter(value)",
        part_builder("quarter"),
        "integer",
        "The quarter (1 to 4) of a date or datetime; also `extract(quarter from x)`.",
    ),
    Function(
        "week(value)",
        part_builder("week"),
        "integer",
        "The ISO week (1 to 53, weeks start on Monday): `week(date '2021-01-01')` is `53`.",
    ),
    Function(
        "dayofweek(value)",
        part_builder("dayofweek"),
        "integer",
        "The day of the week, Sunday = 0 to Saturday = 6 (as DuckDB).",
    ),
    Function(
        "dayofyear(value)",
        part_builder("dayofyear"),
        "integer",
        "The day of the year, 1 to 366.",
    ),
    Function(
        "hour(value)",
        part_builder("hour"),
        "integer",
        "The hour (0 to 23) of a datetime.",
    ),
    Function(
        "minute(value)",
        part_builder("minute"),
        "integer",
        "The minute (0 to 59) of a datetime.",
    ),
    Function(
        "second(value)",
        part_builder("second"),
        "integer",
        "The whole seconds (0 to 59) of a datetime.",
    ),
    Function(
        "timestamp(value)",
        build_timestamp,
        "datetime",
        "A datetime from `YYYY-MM-DD hh:mm:ss` text (other text gives null), or a date's "
        "midnight; also written `timestamp '1998-12-01 10:00:00'`.",
    ),
    Function(
        "date_add(value, interval)",
        build_date_add,
        "date",
        "The date or datetime moved by an interval, as `+`: "
        "`date_add(date '2024-01-31', interval 1 month)` is `2024-02-29`.",
    ),
    Function(
        "date_diff(unit, start, end)",
        build_date_diff,
        "integer",
        "How many `unit` boundaries (constant: 'day', 'week', 'month', 'quarter', 'year'; "
        "'hour', 'minute', 'second' for datetimes) lie from start to end: "
        "`date_diff('month', date '2024-01-31', date '2024-02-01')` is `1`.",
    ),
    Function(
        "date_trunc(unit, value)",
        build_date_trunc,
        "date",
        "The date or datetime cut back to the start of its `unit` (constant, as for "
        "date_diff; weeks start on Monday): `date_trunc('month', date '2024-02-29')` is "
        "`2024-02-01`. Keeps the type.",
    ),
)
"""The date functions beyond date(), year(), month() and day() (runtime/expressions/dates.py)."""

FUNCTIONS: dict[str, Function] = {
    function.name: function
    for function in (
        Function(
            "upper(text)",
            text_map(lambda s: s.str.upper()),
            "string",
            "The text in upper case: `upper('Ab')` is `'AB'`.",
        ),
        Function(
            "lower(text)",
            text_map(lambda s: s.str.lower()),
            "string",
            "The text in lower case: `lower('Ab')` is `'ab'`.",
        ),
        Function(
            "strip(text)",
            text_map(lambda s: s.str.strip()),
            "string",
            "The text without leading and trailing whitespace: `strip('  a ')` is `'a'`.",
        ),
        Function(
            "len(text)",
            text_map(lambda s: s.str.len(), "integer"),
            "integer",
            "The number of characters: `len('abc')` is `3`.",
        ),
        Function(
            "contains(text, part)",
            text_test(lambda s, part: s.str.contains(part, regex=False), "part"),
            "boolean",
            "Whether `part` (constant, plain text, not a pattern) occurs in the text.",
        ),
        Function(
            "startswith(text, prefix)",
            text_test(lambda s, prefix: s.str.startswith(prefix), "prefix"),
            "boolean",
            "Whether the text starts with `prefix` (constant).",
        ),
        Function(
            "endswith(text, suffix)",
            text_test(lambda s, suffix: s.str.endswith(suffix), "suffix"),
            "boolean",
            "Whether the text ends with `suffix` (constant).",
        ),
        Function(
            "replace(text, old, new)",
            build_replace,
            "string",
            "Every `old` replaced by `new` (both constant, plain text): "
            "`replace('a-b-c', '-', '/')` is `'a/b/c'`.",
        ),
        Function(
            "concat(text, ...)",
            build_concat,
            "string",
            "The texts joined; a null counts as `''`, so the result is never null: "
            "`concat(first, ' ', last)`.",
        ),
        Function(
            "substr(text, start, length?)",
            build_substr,
            "string",
            "Up to `length` characters from position `start` (counted from 1; both constant), "
            "or the rest of the text: `substr('abcdef', 2, 3)` is `'bcd'`.",
        ),
        Function(
            "substring(text, start, length?)",
            build_substr,
            "string",
            "`substr()` by its SQL name, also written `substring(text from start for length)`: "
            "`substring('abcdef' from 2 for 3)` is `'bcd'`.",
        ),
        Function(
            "abs(number)",
            numeric_map(abs),
            "number",
            "The absolute value, of the same type.",
        ),
        Function(
            "round(number, digits?)",
            build_round,
            "number",
            "Rounded to `digits` (constant, -15 to 15, default 0) decimal places, halves to "
            "even: `round(2.5)` is `2.0`, `round(1234, -2)` is `1200`. Keeps the type.",
        ),
        Function(
            "floor(number)",
            numeric_map(_floor, keeps_integers=True),
            "number",
            "Rounded down to a whole number, of the same type: `floor(2.7)` is `2.0`.",
        ),
        Function(
            "ceil(number)",
            numeric_map(_ceil, keeps_integers=True),
            "number",
            "Rounded up to a whole number, of the same type: `ceil(2.1)` is `3.0`.",
        ),
        Function(
            "date(value)",
            build_date,
            "date",
            "A date from `YYYY-MM-DD` text (other text gives null), or a datetime's date.",
        ),
        Function(
            "year(value)",
            date_part("year"),
            "integer",
            "The year of a date or datetime.",
        ),
        Function(
            "month(value)",
            date_part("month"),
            "integer",
            "The month (1 to 12) of a date or datetime.",
        ),
        Function(
            "day(value)",
            date_part("day"),
            "integer",
            "The day of the month of a date or datetime.",
        ),
        *DATE_FUNCTIONS,
        Function(
            "coalesce(value, ...)",
            build_coalesce,
            "any",
            "The first argument that is not null; the arguments share a type.",
        ),
        Function(
            "if(condition, then, else)",
            build_if,
            "any",
            "`then` where the condition is true, `else` where it is false or null; "
            "both of one type.",
        ),
        Function(
            "nullif(value, other)",
            build_nullif,
            "any",
            "The value, but null where it equals `other` (compared as `=` does): "
            "`nullif(discount, 0)`.",
        ),
    )
}
"""Every function an expression may call, by lower-case name."""
