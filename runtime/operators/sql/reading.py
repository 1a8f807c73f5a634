"""`sql_input`: a query's rows from a named database, typed by the database, not the rows.

The query runs in a read-only session and is fetched in chunks, checking for a stop between
them. An SQLite expression without a declared type is typed by its values (the first chunk
that has any).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from operator import itemgetter
from pathlib import Path
from typing import Annotated

import pyarrow as pa
import sqlalchemy as sa
from pydantic import Field, StringConstraints, ValidationInfo, field_validator
from sqlalchemy.engine import Connection, CursorResult

from runtime.document.fields import VerbatimText
from runtime.errors import ParamsError
from runtime.io.incremental import (
    IncrementalField,
    incremental_of,
    start_value,
    watermark_position,
)
from runtime.io.sql.connection_specs import as_spec, fingerprint
from runtime.io.sql.connections import database_errors
from runtime.lazy import pd
from runtime.operators.column_names import read_names
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.operators.sql.connection_field import ConnectionName
from runtime.operators.sql.dialects import (
    DATE,
    FLOAT,
    INTEGER,
    STRING,
    column_types,
    probe_declared_types,
    select_limit,
)
from runtime.operators.sql.file_access import refuse_file_access
from runtime.operators.sql.node_connection import (
    close_connection,
    node_connection,
    open_connection,
)
from runtime.tables import spilled as spilling
from runtime.tables.casting import cast_series
from runtime.tables.frames import to_pandas
from runtime.tables.schema import Column, Schema, TypeName, schema_of, type_name_of
from runtime.tables.spilled import SpilledRows, SpillWriter

READ_CHUNK_ROWS = 50_000
"""Rows fetched at a time; progress and cancellation are checked between chunks."""
SCHEMA_SAMPLE_ROWS = 100
"""Rows read to work out a query's columns for the schema view."""

ParamName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
WATERMARK_PARAM = "pw_watermark"
"""The name the stored watermark is bound as; a query's own parameters may not take it."""
ParamValue = str | int | float | bool | None


class SqlInputParams(OperatorParams):
    connection: ConnectionName
    query: VerbatimText = Field(
        title="Query",
        description=(
            "SQL query whose rows are read. Write :name where a value from Parameters goes "
            "(\\: for a literal colon); ${...} is never replaced inside the query."
        ),
        min_length=1,
    )
    params: dict[ParamName, ParamValue] = Field(
        {},
        title="Parameters",
        description=(
            "Values bound to the query's :name placeholders by the database driver; "
            "a value may be a pipeline parameter such as ${min_age}."
        ),
        validate_default=True,
    )
    cache_for_s: Annotated[float, Field(gt=0)] | None = Field(
        None,
        title="Reuse for (s)",
        description="Reuse the rows a run read for this many seconds instead of querying again; "
        "empty: query the database on every run.",
    )
    incremental: IncrementalField = None

    @field_validator("params")
    @classmethod
    def _params_match_the_query(cls, params: dict, info: ValidationInfo) -> dict:
        query = info.data.get("query")
        if query is None:
            return params
        used = placeholders(query)
        missing = [name for name in used if name not in params]
        if missing:
            raise ValueError(f"the query uses :{missing[0]}; give {missing[0]} a value here")
        if WATERMARK_PARAM in params:
            raise ValueError(f"{WATERMARK_PARAM} is reserved for the incremental watermark")
        unused = [name for name in params if name not in used]
        if unused:
            raise ValueError(f"{unused[0]} is not used by the query (it has no :{unused[0]})")
        return params


def placeholders(query: str) -> list[str]:
    """The `:name` placeholders of a query, in order."""
    return list(sa.text(query).compile().params)


class SqlInput(Operator):
    name = "sql_input"
    summary = "{connection}: {query}"
    kind = "input"
    title = "SQL query"
    description = "Run a SQL query on a named database connection and read its rows."
    inputs = ()
    outputs = (Port("out"),)
    Params = SqlInputParams
    keywords = ("sqlite", "postgres", "postgresql", "mysql", "database", "db", "select", "table")
    # The database is outside the run: rows may change between two reads, and a query may
    # call random(), now() or a sequence. Two identical queries are both run.
    deterministic = False
    never_reused_because = "a query reads its database on every run (unless cache_for_s is set)"

    def spills(self, params):
        return incremental_of(params) is None

    def reuse_for_s(self, params):
        # An incremental query reads what is new in its database: it is never reused.
        return None if incremental_of(params) is not None else params.cache_for_s

    def cache_identity(self, params, files, connections):
        spec = connections.get(params.connection)
        if spec is None:
            return None
        return [fingerprint(as_spec(spec)), params.query, params.params]

    def output_schema(self, ctx, inputs):
        sample = read_query(ctx, SCHEMA_SAMPLE_ROWS)
        columns = schema_of(sample).columns
        return {"out": Schema(tuple(Column(c.name, c.type, nullable=True) for c in columns))}

    def open(self, ctx):
        open_connection(ctx, ctx.params.connection)

    def close(self, ctx):
        close_connection(ctx)

    def run(self, ctx, inputs):
        incremental = incremental_of(ctx.params)
        if incremental is not None:
            if incremental.mode != "watermark":
                raise ParamsError("incremental", "a query reads by a watermark column only")
            column = incremental.column
            if ctx.columns is not None:
                ctx.columns = ctx.columns | {column}  # pruning must keep what the watermark reads
            frame = read_query(ctx, ctx.row_limit, after=start_value(ctx.position, column))
            ctx.metrics["position"] = watermark_position(frame, column, ctx.position)
            ctx.logger.info(f"read {len(frame)} new rows from '{ctx.params.connection}'")
            return {"out": frame}
        frame = read_query(ctx, ctx.row_limit)
        ctx.logger.info(f"read {len(frame)} rows from '{ctx.params.connection}'")
        return {"out": frame}


