"""Date arithmetic and the date functions, type-checked and computed with pandas.

DuckDB's semantics throughout (it is the reference for TPC-H answers): a month, quarter or
year step clamps to the end of a shorter month (`date '2024-01-31' + interval 1 month` is
2024-02-29); `date - date` is a whole number of days; `date_diff` counts the boundaries of
its unit crossed (weeks: whole 7-day spans, toward zero); `dayofweek` counts from Sunday = 0;
`week` is the ISO week. A date computed outside the years 1 to 9999 is null (a `date32` holds
it, but no Python date can, so nothing downstream could show it); both engines agree on that.

The row-wise helpers (`shift_dates`, `add_days`, ...) are plain functions of Series that a
compiled script carries (runtime/compile/expressions.py), so how a node computes is decided
once, in `arithmetic_plan`, for the runtime and the script alike. The SQL is in `sql_dates.py`.
"""

from __future__ import annotations

import calendar
import datetime
from dataclasses import dataclass

from runtime.lazy import np, pa, pd
from runtime.tables.schema import a_type, date_dtype

from .date_syntax import DATE_UNITS, TIME_UNITS
from .nodes import Binary, Call, Interval, Node
from .type_checks import Checker
from .values import NULL, Compiled, as_series, constant, derive, index_of, resolve, to_nullable

TEMPORAL = ("date", "datetime")
FIRST_DAY, LAST_DAY = "0001-01-01", "9999-12-31"
"""The dates a `date` holds (numpy's datetime64[D] holds more), written as numpy reads them."""
MAX_DAYS = 3652058
"""Days from the first date to the last: a larger step always leaves the range."""
MONTHS = {"month": 1, "quarter": 3, "year": 12}
"""How many months each longer unit is."""
_TIME_STEPS = {"hour": "h", "minute": "min", "second": "s"}
_ARITHMETIC_HINT = (
    "a date takes + or - an integer (days) or an interval; a date minus a date gives days"
)


def interval(checker: Checker, node: Interval) -> Compiled:
    """An interval: known at compile time, and only ever read by the rules below."""
    return Compiled(node, "interval", False, _no_value, (node.amount, node.unit))


def _no_value(frame: pd.DataFrame) -> pd.Series:
    raise TypeError("an interval is not a value")


def involves_dates(left: Compiled, right: Compiled) -> bool:
    """Whether `left op right` is date arithmetic (`date_arithmetic` decides the rest)."""
    return bool({left.type, right.type} & {"date", "datetime", "interval"})


@dataclass(frozen=True)
class Plan:
    """How a date `+`/`-` computes: `helper(*settings, *operands' values)`, giving `type`."""

    helper: object
    settings: tuple
    operands: tuple[Compiled, ...]
    type: str
    nullable: bool


