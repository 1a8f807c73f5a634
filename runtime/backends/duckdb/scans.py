"""File scans as DuckDB reads them, typed exactly as the pandas input operators type them.

A CSV file's column types are those pyarrow's reader infers from its first block, which is
what `csv_input` gets: they are inferred here the same way and handed to DuckDB's `read_csv`
as explicit `columns`, with pyarrow's null markers. A Parquet file's types come from its footer;
types the public convention maps through a conversion (float32, timestamps' units) are cast.
Anything else (a column of no values, time zones, decimals, nested values) is `NotLowerable`,
found before the query runs, so the segment runs on pandas instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import csv as pa_csv

from runtime.errors import NotLowerable, OperatorError
from runtime.expressions.sql_parts import identifier as quoted
from runtime.operators.csv_files import CsvInputParams, arrow_options
from runtime.paths import FileArea
from runtime.plan.relational import Scan
from runtime.schema import Column, Schema

NULL_MARKERS = pa_csv.ConvertOptions().null_values
"""pyarrow's default null strings, which `csv_input` uses."""
_TIMESTAMPS = {"s": "TIMESTAMP_S", "ms": "TIMESTAMP_MS", "us": "TIMESTAMP", "ns": "TIMESTAMP_NS"}


@dataclass(frozen=True)
class ScanSql:
    """A scan as a SELECT: its text, bound parameters, the file it reads and its columns."""

    sql: str
    params: tuple
    path: Path
    schema: Schema


def scan_sql(scan: Scan, files: FileArea) -> ScanSql:
    path = readable_file(scan.path, files)
    return _csv(scan, path) if scan.format == "csv" else _parquet(scan, path)


def readable_file(relative: str, files: FileArea) -> Path:
    """The real location of one input file inside the area (symlinks resolved and checked)."""
    path = files.resolve(relative)
    if not path.is_file():
        raise OperatorError(f"input file '{relative}' not found under the {files.called}")
    return path


def _csv(scan: Scan, path: Path) -> ScanSql:
    params = CsvInputParams(
        path=scan.path,
        delimiter=scan.option("delimiter", ","),
        header=scan.option("header", True),
        skip_rows=scan.option("skip_rows", 0),
    )
    try:
        with pa_csv.open_csv(path, *arrow_options(params, None)) as reader:
            inferred = reader.schema
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        first = str(error).strip().splitlines()[0]
        raise OperatorError(f"cannot read '{scan.path}' as CSV: {first}") from error
    names = (
        inferred.names
        if params.header
        else [f"column_{index + 1}" for index in range(len(inferred.names))]
    )
    types = {
        name: _csv_type(scan.path, name, field.type)
        for name, field in zip(names, inferred, strict=True)
    }
    if len(types) < len(names):
        raise NotLowerable(f"'{scan.path}' has two columns of the same name")
    chosen = _chosen(scan, names)
    reader_sql = (
        "read_csv(?, columns = ?, header = ?, delim = ?, skip = ?, nullstr = ?, "
        "auto_detect = false, quote = '\"', escape = '\"')"
    )
    reader_params = (
        str(path),
        {name: sql_type for name, (sql_type, _) in types.items()},
        params.header,
        params.delimiter,
        params.skip_rows,
        list(NULL_MARKERS),
    )
    select = ", ".join(quoted(name) for name in chosen)
    schema = Schema(tuple(Column(name, types[name][1]) for name in chosen))
    return ScanSql(f"SELECT {select} FROM {reader_sql}", reader_params, path, schema)


def _csv_type(source: str, name: str, kind: pa.DataType) -> tuple[str, str]:
    """The DuckDB and public type of a column pyarrow inferred as `kind`."""
    simple = {
        pa.int64(): ("BIGINT", "integer"),
        pa.float64(): ("DOUBLE", "float"),
        pa.bool_(): ("BOOLEAN", "boolean"),
        pa.string(): ("VARCHAR", "string"),
        pa.date32(): ("DATE", "date"),
    }
    if kind in simple:
        return simple[kind]
    if pa.types.is_timestamp(kind) and kind.tz is None and kind.unit in ("s", "ns"):
        return _TIMESTAMPS[kind.unit], "datetime"
    raise NotLowerable(f"column '{name}' of '{source}' reads as {kind}, kept as pandas keeps it")


def _chosen(scan: Scan, names: list[str]) -> list[str]:
    if scan.columns is None:
        return names
    missing = [name for name in scan.columns if name not in names]
    if missing:  # the pandas reader reports it, in its words
        raise NotLowerable(f"column '{missing[0]}' is not in '{scan.path}'")
    return list(scan.columns)


def _parquet(scan: Scan, path: Path) -> ScanSql:
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise OperatorError(f"cannot read '{scan.path}' as Parquet: {error}") from error
    if len(set(schema.names)) < len(schema.names):
        raise NotLowerable(f"'{scan.path}' has two columns of the same name")
    chosen = _chosen(scan, schema.names)
    columns = [_parquet_column(scan.path, name, schema.field(name).type) for name in chosen]
    select = ", ".join(expression for expression, _ in columns)
    public = Schema(tuple(column for _, column in columns))
    return ScanSql(f"SELECT {select} FROM read_parquet(?)", (str(path),), path, public)


def _parquet_column(source: str, name: str, kind: pa.DataType) -> tuple[str, Column]:
    """The SELECT expression giving `name` the type `parquet_input` gives it."""
    column = quoted(name)
    if pa.types.is_integer(kind) and kind != pa.uint64():
        return column, Column(name, "integer")
    if pa.types.is_floating(kind):
        return f"CAST({column} AS DOUBLE) AS {column}", Column(name, "float")
    if pa.types.is_timestamp(kind) and kind.tz is None:
        return f"CAST({column} AS {_TIMESTAMPS[kind.unit]}) AS {column}", Column(name, "datetime")
    for check, type_name in (
        (pa.types.is_boolean, "boolean"),
        (pa.types.is_string, "string"),
        (pa.types.is_large_string, "string"),
        (pa.types.is_date32, "date"),
    ):
        if check(kind):
            return column, Column(name, type_name)
    raise NotLowerable(f"column '{name}' of '{source}' is {kind}, kept as pandas keeps it")
