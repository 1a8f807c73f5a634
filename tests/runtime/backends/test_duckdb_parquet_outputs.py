"""A Parquet file written from a DuckDB segment reads back as the one `parquet_output` writes
on pandas: `pd.read_parquet` restores the same dtypes from the same pandas metadata, and
`parquet_input` reads the same frame; appending follows the same rules. DuckDB's own COPY
writes a new file (no pyarrow is imported), pyarrow one appended to or of a type COPY does not
write alike (a zoned datetime, whole seconds)."""

from __future__ import annotations

import datetime
import decimal
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given

from runtime import relational as r
from runtime.backends.duckdb import SegmentError, run_segment
from runtime.errors import OperatorError
from runtime.operators.context import NodeContext
from runtime.operators.parquet_files import ParquetInput, ParquetInputParams
from runtime.tables.schema import date_dtype
from tests.runtime.backends.both import Step, write_both_ways, write_on_duckdb, write_on_pandas
from tests.runtime.backends.test_duckdb_csv_outputs import AWKWARD_TEXTS, frames
from tests.runtime.backends.test_duckdb_output_files import BUDGET, OLD, leftovers
from tests.strategies import bounded

ROOT = Path(__file__).resolve().parents[3]

EVERY_TYPE = pd.DataFrame(
    {
        "i": pd.array([1, None, -(2**62)], dtype="Int64"),
        "f": [0.1, None, -0.0],
        "b": pd.array([True, None, False], dtype="boolean"),
        "s": pd.array(["é李", None, ""], dtype="str"),
        "d": pd.array(
            [datetime.date(2024, 1, 31), None, datetime.date(1, 1, 1)], dtype=date_dtype()
        ),
        "t": pd.to_datetime(
            ["2024-01-01 10:00:00.000000001", None, "1970-01-01"], format="ISO8601"
        ),
        "m": pd.array(
            [decimal.Decimal("12.34"), None, decimal.Decimal("-0.05")],
            dtype=pd.ArrowDtype(pa.decimal128(15, 2)),
        ),
    }
)


def read_back(path: Path) -> dict[str, pd.DataFrame]:
    ctx = NodeContext("read", ParquetInputParams(path=path.name), data_root=path.parent)
    return {
        "read_parquet": pd.read_parquet(path),
        "parquet_input": ParquetInput().run(ctx, {})["out"],
    }


def assert_read_back_alike(frame, folder: Path, steps=(), existing=None, **params):
    steps = list(steps)
    source = steps[-1].id if steps else "p"
    write = Step("write", "parquet_output", {"path": "out/data.parquet", **params}, {"in": source})
    on_pandas, on_duckdb, result = write_both_ways(
        steps, write, {"p": frame}, folder, existing=existing
    )
    expected, actual = read_back(on_pandas), read_back(on_duckdb)
    for reader, wanted in expected.items():
        pd.testing.assert_frame_equal(actual[reader], wanted, check_exact=True, obj=reader)
    assert_parquet_alike(on_pandas, on_duckdb)
    return result


def assert_parquet_alike(expected: Path, actual: Path) -> None:
    """`actual` reads back as `expected` (a file pyarrow wrote): the same frame with
    `pd.read_parquet`, the same pandas metadata, and with pyarrow the same table, every column
    nullable, but for a text column, `string` where pyarrow's own schema of its file (which
    DuckDB does not write) says `large_string`."""
    wanted, got = pd.read_parquet(expected), pd.read_parquet(actual)
    pd.testing.assert_frame_equal(got, wanted, check_exact=True, obj="read_parquet")
    wanted, got = pq.read_table(expected), pq.read_table(actual)
    assert got.schema.metadata == wanted.schema.metadata  # pandas', pyarrow's own is taken off
    assert all(field.nullable for field in got.schema)
    if writer(actual) == "DuckDB":
        texts = [pa.string() if pa.types.is_large_string(f.type) else f.type for f in wanted.schema]
        wanted = wanted.cast(pa.schema(list(zip(wanted.column_names, texts, strict=True))))
    assert got.equals(wanted)


def writer(path: Path) -> str:
    """Who wrote the Parquet file: "DuckDB" or "pyarrow"."""
    created_by = pq.read_metadata(path).created_by
    return "DuckDB" if created_by.startswith("DuckDB") else created_by.split(" ")[0]


