"""DuckDB reads CSV and Parquet files with the types and rows the pandas readers give."""

from __future__ import annotations

import datetime

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from runtime.errors import NotLowerable
from runtime.io.csv_types import NULL_MARKERS
from tests.runtime.backends.both import Step, assert_same, run_duckdb, run_pandas

CSV = (
    "id,name,score,born,seen,active,note\n"
    "1,Zoë,1.5,2020-01-02,2020-01-02 03:04:05,true,\n"
    '2,"a, ""quoted"" name",,2021-02-03,2021-02-03 00:00:00,false,NA\n'
    "3,李,-2.25,,2022-03-04 05:06:07,,n/a\n"
    ",,1e3,2023-04-05,,TRUE,x\n"
)


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    area.mkdir()
    return area


def csv_step(**params):
    return Step("read", "csv_input", {"path": "data/in.csv", **params})


def write(root, name, text):
    path = root / "data" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"columns": ["note", "id"]},
        {"dtypes": {"id": "float", "born": "string"}},
        {"header": False, "skip_rows": 1},
    ],
)
def test_csv_scan_gives_csv_input_types_nulls_and_rows_in_file_order(root, params):
    write(root, "in.csv", CSV)
    assert_same([csv_step(**params)], {}, root, ordered=["read"])


def test_csv_scan_types_come_from_the_first_block_like_pyarrow(root):
    write(root, "in.csv", "a;b\n" + "".join(f"{i};{i * 0.5}\n" for i in range(200_000)))
    steps = [
        csv_step(delimiter=";"),
        Step("f", "filter", {"condition": "a % 7 = 0"}, {"in": "read"}),
        Step("s", "sort", {"by": [{"column": "b", "descending": True}]}, {"in": "f"}),
        Step("l", "limit", {"n": 50}, {"in": "s"}),
    ]
    actual = assert_same(steps, {}, root, exits=["l", "f"], ordered=["l", "f"])
    assert str(actual["f"].dtypes["a"]) == "Int64"


def test_csv_scans_take_as_null_the_strings_csv_input_takes_as_null():
    """The scan's list is written out (rendering needs no pyarrow): it must stay pyarrow's."""
    assert list(NULL_MARKERS) == pa_csv.ConvertOptions().null_values


def every_marker_in_every_type(columns: str) -> str:
    """A CSV file of `columns` (i int, f float, b bool, d date, t datetime, s text): a row of
    values, then a row of each null marker in every column, then values again."""
    values = {"i": "7", "f": "2.5", "b": "true", "d": "2024-02-29", "t": "2024-02-29 10:00:00"}
    values["s"] = "text"
    row = lambda value: ",".join(value(name) for name in columns) + "\n"  # noqa: E731
    markers = "".join(row(lambda name, marker=marker: marker) for marker in NULL_MARKERS)
    return columns.replace("", ",")[1:-1] + "\n" + row(values.get) + markers + row(values.get)


@pytest.mark.parametrize("columns", ["sf", "ifbdts", "is", "ds", "ts", "bs"])
def test_every_null_marker_is_null_on_both_backends_in_a_column_of_any_type(root, columns):
    """Text and float columns match the markers after DuckDB's reader; another type fails
    its cast on the first marker and the segment runs again matching them in the reader."""
    write(root, "in.csv", every_marker_in_every_type(columns))
    steps = [
        csv_step(),
        Step("kept", "filter", {"condition": f"{columns[0]} is null"}, {"in": "read"}),
    ]
    actual = assert_same(steps, {}, root, exits=["read", "kept"], ordered=["read", "kept"])
    assert len(actual["kept"]) == len(NULL_MARKERS)


