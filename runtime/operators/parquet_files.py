"""`parquet_input` and `parquet_output`: Parquet files under the data root.

Parquet stores column types, so the schema view reads only the file's footer, a preview reads
only the first batches it needs, and a column subset is read without touching the others.
A folder's files are those ending in `.parquet`.
Appending reads the old rows, adds the new ones (their columns must match) and rewrites the
file: Parquet files cannot grow in place.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.metadata import version
from typing import Annotated, Literal

from pydantic import Field

from runtime import relational
from runtime.document.fields import DataPath, FileEndings
from runtime.errors import OperatorError
from runtime.io.file_patterns import InputFile
from runtime.io.incremental import IncrementalField
from runtime.lazy import np, pa, pd, pq
from runtime.operators.column_names import read_names, require_columns
from runtime.operators.context import NodeContext
from runtime.operators.contract import OperatorParams
from runtime.operators.file_common import (
    FileInput,
    FileNameColumn,
    FileOutput,
    FileOutputParams,
    OutputPath,
    arrow_schema,
    arrow_table,
    conform_table,
    empty_table,
    read_batches,
    with_file_name_field,
)
from runtime.tables.frames import is_exact_decimal
from runtime.tables.schema import Schema

BATCH_ROWS = 128 * 1024
"""Rows decoded at a time, between progress events and cancellation checks."""
PARQUET_ENDINGS = (".parquet",)
"""The files of a folder that `parquet_input` reads."""


class ParquetInputParams(OperatorParams):
    path: Annotated[DataPath, FileEndings(PARQUET_ENDINGS)] = Field(
        title="Path",
        description="Parquet file, folder of them or pattern such as 'sales/2026-*.parquet', "
        "relative to the data root.",
    )
    columns: list[str] | None = Field(
        None, title="Columns", description="Read only these columns (all when empty)."
    )
    file_name_column: FileNameColumn = None
    incremental: IncrementalField = None


class ParquetInput(FileInput):
    name = "parquet_input"
    title = "Parquet file"
    description = "Read a Parquet file, or a folder or pattern of them, from the data root."
    Params = ParquetInputParams
    row_limit_safe = True  # the files store their types: the first n rows read alike either way

    def file_schema(self, ctx, files):
        with _open(files[0]) as parquet:
            return arrow_schema(with_file_name_field(ctx, _projected_schema(ctx, parquet)))

    def lower(self, params, inputs, schemas):
        columns = tuple(params.columns) if params.columns else None
        options = (("file_name_column", params.file_name_column),)
        return {"out": relational.Scan("parquet", params.path, options, columns)}

    def read_file(self, ctx, file, row_limit):
        with _open(file) as parquet:
            schema = _projected_schema(ctx, parquet)
            kept = read_names(schema.names, ctx.columns)  # column pruning
            schema = schema if kept == schema.names else empty_table(schema).select(kept).schema
            batches = parquet.iter_batches(
                batch_size=min(row_limit or BATCH_ROWS, BATCH_ROWS), columns=schema.names
            )
            table = read_batches(ctx, batches, schema, row_limit)
            return conform_table(intervals_as_text(table, interval_columns(parquet.schema)))


def interval_columns(schema) -> set[str]:
    """The top-level columns of a Parquet schema (`pq.ParquetSchema`) of its INTERVAL type
    (DuckDB writes them; pyarrow reads their 12 bytes as fixed_size_binary)."""
    return {
        column.path
        for column in (schema.column(index) for index in range(len(schema)))
        if column.converted_type == "INTERVAL" and "." not in column.path
    }


def intervals_as_text(table: pa.Table, intervals: set[str]) -> pa.Table:
    """`table` with its `intervals` columns as the text DuckDB casts an INTERVAL to
    (`1 year 2 months 3 days 04:05:06.789`), which a scan on DuckDB gives too."""
    for name in intervals & set(table.column_names):
        column = table.column(name).combine_chunks()
        parts = np.frombuffer(column.buffers()[1], "<u4", offset=column.offset * 12)
        parts = parts[: 3 * len(column)].reshape(-1, 3).tolist()
        texts = [
            None if missing else _interval_text(*part)
            for missing, part in zip(column.is_null().to_pylist(), parts, strict=True)
        ]
        index = table.column_names.index(name)
        table = table.set_column(index, name, pa.array(texts, pa.string()))
    return table


def _interval_text(months: int, days: int, milliseconds: int) -> str:
    years, months = divmod(months, 12)
    parts = [
        f"{count} {unit}{'' if count == 1 else 's'}"
        for count, unit in ((years, "year"), (months, "month"), (days, "day"))
        if count
    ]
    if milliseconds or not parts:
        seconds, fraction = divmod(milliseconds, 1000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        clock = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
        parts.append(clock + (f".{fraction:03d}".rstrip("0") if fraction else ""))
    return " ".join(parts)


def _open(file: InputFile) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(file.location)
    except (pa.ArrowInvalid, OSError) as error:
        raise OperatorError(f"cannot read '{file.name}' as Parquet: {error}") from error


def _projected_schema(ctx: NodeContext, parquet: pq.ParquetFile) -> pa.Schema:
    """The file's Arrow schema, narrowed to the `columns` param (checked) in its order."""
    empty = empty_table(parquet.schema_arrow)
    columns = ctx.params.columns
    if not columns:
        return empty.schema
    require_columns("columns", columns, empty.column_names)
    return empty.select(columns).schema


