"""A CSV file written by a DuckDB segment reads back as the one `csv_output` writes on pandas:
with `pd.read_csv` and with `csv_input`, the same columns, dtypes and values, for every public
type, awkward texts and names, delimiters, no header, no rows; hypothesis draws the rest."""

from __future__ import annotations

import datetime
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.errors import NotLowerable, OperatorError
from runtime.operators.context import NodeContext
from runtime.operators.csv_files import CsvInput, CsvInputParams, CsvOutput, CsvOutputParams
from runtime.relational import Input
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.backends.both import Step, write_both_ways
from tests.strategies import bounded, texts

AWKWARD_TEXTS = [
    "a,b", 'say "hi"', "line\nbreak", "cr\ronly", "crlf\r\nend", " lead", "trail ", "", None,
    "é李🙂", "#hash", "NULL", "nan", "NA", "\t", "a;b|c", " ", "True", "1", "1.5", "2024-01-01",
]  # fmt: skip


def read_back(path: Path, delimiter: str = ",", header: bool = True) -> dict[str, object]:
    """What pandas' reader and `csv_input` read from the file (or the error each raises)."""
    found: dict[str, object] = {}
    try:
        found["read_csv"] = pd.read_csv(path, sep=delimiter, header=0 if header else None)
    except (ValueError, pd.errors.ParserError) as error:
        found["read_csv"] = type(error).__name__
    params = CsvInputParams(path=path.name, delimiter=delimiter, header=header)
    try:
        ctx = NodeContext("read", params, data_root=path.parent)
        found["csv_input"] = CsvInput().run(ctx, {})["out"]
    except OperatorError as error:  # the same failure on both files is agreement
        found["csv_input"] = type(error).__name__
    return found


def assert_read_back_alike(frame, tmp_path, steps=(), **params) -> tuple[Path, Path]:
    """`frame` (through `steps`, if any) written by `csv_output` with `params` on each backend;
    both files read back alike."""
    steps = list(steps)
    source = steps[-1].id if steps else "p"
    write = Step("write", "csv_output", {"path": "out/data.csv", **params}, {"in": source})
    on_pandas, on_duckdb, _ = write_both_ways(steps, write, {"p": frame}, tmp_path)
    options = {"delimiter": params.get("delimiter", ","), "header": params.get("header", True)}
    expected, actual = read_back(on_pandas, **options), read_back(on_duckdb, **options)
    for reader, wanted in expected.items():
        got = actual[reader]
        if isinstance(wanted, str) or isinstance(got, str):
            assert got == wanted, reader
        else:
            pd.testing.assert_frame_equal(got, wanted, check_exact=True, obj=reader)
    return on_pandas, on_duckdb


def column(values, dtype) -> pd.DataFrame:
    return pd.DataFrame(
        {"v": pd.array(values, dtype=dtype), "n": pd.array(range(len(values)), dtype="Int64")}
    )


DATETIMES = {
    "midnights": ["2024-01-01", None, "1999-12-31"],
    "seconds": ["2024-01-01 10:00:05", "2024-01-01"],
    "milliseconds": ["2024-01-01 10:00:00.5", "2024-01-01"],
    "microseconds": ["2024-01-01 10:00:00.000500", "2024-01-01 00:00:01"],
    "nanoseconds": ["2024-01-01 10:00:00.000000001", "2024-01-01"],
    "no_values": [None, None],
    "before_1970": ["1969-12-31 23:59:59.25", "1900-02-28 12:00:00"],
}