def read_query(ctx: NodeContext, row_limit: int | None, *, after=None) -> pd.DataFrame:
    """The rows of the node's query (at most `row_limit`), typed by the engine's convention;
    with `after`, only those whose watermark column is greater (bound, never pasted)."""
    params: SqlInputParams = ctx.params
    query, values = params.query, dict(params.params)
    refuse_file_access(query)
    with (
        node_connection(ctx, params.connection) as connection,
        database_errors(f"query on '{params.connection}' failed", connection.engine.url),
    ):
        if after is None:
            collect = _spiller(ctx.spill_path) if ctx.spill_path and row_limit is None else None
            return query_frame(
                ctx, connection, query, values, row_limit, None, ctx.columns, collect
            )
        query = watermarked(connection, query, incremental_of(params).column)
        values[WATERMARK_PARAM] = after
        # typed, so that a database keeping times as text (SQLite) compares them as written
        bound = {WATERMARK_PARAM: _BOUND_TYPES.get(type(after), sa.types.NullType)()}
        return query_frame(ctx, connection, query, values, row_limit, bound, ctx.columns)


_BOUND_TYPES = {datetime: sa.DateTime, date: sa.Date}


ARROW_PER_TEXT = 2
"""A query's chunks spill once they hold `SPILL_FROM_BYTES` over this in Arrow: about the
rows of a JSON Lines file of `SPILL_FROM_BYTES` (whose text takes about twice their Arrow),
and what waits in memory before the first chunk spills bounds the run's peak (at 64 MiB a
2M-row query peaked at 316 MB, 1.39 times a 200k-row one that spills nothing)."""


def _spiller(path: Path):
    """A `collect` for `query_frame` that writes each chunk to a spill file at `path` once the
    chunks fetched hold half `SPILL_FROM_BYTES` (fewer rows make the frame, as without a spill
    file): those fetched before every column's type is known wait, to be cast as the frame
    casts them."""

    def collect(chunks: Iterator[pa.Table], schema) -> SpilledRows | pd.DataFrame:
        writer, waiting, held = SpillWriter(path), [], 0
        try:
            for chunk in chunks:
                waiting.append(chunk)
                held += chunk.nbytes
                known = schema(final=False)
                if known is not None and held >= spilling.SPILL_FROM_BYTES // ARROW_PER_TEXT:
                    for table in waiting:
                        writer.write(table.cast(known))
                    waiting.clear()
            if writer.spilled is None:
                return whole_frame(waiting, schema())
            for table in waiting:
                writer.write(table.cast(schema()))
            return writer.close()
        except BaseException:
            writer.discard()
            raise

    return collect


def whole_frame(tables: list[pa.Table], schema: pa.Schema) -> pd.DataFrame:
    """The frame of a query's fetched chunks, each cast to the query's final `schema`."""
    table = pa.concat_tables([t.cast(schema) for t in tables]) if tables else schema.empty_table()
    return to_pandas(table)


def watermarked(connection: Connection, query: str, column: str) -> str:
    """`query` as a subquery keeping rows whose `column` (quoted) is above `:pw_watermark`."""
    quoted = connection.dialect.identifier_preparer.quote_identifier(column)
    inner = query.rstrip().rstrip(";").rstrip()
    return f"SELECT * FROM ({inner}) AS pw_incremental WHERE {quoted} > :{WATERMARK_PARAM}"


