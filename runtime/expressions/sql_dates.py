"""DuckDB SQL for date arithmetic and the date functions, matching `dates.py` exactly.

Tested against pandas in tests/runtime/expressions/test_sql_dates.py. What needed care:

* DuckDB's `date + interval` is a TIMESTAMP (so is `date_trunc` of a DATE): cast back to DATE.
* A result outside the years 1 to 9999 is null, as in pandas (`dates.py` says why); a step
  beyond the whole range is null without asking DuckDB, which would overflow.
* `date + integer` wants a 32-bit integer: a count beyond the range gives null first.
* `date_diff('week', ...)` counts whole 7-day spans toward zero in both.
* Datetimes never get here: the lowering refuses them (pandas keeps time zones).
"""

from __future__ import annotations

import datetime

from runtime.errors import NotLowerable

from .dates import MAX_DAYS, MONTHS
from .nodes import Binary, Call, Interval, Literal, Node
from .sql_parts import NULL_SQL, Sql, cast, param, sql
from .values import NULL

INTERVAL_SQL = Sql("NULL", (), "interval")
"""An interval lowered on its own: a marker, read only through its node by the rules here."""
DATED = {"date", "datetime", "interval"}
_NULL_DATE = cast(NULL_SQL, "date")
_MAX_MONTHS = 12 * 9999


def lower_interval(lowering: object, node: Interval) -> Sql:
    return INTERVAL_SQL


def date_arithmetic(node: Binary, left: Sql, right: Sql) -> Sql:
    """`date ± interval`, `date ± integer` or `date - date` (as `dates.arithmetic_plan`)."""
    if right.type == "interval" or left.type == "interval":
        span, moved = (node.right, left) if right.type == "interval" else (node.left, right)
        amount = -span.amount if node.op == "-" else span.amount
        return shifted(moved, amount, span.unit)
    if node.op == "-" and left.type == right.type == "date":
        return sql("(", left, " - ", right, ")", type="integer")
    if node.op == "-" and (left.type, right.type) == (NULL, "date"):
        return cast(NULL_SQL, "integer")  # null - date: days, as in DuckDB
    dated, counted = (left, right) if left.type == "date" else (right, left)
    if counted.type == NULL or dated.type == NULL:
        return _NULL_DATE
    operator = " + " if node.op == "+" else " - "
    days = sql(
        "CASE WHEN ", counted, f" BETWEEN -{MAX_DAYS} AND {MAX_DAYS} THEN ",
        dated, operator, "CAST(", counted, " AS INTEGER) END",
        type="date",
    )  # fmt: skip
    return in_range(days)


def shifted(moved: Sql, amount: int, unit: str) -> Sql:
    """A date moved by `amount` `unit`s, null outside the years 1 to 9999."""
    if moved.type == NULL:
        return _NULL_DATE
    if moved.type != "date":
        raise NotLowerable("datetimes do not run on DuckDB")
    if unit in ("day", "week"):
        steps = amount * (7 if unit == "week" else 1)
        if abs(steps) > MAX_DAYS:
            return _NULL_DATE
        return in_range(sql("(", moved, " + ", param(steps, "integer"), "::INTEGER)", type="date"))
    months = amount * MONTHS[unit]
    if abs(months) > _MAX_MONTHS:
        return _NULL_DATE
    step = sql("to_months(", param(months, "integer"), "::INTEGER)")
    return in_range(sql("CAST(", moved, " + ", step, " AS DATE)", type="date"))


def in_range(dates: Sql) -> Sql:
    """`dates`, null outside the years 1 to 9999."""
    first = param(datetime.date(1, 1, 1), "date")
    last = param(datetime.date(9999, 12, 31), "date")
    return sql(
        "CASE WHEN ", dates, " BETWEEN ", first, " AND ", last, " THEN ", dates, " END",
        type="date",
    )  # fmt: skip


def _unit(node: Node) -> Sql | None:
    """The unit argument of date_trunc() or date_diff() as a parameter (None: a null unit)."""
    if not isinstance(node, Literal):
        raise NotLowerable("a date unit runs on DuckDB only when written as a plain value")
    if node.value is None:
        return None
    return param(str(node.value).lower(), "string")


def _part(name: str):
    def build(node: Call, value: Sql) -> Sql:
        if name in ("hour", "minute", "second"):
            if value.type == NULL:
                return cast(NULL_SQL, "integer")
            raise NotLowerable("datetimes do not run on DuckDB")
        return sql(f"{name}(", cast(value, "date"), ")", type="integer")

    return build


def _timestamp(node: Call, value: Sql) -> Sql:
    raise NotLowerable("datetimes do not run on DuckDB: pandas keeps each column's time zone")


def _date_trunc(node: Call, unit: Sql, value: Sql) -> Sql:
    part = _unit(node.args[0])
    if part is None or value.type == NULL:
        return _NULL_DATE
    return sql("CAST(date_trunc(", part, ", ", value, ") AS DATE)", type="date")


def _date_diff(node: Call, unit: Sql, start: Sql, end: Sql) -> Sql:
    part = _unit(node.args[0])
    if part is None or NULL in (start.type, end.type):
        return cast(NULL_SQL, "integer")
    return sql("date_diff(", part, ", ", start, ", ", end, ")", type="integer")


def _date_add(node: Call, value: Sql, span: Sql) -> Sql:
    if span.type == NULL:
        return _NULL_DATE
    interval = node.args[1]
    return shifted(value, interval.amount, interval.unit)


DATE_FUNCTIONS = {
    **{name: _part(name) for name in ("quarter", "week", "dayofweek", "dayofyear")},
    **{name: _part(name) for name in ("hour", "minute", "second")},
    "timestamp": _timestamp,
    "date_trunc": _date_trunc,
    "date_diff": _date_diff,
    "date_add": _date_add,
}
"""How each function of `functions.DATE_FUNCTIONS` lowers, by name."""