def test_markers_in_an_integer_column_past_the_first_block_are_null_on_both_backends(root):
    """The types come from a first block without nulls: the scan leaves the markers to its
    columns, the cast of the first "NA" fails, and the segment runs again."""
    values = "".join(f"{index},v{index % 7}\n" for index in range(200_000))  # over 1 MiB
    write(root, "in.csv", "i,s\n" + values + "NA,x\nnull,\n7,NaN\n")
    assert scanned(root).markers_after_read
    steps = [csv_step(), Step("kept", "filter", {"condition": "i is null"}, {"in": "read"})]
    actual = assert_same(steps, {}, root, exits=["kept"], ordered=["kept"])
    assert len(actual["kept"]) == 2


def scanned(root, **options):
    from runtime.backends.duckdb.scans import scan_sql
    from runtime.io.paths import FileArea
    from runtime.relational import Scan

    scan = Scan("csv", "data/in.csv", (("delimiter", ","), ("header", True), ("skip_rows", 0)))
    return scan_sql(scan, FileArea.of(root), **options)


def test_a_csv_scan_of_text_and_floats_leaves_the_markers_to_its_columns(root):
    write(root, "in.csv", every_marker_in_every_type("sf"))
    found = scanned(root)
    assert found.markers_after_read and [""] in found.params
    assert "isnan" in found.sql and "WHEN 2 THEN (\"s\" = 'NA')" in found.sql
    strict = scanned(root, markers_in_reader=True)
    assert not strict.markers_after_read and list(NULL_MARKERS) in strict.params


def test_nulls_in_the_first_block_of_an_integer_column_have_the_reader_match_markers(root):
    write(root, "in.csv", every_marker_in_every_type("is"))
    found = scanned(root)
    assert not found.markers_after_read and list(NULL_MARKERS) in found.params


ONE_COLUMN = 'name\nAda\n\n""\nNA\n"NA"\nLinus\n\n\nGrace\n\n'


@pytest.mark.parametrize("params", [{}, {"header": False, "skip_rows": 1}])
def test_a_file_of_one_text_column_skips_its_blank_lines_and_keeps_quoted_empties(root, params):
    """A blank line of a one-column file is no row to pandas' reader (DuckDB's read it as a
    null); `""`, "NA" and `"NA"` are null rows to both."""
    write(root, "in.csv", ONE_COLUMN)
    pandas_frames, _ = run_pandas([csv_step(**params)], {}, root)
    assert len(pandas_frames["read"]) == 6
    assert pandas_frames["read"].iloc[:, 0].isna().sum() == 3
    assert_same([csv_step(**params)], {}, root, ordered=["read"])


def test_a_one_column_file_whose_column_is_only_counted_skips_its_blank_lines(root):
    write(root, "in.csv", ONE_COLUMN)
    size = {"group_by": [], "aggregations": [{"function": "size"}]}
    steps = [csv_step(), Step("count", "aggregate", size, {"in": "read"})]
    assert_same(steps, {}, root)


@pytest.mark.parametrize(
    "values",
    ['1\n\n2\n""\nNA\n-3\n\n', '0.5\n\nNaN\n""\n-inf\n', '2024-02-29\n\n""\nnull\n'],
)
def test_a_file_of_one_column_of_another_type_skips_blank_lines_and_takes_markers_as_null(
    root, values
):
    write(root, "in.csv", "n\n" + values)
    assert_same([csv_step()], {}, root, ordered=["read"])


def test_a_csv_column_of_no_values_stays_on_pandas(root):
    write(root, "in.csv", "a,b\n1,\n2,\n")
    steps = [csv_step()]
    _, schemas = run_pandas(steps, {}, root)
    with pytest.raises(NotLowerable, match="'b'"):
        run_duckdb(steps, {}, schemas, root, ["read"])


def test_a_csv_file_in_another_encoding_stays_on_pandas(root):
    from runtime.operators.registry import default_registry

    operator = default_registry().get("csv_input")
    params = operator.Params.model_validate({"path": "in.csv", "encoding": "latin-1"})
    with pytest.raises(NotLowerable, match="latin-1"):
        operator.lower(params, {}, {})