def date_arithmetic(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Compiled:
    """`date ± interval`, `datetime ± interval`, `date ± integer` or `date - date`."""
    plan = arithmetic_plan(checker, node, left, right)
    if plan is None:
        return constant(node, None, _result_type(left, right))
    settings = plan.settings
    if plan.helper is shift_dates and plan.operands[0].is_constant:
        moved = plan.operands[0].constant
        return constant(node, None if moved is None else shifted_date(*settings, moved), "date")

    def impl(*items: object) -> pd.Series:
        return plan.helper(*settings, *items)

    return derive(node, plan.type, plan.nullable, impl, *plan.operands)


def _result_type(left: Compiled, right: Compiled) -> str:
    """The type of a date `+`/`-` with a bare null: `null - date` is days, as in DuckDB."""
    if (left.type, right.type) == (NULL, "date"):
        return "integer"
    return "datetime" if "datetime" in (left.type, right.type) else "date"


def arithmetic_plan(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Plan | None:
    """The plan of a date `+`/`-`; None when the result can only be null."""
    op = node.op
    if "interval" in (left.type, right.type):
        return _interval_plan(checker, node, left, right)
    if op == "-" and left.type == right.type == "date":
        nullable = left.nullable or right.nullable
        return Plan(days_between, (), (left, right), "integer", nullable)
    if (left.type, right.type) == (NULL, "date") and op == "-":
        return None
    dated, counted = (left, right) if left.type == "date" else (right, left)
    if dated.type == "date" and counted.type in ("integer", NULL) and (op == "+" or dated is left):
        if counted.type == NULL:
            return None
        sign = 1 if op == "+" else -1
        return Plan(add_days, (sign,), (dated, counted), "date", True)
    raise checker.error(
        node,
        f"'{op}' does not work on {left.type} and {right.type}: "
        f"{checker.describe(node.left)} is {left.type}, {checker.describe(node.right)} "
        f"is {right.type}",
        "a datetime takes + or - an interval; use date_diff() for the time between two"
        if "datetime" in (left.type, right.type)
        else _ARITHMETIC_HINT,
    )


def _interval_plan(checker: Checker, node: Binary, left: Compiled, right: Compiled) -> Plan | None:
    span, moved = (right, left) if right.type == "interval" else (left, right)
    if span is left and node.op == "-":
        raise checker.error(
            node,
            "an interval cannot have a date subtracted from it",
            "write the date first: d - interval '1' day",
        )
    if moved.type not in (*TEMPORAL, NULL):
        raise checker.error(
            moved.node,
            f"'{node.op}' moves a date or datetime by an interval, "
            f"but {checker.describe(moved.node)} is {moved.type}",
        )
    amount, unit = span.constant
    amount = -amount if node.op == "-" else amount
    return shift_plan(checker, span.node, moved, amount, unit)


def shift_plan(
    checker: Checker, where: Node, moved: Compiled, amount: int, unit: str
) -> Plan | None:
    """`moved` (a date or datetime) moved by `amount` `unit`s; None when it is a bare null."""
    if moved.type == NULL:
        return None
    if moved.type == "date":
        if unit in TIME_UNITS:
            raise checker.error(
                where,
                f"a date moves by whole days, not {unit}s",
                "use a timestamp: timestamp '2024-01-01 10:00:00' + interval 1 hour",
            )
        return Plan(shift_dates, (amount, unit), (moved,), "date", True)
    return Plan(shift_datetimes, (amount, unit), (moved,), "datetime", moved.nullable)


# -- the row-wise helpers (carried by compiled scripts) ----------------------------------------


def _day(text: str) -> np.datetime64:
    """A day as numpy holds it (built when used: numpy loads with the first frame)."""
    return np.datetime64(text, "D")


def day_numbers(value: object, index: pd.Index) -> np.ndarray:
    """Dates as a numpy datetime64[D] array, NaT for null."""
    series = as_series(value, "date", index)
    return pa.array(series).to_numpy(zero_copy_only=False).astype("datetime64[D]")


def from_day_numbers(days: np.ndarray, index: pd.Index) -> pd.Series:
    """Dates from a datetime64[D] array, null outside the years 1 to 9999 (and for NaT)."""
    outside = (days < _day(FIRST_DAY)) | (days > _day(LAST_DAY))
    days = np.where(outside, _day("NaT"), days)
    return pd.Series(
        pa.array(days, type=pa.date32(), from_pandas=True), index=index, dtype=date_dtype()
    )


def plus_months(days: np.ndarray, months: int) -> np.ndarray:
    """`days` moved by `months`, the day clamped to the end of a shorter month (as DuckDB)."""
    month = days.astype("datetime64[M]")
    offset = days - month.astype("datetime64[D]")
    target = month + months
    length = (target + 1).astype("datetime64[D]") - target.astype("datetime64[D]")
    return target.astype("datetime64[D]") + np.minimum(offset, length - np.timedelta64(1, "D"))


def shift_dates(amount: int, unit: str, dates: pd.Series) -> pd.Series:
    """`dates` moved by `amount` `unit`s (day, week, month, quarter or year)."""
    days = day_numbers(dates, dates.index)
    if unit in ("day", "week"):
        steps = amount * (7 if unit == "week" else 1)
        moved = days + np.timedelta64(int(np.clip(steps, -2 * MAX_DAYS, 2 * MAX_DAYS)), "D")
    else:
        moved = plus_months(days, amount * MONTHS[unit])
    return from_day_numbers(moved, dates.index)


def shifted_date(amount: int, unit: str, day: datetime.date) -> datetime.date | None:
    """`shift_dates` of one date, in Python: `date '1994-01-01' + interval 1 year` (TPC-H's
    way of writing a range) is folded as the plan is made, without loading pandas."""
    if unit in ("day", "week"):
        ordinal = day.toordinal() + amount * (7 if unit == "week" else 1)
        inside = 1 <= ordinal <= datetime.date.max.toordinal()
        return datetime.date.fromordinal(ordinal) if inside else None
    year, month = divmod(day.year * 12 + day.month - 1 + amount * MONTHS[unit], 12)
    if not 1 <= year <= 9999:
        return None
    return datetime.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def shift_datetimes(amount: int, unit: str, times: pd.Series) -> pd.Series:
    """`times` moved by `amount` `unit`s; months clamp to the month's end, as for dates."""
    if unit in ("month", "quarter", "year"):
        return times + pd.DateOffset(months=amount * MONTHS[unit])
    if unit == "week":
        return times + pd.Timedelta(days=7 * amount)
    return times + pd.Timedelta(**{f"{unit}s": amount})


def days_between(later: object, earlier: object) -> pd.Series:
    """`later - earlier` in whole days, null where either is null."""
    index = index_of(later, earlier)
    difference = day_numbers(later, index) - day_numbers(earlier, index)
    missing = np.isnat(difference)
    counts = np.where(missing, 0, difference.astype("timedelta64[D]").astype("int64"))
    return pd.Series(pd.array(counts, dtype="Int64"), index=index).mask(missing)


def add_days(sign: int, dates: object, counts: object) -> pd.Series:
    """`dates` plus (`sign` 1) or minus (-1) `counts` days; null out of range."""
    index = index_of(dates, counts)
    steps = to_nullable(as_series(counts, "integer", index)).clip(-2 * MAX_DAYS, 2 * MAX_DAYS)
    missing = steps.isna().to_numpy()
    offsets = steps.fillna(0).to_numpy(dtype="int64") * sign
    moved = day_numbers(dates, index) + offsets.astype("timedelta64[D]")
    return from_day_numbers(np.where(missing, _day("NaT"), moved), index)


def date_part_of(part: str, values: pd.Series) -> pd.Series:
    """One part of each date or datetime, as DuckDB's `extract(part from x)` gives it."""
    accessor = values.dt
    if part == "week":
        found = accessor.isocalendar().week  # which gives 0, not null, for a null date
    elif part == "dayofweek":  # pandas counts from Monday = 0, DuckDB from Sunday = 0
        found = (accessor.day_of_week.astype("Int64") + 1) % 7
    else:
        found = getattr(accessor, {"dayofyear": "day_of_year"}.get(part, part))
    return found.astype("Int64").mask(values.isna())


def truncated(unit: str, values: pd.Series) -> pd.Series:
    """Each date or datetime cut back to the start of its `unit` (weeks start on Monday)."""
    if values.dtype == date_dtype():
        days = day_numbers(values, values.index)
        return from_day_numbers(_truncated_days(unit, days), values.index)
    if unit in _TIME_STEPS:
        return values.dt.floor(_TIME_STEPS[unit])
    zone = values.dt.tz
    local = values.dt.tz_localize(None) if zone is not None else values
    days = local.dt.normalize().to_numpy(dtype="datetime64[D]")
    cut = pd.Series(_truncated_days(unit, days).astype(local.dtype), index=values.index)
    return cut.dt.tz_localize(zone) if zone is not None else cut


def _truncated_days(unit: str, days: np.ndarray) -> np.ndarray:
    if unit == "day":
        return days
    if unit == "week":  # 1970-01-01 was a Thursday: Monday is 3 days before it
        since_monday = (days - np.datetime64("1969-12-29", "D")).astype("int64") % 7
        return days - since_monday.astype("timedelta64[D]")
    if unit == "year":
        return days.astype("datetime64[Y]").astype("datetime64[D]")
    months = days.astype("datetime64[M]")
    if unit == "quarter":
        months = months - (months.astype("int64") % 3).astype("timedelta64[M]")
    return months.astype("datetime64[D]")


def date_difference(unit: str, start: object, end: object) -> pd.Series:
    """How many `unit` boundaries lie between `start` and `end` (negative when end is first);
    weeks count whole 7-day spans, toward zero, as DuckDB's date_diff does."""
    index = index_of(start, end)
    if any(_holds_times(value) for value in (start, end)):
        return _datetime_difference(unit, start, end, index)
    first, last = day_numbers(start, index), day_numbers(end, index)
    return _day_difference(unit, first, last, index)


def _holds_times(value: object) -> bool:
    if isinstance(value, pd.Series):
        return value.dtype != date_dtype()
    return isinstance(value, pd.Timestamp)


def _day_difference(unit: str, first: np.ndarray, last: np.ndarray, index: pd.Index) -> pd.Series:
    missing = np.isnat(first) | np.isnat(last)
    first_day = _day(FIRST_DAY)
    first, last = np.where(missing, first_day, first), np.where(missing, first_day, last)
    if unit in ("day", "week"):
        days = (last - first).astype("int64")
        counts = days if unit == "day" else np.trunc(days / 7).astype("int64")
    else:
        size = MONTHS[unit]
        months_first = first.astype("datetime64[M]").astype("int64")
        months_last = last.astype("datetime64[M]").astype("int64")
        counts = months_last // size - months_first // size
    return pd.Series(pd.array(counts, dtype="Int64"), index=index).mask(missing)


def _datetime_difference(unit: str, start: object, end: object, index: pd.Index) -> pd.Series:
    first, last = (_naive(as_series(value, "datetime", index)) for value in (start, end))
    if unit in _TIME_STEPS:
        step = _TIME_STEPS[unit]
        missing = (first.isna() | last.isna()).to_numpy()
        span = last.dt.floor(step) - first.dt.floor(step)
        counts = (span // pd.Timedelta(1, step)).fillna(0).to_numpy(dtype="int64")
        return pd.Series(pd.array(counts, dtype="Int64"), index=index).mask(missing)
    days = (series.dt.normalize().to_numpy(dtype="datetime64[D]") for series in (first, last))
    return _day_difference(unit, *days, index)


def _naive(times: pd.Series) -> pd.Series:
    return times.dt.tz_localize(None) if times.dt.tz is not None else times


def text_to_timestamp(text: pd.Series) -> pd.Series:
    """Datetimes from `YYYY-MM-DD[ hh:mm[:ss[.ffffff]]]` text; other text, or a time outside
    the years 1677 to 2262, gives null."""
    shaped = text.str.fullmatch(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?)?"
    )
    times = pd.to_datetime(text.where(shaped), format="ISO8601", errors="coerce")
    # in nanoseconds, as a literal is held: null outside their range (1677 to 2262)
    inside = (times >= pd.Timestamp.min) & (times <= pd.Timestamp.max)
    return times.where(inside).astype("datetime64[ns]")


# -- the function builders (functions.FUNCTIONS names them) ------------------------------------


def part_builder(part: str) -> object:
    """A builder for quarter(), week(), dayofweek(), dayofyear(), hour(), minute(), second()."""
    types = ("datetime",) if part in TIME_UNITS else TEMPORAL
    what = "a datetime" if part in TIME_UNITS else "a date or datetime"

    def build(checker: Checker, node: Call, value: Compiled) -> Compiled:
        value = checker.expect(value, types, what, f"{part}()")
        return derive(node, "integer", value.nullable, lambda s: date_part_of(part, s), value)

    return build


def _unit(checker: Checker, node: Call, arg: Compiled, value_type: str) -> str | None:
    """The constant unit argument of date_trunc() or date_diff(), checked."""
    arg = checker.expect(arg, ("string",), "a unit such as 'month'", f"{node.name}()")
    if not arg.is_constant:
        raise checker.error(
            arg.node,
            f"{checker.describe(arg.node)} must be a constant",
            f"{node.name}() cannot take its unit from a column",
        )
    if arg.constant is None:
        return None
    units = DATE_UNITS if value_type == "date" else (*DATE_UNITS, *TIME_UNITS)
    unit = str(arg.constant).lower()
    if unit not in units:
        raise checker.error(
            arg.node,
            f"{node.name}() cannot take the unit {checker.describe(arg.node)} "
            f"for {a_type(value_type)}",
            f"one of {', '.join(units)}",
        )
    return unit


def build_date_trunc(checker: Checker, node: Call, unit: Compiled, value: Compiled) -> Compiled:
    """date_trunc('unit', x): x cut back to the start of its unit, of x's type."""
    value = checker.expect(value, TEMPORAL, "a date or datetime", "date_trunc()")
    name = _unit(checker, node, unit, value.type)
    if name is None:
        return constant(node, None, value.type)
    nullable = value.nullable or value.type == "date"
    return derive(node, value.type, nullable, lambda s: truncated(name, s), value)


def build_date_diff(
    checker: Checker, node: Call, unit: Compiled, start: Compiled, end: Compiled
) -> Compiled:
    """date_diff('unit', start, end): the unit boundaries crossed from start to end."""
    for value in (start, end):
        checker.expect(value, TEMPORAL, "dates or datetimes", "date_diff()")
    type = checker.common_type([start, end], "date_diff() needs two dates or two datetimes")
    type = "date" if type == NULL else type
    name = _unit(checker, node, unit, type)
    if name is None:
        return constant(node, None, "integer")
    start, end = resolve(start, type), resolve(end, type)
    impl = lambda first, last: date_difference(name, first, last)  # noqa: E731
    return derive(node, "integer", start.nullable or end.nullable, impl, start, end)


def build_date_add(checker: Checker, node: Call, value: Compiled, span: Compiled) -> Compiled:
    """date_add(x, interval ...): the same as `x + interval ...`."""
    value = checker.expect(value, TEMPORAL, "a date or datetime", "date_add()")
    if span.type == NULL:
        return constant(node, None, value.type)
    if span.type != "interval":
        raise checker.error(
            span.node,
            f"date_add() expects an interval but {checker.describe(span.node)} is {span.type}",
            "e.g. date_add(d, interval '3' month)",
        )
    plan = shift_plan(checker, span.node, value, *span.constant)
    return derive(node, plan.type, plan.nullable, lambda s: plan.helper(*plan.settings, s), value)


def build_timestamp(checker: Checker, node: Call, value: Compiled) -> Compiled:
    """timestamp(text): a datetime from text (checked now when constant), or a date's midnight."""
    value = checker.expect(value, ("string", "date", "datetime"), "a string or date", "timestamp()")
    if value.type == "datetime":
        return value
    if value.type == "date":
        return derive(node, "datetime", value.nullable, date_to_timestamp, value)
    if not value.is_constant:
        return derive(node, "datetime", True, text_to_timestamp, value)
    if value.constant is None:
        return constant(node, None, "datetime")
    parsed = text_to_timestamp(pd.Series([value.constant], dtype="str")).iloc[0]
    if pd.isna(parsed):
        message = f"invalid timestamp {checker.describe(value.node)}"
        raise checker.error(
            value.node, message, "expected YYYY-MM-DD hh:mm:ss in the years 1677 to 2262"
        )
    return constant(node, parsed, "datetime")


def date_to_timestamp(dates: pd.Series) -> pd.Series:
    """Each date's midnight, as a datetime."""
    return pd.Series(day_numbers(dates, dates.index).astype("datetime64[s]"), index=dates.index)