@pytest.mark.parametrize(
    "frame",
    [
        column([0.1, 1e20, 1e-7, -0.0, None, math.inf, -math.inf, 1.0, 1e16, 5e-324], "float64"),
        column([1 / 3, 123456789012345.0, 1e15, 1e-4, 1e-5, 2.5e-300, 1.7e308], "float64"),
        column([2.0, 3.0], "float64"),
        column([1, None, -5, 2**62], "Int64"),
        column([True, False, None], "boolean"),
        column([datetime.date(2024, 1, 31), None, datetime.date(999, 1, 1)], date_dtype()),
        *(
            column(pd.to_datetime(values, format="ISO8601"), f"datetime64[{unit}]")
            for values in DATETIMES.values()
            for unit in ("ns", "us")
        ),
        column(pd.to_datetime(["2024-01-01 10:00:00"]), "datetime64[s]"),
        column(AWKWARD_TEXTS, "str"),
        column([None, None], "str"),
    ],
    ids=[
        "floats", "more_floats", "integral_floats", "integers", "booleans", "dates",
        *(f"datetimes_{name}_{unit}" for name in DATETIMES for unit in ("ns", "us")),
        "datetimes_s", "texts", "texts_all_null",
    ],
)  # fmt: skip
def test_each_type_reads_back_alike(frame, tmp_path):
    assert_read_back_alike(frame, tmp_path)


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"i": pd.array([1, None, 3], dtype="Int64")}),
        pd.DataFrame({"s": pd.array(["", None, "a"], dtype="str")}),
        pd.DataFrame({"f": [1.5, None]}),
        pd.DataFrame({"b": pd.array([None, True], dtype="boolean")}),
        pd.DataFrame({"t": pd.to_datetime([None, "2024-01-01 10:00"])}),
    ],
    ids=["integers", "texts", "floats", "booleans", "datetimes"],
)
def test_a_lone_column_keeps_its_null_rows(frame, tmp_path):
    """A row of one empty field would be a blank line, which readers skip: both write `""`."""
    _, on_duckdb = assert_read_back_alike(frame, tmp_path)
    assert len(pd.read_csv(on_duckdb)) == len(frame)


@pytest.mark.parametrize(
    "delimiter", [";", "\t", "|", " ", ".", ":", "-", "#", "a", "1", "n", "e", "'", "\\", "+"]
)
def test_a_custom_delimiter_reads_back_alike(delimiter, tmp_path):
    frame = pd.DataFrame(
        {
            "text": pd.array(AWKWARD_TEXTS, dtype="str"),
            "number": [0.5 * index - 3 for index in range(len(AWKWARD_TEXTS))],
            "count": pd.array(range(len(AWKWARD_TEXTS)), dtype="Int64"),
            "at": pd.to_datetime(["2024-01-01 10:11:12.5"] * len(AWKWARD_TEXTS)),
            "flag": pd.array([True, False, None] * 7, dtype="boolean"),
        }
    )
    assert_read_back_alike(frame, tmp_path, delimiter=delimiter)


def test_without_a_header_row_it_reads_back_alike(tmp_path):
    frame = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": ["x", "y,z"]})
    on_pandas, on_duckdb = assert_read_back_alike(frame, tmp_path, header=False)
    assert on_duckdb.read_text() == on_pandas.read_text() == '1,x\n,"y,z"\n'


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("columns", [["a"], ["a", "b"]])
def test_no_rows_give_just_the_header(tmp_path, header, columns):
    frame = pd.DataFrame({"a": pd.array([1, 2], dtype="Int64"), "b": ["x", "y"]})[columns]
    steps = [Step("none", "filter", {"condition": "a > 5"}, {"in": "p"})]
    on_pandas, on_duckdb = assert_read_back_alike(frame, tmp_path, steps, header=header)
    assert on_duckdb.read_text() == on_pandas.read_text()


def test_column_names_that_need_quoting_read_back_alike(tmp_path):
    names = ["a,b", 'q"x', "li\nne", " sp ", "#h", "é", "cr\rname", "1"]
    frame = pd.DataFrame(
        {name: pd.array([index], dtype="Int64") for index, name in enumerate(names)}
    )
    assert_read_back_alike(frame, tmp_path)


