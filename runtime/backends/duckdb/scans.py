"""File scans as DuckDB reads them, typed exactly as the pandas input operators type them.

A CSV file's column types are those pyarrow's reader infers from its first block, which is
what `csv_input` gets: they are inferred here the same way and handed to DuckDB's `read_csv`
as explicit `columns`. pyarrow's null markers ("NA", "null", "NaN", … 17 of them) are matched
by the reader itself only when asked (`markers_in_reader`): DuckDB's reader compares every
value of every column read with each of them, about a fifth of a plain CSV query's CPU. By
default the reader matches the empty string alone and the scan matches the rest on the columns
read: text columns by a list of them, float columns by `isnan` (DuckDB parses "NaN" as one). A
marker in a column of another type fails DuckDB's cast, and the segment runs again with the
markers in the reader (segment.py); a column of another type with nulls in the file's first
block (which may be markers) has the reader match them from the start.

A Parquet file's types come from its footer, each column converted as `parquet_input` converts
it (parquet_types.py), worked out once per file and kept by its identity, on disk too
(runtime/io/schema_reads.py): the next command plans the file without pyarrow. Anything else
(a CSV column of no values, a Parquet list) is `NotLowerable`, found before the query runs, so
the segment runs on pandas instead.

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

from runtime.backends.duckdb.parquet_types import (
    TIMESTAMPS,
    FooterColumn,
    footer_column,
    lowering_digest,
)
from runtime.errors import NotLowerable, OperatorError
from runtime.expressions.sql_parts import Sql, finite_column, string_literal
from runtime.expressions.sql_parts import identifier as quoted
from runtime.io.csv_types import NULL_MARKERS
from runtime.io.file_patterns import InputFile, input_files
from runtime.io.paths import FileArea
from runtime.io.schema_reads import KeptAs, read_once
from runtime.lazy import pa, pa_csv, pq
from runtime.operators.column_names import read_names
from runtime.operators.csv_files import CSV_ENDINGS, CsvInputParams, arrow_options, plain_types
from runtime.operators.parquet_files import PARQUET_ENDINGS, interval_columns
from runtime.plan.reuse.stored_result import GONE
from runtime.relational import Scan, Stored
from runtime.tables.schema import Column, Schema

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
    markers_after_read: bool = False
    """Whether the reader leaves null markers to the scan's columns (a CSV scan's default),
    so that a marker in a column of another type fails DuckDB's cast."""
    order: tuple[str, ...] = ()
    """The hidden columns numbering the rows in the files' order (asked for by `numbered`)."""


def scan_sql(
    scan: Scan, area: FileArea, markers_in_reader: bool = False, numbered: str | None = None
) -> ScanSql:
    """The scan as a SELECT; given `numbered` (a name for hidden columns), a Parquet scan
    also numbers its rows in the files' order (`ScanSql.order`)."""
    files = readable_files(scan, area)
    if scan.format == "csv":
        return _csv(scan, files, markers_in_reader)
    return _parquet(scan, files, numbered)


def stored_sql(stored: Stored, numbered: str | None = None) -> ScanSql:
    """A stored result's Parquet file as a scan; the file area does not apply (the plan, not
    a document, chose the file)."""
    try:
        return _parquet(stored, (InputFile(stored.path, Path(stored.location)),), numbered)
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


def _csv(scan: Scan, files: tuple[InputFile, ...], markers_in_reader: bool) -> ScanSql:
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
    one = len(names) == 1  # read as text: see ONE_COLUMN_READ
    after = one or not (markers_in_reader or any(first[name].may_hold_markers for name in read))
    reader_sql = (
        "read_csv(?, columns = ?, header = ?, delim = ?, skip = ?, nullstr = ?, "
        f"auto_detect = false, quote = '\"', escape = '\"'{ONE_COLUMN_READ if one else ''})"
    )
    reader_params = (
        [str(file.location) for file in files],
        {name: "VARCHAR" if one else column.sql_type for name, column in first.items()},
        params.header,
        params.delimiter,
        params.skip_rows,
        [""] if after else list(NULL_MARKERS),
    )
    columns = [_csv_column(name, first[name], name in read, after, one) for name in chosen]
    where = f" WHERE {quoted(names[0])} IS NOT NULL" if one else ""
    found = _select(scan, files, names, columns, reader_sql + where, reader_params)
    return replace(found, markers_after_read=after and not one)


