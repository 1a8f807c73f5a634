"""Values reach a script's code only as Python literals that read back as themselves."""

from __future__ import annotations

import datetime
import math

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from runtime.compile.literals import literal
from tests.strategies import bounded, int64s

values = st.recursive(
    st.none() | st.booleans() | int64s | st.floats() | st.text() | st.dates(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


def same(left, right) -> bool:
    if isinstance(left, float) and math.isnan(left):
        return isinstance(right, float) and math.isnan(right)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


@bounded(300)
@given(values)
def test_any_value_is_written_as_a_literal_that_reads_back_as_itself(value):
    code = literal(value)
    read = eval(
        compile(code, "<literal>", "eval"),
        {"datetime": datetime, "pd": pd, "__builtins__": {"float": float}},
    )
    assert same(value, read), code


def test_numpy_scalars_and_timestamps_are_written_as_plain_values():
    assert literal(np.int64(3)) == "3" and literal(np.bool_(True)) == "True"
    assert literal(pd.Timestamp("2024-01-31 10:00")) == "pd.Timestamp('2024-01-31T10:00:00')"