def test_parquet_scan_gives_parquet_input_types(root):
    (root / "data").mkdir()
    table = pa.table(
        {
            "i8": pa.array([1, None, 3], pa.int8()),
            "i64": pa.array([1, 2, None], pa.int64()),
            "f32": pa.array([1.5, None, 2.25], pa.float32()),
            "s": pa.array(["ä", None, "b"]),
            "d": pa.array([datetime.date(2020, 1, 1), None, datetime.date(2021, 1, 1)]),
            "ts_ms": pa.array([1, 2, None], pa.timestamp("ms")),
            "ts_us": pa.array([1, 2, None], pa.timestamp("us")),
            "b": pa.array([True, None, False]),
        }
    )
    pq.write_table(table, root / "data" / "in.parquet")
    steps = [Step("read", "parquet_input", {"path": "data/in.parquet"})]
    assert_same(steps, {}, root, ordered=["read"])
    steps = [Step("read", "parquet_input", {"path": "data/in.parquet", "columns": ["s", "i8"]})]
    assert_same(steps, {}, root, ordered=["read"])


def test_parquet_written_by_pandas_round_trips_through_both(root):
    (root / "data").mkdir()
    frame = pd.DataFrame(
        {"k": pd.array([2, 1, 2, None], dtype="Int64"), "v": [0.5, 1.5, None, 2.0]}
    )
    frame.to_parquet(root / "data" / "in.parquet")
    steps = [
        Step("read", "parquet_input", {"path": "data/in.parquet"}),
        Step(
            "a",
            "aggregate",
            {"group_by": ["k"], "aggregations": [{"column": "v", "function": "mean"}]},
            {"in": "read"},
        ),
    ]
    assert_same(steps, {}, root, ordered=["a"])


@pytest.mark.parametrize("function", ["sum", "mean", "count", "min", "max"])
def test_nan_in_a_parquet_file_duckdb_wrote_is_null_to_aggregates_on_both(root, function):
    """An engine that keeps NaN as a value writes it so: pandas skips it as a null."""
    import duckdb

    (root / "data").mkdir()
    rows = "('a', 10.0::DOUBLE), ('a', 'NaN'::DOUBLE), ('b', NULL), ('b', 1.0), ('c', 'NaN')"
    path = root / "data" / "in.parquet"
    duckdb.sql(f"COPY (FROM (VALUES {rows}) t(k, amount)) TO '{path}' (FORMAT parquet)")
    aggregation = {"column": "amount", "function": function}
    steps = [
        Step("read", "parquet_input", {"path": "data/in.parquet"}),
        Step("a", "aggregate", {"group_by": ["k"], "aggregations": [aggregation]}, {"in": "read"}),
        Step("s", "sort", {"by": [{"column": "amount"}, {"column": "k"}]}, {"in": "read"}),
    ]
    found = assert_same(steps, {}, root, exits=["a", "s"], ordered=["a", "s"])
    [_, result] = found["a"].columns
    assert found["a"][result].tolist()[0] == (1 if function == "count" else 10.0)


def test_nan_in_a_parquet_file_is_null_to_filters_and_computed_columns_on_both(root):
    """DuckDB judges `NULLIF(column, NaN)` over a Parquet scan from the file's statistics."""
    (root / "data").mkdir()
    table = pa.table({"id": [1, 2, 3, 4], "amount": [10.0, float("nan"), None, 1.0]})
    pq.write_table(table, root / "data" / "in.parquet")
    read = Step("read", "parquet_input", {"path": "data/in.parquet"})
    steps = [
        read,
        Step("big", "filter", {"condition": "amount > 5"}, {"in": "read"}),
        Step("missing", "filter", {"condition": "amount is null"}, {"in": "read"}),
        Step(
            "doubled",
            "transform",
            {"mappings": [{"target": "twice", "expression": "amount * 2"}]},
            {"in": "read"},
        ),
    ]
    outputs = assert_same(steps, {}, root, exits=["big", "missing", "doubled"])
    assert outputs["big"]["id"].tolist() == [1]
    assert sorted(outputs["missing"]["id"].tolist()) == [2, 3]