ONE_COLUMN_READ = ", allow_quoted_nulls = false"
"""How DuckDB reads a file of one column. pandas' reader skips blank lines; DuckDB's does
where a line holds several fields, but a blank line of a file of one column is a row of a null
to it. So that column is read as text, a blank line a null, a quoted empty value (`""`) the
empty string: the scan leaves out the nulls, takes the empty strings and the null markers as
nulls, and casts the rest to the column's type (`_one_column_value`)."""


class CsvColumnType(NamedTuple):
    """How DuckDB reads a CSV column: `refused` says why it cannot as pandas does. DuckDB
    parses such a column as text, which a scan whose downstream never reads it leaves out."""

    sql_type: str
    public_type: str | None
    refused: str | None = None
    nulls_seen: bool = False
    """Whether the file's first block holds nulls in it (read when the type is inferred)."""

    @property
    def may_hold_markers(self) -> bool:
        """Whether the column may hold null markers that only DuckDB's reader takes as nulls
        (a type other than text or float, nulls in the first block)."""
        return self.nulls_seen and self.sql_type not in ("VARCHAR", "DOUBLE")


def csv_columns(params: CsvInputParams, file: InputFile) -> dict[str, CsvColumnType]:
    """Each column of the file, in order, with its DuckDB and public type (read once while
    the file is unchanged: a run checks a scan, then renders it)."""
    key = ("csv_columns", params.delimiter, params.header, params.skip_rows, params.encoding)
    return dict(read_once(file.location, key, lambda: _csv_columns(params, file), _COLUMNS_JSON))


_COLUMNS_JSON = KeptAs(
    lambda columns: [[name, *column] for name, column in columns.items()],
    lambda data: {name: CsvColumnType(*column) for name, *column in data},
)
"""How a CSV file's columns are kept on disk for the next command."""


def _csv_column(
    name: str, column: CsvColumnType, read: bool, markers_after_read: bool, one: bool = False
) -> tuple[str, Column]:
    """The column as the scan selects it: as `_converted` does for Parquet, one that does not
    lower is refused if read downstream, else a null placeholder."""
    if column.refused is None:
        if one:
            return _one_column_value(name, column.sql_type), Column(name, column.public_type)
        if read and markers_after_read:
            return _markers_as_nulls(name, column.sql_type), Column(name, column.public_type)
        return quoted(name), Column(name, column.public_type)
    if read:
        raise NotLowerable(column.refused)
    return f"NULL AS {quoted(name)}", Column(name, "string")


def _marker_test(column: str, empty_too: bool = False) -> str:
    """Whether the text `column` is a null marker: a CASE on its length in bytes (which
    DuckDB keeps with each string) picks the few markers of that length to compare with. On
    the seed ETL's 10M rows this costs what reading the column costs; `list_position` over
    all 16 markers cost 0.2 CPU-s more, and an `IN` list becomes a join once its parameters
    are bound, which the row counts cannot read through."""
    by_length: dict[int, list[str]] = {0: [""]} if empty_too else {}
    for marker in filter(None, NULL_MARKERS):  # the empty string is the reader's own
        by_length.setdefault(len(marker.encode()), []).append(marker)
    cases = " ".join(
        f"WHEN {length} THEN ({' OR '.join(f'{column} = {string_literal(m)}' for m in markers)})"
        for length, markers in sorted(by_length.items())
    )
    return f"CASE strlen({column}) {cases} ELSE false END"


def _markers_as_nulls(name: str, sql_type: str) -> str:
    """The column with the null markers the reader left as values turned into nulls."""
    column = quoted(name)
    if sql_type == "VARCHAR":
        return f"CASE WHEN {_marker_test(column)} THEN NULL ELSE {column} END AS {column}"
    if sql_type == "DOUBLE":
        return f"{finite_column(Sql(column, (), 'float')).text} AS {column}"
    return column


def _one_column_value(name: str, sql_type: str) -> str:
    """The column of a file of one column (`ONE_COLUMN_READ`): its empty strings and null
    markers nulls, the rest cast to `sql_type` as the reader would have parsed them."""
    column = quoted(name)
    value = f"CASE WHEN {_marker_test(column, empty_too=True)} THEN NULL ELSE {column} END"
    typed = value if sql_type == "VARCHAR" else f"CAST({value} AS {sql_type})"
    return f"{typed} AS {column}"