def query_frame(
    ctx: NodeContext,
    connection: Connection,
    query: str,
    values: dict,
    row_limit: int | None,
    bound: dict[str, sa.types.TypeEngine] | None = None,
    columns: set[str] | None = None,
    collect=None,
) -> pd.DataFrame:
    """The rows of `query` (its `:name`s bound to `values`, of the SQL types `bound` gives)
    on `connection`, typed; of its columns, those anything reads (`columns`, None: all).
    `collect`, if given, takes the chunks as they are fetched instead (with a function that
    gives their schema, None while a column's type is still unknown unless `final`) and
    returns what the node hands on.

    The query is sent as written (wrapping it in a SELECT of fewer columns could lose its
    ORDER BY, which MariaDB ignores in a subquery): the other columns are fetched but never
    converted."""
    probed = probe_declared_types(connection, query, list(values))
    streaming = connection.execution_options(yield_per=READ_CHUNK_ROWS)
    statement = sa.text(query).bindparams(
        *(sa.bindparam(name, type_=kind) for name, kind in (bound or {}).items())
    )
    with (
        select_limit(connection, row_limit),
        streaming.execute(statement, values) as result,
    ):
        names = _column_names(result)
        types = column_types(connection, result, probed)
        kept = [names.index(name) for name in read_names(names, columns)]

        def schema(final: bool = True) -> pa.Schema | None:
            if not final and any(types[index] is None for index in kept):
                return None
            return pa.schema([(names[index], types[index] or STRING) for index in kept])

        chunks = _fetch(ctx, result, names, types, row_limit, kept)
        if collect is not None:
            return collect(chunks, schema)
        tables = list(chunks)
    return whole_frame(tables, schema())


def _column_names(result: CursorResult) -> list[str]:
    if not result.returns_rows:
        raise ParamsError("query", "the query returns no rows; write a SELECT")
    names = [str(name) for name in result.keys()]  # noqa: SIM118 (a Result is not a dict)
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ParamsError(
            "query", f"the query returns two columns named '{twice}'; rename one with AS"
        )
    return names


def _fetch(
    ctx: NodeContext,
    result: CursorResult,
    names: list[str],
    types: list,
    row_limit: int | None,
    kept: list[int],
) -> Iterator[pa.Table]:
    """Arrow tables of up to READ_CHUNK_ROWS rows of the columns at positions `kept`;
    `types` learns the undeclared columns."""
    done = 0
    while row_limit is None or done < row_limit:
        ctx.check_cancelled()
        wanted = READ_CHUNK_ROWS if row_limit is None else min(READ_CHUNK_ROWS, row_limit - done)
        rows = result.fetchmany(wanted)
        if not rows:
            break
        arrays = [_arrow_column(list(map(itemgetter(index), rows)), types[index]) for index in kept]
        for index, array in zip(kept, arrays, strict=True):
            types[index] = _learned(types[index], array.type)
        yield pa.Table.from_arrays(arrays, names=[names[index] for index in kept])
        done += len(rows)
        ctx.progress(done)


def _learned(known: pa.DataType | None, found: pa.DataType) -> pa.DataType | None:
    """The column's type after a chunk of `found` values: the first that is not all nulls of
    an undeclared column, or a decimal a digit wider (MySQL's unsigned, see dialects.py)."""
    if known is None:
        return None if pa.types.is_null(found) else found
    if pa.types.is_decimal(found) and found.precision > known.precision:
        return found
    return known


def _arrow_column(values: Sequence, kind: pa.DataType | None) -> pa.Array:
    if kind is None:
        return _inferred(values)
    try:
        return pa.array(values, type=kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return _coerced(values, kind)


def _coerced(values: Sequence, kind: pa.DataType) -> pa.Array:
    """Values the driver gave in another form: Decimal, 0/1, ISO text, JSON, bytes..."""
    objects = pd.Series(values, dtype=object)
    if pa.types.is_string(kind):
        return pa.array(objects.map(_as_text, na_action="ignore"), type=STRING, from_pandas=True)
    if pa.types.is_decimal(kind):
        exact = pa.array(values)
        if pa.types.is_decimal(exact.type):  # a digit past the precision (MySQL's unsigned)
            return exact.cast(pa.decimal128(min(kind.precision + 1, 38), kind.scale))
        return _coerced(values, FLOAT).cast(kind)  # SQLite's floats, rounded to the scale
    try:
        return pa.array(values).cast(kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        converted = cast_series(objects, _public_type(kind))  # what does not convert is null
        return pa.array(converted, from_pandas=True).cast(kind)


def _inferred(values: Sequence) -> pa.Array:
    try:
        array = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return _coerced(values, STRING)
    kind = array.type
    if pa.types.is_null(kind) or pa.types.is_timestamp(kind):
        return array
    if pa.types.is_integer(kind):
        return array.cast(INTEGER)
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return array.cast(FLOAT)
    if pa.types.is_boolean(kind) or pa.types.is_string(kind):
        return array
    if pa.types.is_date(kind):
        return array.cast(DATE)
    return _coerced(values, STRING)


def _public_type(kind: pa.DataType) -> TypeName:
    return type_name_of(pd.ArrowDtype(kind))


def _as_text(value) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
