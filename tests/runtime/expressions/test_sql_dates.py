"""Dates on DuckDB give pandas' answers: date arithmetic, intervals, extract and the date
functions over a few hundred dates (month ends, leap days, the first and last dates, nulls)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from runtime.errors import NotLowerable
from runtime.expressions.to_sql import to_sql
from runtime.tables.schema import Column, Schema, date_dtype
from tests.runtime.backends.both import Step
from tests.runtime.backends.both import assert_same as assert_same_both_ways
from tests.runtime.expressions.test_to_sql import assert_same, con  # noqa: F401


def _dates(rng: np.random.Generator, count: int) -> list:
    edges = [
        dt.date(2024, 2, 29), dt.date(2023, 2, 28), dt.date(2024, 1, 31), dt.date(2024, 3, 31),
        dt.date(2000, 2, 29), dt.date(1900, 2, 28), dt.date(1, 1, 1), dt.date(9999, 12, 31),
        dt.date(1, 1, 7), dt.date(9999, 12, 25), dt.date(2021, 1, 1), dt.date(2020, 12, 31),
        dt.date(1998, 12, 1), None,
    ]  # fmt: skip
    days = rng.integers(0, 3652059, count - len(edges))
    randoms = [dt.date(1, 1, 1) + dt.timedelta(days=int(day)) for day in days]
    ends = [day.replace(day=28) + dt.timedelta(days=4) for day in randoms[::5]]
    month_ends = [end - dt.timedelta(days=end.day) for end in ends]
    return (edges + month_ends + randoms)[:count]


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(28)
    rows = 300
    nulls = rng.random(rows) < 0.1
    later = [None if null else day for null, day in zip(nulls, _dates(rng, rows), strict=True)]
    counts = rng.integers(-4000, 4000, rows).tolist()
    counts[:4] = [2**63 - 1, -(2**63), 3652058, -3652059]
    return pd.DataFrame(
        {
            "d": pd.Series(_dates(rng, rows), dtype=date_dtype()),
            "e": pd.Series(later, dtype=date_dtype()),
            "n": pd.array([None if i % 17 == 0 else c for i, c in enumerate(counts)], "Int64"),
        }
    )


FRAME = _frame()


@pytest.mark.parametrize(
    "text",
    [
        "d + interval 1 month", "d - interval '1' month", "d + interval '13' months",
        "d - interval 1 year", "d + interval 2 quarters", "d + interval '90' day",
        "d - interval 3 weeks", "d + interval 1 day", "d - interval 1 day",
        "interval 1 year + d", "d + interval 9999 years", "d - interval 999999999 day",
        "date_add(d, interval -5 month)", "d + n", "d - n", "n + d", "d - e", "e - d",
        "d - date '1998-12-01'", "d + null", "null + interval 1 day",
        "extract(year from d)", "extract(quarter from d)", "extract(month from d)",
        "extract(week from d)", "extract(day from d)", "extract(dayofweek from d)",
        "extract(dayofyear from d)", "quarter(e)", "week(e)", "dayofweek(e)", "dayofyear(e)",
        "date_trunc('day', d)", "date_trunc('week', d)", "date_trunc('month', d)",
        "date_trunc('quarter', d)", "date_trunc('YEAR', d)", "date_trunc('month', null)",
        "date_diff('day', d, e)", "date_diff('week', d, e)", "date_diff('month', d, e)",
        "date_diff('quarter', d, e)", "date_diff('year', d, e)", "date_diff(null, d, e)",
        "d < date '1998-12-01' - interval '90' day", "d between date '1994-01-01' and "
        "date '1994-01-01' + interval '1' year",
    ],
)  # fmt: skip
def test_duckdb_gives_the_same_dates_as_pandas(con, text):  # noqa: F811
    assert_same(con, text, FRAME)


def test_date_literals_and_intervals_are_bound_parameters():
    lowered = to_sql("d + interval '4242' day > date '1999-12-31'", Schema.of(Column("d", "date")))
    assert "4242" not in lowered.sql and "1999" not in lowered.sql and "'" not in lowered.sql
    assert lowered.sql.count("?") == len(lowered.params)


def test_a_datetime_interval_stays_on_pandas():
    schema = Schema.of(Column("t", "datetime"))
    with pytest.raises(NotLowerable, match="datetimes do not run on DuckDB"):
        to_sql("t + interval 1 hour", schema)
    with pytest.raises(NotLowerable, match="datetimes do not run on DuckDB"):
        to_sql("extract(hour from t)", schema)


def test_a_tpch_style_date_filter_and_transform_run_alike_on_both_backends(tmp_path):
    orders = pd.DataFrame({"o_orderdate": FRAME["d"], "n": FRAME["n"]})
    steps = [
        Step(
            "recent",
            "filter",
            {"condition": "o_orderdate < date '1998-12-01' - interval '90' day"},
            {"in": "o"},
        ),
        Step(
            "dated",
            "transform",
            {
                "mappings": [
                    {"target": "year", "expression": "extract(year from o_orderdate)"},
                    {"target": "quarter", "expression": "date_trunc('quarter', o_orderdate)"},
                    {"target": "later", "expression": "date_add(o_orderdate, interval 1 month)"},
                    {"target": "days", "expression": "o_orderdate - date '1998-12-01'"},
                ]
            },
            {"in": "recent"},
        ),
    ]
    assert_same_both_ways(steps, {"o": orders}, tmp_path, ordered=["dated"])
