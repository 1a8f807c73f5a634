"""Output files written from a DuckDB segment, so that they read back as the pandas writers'.

A `Write` selects its input's rows with each column as the pandas writer turns it into the
file: for CSV, the text `DataFrame.to_csv` writes (floats in their shortest form, `True` and
`False`, datetimes to the finest precision any value of the column needs, an empty text like
a null, a lone column's nulls as `""`), which `COPY ... TO` then quotes; for Parquet, the
values pandas holds (a float's NaN is null), written in the types and with the pandas metadata
that `pd.read_parquet` restores dtypes from: by DuckDB's own COPY, which needs no pyarrow, when
it writes them as pyarrow would (`parquet_copy` says where the file differs and when it does
not: then, and when appending, DuckDB's Arrow batches are written by pyarrow). Each file is
staged beside its target exactly as the pandas path stages it (runtime/operators/atomic.py) and
published only by `publish`, under the run's commit. DuckDB may write nothing but the staged
files of the outputs (the session's allowed paths).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from runtime import relational as rel
from runtime.backends.duckdb.rendered import Rendered
from runtime.errors import NotLowerable, OperatorError
from runtime.expressions.sql_parts import identifier, string_literal
from runtime.expressions.sql_parts import identifier as quoted
from runtime.io.paths import FileArea
from runtime.lazy import pa, pq
from runtime.operators.atomic import Staged, staged_file, temporary_path, write_error
from runtime.operators.parquet_files import (
    appended,
    pandas_column,
    pandas_metadata,
    pandas_schema,
)
from runtime.tables.schema import Column

BATCH_ROWS = 128 * 1024
"""Rows DuckDB hands pyarrow at a time while a Parquet file is written."""
_FORMATS = {
    0: "%Y-%m-%d",
    1: "%Y-%m-%d %H:%M:%S",
    3: "%Y-%m-%d %H:%M:%S.%g",
    6: "%Y-%m-%d %H:%M:%S.%f",
    9: "%Y-%m-%d %H:%M:%S.%n",
}
"""pandas' datetime texts by the digits a column's values need (0: dates only, 1: seconds)."""


class SinkError(OperatorError):
    """Writing the file of output node `node` failed (a refused path, an OS error, rows that
    do not fit the file to append to)."""

    def __init__(self, node: str, error: OperatorError):
        self.node = node
        self.retryable = getattr(error, "retryable", True)
        super().__init__(str(error))


@dataclass
class Sink:
    """One output node of the segment: its `Write`, its statement and, once staged, its file."""

    node: str
    write: rel.Write
    source: Rendered
    selected: list[str]
    """The columns of `source` as the file's writer turns them into values."""
    staged: Staged | None = None
    part: Path | None = None
    """CSV appended to a file: where DuckDB writes the new rows, added after the old ones."""
    rows: int | None = None

    @property
    def written_by_duckdb(self) -> Path | None:
        """The file DuckDB itself may write, which the session must allow: a CSV, or a new
        Parquet file (`write_parquet` finds from the query's types whether DuckDB or pyarrow
        writes it; one appended to is read and written again by pyarrow)."""
        if self.write.format == "csv":
            return self.part or self.staged.temporary
        return None if self.staged.appending else self.staged.temporary


@dataclass
class Written:
    """What an output node of a segment wrote: its path as the document names it, its rows
    and the size of the file."""

    path: str
    rows: int
    bytes: int


