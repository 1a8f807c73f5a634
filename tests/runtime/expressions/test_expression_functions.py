"""The whitelisted functions: text, math, dates, coalesce and if."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from runtime.expressions import evaluate
from runtime.tables.schema import date_dtype
from tests.runtime.expressions.conftest import values


def test_string_functions(people):
    assert values("upper(name)", people) == ["ANN", None, "CID", " DAN "]
    assert values("lower(name)", people) == ["ann", None, "cid", " dan "]
    assert values("strip(name)", people) == ["Ann", None, "cid", "Dan"]
    assert values("len(name)", people) == [3, None, 3, 5]


def test_contains_startswith_and_endswith_match_plain_text_not_patterns(people):
    assert values("contains(name, 'n')", people) == [True, None, False, True]
    assert values("contains(name, '.')", people) == [False, None, False, False]
    assert values("startswith(country, 'F')", people) == [True, False, None, False]
    assert values("endswith(name, 'd')", people) == [False, None, True, False]


def test_replace_substitutes_plain_text(people):
    assert values("replace(name, 'n', '.')", people) == ["A..", None, "cid", " Da. "]


def test_substr_counts_from_one_and_takes_an_optional_length(people):
    assert values("substr(name, 2)", people) == ["nn", None, "id", "Dan "]
    assert values("substr(name, 2, 1)", people) == ["n", None, "i", "D"]
    assert values("substr(name, 10, 3)", people) == ["", None, "", ""]


def test_concat_takes_any_number_of_strings_and_skips_nulls(people):
    assert values("concat(name)", people) == ["Ann", "", "cid", " Dan "]
    assert values("concat(name, '/', country, '/')", people) == [
        "Ann/FR/",
        "/DE/",
        "cid//",
        " Dan /US/",
    ]


def test_math_functions_keep_the_number_type(people):
    assert values("abs(score)", people) == [1.5, None, 3.0, 2.0]
    assert values("floor(score)", people) == [1.0, None, 3.0, -2.0]
    assert values("ceil(score * -1)", people) == [-1.0, None, -3.0, 2.0]
    assert values("floor(age)", people) == [17, 30, 45, 18]
    assert values("abs(visits - 2)", people) == [1, None, 2, 2]


def test_round_rounds_halves_to_even_and_takes_negative_digits(people):
    assert values("round(2.5)", people) == [2.0] * 4
    assert values("round(score * 1.234, 2)", people) == [1.85, None, 3.7, -2.47]
    assert values("round(age, -1)", people) == [20, 30, 40, 20]


def test_date_reads_iso_text_and_drops_the_time_of_day(people):
    frame = pd.DataFrame(
        {"text": ["2024-01-31", "2024-01-31T10:00:00Z", "31/01/2024", None, "2024-02-30"]}
    )
    expected = [dt.date(2024, 1, 31), dt.date(2024, 1, 31), None, None, None]
    assert values("date(text)", frame) == expected
    assert values("date(seen)", people) == [
        dt.date(2024, 1, 31),
        None,
        dt.date(2020, 2, 29),
        dt.date(1999, 12, 31),
    ]


def test_date_of_a_literal_is_a_date_on_every_row(people):
    result = evaluate("date('2024-01-31')", people)
    assert result.dtype == date_dtype()
    assert list(result) == [dt.date(2024, 1, 31)] * 4


def test_year_month_and_day_work_on_dates_and_datetimes(people):
    assert values("year(joined)", people) == [2024, None, 2020, 1999]
    assert values("month(seen)", people) == [1, None, 2, 12]
    assert values("day(joined)", people) == [31, None, 29, 31]


def test_coalesce_takes_the_first_non_null_value(people):
    assert values("coalesce(visits, 0)", people) == [1, 0, 0, 4]
    assert values("coalesce(country, name, '?')", people) == ["FR", "DE", "cid", "US"]
    assert values("coalesce(visits, score)", people) == [1.0, None, 0.0, 4.0]


def test_if_chooses_per_row_and_treats_a_null_condition_as_false(people):
    assert values("if(age >= 18, 'adult', 'minor')", people) == ["minor", "adult", "adult", "adult"]
    assert values("if(member, visits, -1)", people) == [1, -1, -1, 4]
