"""Which columns a condition rejects the nulls of: what a join after a filter may compare
with `=` (runtime/backends/duckdb/render.py)."""

from __future__ import annotations

import pytest

from runtime.expressions.nulls import null_rejected_columns


@pytest.mark.parametrize(
    ("condition", "rejected"),
    [
        ("age > 18", {"age"}),
        ("age != 18", {"age"}),
        ("country = other", {"country", "other"}),
        ("age > 18 and country = 'FR'", {"age", "country"}),
        ("age > 18 or age < 3", {"age"}),
        ("age > 18 or country = 'FR'", set()),
        ("age in (1, 2)", {"age"}),
        ("age between 1 and 9", {"age"}),
        ("age is not null", {"age"}),
    ],
)
def test_a_test_of_a_column_itself_rejects_its_nulls(condition, rejected):
    assert null_rejected_columns(condition) == rejected


@pytest.mark.parametrize(
    "condition",
    [
        "age not in (1, 2)",
        "age not between 1 and 9",
        "age is null",
        "not (age is null)",
        "upper(country) = 'FR'",
        "age + 1 > 18 or true",
        "coalesce(age, 0) > 1",
    ],
)
def test_anything_else_rejects_nothing(condition):
    assert null_rejected_columns(condition) == set()