def _csv_shape(columns: dict[str, CsvColumnType]) -> list[tuple]:
    """What two files must share to be read as one: names and types in order (a refusal
    names its own file, so only whether there is one counts)."""
    return [(name, *column[:2], column.refused is None) for name, column in columns.items()]


def _csv_columns(params: CsvInputParams, file: InputFile) -> dict:
    """Each column's type, from the first block as pyarrow infers it: read without pyarrow
    where that is sure (csv_files.plain_types), else by pyarrow."""
    block = plain_types(params, file.location)
    if block is None:
        found = _arrow_csv_kinds(params, file)
    else:
        found = [(kept.name, kept.kind, kept.first_null is not None) for kept in block.columns]
    types = {
        name: _csv_type(file.name, name, kind)._replace(nulls_seen=seen)
        for name, kind, seen in found
    }
    if len(types) < len(found):
        raise NotLowerable(f"'{file.name}' has two columns of the same name")
    return types


def _arrow_csv_kinds(params: CsvInputParams, file: InputFile) -> list[tuple[str, str, bool]]:
    """Each column's name, the name of the type pyarrow infers, and whether the first block
    holds a null in it."""
    try:
        options = arrow_options(params, None, threads=False)  # the types alone: one block
        with pa_csv.open_csv(file.location, *options) as reader:
            inferred = reader.schema
            block = next(iter(reader), None)
        # pyarrow's allocator keeps what it freed for its next use, which never comes before
        # DuckDB's query: 47 MiB of the seed ETL's peak at 10M rows (322 → 275 MiB)
        pa.default_memory_pool().release_unused()
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        first = str(error).strip().splitlines()[0]
        raise OperatorError(f"cannot read '{file.name}' as CSV: {first}") from error
    names = (
        inferred.names
        if params.header
        else [f"column_{index + 1}" for index in range(len(inferred.names))]
    )
    return [
        (name, str(field.type), block is not None and block.column(index).null_count > 0)
        for index, (name, field) in enumerate(zip(names, inferred, strict=True))
    ]


def _select(scan: Scan, files, names, columns: list[tuple[str, Column | None]], reader_sql, params):
    """The SELECT of `columns` (expression, column) from the reader, and the file name column
    if the scan has one: the name of the row's file, by its place in the list read (a column
    of the files named `file_index` would hide DuckDB's)."""
    selected, before = [expression for expression, _ in columns], ()
    schema = [column for _, column in columns if column is not None]  # None: a hidden column
    name = scan.option("file_name_column")
    if name is not None:
        if name in names or "file_index" in names:
            raise NotLowerable(f"the file name column '{name}' is added on pandas")
        selected.append(f"(?::VARCHAR[])[CAST(file_index AS BIGINT) + 1] AS {quoted(name)}")
        before = ([file.name for file in files],)
        schema.append(Column(name, "string", False))
    sql = f"SELECT {', '.join(selected)} FROM {reader_sql}"
    return ScanSql(sql, (*before, *params), files, Schema(tuple(schema)))


_CSV_TYPES = {
    "int64": ("BIGINT", "integer"),
    "double": ("DOUBLE", "float"),
    "bool": ("BOOLEAN", "boolean"),
    "string": ("VARCHAR", "string"),
    "date32[day]": ("DATE", "date"),
    **{f"timestamp[{unit}]": (TIMESTAMPS[unit], "datetime") for unit in ("s", "ns")},
}
"""The DuckDB and public type of each type pyarrow's CSV inference gives, by its name."""


def _csv_type(source: str, name: str, kind: str) -> CsvColumnType:
    """The DuckDB and public type of a column pyarrow inferred as `kind` (the type's name)."""
    if kind in _CSV_TYPES:
        return CsvColumnType(*_CSV_TYPES[kind])
    refused = f"column '{name}' of '{source}' reads as {kind}, kept as pandas keeps it"
    return CsvColumnType("VARCHAR", None, refused)


def _chosen(scan: Scan, names: list[str]) -> list[str]:
    if scan.columns is None:
        return names
    missing = [name for name in scan.columns if name not in names]
    if missing:  # the pandas reader reports it, in its words
        raise NotLowerable(f"column '{missing[0]}' is not in '{scan.path}'")
    return list(scan.columns)


