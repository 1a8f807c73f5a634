"""File scans as DuckDB reads them, typed exactly as the pandas input operators type them.

A CSV file's column types are those pyarrow's reader infers from its first block, which is
what `csv_input` gets: they are inferred here the same way and handed to DuckDB's `read_csv`
as explicit `columns`, with pyarrow's null markers. A Parquet file's types come from its footer,
each column converted as `parquet_input` converts it (parquet_types.py). Anything else (a CSV
column of no values, a Parquet list) is `NotLowerable`, found before the query runs, so the
segment runs on pandas instead.

A scan of a folder or a pattern reads the files `runtime.io.file_patterns` lists, each checked
against the run's file area, handed to DuckDB as a bound list of real paths: DuckDB never
expands a pattern itself, which would bypass those checks (a file whose real path holds a
wildcard character stays on pandas, since DuckDB would take it for one). Every file must read
as the first does, the same columns in the same order of the same types; otherwise the
node runs on pandas, which joins the files by name or says which one differs. The file name
column comes from DuckDB's `file_index`, the position of each row's file in that list.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
from pyarrow import csv as pa_csv

from runtime.backends.duckdb.parquet_types import TIMESTAMPS, parquet_columns, zones_of
from runtime.errors import NotLowerable, OperatorError
from runtime.expressions.sql_parts import identifier as quoted
from runtime.io.file_patterns import InputFile, input_files
from runtime.io.paths import FileArea
from runtime.io.schema_reads import read_once
from runtime.lazy import pq
from runtime.operators.column_names import read_names
from runtime.operators.csv_files import CSV_ENDINGS, CsvInputParams, arrow_options
from runtime.operators.parquet_files import PARQUET_ENDINGS, interval_columns
from runtime.plan.reuse.stored_result import GONE
from runtime.relational import Scan, Stored
from runtime.tables.schema import Column, Schema

NULL_MARKERS = pa_csv.ConvertOptions().null_values
"""pyarrow's default null strings, which `csv_input` uses."""
_ENDINGS = {"csv": CSV_ENDINGS, "parquet": PARQUET_ENDINGS}
DUCKDB_WILDCARDS = "*?[]{}"
"""Characters DuckDB's readers take a path holding them to be a pattern of."""


@dataclass(frozen=True)
class ScanSql:
    """A scan as a SELECT: its text, bound parameters, the files it reads, its columns and
    the time zones of its datetimes."""

    sql: str
    params: tuple
    files: tuple[InputFile, ...]
    schema: Schema
    zones: frozenset[str] = frozenset()


def scan_sql(scan: Scan, area: FileArea) -> ScanSql:
    files = readable_files(scan, area)
    return _csv(scan, files) if scan.format == "csv" else _parquet(scan, files)


def stored_sql(stored: Stored) -> ScanSql:
    """A stored result's Parquet file as a scan; the file area does not apply (the plan, not
    a document, chose the file)."""
    try:
        return _parquet(stored, (InputFile(stored.path, Path(stored.location)),))
    except OperatorError:  # pyarrow's message names the server's path: say it in ours
        raise OperatorError(GONE) from None


def session_zone(zones: set[str] | frozenset[str]) -> str:
    """The session's `TimeZone`: the one zone the scans' datetimes are in, in which DuckDB
    gives them as pandas keeps them (`UTC` when none is)."""
    if len(zones) > 1:
        raise NotLowerable(
            f"datetimes in the zones {', '.join(sorted(zones))} meet in one segment, "
            "whose DuckDB session keeps one"
        )
    return next(iter(zones), "UTC")


def readable_files(scan: Scan, area: FileArea) -> tuple[InputFile, ...]:
    """The files of the scan's path inside the area (symlinks resolved and checked), whose
    real paths DuckDB reads as they are."""
    files = tuple(input_files(area, scan.path, _ENDINGS[scan.format]))
    for file in files:
        if any(character in str(file.location) for character in DUCKDB_WILDCARDS):
            raise NotLowerable(f"'{file.name}' has wildcard characters and is read on pandas")
    return files