class ParquetOutputParams(FileOutputParams):
    path: OutputPath = Field(
        title="Path", description="Parquet file to write, relative to the data root."
    )
    compression: Literal["snappy", "zstd", "gzip", "none"] = Field(
        "snappy",
        title="Compression",
        description="snappy is fast, zstd and gzip make smaller files, none does not compress.",
    )


class ParquetOutput(FileOutput):
    name = "parquet_output"
    title = "Write Parquet"
    description = "Write rows to a Parquet file under the data root, all at once or not at all."
    Params = ParquetOutputParams

    def lower(self, params, inputs, schemas):
        options = (("compression", params.compression),)
        return self.written(params, inputs, schemas, "parquet", options)

    def reads_batches(self, params):
        return True

    def write(self, ctx, frame, temporary, appending):
        params: ParquetOutputParams = ctx.params
        table = parquet_table(frame)
        if appending:
            table = appended(pq.read_table(temporary), table, params.path)
        pq.write_table(table, temporary, compression=_compression(params))

    def write_spilled(self, ctx, rows, temporary, appending):
        if appending:  # the existing file is read whole and written again, as for a frame
            super().write_spilled(ctx, rows, temporary, appending)
            return
        writer = None
        try:
            for frame in rows.frames():
                ctx.check_cancelled()
                table = parquet_table(frame)
                if writer is None:
                    compression = _compression(ctx.params)
                    writer = pq.ParquetWriter(temporary, table.schema, compression=compression)
                writer.write_table(table.cast(writer.schema))
        finally:
            if writer is not None:
                writer.close()


def _compression(params: ParquetOutputParams) -> str | None:
    return None if params.compression == "none" else params.compression


def parquet_table(frame: pd.DataFrame) -> pa.Table:
    """`frame` as Arrow, with pandas' metadata so that `pd.read_parquet` restores its dtypes."""
    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column of mixed kinds of values
        return arrow_table(frame)


def appended(old: pa.Table, new: pa.Table, source: str) -> pa.Table:
    """The old rows then the new ones, in the old file's column types; every column may hold
    nulls (a writer that knew its columns held none, as DuckDB and tpchgen do, marked them
    required, which the new rows need not be)."""
    if _columns(arrow_schema(old.schema)) != _columns(arrow_schema(new.schema)):
        raise OperatorError(
            f"cannot append to '{source}': its columns are {_listing(old.schema)} but the rows "
            f"to write have {_listing(new.schema)}; choose overwrite or another path"
        )
    fields = [field.with_nullable(True) for field in old.schema]
    schema = pa.schema(fields, metadata=old.schema.metadata)
    try:
        return pa.concat_tables([old.cast(schema), new.cast(schema)])
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise OperatorError(f"cannot append to '{source}': {error}") from error