def test_nan_and_infinity_that_duckdb_computes_read_back_as_pandas_computes_them(tmp_path):
    frame = pd.DataFrame(
        {
            "g": pd.array([1, 1, 2, 3, 3], dtype="Int64"),
            "x": [math.inf, -math.inf, math.inf, 1.0, None],
        }
    )
    aggregations = [
        {"column": "x", "function": function, "name": function} for function in ("sum", "mean")
    ]
    steps = [Step("a", "aggregate", {"group_by": ["g"], "aggregations": aggregations}, {"in": "p"})]
    on_pandas, on_duckdb = assert_read_back_alike(frame, tmp_path, steps)
    assert pd.read_csv(on_pandas)["sum"].isna().tolist() == [True, False, False]  # inf - inf
    assert on_duckdb.read_text() == on_pandas.read_text()  # NaN written as nothing, as pandas


def lowered(frame: pd.DataFrame, **params):
    params = CsvOutputParams(path="out.csv", **params)
    return CsvOutput().lower(params, {"in": Input(("p", "out"))}, {"in": schema_of(frame)})


@pytest.mark.parametrize("delimiter", ['"', "\n", "\r", "é", "\x01"])
def test_a_delimiter_that_quoting_or_lines_would_mistake_stays_on_pandas(delimiter):
    with pytest.raises(NotLowerable, match="written on pandas"):
        lowered(pd.DataFrame({"a": [1]}), delimiter=delimiter)


def test_rows_of_no_columns_stay_on_pandas():
    with pytest.raises(NotLowerable, match="rows of no columns are written on pandas"):
        lowered(pd.DataFrame(index=range(3)))


TYPES = ["integer", "float", "boolean", "string", "date", "datetime"]


@st.composite
def frames(draw) -> pd.DataFrame:
    """Up to four columns of random public types, values and names (nulls anywhere)."""
    rows = draw(st.integers(0, 8))
    name = st.sampled_from(["a", "b", "x y", 'q"', "n,m"]) | texts(min_size=1, max_size=4)
    names = draw(st.lists(name, min_size=1, max_size=4, unique=True))
    data = {}
    for name in names:
        kind = draw(st.sampled_from(TYPES))
        data[name] = _values(draw, kind, rows)
    return pd.DataFrame(data)


def _values(draw, kind: str, rows: int):
    def drawn(values):
        return draw(st.lists(st.one_of(st.none(), values), min_size=rows, max_size=rows))

    if kind == "integer":
        return pd.array(drawn(st.integers(-(2**63) + 1, 2**63 - 1)), dtype="Int64")
    if kind == "float":
        values = drawn(st.floats(allow_nan=False) | st.sampled_from([0.1, -0.0, 1e16, 2.0]))
        return pd.array(values, dtype="float64")
    if kind == "boolean":
        return pd.array(drawn(st.booleans()), dtype="boolean")
    if kind == "string":
        return pd.array(drawn(texts(max_size=6) | st.sampled_from(AWKWARD_TEXTS[:8])), dtype="str")
    if kind == "date":
        return pd.array(drawn(st.dates()), dtype=date_dtype())
    unit, per_second, low, high = draw(
        st.sampled_from([("ns", 10**9, -(2**62), 2**62), ("us", 10**6, *US_RANGE)])
    )
    step = draw(st.sampled_from([86_400 * per_second, per_second, per_second // 1000, 1000, 1]))
    ticks = drawn(st.integers(low // step, high // step).map(lambda n: n * step))
    return pd.array(
        [None if tick is None else np.datetime64(tick, unit) for tick in ticks],
        dtype=f"datetime64[{unit}]",
    )


US_RANGE = (-62_135_596_800 * 10**6, 253_402_300_799 * 10**6)
"""Microseconds from 0001-01-01 to 9999-12-31 23:59:59, the years text files hold."""


@bounded(150, tolerate=[HealthCheck.too_slow])
@given(
    frame=frames(),
    delimiter=st.sampled_from([",", ";", "\t", "|", " ", ":"]),
    header=st.booleans(),
)
def test_random_frames_read_back_alike(frame, delimiter, header):
    with tempfile.TemporaryDirectory() as folder:
        assert_read_back_alike(frame, Path(folder), delimiter=delimiter, header=header)