COMPRESSIONS = {"snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP", "none": "UNCOMPRESSED"}


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_every_type_is_written_by_duckdb_and_reads_back_in_the_same_dtypes(tmp_path, compression):
    result = assert_read_back_alike(EVERY_TYPE, tmp_path, compression=compression)
    assert result.written["write"].rows == 3
    path = tmp_path / "duckdb" / "out" / "data.parquet"
    assert writer(path) == "DuckDB"
    assert writer(tmp_path / "pandas" / "out" / "data.parquet") == "parquet-cpp-arrow"
    row_group = pq.read_metadata(path).row_group(0)
    codecs = {row_group.column(index).compression for index in range(row_group.num_columns)}
    assert codecs == {COMPRESSIONS[compression]}
    assert result.written["write"].bytes == path.stat().st_size


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetimes_keep_their_unit(tmp_path, unit):
    """Parquet has no unit of seconds: pyarrow stores milliseconds (and reads them back so)."""
    frame = pd.DataFrame(
        {"t": pd.array(pd.to_datetime(["2024-01-01 10:00", None]), f"datetime64[{unit}]")}
    )
    assert_read_back_alike(frame, tmp_path)
    path = tmp_path / "duckdb" / "out" / "data.parquet"
    assert writer(path) == "DuckDB"
    assert str(pd.read_parquet(path)["t"].dtype) == f"datetime64[{'ms' if unit == 's' else unit}]"
    assert pandas_metadata(path)["columns"][0]["numpy_type"] == f"datetime64[{unit}]"


def test_names_with_quotes_backslashes_and_unicode_are_kept_in_the_metadata(tmp_path):
    names = ["it's", 'say "hi"', "back\\slash", "é李", "a}b{", "x, y"]
    frame = pd.DataFrame(
        {name: pd.array([index, None], dtype="Int64") for index, name in enumerate(names)}
    )
    assert_read_back_alike(frame, tmp_path)
    path = tmp_path / "duckdb" / "out" / "data.parquet"
    assert writer(path) == "DuckDB"
    assert [column["name"] for column in pandas_metadata(path)["columns"]] == names


def pandas_metadata(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"pandas"])


@pytest.mark.parametrize("path", ["out/it's é.parquet", "out/a'); COPY (SELECT 1) TO ('x.parquet"])
def test_a_path_with_quotes_and_unicode_is_written_by_duckdb_as_named(tmp_path, path):
    """The session allows the staged file, and COPY binds its path."""
    write = Step("write", "parquet_output", {"path": path}, {"in": "p"})
    on_pandas, on_duckdb, _ = write_both_ways([], write, {"p": EVERY_TYPE}, tmp_path)
    assert writer(on_duckdb) == "DuckDB"
    assert_parquet_alike(on_pandas, on_duckdb)
    assert sorted(p.name for p in (tmp_path / "duckdb").rglob("*")) == sorted(
        ["out", Path(path).name]
    )


def test_sorted_rows_are_written_in_their_order(tmp_path):
    frame = pd.DataFrame({"i": pd.array(range(300_000), dtype="Int64")})
    steps = [Step("s", "sort", {"by": [{"column": "i", "descending": True}]}, {"in": "p"})]
    assert_read_back_alike(frame, tmp_path, steps)
    written = pd.read_parquet(tmp_path / "duckdb" / "out" / "data.parquet")["i"]
    assert written.tolist() == list(range(299_999, -1, -1))


def test_texts_and_no_rows_read_back_alike(tmp_path):
    assert_read_back_alike(
        pd.DataFrame({"s": pd.array(AWKWARD_TEXTS, dtype="str")}), tmp_path / "a"
    )
    steps = [Step("none", "filter", {"condition": "i > 5"}, {"in": "p"})]
    assert_read_back_alike(EVERY_TYPE, tmp_path / "b", steps)


def test_nan_that_duckdb_computes_is_null_as_pandas_holds_it(tmp_path):
    frame = pd.DataFrame({"g": pd.array([1, 1, 2], dtype="Int64"), "x": [math.inf, -math.inf, 1.0]})
    aggregations = [{"column": "x", "function": "sum", "name": "sum"}]
    steps = [Step("a", "aggregate", {"group_by": ["g"], "aggregations": aggregations}, {"in": "p"})]
    assert_read_back_alike(frame, tmp_path, steps)
    table = pq.read_table(tmp_path / "duckdb" / "out" / "data.parquet")
    assert table.column("sum").null_count == 1


def parquet_bytes(frame: pd.DataFrame, folder: Path) -> bytes:
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(folder / "old.parquet", index=False)
    return (folder / "old.parquet").read_bytes()