PANDAS_NAMES = {
    "integer": ("int64", "Int64"),
    "float": ("float64", "float64"),
    "boolean": ("bool", "boolean"),
    "string": ("object", "str"),
    "date": ("date", "date32[day][pyarrow]"),
}
"""pandas' names (`pandas_type`, `numpy_type`) of a column of each public type in the engine's
dtype, as pyarrow records them in a file's pandas metadata (datetimes and decimals: below)."""


@cache
def _stored_types() -> tuple:
    """Arrow checks, the type stored and the public type (built when a file is written)."""
    return (
        (pa.types.is_integer, pa.int64(), "integer"),
        (pa.types.is_floating, pa.float64(), "float"),
        (pa.types.is_boolean, pa.bool_(), "boolean"),
        (pa.types.is_string, pa.large_string(), "string"),
        (pa.types.is_large_string, pa.large_string(), "string"),
        (pa.types.is_date32, pa.date32(), "date"),
    )


def pandas_schema(schema: pa.Schema) -> pa.Schema:
    """The Arrow schema, pandas' metadata included, that `parquet_table` gives a frame holding data
    of `schema` in the engine's dtypes (runtime/tables/frames.py): a file written in it reads back
    with `pd.read_parquet` in those dtypes, like one the pandas path wrote, without pandas."""
    fields, columns = [], []
    for item in schema:
        kind, type_name, detail = _stored_type(item.name, item.type)
        fields.append(pa.field(item.name, kind))
        columns.append(pandas_column(item.name, type_name, detail))
    return pa.schema(fields, metadata={b"pandas": pandas_metadata(columns).encode()})


def _stored_type(name: str, kind: pa.DataType) -> tuple[pa.DataType, str, tuple]:
    """The Arrow type a column of type `kind` is stored in, its public type and `pandas_column`'s
    detail of it."""
    if pa.types.is_timestamp(kind):
        return kind, "datetime", (kind.unit, kind.tz)
    if is_exact_decimal(kind):
        return pa.decimal128(kind.precision, kind.scale), "decimal", (kind.precision, kind.scale)
    for check, stored, type_name in _stored_types():
        if check(kind):
            return stored, type_name, ()
    raise OperatorError(f"column '{name}' is {kind}, which has no public type")


def pandas_column(name: str, type_name: str, detail: tuple = ()) -> dict:
    """What pyarrow records in pandas' metadata of the column `name` of the public type
    `type_name` in the engine's dtype; `detail`: a datetime's unit and zone (None: naive), a
    decimal's precision and scale. Neither it nor `pandas_metadata` imports pyarrow: a file DuckDB
    writes carries the same metadata (runtime/backends/duckdb/sinks.py)."""
    metadata = None
    if type_name == "datetime":
        unit, zone = detail
        names = ("datetime" if zone is None else "datetimetz", f"datetime64[{unit}]")
        metadata = None if zone is None else {"timezone": zone}
    elif type_name == "decimal":
        precision, scale = detail
        names, metadata = ("decimal", "object"), {"precision": precision, "scale": scale}
    else:
        names = PANDAS_NAMES[type_name]
    return {
        "name": name,
        "field_name": name,
        "pandas_type": names[0],
        "numpy_type": names[1],
        "metadata": metadata,
    }


def pandas_metadata(columns: list[dict]) -> str:
    """The JSON stored under a Parquet file's `pandas` key for `columns` (`pandas_column`'s), with
    no index: what `pd.read_parquet` restores the columns' dtypes from."""
    metadata = {
        "index_columns": [],
        "column_indexes": [],
        "columns": columns,
        "attributes": {},
        "creator": {"library": "pyarrow", "version": _version("pyarrow")},
        "pandas_version": _version("pandas"),
    }
    return json.dumps(metadata)


@cache
def _version(package: str) -> str:
    """The installed version of `package`, read without importing it."""
    return version(package)


def _columns(schema: Schema) -> list[tuple[str, str]]:
    return [(column.name, column.type) for column in schema.columns]


def _listing(schema: pa.Schema) -> str:
    return ", ".join(f"{name} ({kind})" for name, kind in _columns(arrow_schema(schema)))
