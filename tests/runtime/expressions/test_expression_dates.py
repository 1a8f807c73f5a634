"""Dates in the expression language: SQL-style literals, intervals, date arithmetic with
DuckDB's month-end clamping, extract() and the date functions, and the errors they give."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.expressions import ExpressionError, evaluate, infer_type, parse
from runtime.expressions.dates import shift_dates, shifted_date
from runtime.expressions.function_builders import constant_date, text_to_date
from runtime.expressions.nodes import Call, Interval, Literal
from runtime.tables.schema import date_dtype, schema_of

FRAME = pd.DataFrame(
    {
        "d": pd.Series(
            [dt.date(2024, 1, 31), None, dt.date(9999, 12, 31), dt.date(2024, 2, 29)],
            dtype=date_dtype(),
        ),
        "i": [1, 2, 3, 4],
        "s": ["a", "b", "c", "d"],
        "t": pd.to_datetime(
            ["2024-01-31 10:30:00", None, "2020-02-29 23:59:59", "2021-01-01 00:00:00"]
        ),
    }
)

LAST_BUT_ONE, DAY_BEFORE_LAST, LEAP_EVE = (
    dt.date(9998, 12, 31),
    dt.date(9999, 12, 30),
    dt.date(2024, 2, 28),
)


def values(text: str) -> list:
    return [None if pd.isna(value) else value for value in evaluate(text, FRAME)]


def test_a_date_literal_is_the_date_call():
    assert parse("date '1998-12-01'") == parse("date('1998-12-01')")
    assert parse("DATE '1998-12-01'") == Call("date", (Literal("1998-12-01"),))
    assert values("date '1998-12-01'") == [dt.date(1998, 12, 1)] * 4


def test_a_timestamp_literal_is_a_datetime():
    assert values("timestamp '1998-12-01 10:00:00'") == [pd.Timestamp("1998-12-01 10:00")] * 4
    assert infer_type("timestamp '1998-12-01 10:00:00'", schema_of(FRAME))[0] == "datetime"


def test_date_and_interval_stay_usable_as_column_names():
    frame = pd.DataFrame({"date": [1], "interval": [2], "extract": [3], "timestamp": [4]})
    assert evaluate("date + interval + extract + timestamp", frame).tolist() == [10]
    assert evaluate("interval - 1", frame).tolist() == [1]


@pytest.mark.parametrize(
    ("text", "amount", "unit"),
    [
        ("interval '90' day", 90, "day"),
        ("interval 3 month", 3, "month"),
        ("INTERVAL '1' YEAR", 1, "year"),
        ("interval 2 weeks", 2, "week"),
        ("interval -2 quarters", -2, "quarter"),
        ("interval ' -7 ' hours", -7, "hour"),
    ],
)
def test_an_interval_reads_its_amount_and_unit(text, amount, unit):
    assert parse(f"d + {text}").right == Interval(amount, unit)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("d + interval 1 month", [dt.date(2024, 2, 29), None, None, dt.date(2024, 3, 29)]),
        ("d - interval '1' year", [dt.date(2023, 1, 31), None, LAST_BUT_ONE, dt.date(2023, 2, 28)]),
        ("d + interval 1 quarter", [dt.date(2024, 4, 30), None, None, dt.date(2024, 5, 29)]),
        ("interval 2 weeks + d", [dt.date(2024, 2, 14), None, None, dt.date(2024, 3, 14)]),
        ("date_add(d, interval -1 day)", [dt.date(2024, 1, 30), None, DAY_BEFORE_LAST, LEAP_EVE]),
        ("d + i", [dt.date(2024, 2, 1), None, None, dt.date(2024, 3, 4)]),
        ("d - date '2024-01-01'", [30, None, 2913173, 59]),
        ("d + null", [None] * 4),
    ],
)  # fmt: skip
def test_date_arithmetic_clamps_to_month_ends_and_is_null_past_year_9999(text, expected):
    assert values(text) == expected


def test_a_datetime_moves_by_an_interval():
    assert values("t + interval 3 hours")[0] == pd.Timestamp("2024-01-31 13:30")
    assert values("t - interval 1 month")[2] == pd.Timestamp("2020-01-29 23:59:59")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("extract(year from d)", [2024, None, 9999, 2024]),
        ("extract(quarter from d)", [1, None, 4, 1]),
        ("extract(week from d)", [5, None, 52, 9]),
        ("extract(dayofweek from d)", [3, None, 5, 4]),
        ("extract(dayofyear from d)", [31, None, 365, 60]),
        ("extract(hour from t)", [10, None, 23, 0]),
        ("extract(second from t)", [0, None, 59, 0]),
        ("week(date '2021-01-01')", [53] * 4),
        ("dayofweek(date '2024-03-31')", [0] * 4),
    ],
)
def test_extract_and_the_part_functions_follow_duckdb(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("date_diff('week', date '2024-01-06', date '2024-01-08')", 0),
        ("date_diff('week', date '2024-01-10', date '2024-01-03')", -1),
        ("date_diff('month', date '2024-01-31', date '2024-02-01')", 1),
        ("date_diff('year', date '2024-12-31', date '2025-01-01')", 1),
        ("date_diff('quarter', date '2024-03-31', date '2024-04-01')", 1),
        ("date_diff('hour', timestamp '2024-01-01 10:59:00', timestamp '2024-01-01 11:00:00')", 1),
        ("date_trunc('month', date '2024-02-29')", dt.date(2024, 2, 1)),
        ("date_trunc('week', date '2024-02-29')", dt.date(2024, 2, 26)),
        ("date_trunc('quarter', date '2024-05-17')", dt.date(2024, 4, 1)),
        ("date_trunc('hour', timestamp '2024-01-01 10:59:00')", pd.Timestamp("2024-01-01 10:00")),
    ],
)
def test_date_diff_counts_boundaries_and_date_trunc_keeps_the_type(text, expected):
    assert values(text)[0] == expected


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("d - s", "'-' does not work on date and string: 'd' is date, 's' is string", 1),
        ("interval 1 day", "an interval is not a value on its own", 1),
        ("year(interval 1 day)", "an interval is not a value on its own", 6),
        ("d + interval 1 day = interval 1 day", "an interval is not a value on its own", 22),
        ("d + interval 1 hour", "a date moves by whole days, not hours", 5),
        ("interval 1 day - d", "an interval cannot have a date subtracted from it", 1),
        (
            "s + interval 1 day",
            "'\\+' moves a date or datetime by an interval, but 's' is string",
            1,
        ),
        ("d + interval 1.5 day", "an interval's amount must be a whole number", 14),
        ("d + interval 1 fortnight", "expected an interval unit but got 'fortnight'", 16),
        ("extract(century from d)", "extract\\(\\) cannot take 'century'", 9),
        ("extract(year of d)", "unexpected 'of'", 14),
        ("date_trunc('hour', d)", "date_trunc\\(\\) cannot take the unit 'hour' for a date", 12),
        ("date_diff(s, d, d)", "'s' must be a constant", 11),
        ("date_add(d, 3)", "date_add\\(\\) expects an interval but '3' is integer", 13),
        ("t - t", "'-' does not work on datetime and datetime", 1),
        ("hour(d)", "hour\\(\\) expects a datetime but 'd' is date", 6),
        ("date '2024-02-30'", "invalid date '2024-02-30'", 6),
        ("timestamp 'soon'", "invalid timestamp 'soon'", 11),
        ("timestamp '3000-01-01 00:00:00'", "invalid timestamp .* in the years 1677 to 2262", 11),
    ],
)
def test_date_mistakes_are_expression_errors_at_their_position(text, message, column):
    with pytest.raises(ExpressionError, match=message) as raised:
        infer_type(text, schema_of(FRAME))
    assert raised.value.column == column


DATE_TEXTS = st.one_of(
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ].{0,5})?", fullmatch=True),
    st.text(alphabet="0123456789-T :x\n٣", max_size=14),
    st.sampled_from(["0000-01-01", "0001-01-01", "9999-12-31", "2023-02-29", "2024-02-29"]),
)


@given(DATE_TEXTS)
def test_a_constant_date_is_read_as_the_column_reading_reads_it(text):
    """`date('…')` of a constant is read without pandas as the plan is made; a column of text
    through `text_to_date`: the same text gives the same date, or null, either way."""
    column = text_to_date(pd.Series([text], dtype="str")).iloc[0]
    assert constant_date(text) == (None if pd.isna(column) else column)


@given(
    day=st.dates(),
    amount=st.one_of(st.integers(-30, 30), st.integers(-(10**7), 10**7)),
    unit=st.sampled_from(["day", "week", "month", "quarter", "year"]),
)
def test_a_constant_date_moved_by_an_interval_is_folded_as_a_column_is_moved(day, amount, unit):
    """`date '…' + interval …` is folded in Python as the plan is made; a column of dates
    moves through `shift_dates`: the same day (month ends clamped), or null, either way."""
    column = shift_dates(amount, unit, pd.Series([day], dtype=date_dtype())).iloc[0]
    assert shifted_date(amount, unit, day) == (None if pd.isna(column) else column)
