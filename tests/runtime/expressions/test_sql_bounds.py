"""The size a lowered call that builds text gives on each row is the size pandas works out
(`sizes.py`) before building the same text, so both backends refuse the same results."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.expressions.sizes import joined_sizes, replaced_sizes
from runtime.expressions.to_sql import to_sql
from runtime.tables.schema import Column, Schema

SCHEMA = Schema((Column("a", "string"), Column("b", "string")))
TEXT = st.one_of(st.none(), st.text(alphabet="aé€ b-", max_size=12))
PATTERN = st.text(alphabet="aé€ b-", min_size=1, max_size=3)


def sizes_in_duckdb(expression: str, frame: pd.DataFrame) -> list[list[int]]:
    """Each bound's size on each row of `frame`, as DuckDB computes it."""
    lowered = to_sql(expression, SCHEMA)
    connection = duckdb.connect()
    connection.register("frame", frame)
    return [
        [
            row[0]
            for row in connection.execute(
                f"SELECT {bound.size.text} FROM frame", bound.size.params
            ).fetchall()
        ]
        for bound in lowered.bounds
    ]


def literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=6), PATTERN, st.text(alphabet="aé€ b-", max_size=5))
def test_a_replace_is_sized_as_pandas_sizes_it(texts, old, new):
    frame = pd.DataFrame({"a": pd.Series(texts, dtype="str"), "b": ""})
    [sizes] = sizes_in_duckdb(f"replace(a, {literal(old)}, {literal(new)})", frame)
    assert sizes == replaced_sizes(frame["a"], len(frame), old, new).tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=6))
def test_concat_and_plus_are_sized_as_pandas_sizes_them(pairs):
    frame = pd.DataFrame([list(pair) for pair in pairs], columns=["a", "b"]).astype("str")
    plus, joined = sizes_in_duckdb("concat(a, '€', a + b)", frame)
    inner = joined_sizes(frame["a"], frame["b"])
    assert plus == inner.tolist()
    assert joined == (joined_sizes(frame["a"], "€") + inner).tolist()


def test_calls_are_bounded_in_the_order_pandas_builds_them_and_by_stage():
    tenfold = "'a', 'aaaaaaaaaa'"
    lowered = to_sql(f"concat(replace(replace(a, {tenfold}), {tenfold}), b + b)", SCHEMA)
    assert [(bound.what, bound.stage) for bound in lowered.bounds] == [
        ("replace", 0),  # sized from the column
        ("replace", 1),  # needs the text of the first
        ("'+'", 0),
        ("concat", 1),  # the first replace's text, through the second's size
    ]


@pytest.mark.parametrize("expression", ["replace('abc', 'a', 'xx')", "strip(a)", "a", "len(a) > 2"])
def test_what_builds_no_text_from_a_column_carries_no_bound(expression):
    """Constants are folded, and checked, when the expression is compiled, as on pandas."""
    assert to_sql(expression, SCHEMA).bounds == ()
