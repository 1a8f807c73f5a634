"""A CSV file's types read without pyarrow are pyarrow's, or no answer at all."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from runtime.backends.duckdb import scans
from runtime.io.csv_types import plain_csv_types
from runtime.operators import csv_files
from runtime.operators.file_common import readable_files
from tests.runtime.operators.contract import make_ctx

VALUES = st.one_of(
    st.sampled_from(
        [
            *("0", "1", "-0", "007", "42", "-17", "9223372036854775807", "9223372036854775808"),
            *("+5", " 5", "5 ", "0x10", "1_000", "1e5", "1.5", ".5", "5.", "-.5", "+.5", "1E+05"),
            *("5e400", "1.5e", "e5", "-", ".", "inf", "-Infinity", "NaN", "nan", "NAN", "+nan"),
            *("", "NA", "N/A", "null", "NULL", "#N/A", "true", "False", "TRUE", "yes"),
            *("2020-01-01", "2020-02-30", "0000-01-01", "2020-1-01", "20200101", "1999-12-31"),
            *("12:00:00", "2020-01-01 10:00", "2020-01-01T10:00:00Z", "Ann", "DE", "information"),
            *("user1@example.com", "Country A", "a b", "é", "ü1", "T", "Z", "\u00a05"),
            *("25-989-741-2988", "1-URGENT", "Customer#01", "10:00", "1:00", "10:00:00 "),
            *(" 2020-01-01", "2020-01-01T10", "2020-01-01T10:00Z", "-0x10", " 0x10", "1e"),
            *('"x,y"', '"5"', '"NA"', '"a""b"', '"a"b', 'a"b', '""', '"', '"2020-01-01"'),
        ]
    ),
    st.text(alphabet="0123456789-.eE+ aTx:", max_size=6),
)


PLAIN = [
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.dates().map(str),
    st.text(alphabet="abcdefxyzéABZ @_.-", min_size=1, max_size=8),
    st.sampled_from(["", "NA", "null", "7"]),
]
"""Values of one plain kind per column (and a few nulls), which the reader mostly answers."""


@st.composite
def csv_texts(draw) -> tuple[bytes, str]:
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    width = draw(st.integers(1, 3))
    names = st.sampled_from(["a", "b", "c", "id", "x y"])
    header = draw(st.lists(names, min_size=width, max_size=width, unique=True))
    kinds = [draw(st.sampled_from([VALUES, *PLAIN])) for _ in header]
    rows = draw(st.lists(st.tuples(*[st.one_of(kind, PLAIN[4]) for kind in kinds]), max_size=12))
    lines = [delimiter.join(header)] + [delimiter.join(row) for row in rows]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + draw(st.sampled_from([ending, ""]))
    return text.encode(), delimiter


def pyarrow_reads(path: Path, delimiter: str, block_size: int):
    """The types and the first batch of pyarrow's streaming reader, as the planner reads them."""
    read = pa_csv.ReadOptions(use_threads=False, block_size=block_size)
    parse = pa_csv.ParseOptions(delimiter=delimiter)
    convert = pa_csv.ConvertOptions(strings_can_be_null=True)
    with pa_csv.open_csv(path, read, parse, convert) as reader:
        return reader.schema, next(iter(reader), None)


def first_null(column: pa.Array) -> int | None:
    nulls = [index for index, value in enumerate(column.is_null().to_pylist()) if value]
    return nulls[0] if nulls else None


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=csv_texts(), block_size=st.sampled_from([16, 24, 40, 64, 1 << 20]))
@example(
    file=(b"id,age,amount,signup\n1,34,12.5,2020-01-02\n2,,3,2021-12-31\n", ","), block_size=1 << 20
)
def test_the_types_read_without_pyarrow_are_pyarrows(tmp_path, file, block_size):
    data, delimiter = file
    path = tmp_path / "file.csv"
    path.write_bytes(data)
    plain = plain_csv_types(path, delimiter, block_size)
    try:
        schema, batch = pyarrow_reads(path, delimiter, block_size)
    except pa.ArrowInvalid:
        assert plain is None
        return
    if plain is None:
        return
    assert [column.name for column in plain.columns] == schema.names
    assert [column.kind for column in plain.columns] == [str(kind) for kind in schema.types]
    assert batch is not None and plain.rows == batch.num_rows
    assert [column.first_null for column in plain.columns] == [
        first_null(column) for column in batch.columns
    ]
    assert plain.whole_file == (len(data) <= block_size)


def plan_types(operator, folder: Path, monkeypatch, pyarrow_only: bool):
    """The node's schema and DuckDB's column types, as planning reads them from the file."""
    if pyarrow_only:
        monkeypatch.setattr(csv_files, "plain_csv_types", lambda *args: None)
    ctx = make_ctx(operator, {"path": "file.csv"}, folder)
    files = readable_files(ctx)
    schema = operator.file_schema(ctx, files)
    columns = scans._csv_columns(ctx.params, files[0])
    monkeypatch.undo()
    return schema, columns


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=csv_texts(), sample_nulls_after=st.sampled_from([None, 999, 1000]))
def test_planning_types_a_file_as_pyarrow_does(tmp_path, monkeypatch, file, sample_nulls_after):
    """The node's schema (its nulls among the sample's first 1,000 rows) and DuckDB's types
    (nulls anywhere in the first block) are the same read either way."""
    data, delimiter = file
    if delimiter != "," or not data.count(b"\n") > 1:
        return
    header = data.split(b"\n")[0].strip()
    if sample_nulls_after is not None:  # a null just inside or outside the sample's rows
        width = header.count(b",") + 1
        row = b",".join([b"7"] * width)
        data = header + b"\n" + (row + b"\n") * sample_nulls_after + b"," * (width - 1) + b"\n"
    (tmp_path / "file.csv").write_bytes(data)
    operator = csv_files.CsvInput()
    try:
        expected = plan_types(operator, tmp_path, monkeypatch, pyarrow_only=True)
    except Exception as error:  # whatever pyarrow refuses, both refuse
        with pytest.raises(type(error)):
            plan_types(operator, tmp_path, monkeypatch, pyarrow_only=False)
        return
    assert plan_types(operator, tmp_path, monkeypatch, pyarrow_only=False) == expected