class Sinks(list[Sink]):
    """The segment's output nodes, in the order the plan lists them."""

    @contextmanager
    def staged(self, files: FileArea, run_id: str | int) -> Iterator[list[Path]]:
        """Stage every file (refusing paths out of the area, folders, files that exist in mode
        error_if_exists); yields the files DuckDB writes. Left, every temporary is gone."""
        targets = set()
        with ExitStack() as stack:
            for sink in self:
                write = sink.write
                try:
                    sink.staged = stack.enter_context(
                        staged_file(files, run_id, write.path, write.mode)
                    )
                except OperatorError as error:
                    raise SinkError(sink.node, error) from error
                if sink.staged.path in targets:
                    raise NotLowerable(f"'{write.path}' is written twice, in turn on pandas")
                targets.add(sink.staged.path)
                if write.format == "csv" and sink.staged.appending:
                    sink.part = temporary_path(sink.staged.path, run_id)
                    stack.callback(sink.part.unlink, missing_ok=True)
            yield [path for sink in self if (path := sink.written_by_duckdb) is not None]

    def publish(self, commit: Callable[[Callable[[], None]], object]) -> dict[str, Written]:
        """Replace every target by its staged file at once, through `commit`; what each wrote."""
        written = {}
        for sink in self:
            try:
                size = sink.staged.temporary.stat().st_size
            except OSError as error:
                raise SinkError(sink.node, write_error(sink.write.path, error)) from error
            written[sink.node] = Written(sink.write.path, sink.rows, size)

        def publish_all() -> None:
            for sink in self:
                try:
                    sink.staged.publish()
                except OSError as error:
                    raise SinkError(sink.node, write_error(sink.write.path, error)) from error
                except OperatorError as error:
                    raise SinkError(sink.node, error) from error

        commit(publish_all)
        return written

    def names(self) -> dict[str, str]:
        """Server paths of the staged files → the paths as the document names them."""
        return {
            str(path): sink.write.path
            for sink in self
            for path in (sink.staged.temporary, sink.part)
            if path is not None
        }


def writes_of(members: dict[str, dict[str, rel.Relation]]) -> dict[str, rel.Write]:
    """The output nodes among a segment's members, with their `Write`s."""
    return {node: ports[rel.SINK] for node, ports in members.items() if rel.SINK in ports}


def sinks(writes: dict[str, rel.Write], rendered: list[Rendered]) -> Sinks:
    """Each write over its rendered input, its columns as the file's values (a column the
    writer cannot give as pandas would refuses here, before any query runs)."""
    found = Sinks()
    for (node, write), source in zip(writes.items(), rendered, strict=True):
        format_column = _csv_text if write.format == "csv" else _parquet_value
        alone = len(source.schema.columns) == 1
        selected = [
            f"{format_column(column, source.name, alone)} AS {quoted(column.name)}"
            for column in source.schema.columns
        ]
        found.append(Sink(node, write, source, selected))
    return found


def statement(sink: Sink, exit_sql) -> tuple[str, list]:
    """The sink's statement over the segment's query as it stands when the sink runs (a part
    computed once by then is read from its table); `exit_sql(rendered, selected)` gives the
    query selecting `selected` from `rendered`."""
    sql, params = exit_sql(sink.source, sink.selected)
    if sink.write.format == "csv":
        sql = (
            f"COPY ({sql}) TO ? (FORMAT csv, DELIMITER ?, HEADER ?, QUOTE '\"', "
            "ESCAPE '\"', USE_TMP_FILE false)"
        )
    return sql, params


def run_sink(connection, sink: Sink, exit_sql) -> None:
    """Write the sink's rows into its staged file (counting them); nothing is published."""
    sql, params = statement(sink, exit_sql)
    try:
        if sink.write.format == "csv":
            _copy_csv(connection, sink, sql, params)
        else:
            _write_parquet(connection, sink, sql, params)
    except OSError as error:
        raise SinkError(sink.node, write_error(sink.write.path, error)) from error
    except SinkError:
        raise
    except OperatorError as error:  # rows that cannot be appended to the file
        raise SinkError(sink.node, error) from error


def _copy_csv(connection, sink: Sink, sql: str, params: list) -> None:
    staged = sink.staged
    header = bool(sink.write.option("header", True)) and not staged.appending
    target = sink.written_by_duckdb
    params = [*params, str(target), sink.write.option("delimiter", ","), header]
    [(sink.rows,)] = connection.execute(sql, params).fetchall()
    if sink.part is not None:
        staged.start_from_existing()
        with open(staged.temporary, "ab") as whole, open(sink.part, "rb") as rows:
            shutil.copyfileobj(rows, whole)


def _write_parquet(connection, sink: Sink, sql: str, params: list) -> None:
    staged = sink.staged
    existing = staged.path if staged.appending else None
    compression = sink.write.option("compression", "snappy")
    sink.rows = write_parquet(
        connection, sql, params, staged.temporary, existing, compression, sink.write.path
    )