def _csv(scan: Scan, files: tuple[InputFile, ...]) -> ScanSql:
    params = CsvInputParams(
        path=scan.path,
        delimiter=scan.option("delimiter", ","),
        header=scan.option("header", True),
        skip_rows=scan.option("skip_rows", 0),
    )
    first = csv_columns(params, files[0])
    for file in files[1:]:
        if _csv_shape(csv_columns(params, file)) != _csv_shape(first):
            raise NotLowerable(f"'{file.name}' does not read like '{files[0].name}'")
    names = list(first)
    chosen = _chosen(scan, names)
    read = set(chosen if scan.read is None else read_names(chosen, set(scan.read)))
    reader_sql = (
        "read_csv(?, columns = ?, header = ?, delim = ?, skip = ?, nullstr = ?, "
        "auto_detect = false, quote = '\"', escape = '\"')"
    )
    reader_params = (
        [str(file.location) for file in files],
        {name: column.sql_type for name, column in first.items()},
        params.header,
        params.delimiter,
        params.skip_rows,
        list(NULL_MARKERS),
    )
    columns = [_csv_column(name, first[name], name in read) for name in chosen]
    return _select(scan, files, names, columns, reader_sql, reader_params)


class CsvColumnType(NamedTuple):
    """How DuckDB reads a CSV column: `refused` says why it cannot as pandas does. DuckDB
    parses such a column as text, which a scan whose downstream never reads it leaves out."""

    sql_type: str
    public_type: str | None
    refused: str | None = None


def csv_columns(params: CsvInputParams, file: InputFile) -> dict[str, CsvColumnType]:
    """Each column of the file, in order, with its DuckDB and public type (read once while
    the file is unchanged: a run checks a scan, then renders it)."""
    key = ("csv_columns", params.delimiter, params.header, params.skip_rows, params.encoding)
    return dict(read_once(file.location, key, lambda: _csv_columns(params, file)))


def _csv_column(name: str, column: CsvColumnType, read: bool) -> tuple[str, Column]:
    """The column as the scan selects it: as `_converted` does for Parquet, one that does not
    lower is refused if read downstream, else a null placeholder."""
    if column.refused is None:
        return quoted(name), Column(name, column.public_type)
    if read:
        raise NotLowerable(column.refused)
    return f"NULL AS {quoted(name)}", Column(name, "string")


def _csv_shape(columns: dict[str, CsvColumnType]) -> list[tuple]:
    """What two files must share to be read as one: names and types in order (a refusal
    names its own file, so only whether there is one counts)."""
    return [(name, *column[:2], column.refused is None) for name, column in columns.items()]


def _csv_columns(params: CsvInputParams, file: InputFile) -> dict:
    try:
        options = arrow_options(params, None, threads=False)  # the types alone: one block
        with pa_csv.open_csv(file.location, *options) as reader:
            inferred = reader.schema
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        first = str(error).strip().splitlines()[0]
        raise OperatorError(f"cannot read '{file.name}' as CSV: {first}") from error
    names = (
        inferred.names
        if params.header
        else [f"column_{index + 1}" for index in range(len(inferred.names))]
    )
    types = {
        name: _csv_type(file.name, name, field.type)
        for name, field in zip(names, inferred, strict=True)
    }
    if len(types) < len(names):
        raise NotLowerable(f"'{file.name}' has two columns of the same name")
    return types


def _select(scan: Scan, files, names, columns: list[tuple[str, Column]], reader_sql, params):
    """The SELECT of `columns` (expression, column) from the reader, and the file name column
    if the scan has one: the name of the row's file, by its place in the list read (a column
    of the files named `file_index` would hide DuckDB's)."""
    selected, before = [expression for expression, _ in columns], ()
    schema = [column for _, column in columns]
    name = scan.option("file_name_column")
    if name is not None:
        if name in names or "file_index" in names:
            raise NotLowerable(f"the file name column '{name}' is added on pandas")
        selected.append(f"(?::VARCHAR[])[CAST(file_index AS BIGINT) + 1] AS {quoted(name)}")
        before = ([file.name for file in files],)
        schema.append(Column(name, "string", False))
    sql = f"SELECT {', '.join(selected)} FROM {reader_sql}"
    return ScanSql(sql, (*before, *params), files, Schema(tuple(schema)))


