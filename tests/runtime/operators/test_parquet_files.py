"""`parquet_input` and `parquet_output`: footer-only schemas, column subsets, appends."""

from __future__ import annotations

import datetime
import decimal
import io

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.errors import NodeCancelled, OperatorError, ParamsError
from runtime.operators import parquet_files
from runtime.operators.parquet_files import ParquetInput, ParquetOutput
from runtime.tables.frames import to_pandas
from tests.runtime.operators.contract import OperatorContract, make_ctx
from tests.runtime.operators.test_json_files import EVERY_TYPE


def parquet_bytes(table: pa.Table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


PEOPLE = pa.table(
    {
        "id": pa.array([1, None, 3], pa.int32()),
        "name": ["Ada", "Linus", None],
        "score": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("2.25")]),
        "address": [{"city": "Paris"}, None, {"city": "Oslo"}],
        "tags": [["a"], [], None],
        "kind": pa.array(["x", "y", "x"]).dictionary_encode(),
    }
)


class TestParquetInputContract(OperatorContract):
    operator_cls = ParquetInput
    params = {"path": "people.parquet"}
    files = {"people.parquet": parquet_bytes(PEOPLE)}
    bad_params = [
        ({}, r"node\.params\.path: Path: required"),
        ({"path": "a.parquet", "columns": "id"}, r"params\.columns: Columns: must be a list"),
    ]


class TestParquetOutputContract(OperatorContract):
    operator_cls = ParquetOutput
    params = {"path": "out/result.parquet", "compression": "zstd"}
    inputs = {"in": EVERY_TYPE}
    bad_params = [
        (
            {"path": "x.parquet", "mode": "merge"},
            r"params\.mode: When the file exists: must be one of 'overwrite'",
        ),
        (
            {"path": "x.parquet", "compression": "lz4"},
            r"params\.compression: Compression: must be one of 'snappy', 'zstd', 'gzip' or 'none'",
        ),
    ]


def reader(tmp_path, table: pa.Table | None = None, **params):
    if table is not None:
        (tmp_path / "in.parquet").write_bytes(parquet_bytes(table, row_group_size=100))
    operator = ParquetInput()
    return operator, {"path": "in.parquet", **params}


def read(tmp_path, table: pa.Table | None = None, row_limit: int | None = None, **params):
    operator, params = reader(tmp_path, table, **params)
    return operator.run(make_ctx(operator, params, tmp_path, row_limit=row_limit), {})["out"]


def write(tmp_path, frame: pd.DataFrame, **params):
    operator = ParquetOutput()
    ctx = make_ctx(operator, {"path": "out/result.parquet", **params}, tmp_path)
    operator.run(ctx, {"in": frame})
    return ctx


def test_types_without_a_public_type_are_mapped_to_one_and_decimals_stay_exact(tmp_path):
    frame = read(tmp_path, PEOPLE)
    assert frame.columns.tolist() == ["id", "name", "score", "address.city", "tags", "kind"]
    assert [str(dtype) for dtype in frame.dtypes] == [
        "Int64",
        "str",
        "decimal128(3, 2)[pyarrow]",
        "str",
        "str",
        "str",
    ]
    assert frame["score"].tolist()[::2] == [decimal.Decimal("1.50"), decimal.Decimal("2.25")]
    assert frame["tags"].tolist()[:2] == ['["a"]', "[]"]


def test_the_schema_comes_from_the_footer_without_reading_rows(tmp_path, monkeypatch):
    operator, params = reader(tmp_path, PEOPLE)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", None)  # any row read would fail
    schema = operator.output_schema(make_ctx(operator, params, tmp_path), {})["out"]
    assert [(c.name, c.type) for c in schema.columns] == [
        ("id", "integer"), ("name", "string"), ("score", "decimal"),
        ("address.city", "string"), ("tags", "string"), ("kind", "string"),
    ]  # fmt: skip


def test_only_the_listed_columns_are_read_in_the_listed_order(tmp_path):
    frame = read(tmp_path, PEOPLE, columns=["name", "id"])
    assert frame.columns.tolist() == ["name", "id"]
    operator, params = reader(tmp_path, columns=["name", "id"])
    schema = operator.output_schema(make_ctx(operator, params, tmp_path), {})["out"]
    assert schema.names == ["name", "id"]


def test_an_unknown_column_is_refused_with_a_suggestion(tmp_path):
    operator, params = reader(tmp_path, PEOPLE, columns=["nmae"])
    for call in (operator.output_schema, operator.run):
        with pytest.raises(
            ParamsError, match=r"columns: unknown column 'nmae'; did you mean 'name'"
        ):
            call(make_ctx(operator, params, tmp_path), {})


def test_a_file_that_is_not_parquet_is_a_clear_error(tmp_path):
    (tmp_path / "in.parquet").write_text("id,name\n1,Ada\n")
    with pytest.raises(OperatorError, match=r"cannot read 'in\.parquet' as Parquet: .*magic bytes"):
        read(tmp_path)


def test_the_row_limit_reads_only_the_first_batches(tmp_path, monkeypatch):
    table = pa.table({"n": range(10_000)})
    sizes = []
    original = pq.ParquetFile.iter_batches

    def spy(self, batch_size, **options):
        sizes.append(batch_size)
        return original(self, batch_size=batch_size, **options)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    assert read(tmp_path, table, row_limit=10)["n"].tolist() == list(range(10))
    assert sizes == [10]