def write_parquet(connection, sql, params, temporary, existing, compression, source) -> int:
    """Write the rows of `sql` to the Parquet file `temporary` in the schema and with the
    metadata the pandas writer gives them, after the rows of the file `existing` (appending;
    None: a new file); how many rows were written. A new file of columns DuckDB writes as pyarrow
    would (`parquet_copy`, chosen from the query's types before it runs) is written by DuckDB's
    COPY, without pyarrow; others by pyarrow. Compiled scripts carry it."""
    relation = connection.sql(sql, params=params)
    if existing is None:
        copy = parquet_copy(sql, relation.columns, relation.types, compression)
        if copy is not None:
            [(rows,)] = connection.execute(copy, [*params, str(temporary)]).fetchall()
            return rows
    compression = None if compression == "none" else compression
    reader = relation.to_arrow_reader(BATCH_ROWS)
    schema = pandas_schema(reader.schema)
    if existing is not None:  # a Parquet file cannot grow: the old rows and the new are written
        new = pa.Table.from_batches(query_batches(reader), reader.schema).cast(schema)
        table = appended(pq.read_table(existing), new, source)
        pq.write_table(table, temporary, compression=compression)
        return new.num_rows
    rows = 0
    with pq.ParquetWriter(temporary, schema, compression=compression) as writer:
        for batch in query_batches(reader):
            writer.write_batch(batch.cast(schema))
            rows += batch.num_rows
    return rows


def query_batches(reader) -> Iterator:
    """The batches of DuckDB's Arrow `reader`. An error of the query (a value that does not
    convert, a file that cannot be read) comes out of the reader as an OSError, as if writing
    the file had failed: it is raised as DuckDB's own, as COPY raises it, so that the run words
    it as the query's (naming the node and the file, without server paths)."""
    try:
        yield from reader
    except OSError as error:
        message = str(error)
        kind = next((kind for prefix, kind in _DUCKDB_ERRORS if message.startswith(prefix)), None)
        raise (kind or duckdb.Error)(message) from None


_DUCKDB_ERRORS = (
    ("Conversion Error: ", duckdb.ConversionException),
    ("Invalid Input Error: ", duckdb.InvalidInputException),
    ("INTERRUPT Error: ", duckdb.InterruptException),
)
"""The errors the segment tells apart, by how DuckDB's messages begin."""


COMPRESSIONS = {"snappy": "snappy", "zstd": "zstd", "gzip": "gzip", "none": "uncompressed"}
"""`parquet_output`'s compressions by DuckDB's names of them."""
_COPIED_TYPES = {
    "bigint": ("integer", "BIGINT"),
    "integer": ("integer", "BIGINT"),
    "smallint": ("integer", "BIGINT"),
    "tinyint": ("integer", "BIGINT"),
    "uinteger": ("integer", "BIGINT"),
    "usmallint": ("integer", "BIGINT"),
    "utinyint": ("integer", "BIGINT"),
    "double": ("float", "DOUBLE"),
    "float": ("float", "DOUBLE"),
    "boolean": ("boolean", None),
    "varchar": ("string", None),
    "date": ("date", None),
    "decimal": ("decimal", None),
    "timestamp": ("datetime", None),
    "timestamp_ms": ("datetime", None),
    "timestamp_ns": ("datetime", None),
    "timestamp_s": ("datetime", "TIMESTAMP_MS"),
}
"""DuckDB's types (`DuckDBPyType.id`) that COPY writes as pyarrow writes them in `pandas_schema`:
each one's public type and the SQL type it is cast to first, as pyarrow stores it (None: as it
is; Parquet has no unit of seconds, pyarrow stores milliseconds). Not here, so written by
pyarrow: a datetime with a zone (COPY would name its zone UTC, pyarrow names the session's),
integers that may not fit a BIGINT (pyarrow refuses those that do not, or holds a HUGEINT as a
decimal) and every type without a public one (`pandas_schema` refuses it, naming the column)."""
_UNITS = {"timestamp": "us", "timestamp_ms": "ms", "timestamp_ns": "ns", "timestamp_s": "s"}


