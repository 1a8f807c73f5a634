"""Arithmetic, comparisons and three-valued null logic, as pandas evaluates them."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from runtime.expressions import ExpressionError, filter_mask
from tests.runtime.expressions.conftest import values

# --- arithmetic ------------------------------------------------------------------------------


def test_arithmetic_follows_the_usual_precedence(people):
    assert values("-2 ** 2", people) == [-4.0] * 4
    assert values("1 + 2 * 3 - 4 / 2", people) == [5.0] * 4
    assert values("age % 10", people) == [7, 0, 5, 8]


def test_modulo_takes_the_sign_of_the_divisor_like_python(people):
    assert values("-7 % 3", people) == [2] * 4
    assert values("7.5 % -2", people) == [-0.5] * 4


def test_division_always_gives_a_float(people):
    assert values("age / 2", people) == [8.5, 15.0, 22.5, 9.0]


def test_division_and_modulo_by_zero_give_null(people):
    assert values("age / 0", people) == [None] * 4
    assert values("age % 0", people) == [None] * 4
    assert values("age / (visits - 1)", people) == [None, None, -45.0, 6.0]
    assert values("age % visits", people) == [0, None, None, 2]


def test_power_always_gives_a_float(people):
    assert values("2 ** 3", people) == [8.0] * 4
    assert values("(-8) ** 0.5", people) == [None] * 4


def test_float_overflow_gives_infinity(people):
    assert values("1e308 * 10", people) == [float("inf")] * 4


def test_integer_overflow_wraps_around(people):
    assert values("9223372036854775807 + age - age + 1", people) == [-(2**63)] * 4


def test_arithmetic_with_null_gives_null(people):
    assert values("visits + 1", people) == [2, None, 1, 5]
    assert values("age + null", people) == [None] * 4


def test_plus_on_two_strings_concatenates(people):
    assert values("name + '!'", people) == ["Ann!", None, "cid!", " Dan !"]


def test_integer_columns_held_as_float_with_nan_work_like_integers():
    frame = pd.DataFrame({"n": [1.0, np.nan, 3.0]})
    assert values("n + 1", frame) == [2.0, None, 4.0]
    assert list(filter_mask("n > 1", frame)) == [False, False, True]


# --- comparisons and null logic --------------------------------------------------------------


def test_a_comparison_with_null_is_null_and_a_filter_drops_it(people):
    assert values("score > 1", people) == [True, None, True, False]
    assert list(filter_mask("score > 1", people)) == [True, False, True, False]


def test_equality_with_null_is_never_true(people):
    assert list(filter_mask("country = null", people)) == [False] * 4
    assert list(filter_mask("country != null", people)) == [False] * 4


def test_not_of_a_null_comparison_is_still_dropped_by_a_filter(people):
    assert values("not (score > 1)", people) == [False, None, False, True]
    assert list(filter_mask("not (score > 1)", people)) == [False, False, False, True]


def test_is_null_and_is_not_null_find_nulls(people):
    assert values("country is null", people) == [False, False, True, False]
    assert values("country is not null", people) == [True, True, False, True]
    assert values("score is null", people) == [False, True, False, False]


def test_and_or_follow_three_valued_logic(people):
    assert values("member and true", people) == [True, None, False, True]
    assert values("member and false", people) == [False] * 4
    assert values("member or true", people) == [True] * 4
    assert values("member or false", people) == [True, None, False, True]


def test_in_matches_any_listed_value(people):
    assert values("country in ('FR', 'DE')", people) == [True, True, None, False]
    assert values("country not in ('FR', 'DE')", people) == [False, False, None, True]
    assert values("age in (17, visits)", people) == [True, None, False, False]


def test_in_with_a_null_item_is_null_unless_it_matches(people):
    assert values("country in ('FR', null)", people) == [True, None, None, None]
    assert list(filter_mask("country not in ('FR', null)", people)) == [False] * 4


def test_between_is_inclusive(people):
    assert values("age between 18 and 30", people) == [False, True, False, True]
    assert values("age not between 18 and 30", people) == [True, False, True, False]


def test_strings_dates_and_datetimes_compare_in_their_natural_order(people):
    assert values("name < 'B'", people) == [True, None, False, True]
    assert values("joined >= date('2020-02-29')", people) == [True, None, True, False]
    assert values("seen > seen", people) == [False, None, False, False]


def test_the_issue_example_filters_as_expected(people):
    mask = filter_mask("age > 18 and country in ('FR', 'DE')", people)
    assert list(people.index[mask]) == ["b"]


INT64 = st.integers(-(2**63) + 1, 2**63 - 1)  # a literal cannot write -2**63


@given(left=st.one_of(st.integers(0, 100), INT64), right=INT64, op=st.sampled_from("+-*"))
def test_integer_constants_fold_to_what_columns_of_them_compute(left, right, op):
    """`1 + 10` is folded in Python as the plan is made; a column of the same integers is
    computed by pandas: the same value, or the same error past 64 bits."""
    frame = pd.DataFrame({"a": pd.array([left], dtype="Int64"), "b": pd.array([right], "Int64")})
    outcomes = []
    for text in (f"{left} {op} ({right})", f"a {op} b"):
        try:
            outcomes.append(values(text, frame))
        except ExpressionError as error:
            outcomes.append(type(error))
    assert outcomes[0] == outcomes[1]