def _csv_type(source: str, name: str, kind: pa.DataType) -> CsvColumnType:
    """The DuckDB and public type of a column pyarrow inferred as `kind`."""
    simple = {
        pa.int64(): ("BIGINT", "integer"),
        pa.float64(): ("DOUBLE", "float"),
        pa.bool_(): ("BOOLEAN", "boolean"),
        pa.string(): ("VARCHAR", "string"),
        pa.date32(): ("DATE", "date"),
    }
    if kind in simple:
        return CsvColumnType(*simple[kind])
    if pa.types.is_timestamp(kind) and kind.tz is None and kind.unit in ("s", "ns"):
        return CsvColumnType(TIMESTAMPS[kind.unit], "datetime")
    refused = f"column '{name}' of '{source}' reads as {kind}, kept as pandas keeps it"
    return CsvColumnType("VARCHAR", None, refused)


def _chosen(scan: Scan, names: list[str]) -> list[str]:
    if scan.columns is None:
        return names
    missing = [name for name in scan.columns if name not in names]
    if missing:  # the pandas reader reports it, in its words
        raise NotLowerable(f"column '{missing[0]}' is not in '{scan.path}'")
    return list(scan.columns)


def _parquet(scan: Scan, files: tuple[InputFile, ...]) -> ScanSql:
    schemas = [_parquet_schema(file) for file in files]
    schema = schemas[0]
    for file, other in zip(files[1:], schemas[1:], strict=True):
        if other.names != schema.names or other.types != schema.types:
            raise NotLowerable(f"'{file.name}' does not read like '{files[0].name}'")
    if len(set(schema.names)) < len(schema.names):
        raise NotLowerable(f"'{files[0].name}' has two columns of the same name")
    chosen = _chosen(scan, schema.names)
    read = set(chosen if scan.read is None else read_names(chosen, set(scan.read)))
    columns = [
        _required(pair, schemas)
        for name in chosen
        for pair in _converted(scan.path, name, schema.field(name).type, name in read)
    ]
    locations = [str(file.location) for file in files]
    found = _select(scan, files, schema.names, columns, "read_parquet(?)", (locations,))
    zones = {zone for name in read for zone in zones_of(schema.field(name).type)}
    return replace(found, zones=frozenset(zones))


def _converted(source: str, name: str, kind: pa.DataType, read: bool) -> list:
    """The column as parquet_types.py lowers it; one that nothing downstream reads (column
    pruning) and that does not lower is a null placeholder, which DuckDB never reads."""
    try:
        return parquet_columns(source, name, kind)
    except NotLowerable:
        if read:
            raise
        return [(f"NULL AS {quoted(name)}", Column(name, "string"))]


def _required(column: tuple[str, Column], schemas: list[pa.Schema]) -> tuple[str, Column]:
    """A column every file declares required (Parquet's NOT NULL) holds no null: a join on
    it need not match nulls (render.py). A struct's field (`parent.field`) may always be null."""
    sql, found = column
    nullable = any(
        found.name not in schema.names or schema.field(found.name).nullable for schema in schemas
    )
    return sql, replace(found, nullable=nullable)


def _parquet_schema(file: InputFile) -> pa.Schema:
    """The file's Arrow schema, its INTERVAL columns (which pyarrow reads as bytes and DuckDB
    as intervals) typed as Arrow's interval."""
    try:
        return read_once(file.location, "parquet_schema", lambda: _read_parquet_schema(file))
    except (pa.ArrowInvalid, OSError) as error:
        raise OperatorError(f"cannot read '{file.name}' as Parquet: {error}") from error


def _read_parquet_schema(file: InputFile) -> pa.Schema:
    with pq.ParquetFile(file.location) as parquet:
        schema, intervals = parquet.schema_arrow, interval_columns(parquet.schema)
    for name in intervals:
        index = schema.get_field_index(name)
        schema = schema.set(index, schema.field(index).with_type(pa.month_day_nano_interval()))
    return schema