def test_append_adds_the_rows_in_the_types_of_the_file(tmp_path):
    old = parquet_bytes(EVERY_TYPE.iloc[:1], tmp_path / "old")
    result = assert_read_back_alike(EVERY_TYPE, tmp_path, existing=old, mode="append")
    assert result.written["write"].rows == 3
    assert len(pd.read_parquet(tmp_path / "duckdb" / "out" / "data.parquet")) == 4
    assert writer(tmp_path / "duckdb" / "out" / "data.parquet") == "parquet-cpp-arrow"


def test_columns_duckdb_knows_hold_no_null_are_written_nullable_and_take_nulls_appended(tmp_path):
    """DuckDB marks REQUIRED a column it knows holds no null (here: read from a file whose
    columns are REQUIRED, as tpchgen-cli writes them); pyarrow's writer marks every column
    OPTIONAL, and so does DuckDB's here: rows with nulls can be appended to the file later."""
    for folder in ("pandas", "duckdb", "duckdb-schemas"):
        (tmp_path / folder).mkdir()
        duckdb.execute(
            "COPY (SELECT 1::BIGINT AS i, 'x' AS s, DATE '2024-01-31' AS d,"
            " 1.5::DECIMAL(15,2) AS m, 2.5::DOUBLE AS f, true AS b) "
            f"TO '{tmp_path / folder / 'in.parquet'}' (FORMAT parquet)"
        )
    assert not any(field.nullable for field in pq.read_schema(tmp_path / "duckdb" / "in.parquet"))
    steps = [Step("read", "parquet_input", {"path": "in.parquet"})]
    write = Step("write", "parquet_output", {"path": "out/data.parquet"}, {"in": "read"})
    on_pandas, on_duckdb, _ = write_both_ways(steps, write, {}, tmp_path)
    assert writer(on_duckdb) == "DuckDB"
    assert_parquet_alike(on_pandas, on_duckdb)
    appending = Step(
        "write", "parquet_output", {"path": "out/data.parquet", "mode": "append"}, {"in": "p"}
    )
    nulls = read_back(on_duckdb)["parquet_input"].iloc[:0].reindex([0])  # a row of nulls
    write_on_duckdb([], appending, {"p": nulls}, tmp_path / "duckdb")
    assert pd.read_parquet(on_duckdb).isna().sum().tolist() == [1] * 6


def test_appending_other_columns_fails_as_on_pandas_and_keeps_the_file(tmp_path):
    old = parquet_bytes(pd.DataFrame({"x": [1.5]}), tmp_path)
    write = Step("write", "parquet_output", {"path": "data.parquet", "mode": "append"}, {"in": "p"})
    with pytest.raises(OperatorError) as on_pandas:
        (tmp_path / "data.parquet").write_bytes(old)
        write_on_pandas([], write, {"p": EVERY_TYPE}, tmp_path)
    with pytest.raises(SegmentError) as on_duckdb:
        write_on_duckdb([], write, {"p": EVERY_TYPE}, tmp_path)
    assert str(on_duckdb.value) == f"node 'write': {on_pandas.value}"
    assert (tmp_path / "data.parquet").read_bytes() == old
    assert not list(tmp_path.rglob("*.tmp"))


@bounded(80, tolerate=[HealthCheck.too_slow])
@given(frame=frames())
def test_random_frames_read_back_alike(frame):
    with tempfile.TemporaryDirectory() as folder:
        assert_read_back_alike(frame, Path(folder))