def test_reading_reports_progress_and_stops_when_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_files, "BATCH_ROWS", 100)
    events = []
    operator, params = reader(tmp_path, pa.table({"n": range(1000)}))
    ctx = make_ctx(operator, params, tmp_path, emit=lambda kind, **f: events.append(f["rows"]))
    assert len(operator.run(ctx, {})["out"]) == 1000
    assert events and events[0] == 100
    ctx = make_ctx(operator, params, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {})


@pytest.mark.parametrize("compression", ["snappy", "zstd", "gzip", "none"])
def test_what_is_written_reads_back_as_the_same_frame(tmp_path, compression):
    write(tmp_path, EVERY_TYPE, compression=compression)
    (tmp_path / "in.parquet").write_bytes((tmp_path / "out" / "result.parquet").read_bytes())
    pd.testing.assert_frame_equal(read(tmp_path), EVERY_TYPE)
    codec = pq.ParquetFile(tmp_path / "in.parquet").metadata.row_group(0).column(0).compression
    assert codec == ("UNCOMPRESSED" if compression == "none" else compression.upper())


def test_output_creates_folders_and_reports_rows_path_and_bytes(tmp_path):
    ctx = write(tmp_path, pd.DataFrame({"a": [1, 2]}))
    path = tmp_path / "out" / "result.parquet"
    assert pq.read_table(path).column("a").to_pylist() == [1, 2]
    assert ctx.metrics == {
        "path": "out/result.parquet", "rows_written": 2, "bytes_out": path.stat().st_size
    }  # fmt: skip


def test_append_adds_the_rows_in_the_types_of_the_file(tmp_path):
    (tmp_path / "out").mkdir()
    pq.write_table(
        pa.table({"a": pa.array([1], pa.int32()), "b": ["x"]}), tmp_path / "out" / "result.parquet"
    )
    write(tmp_path, pd.DataFrame({"a": pd.array([2], "Int64"), "b": ["y"]}), mode="append")
    table = pq.read_table(tmp_path / "out" / "result.parquet")
    assert table.to_pydict() == {"a": [1, 2], "b": ["x", "y"]}
    assert table.schema.field("a").type == pa.int32()


def test_rows_with_nulls_append_to_a_file_whose_writer_marked_its_columns_required(tmp_path):
    (tmp_path / "out").mkdir()
    required = pa.schema([pa.field("a", pa.int64(), nullable=False), pa.field("b", pa.string())])
    pq.write_table(
        pa.table({"a": [1], "b": ["x"]}, schema=required), tmp_path / "out" / "result.parquet"
    )
    write(tmp_path, pd.DataFrame({"a": pd.array([None], "Int64"), "b": ["y"]}), mode="append")
    table = pq.read_table(tmp_path / "out" / "result.parquet")
    assert table.to_pydict() == {"a": [1, None], "b": ["x", "y"]}


@pytest.mark.parametrize(
    "frame",
    [pd.DataFrame({"a": [1], "c": ["y"]}), pd.DataFrame({"a": [1.5], "b": ["y"]})],
)
def test_appending_other_columns_is_refused_and_keeps_the_file(tmp_path, frame):
    write(tmp_path, pd.DataFrame({"a": [1], "b": ["x"]}))
    before = (tmp_path / "out" / "result.parquet").read_bytes()
    with pytest.raises(
        OperatorError,
        match=r"cannot append to 'out/result\.parquet': its columns are a \(integer\), b \(string\)"
        r" but the rows to write have a \((integer|float)\), (b|c) \(string\)",
    ):
        write(tmp_path, frame, mode="append")
    assert (tmp_path / "out" / "result.parquet").read_bytes() == before
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.parquet"]


def test_a_stopped_node_never_replaces_the_file(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    operator = ParquetOutput()
    ctx = make_ctx(operator, {"path": "out/result.parquet"}, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {"in": pd.DataFrame({"a": [2]})})
    assert pq.read_table(tmp_path / "out" / "result.parquet").column("a").to_pylist() == [1]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.parquet"]


def test_a_column_of_mixed_kinds_is_written_as_text(tmp_path):
    write(tmp_path, pd.DataFrame({"a": pd.Series([1, "x", None], dtype=object)}))
    table = pq.read_table(tmp_path / "out" / "result.parquet")
    assert table.column("a").to_pylist() == ["1", "x", None]


NOON = datetime.datetime(2024, 1, 31, 12)
SAMPLES = [
    (pa.int64(), 1), (pa.int32(), 1), (pa.float64(), 1.5), (pa.bool_(), True),
    (pa.string(), "x"), (pa.large_string(), "x"), (pa.date32(), NOON.date()),
    *((pa.timestamp(unit), NOON) for unit in ("s", "ms", "us", "ns")),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "sample"), SAMPLES, ids=[str(kind) for kind, _ in SAMPLES])
@pytest.mark.parametrize("rows", [0, 1, 2], ids=["empty", "null", "some"])
def test_the_schema_made_without_pandas_is_the_one_pandas_writes(kind, sample, rows):
    """What a columnar backend's rows are written with: the metadata pd.read_parquet reads."""
    table = pa.table({"v": pa.array([None, sample][:rows], kind)})
    expected = pa.Table.from_pandas(to_pandas(table), preserve_index=False).schema
    made = parquet_files.pandas_schema(table.schema)
    assert made.equals(expected, check_metadata=True), (made, expected)


def test_a_type_without_a_public_type_has_no_pandas_schema():
    with pytest.raises(OperatorError, match=r"column 'v' is time64\[us\], which has no public"):
        parquet_files.pandas_schema(pa.schema([("v", pa.time64("us"))]))