def parquet_copy(sql: str, names: list[str], types: list, compression: str) -> str | None:
    """DuckDB's COPY of the rows of `sql` (columns `names` of DuckDB's `types`) to a Parquet file
    (the last `?`) that reads back as the one pyarrow writes in `pandas_schema`: the same types,
    the same pandas metadata; None when pyarrow must write it (a type or compression it does not
    write alike). The file differs in two ways that no reader here depends on: pyarrow's own
    schema of the file (`ARROW:schema`) is not in it, so pyarrow reads a text column as `string`,
    not `large_string` (every reader of the engine takes both alike, `to_pandas` included); and
    every column is still OPTIONAL, as pyarrow writes them: DuckDB would mark REQUIRED a column it
    knows holds no null (one of a Parquet input whose column is REQUIRED, an expression of such
    columns, a constant), which `parquet_input` would then report as not nullable, and rows with
    nulls could no longer be appended to it; a `CASE` hides what DuckDB knows."""
    if compression not in COMPRESSIONS or not names:
        return None
    selected, columns = [], []
    for name, kind in zip(names, types, strict=True):
        if kind.id not in _COPIED_TYPES:
            return None
        type_name, cast = _COPIED_TYPES[kind.id]
        column = identifier(name)  # not `quoted`: compiled scripts carry it by its own name
        value = column if cast is None else f"CAST({column} AS {cast})"
        selected.append(f"CASE WHEN {value} IS NOT NULL THEN {value} END AS {column}")
        detail = ()
        if type_name == "datetime":
            detail = (_UNITS[kind.id], None)
        elif type_name == "decimal":
            detail = (dict(kind.children)["precision"], dict(kind.children)["scale"])
        columns.append(pandas_column(name, type_name, detail))
    metadata = string_literal(pandas_metadata(columns))
    return (
        f"COPY (SELECT {', '.join(selected)} FROM ({sql})) TO ? (FORMAT parquet, "
        f"COMPRESSION {COMPRESSIONS[compression]}, KV_METADATA {{pandas: {metadata}}}, "
        "USE_TMP_FILE false)"
    )


def _csv_text(column: Column, source: str, alone: bool) -> str:
    """The column as the text `to_csv` writes for it; null where it writes nothing (but
    `""` on a row of one field, which would otherwise be a blank line that readers skip)."""
    value = quoted(column.name)
    if column.type == "datetime":
        text = _datetime_text(value, source)
    elif column.type in _TEXTS:
        text = _TEXTS[column.type].format(value=value)
    else:
        raise NotLowerable(f"column '{column.name}' is {column.type}, written on pandas")
    return f"COALESCE({text}, '')" if alone else text


_TEXTS = {
    "string": "NULLIF({value}, '')",
    "integer": "CAST({value} AS VARCHAR)",
    "float": "CASE WHEN isnan({value}) THEN NULL ELSE CAST({value} AS VARCHAR) END",
    "boolean": "CASE WHEN {value} THEN 'True' WHEN NOT {value} THEN 'False' END",
    "date": "CAST({value} AS VARCHAR)",
    "decimal": "CAST({value} AS VARCHAR)",  # fixed-point, as csv_output writes them
}
"""The text of a value of each type as pandas writes it, shortest float repr included (DuckDB
prints doubles as Python does); null where pandas writes nothing."""


def _datetime_text(value: str, source: str) -> str:
    """pandas' text for a datetime column: its date alone when every value is at midnight,
    else with as many digits of the second (0, 3, 6, 9) as the finest value needs; a value
    with a zone (the session's) in its local time, with its offset (`+01:00`), never alone."""
    ns = f"nanosecond({value})"  # within the minute, seconds included
    zoned = f"typeof({value}) IN ('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ_NS')"
    midnight = f"NOT {zoned} AND hour({value}) = 0 AND minute({value}) = 0 AND {ns} = 0"
    digits = (
        f"(SELECT CASE WHEN bool_and({midnight}) "
        f"THEN 0 WHEN bool_or({ns} % 1000 <> 0) THEN 9 WHEN bool_or({ns} % 1000000 <> 0) "
        f"THEN 6 WHEN bool_or({ns} % 1000000000 <> 0) THEN 3 ELSE 1 END FROM {quoted(source)})"
    )
    cases = " ".join(
        f"WHEN {count} THEN strftime({value}, '{pattern}')" for count, pattern in _FORMATS.items()
    )
    minutes = f"(timezone_hour({value}) * 60 + timezone_minute({value}))"
    offset = (
        f"CASE WHEN {zoned} THEN printf('%s%02d:%02d', CASE WHEN {minutes} < 0 THEN '-' "
        f"ELSE '+' END, abs({minutes}) // 60, abs({minutes}) % 60) ELSE '' END"
    )
    return f"(CASE {digits} {cases} END || {offset})"


def _parquet_value(column: Column, source: str, alone: bool) -> str:
    """The column as `to_parquet` stores it: a float's NaN is null, as pandas holds it."""
    value = quoted(column.name)
    if column.type == "float":
        return f"CASE WHEN isnan({value}) THEN NULL ELSE {value} END"
    return value
