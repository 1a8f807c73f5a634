"""A Parquet file written from a DuckDB segment reads back as the one `parquet_output` writes
on pandas: `pd.read_parquet` restores the same dtypes from the same pandas metadata, and
`parquet_input` reads the same frame; appending follows the same rules."""

from __future__ import annotations

import datetime
import math
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given

from runtime.backends.duckdb import SegmentError
from runtime.errors import OperatorError
from runtime.operators.context import NodeContext
from runtime.operators.parquet_files import ParquetInput, ParquetInputParams
from runtime.tables.schema import date_dtype
from tests.runtime.backends.both import Step, write_both_ways, write_on_duckdb, write_on_pandas
from tests.runtime.backends.test_duckdb_csv_outputs import AWKWARD_TEXTS, frames
from tests.strategies import bounded

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
    assert pq.read_schema(on_duckdb).metadata == pq.read_schema(on_pandas).metadata
    return result


@pytest.mark.parametrize("compression", ["snappy", "zstd", "gzip", "none"])
def test_every_type_reads_back_in_the_same_dtypes(tmp_path, compression):
    result = assert_read_back_alike(EVERY_TYPE, tmp_path, compression=compression)
    assert result.written["write"].rows == 3


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetimes_keep_their_unit(tmp_path, unit):
    frame = pd.DataFrame(
        {"t": pd.array(pd.to_datetime(["2024-01-01 10:00", None]), f"datetime64[{unit}]")}
    )
    assert_read_back_alike(frame, tmp_path)


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