def _parquet(scan: Scan, files: tuple[InputFile, ...], numbered: str | None = None) -> ScanSql:
    footers = [_parquet_footer(file) for file in files]
    first = footers[0]
    for file, other in zip(files[1:], footers[1:], strict=True):
        if [(item.name, item.type) for item in other] != [(item.name, item.type) for item in first]:
            raise NotLowerable(f"'{file.name}' does not read like '{files[0].name}'")
    names = [item.name for item in first]
    if len(set(names)) < len(names):
        raise NotLowerable(f"'{files[0].name}' has two columns of the same name")
    by_name = {item.name: item for item in first}
    chosen = _chosen(scan, names)
    read = set(chosen if scan.read is None else read_names(chosen, set(scan.read)))
    columns = [
        _required(pair, footers)
        for name in chosen
        for pair in _converted(scan.path, by_name[name], name in read)
    ]
    order = _row_numbers(files, names, numbered)
    columns += [(f"{virtual} AS {quoted(hidden)}", None) for hidden, virtual in order]
    locations = [str(file.location) for file in files]
    found = _select(scan, files, names, columns, "read_parquet(?)", (locations,))
    zones = {zone for name in read for zone in by_name[name].zones}
    return replace(found, zones=frozenset(zones), order=tuple(hidden for hidden, _ in order))


def _row_numbers(files, names: list[str], numbered: str | None) -> list[tuple[str, str]]:
    """Hidden columns (name, DuckDB's virtual column) numbering a Parquet scan's rows in the
    files' order: the reader gives each row's file and its place there, in parallel and
    without holding the rows, where `row_number() OVER ()` over the scan holds every row of
    it. None where a column of the files hides DuckDB's (then the rows are numbered so)."""
    virtual = ["file_row_number"] if len(files) == 1 else ["file_index", "file_row_number"]
    if numbered is None or set(virtual) & set(names):
        return []
    return [(f"{numbered}_{column}", column) for column in virtual]


def _converted(source: str, column: FooterColumn, read: bool) -> list:
    """The column as parquet_types.py lowers it; one that nothing downstream reads (column
    pruning) and that does not lower is a null placeholder, which DuckDB never reads."""
    try:
        return column.columns(source)
    except NotLowerable:
        if read:
            raise
        return [(f"NULL AS {quoted(column.name)}", Column(column.name, "string"))]


def _required(column: tuple[str, Column], footers: list[Footer]) -> tuple[str, Column]:
    """A column every file declares required (Parquet's NOT NULL) holds no null: a join on
    it need not match nulls (render.py). A struct's field (`parent.field`) may always be null."""
    sql, found = column
    nullable = any(
        next((item.nullable for item in footer if item.name == found.name), True)
        for footer in footers
    )
    return sql, replace(found, nullable=nullable)


Footer = tuple[FooterColumn, ...]
_FOOTER_KEPT = KeptAs(
    lambda footer: [column.as_json() for column in footer],
    lambda data: tuple(map(FooterColumn.from_json, data)),
)
"""A file's worked-out footer as JSON, kept on disk (runtime/io/schema_reads.py): a later run
of the same file plans its scan without importing pyarrow."""


def _parquet_footer(file: InputFile) -> Footer:
    """The file's columns as its footer gives them and as they lower."""
    try:
        key = ("parquet_footer", lowering_digest())
        return read_once(file.location, key, lambda: _read_footer(file), _FOOTER_KEPT)
    except (pa.ArrowInvalid, OSError) as error:
        raise OperatorError(f"cannot read '{file.name}' as Parquet: {error}") from error


def _read_footer(file: InputFile) -> Footer:
    """The footer read by pyarrow, with the Arrow schema a writer stored there; INTERVAL columns
    (which pyarrow reads as bytes and DuckDB as intervals) typed as Arrow's interval."""
    with pq.ParquetFile(file.location) as parquet:
        schema, intervals = parquet.schema_arrow, interval_columns(parquet.schema)
    for name in intervals:
        index = schema.get_field_index(name)
        schema = schema.set(index, schema.field(index).with_type(pa.month_day_nano_interval()))
    return tuple(footer_column(field) for field in schema)
