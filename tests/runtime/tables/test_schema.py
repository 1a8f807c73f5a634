"""An Arrow table's schema read without pandas is the schema of the frame pandas makes of it."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.tables.frames import table_schema, to_pandas
from runtime.tables.schema import a_type, schema_of
from tests.strategies import bounded, texts

_VALUES = {
    pa.int64(): st.integers(-(2**62), 2**62),
    pa.int32(): st.integers(-(2**31), 2**31 - 1),
    pa.uint8(): st.integers(0, 255),
    pa.float64(): st.floats(allow_infinity=True, allow_nan=True),
    pa.float32(): st.floats(width=32),
    pa.bool_(): st.booleans(),
    pa.string(): texts(max_size=5) | st.sampled_from(["NaN", "", "null", "None"]),
    pa.large_string(): texts(max_size=5),
    pa.string_view(): texts(max_size=5),
    pa.decimal128(15, 2): st.decimals(-(10**12), 10**12, places=2, allow_nan=False),
    pa.date32(): st.dates(),
    pa.timestamp("s"): st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2200, 1, 1)),
    pa.timestamp("ns"): st.datetimes(dt.datetime(1970, 1, 1), dt.datetime(2200, 1, 1)),
    pa.timestamp("us", tz="Europe/Paris"): st.datetimes(
        dt.datetime(1970, 1, 1), dt.datetime(2200, 1, 1), timezones=st.just(dt.UTC)
    ),
    pa.null(): st.none(),
}


@st.composite
def tables(draw) -> pa.Table:
    rows = draw(st.integers(0, 6))
    kinds = draw(st.lists(st.sampled_from(list(_VALUES)), max_size=5))
    columns = [
        pa.array(draw(st.lists(st.none() | _VALUES[kind], min_size=rows, max_size=rows)), kind)
        for kind in kinds
    ]
    return pa.table(columns, names=[f"c{index}" for index in range(len(kinds))])


@bounded(300)
@given(tables())
def test_the_schema_of_an_arrow_table_is_that_of_its_pandas_frame(table):
    assert table_schema(table) == schema_of(to_pandas(table))


def test_a_type_only_pandas_knows_how_to_convert_gives_no_schema():
    table = pa.table({"at": pa.array([1], pa.time64("us")), "n": [1]})
    assert table_schema(table) is None


@pytest.mark.parametrize("width", [16, 32, 64])
@pytest.mark.parametrize(
    ("chunks", "start", "nullable"),
    [
        ([[math.nan, 1.0, 2.0]], 0, True),
        ([[1.0], [], [2.0, math.nan]], 0, True),
        ([[math.nan, 1.0], [2.0]], 1, False),
    ],
    ids=["nan-first", "nan-in-a-later-chunk", "nan-sliced-off"],
)
def test_a_nan_counts_wherever_it_sits_in_a_chunked_or_sliced_float_column(
    width, chunks, start, nullable
):
    dtype = np.dtype(f"float{width}")
    arrays = [pa.array(np.array(values, dtype)) for values in chunks]
    arrays[0] = arrays[0].slice(start)
    table = pa.table({"x": pa.chunked_array(arrays, pa.from_numpy_dtype(dtype))})
    assert table_schema(table) == schema_of(to_pandas(table))
    assert table_schema(table).get("x").nullable is nullable


def test_messages_name_a_type_with_its_article():
    assert [a_type(name) for name in ("integer", "string", "float", "datetime")] == [
        "an integer",
        "a string",
        "a float",
        "a datetime",
    ]