@pytest.mark.parametrize("mode", ["overwrite", "append"])  # by DuckDB's COPY, by pyarrow
def test_a_query_failing_midway_leaves_the_previous_file_whole_and_no_temporary(tmp_path, mode):
    """The input's node fails with DuckDB's message, naming the file as the document does: on
    pyarrow's path, the query's error came out of its reader as the write's OS error, with the
    file's server path in it."""
    area = tmp_path / "area"
    (area / "out").mkdir(parents=True)
    lines = "".join(f"{index},x\n" for index in range(300_000))
    (area / "late.csv").write_text(f"a,b\n{lines}oops,y\n")
    (area / "out" / "data.parquet").write_bytes(OLD)
    scan = r.Scan("csv", "late.csv", (("delimiter", ","), ("header", True), ("skip_rows", 0)))
    sink = r.Write(scan, "parquet", "out/data.parquet", mode, (("compression", "snappy"),))
    members = {"read": {"out": scan}, "write": {r.SINK: sink}}
    with pytest.raises(SegmentError) as caught:
        run_segment(members, [], {}, files=area, spill_dir=tmp_path / "spill", budget=BUDGET)
    assert caught.value.node == "read"
    assert 'Could not convert string "oops"' in str(caught.value)
    assert "'late.csv'" in str(caught.value) and str(area) not in str(caught.value)
    assert (area / "out" / "data.parquet").read_bytes() == OLD
    assert leftovers(area) == []


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_duckdb_run_reading_and_writing_parquet_imports_no_pyarrow_the_next_time(tmp_path):
    """The scan plans a settled file from its footer kept on disk by the run before
    (runtime/io/schema_reads.py), decimal literals are checked without pyarrow, and DuckDB's COPY
    writes the output: a fresh process never imports pyarrow."""
    source = tmp_path / "lines.parquet"
    duckdb.execute(
        "COPY (SELECT i AS id, (i / 4)::DECIMAL(15,2) AS price,"
        " DATE '2024-01-01' + i::INTEGER AS day, 'item ' || i AS name FROM range(10) t(i))"
        " TO ? (FORMAT parquet)",
        [str(source)],
    )
    hour_ago = time.time_ns() - 3600 * 10**9  # long enough ago for its footer to be kept
    os.utime(source, ns=(hour_ago, hour_ago))
    document = {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "p",
        "nodes": [
            {"id": "read", "operator": "parquet_input", "params": {"path": "lines.parquet"}},
            {"id": "keep", "operator": "filter", "params": {"condition": "price > 0.5 - 0.25"}},
            {"id": "write", "operator": "parquet_output", "params": {"path": "out/o.parquet"}},
        ],
        "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}],
    }
    (tmp_path / "p.json").write_text(json.dumps(document))
    code = (
        "import sys; from runtime.cli import main;"
        f"code = main(['run', {str(tmp_path / 'p.json')!r}, '--data-root', {str(tmp_path)!r},"
        " '--backend', 'duckdb', '--no-cache']);"
        "print(code, [name for name in sys.modules if name.split('.')[0] == 'pyarrow'])"
    )
    assert _run(code).splitlines()[-1].startswith("0 ")  # the first run reads the footer
    (tmp_path / "out" / "o.parquet").unlink()
    assert _run(code).splitlines()[-1] == "0 []"
    path = tmp_path / "out" / "o.parquet"
    assert writer(path) == "DuckDB"
    written = pd.read_parquet(path)
    assert written["id"].tolist() == list(range(2, 10))
    assert [str(dtype) for dtype in written.dtypes] == [
        "Int64", "object", "date32[day][pyarrow]", "str"
    ]  # fmt: skip
    assert written["price"].tolist()[0] == decimal.Decimal("0.50")


def test_writing_the_rows_of_a_parquet_file_of_every_type_imports_no_pyarrow(tmp_path):
    """The writer alone, over every type a Parquet file can give it (a run's first command on a
    file reads its footer with pyarrow)."""
    source, target = tmp_path / "in.parquet", tmp_path / "out.parquet"
    columns = (
        "1::BIGINT AS i, 2::INTEGER AS n, 0.5::DOUBLE AS f, 0.25::FLOAT AS g, true AS b, 'x' AS s,"
        " DATE '2024-01-31' AS d, 1.5::DECIMAL(15,2) AS m, TIMESTAMP '2024-01-31 10:00' AS t,"
        " TIMESTAMP_NS '2024-01-31 10:00:00.000000001' AS ns"
    )
    duckdb.execute(f"COPY (SELECT {columns}) TO '{source}' (FORMAT parquet)")
    code = (
        "import sys, duckdb; from runtime.backends.duckdb.sinks import write_parquet;"
        "connection = duckdb.connect();"
        f"rows = write_parquet(connection, 'SELECT * FROM read_parquet(?)', [{str(source)!r}],"
        f" {str(target)!r}, None, 'zstd', 'out.parquet');"
        "print(rows, [name for name in sys.modules if name.split('.')[0] == 'pyarrow'])"
    )
    assert _run(code) == "1 []"
    assert writer(target) == "DuckDB"
    written = pd.read_parquet(target)
    assert [str(dtype) for dtype in written.dtypes] == [
        "Int64", "Int64", "float64", "float64", "boolean", "str", "date32[day][pyarrow]",
        "object", "datetime64[us]", "datetime64[ns]",
    ]  # fmt: skip
    assert pandas_metadata(target)["columns"][7]["metadata"] == {"precision": 15, "scale": 2}
