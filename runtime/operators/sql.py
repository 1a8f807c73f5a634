"""`sql_input` and `sql_output`: read a query's rows from, and write rows to, a named database.

Both name a connection (see `runtime.sql_connections`); the query is verbatim SQL whose values
are bound as `:name` parameters, never formatted into its text. A query always runs in a
read-only session, whatever its connection allows; only `sql_output` writes, and only through
a connection that allows writes, to a table inside the connection's prefix.

Column types come from the database, not from the rows, so a column of nulls keeps its type:
PostgreSQL and MySQL/MariaDB describe every result column (a MySQL `TINYINT(1)`/`BOOLEAN`
reads as a boolean), and SQLite gives the declared type of columns taken straight from a
table (found through a temporary view); an SQLite expression without a declared type is typed
by its values (the first chunk that has any).

`sql_output` writes all its batches in one transaction, committed through `ctx.commit`, so a
failure or a stop leaves the table as it was. PostgreSQL and SQLite have transactional DDL:
creating or replacing the table happens inside that transaction. MySQL and MariaDB commit DDL
at once, so a table to create or replace is built under a staging name and swapped into place
by one atomic `RENAME TABLE` at commit time; a failure drops the staging table.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from typing import Annotated, Literal

import pandas as pd
import pyarrow as pa
import sqlalchemy as sa
from pydantic import Field, StringConstraints, ValidationInfo, field_validator
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.engine import Connection, CursorResult
from sqlalchemy.exc import SQLAlchemyError

from runtime.casting import cast_series
from runtime.columns import require_columns
from runtime.context import NodeContext
from runtime.errors import OperatorError, ParamsError
from runtime.fields import VerbatimText
from runtime.frames import to_pandas
from runtime.operator import Operator, OperatorParams, Port
from runtime.schema import Column, Schema, TypeName, schema_of, type_name_of
from runtime.sql_connections import connect, database_errors, driver_message, writable
from runtime.sql_sessions import sqlite_temporary_objects

READ_CHUNK_ROWS = 50_000
"""Rows fetched at a time; progress and cancellation are checked between chunks."""
SCHEMA_SAMPLE_ROWS = 100
"""Rows read to work out a query's columns for the schema view."""
SWAP_DIALECTS = frozenset({"mysql", "mariadb"})
"""Dialects whose DDL commits at once: a table to create or replace is built aside, then
renamed into place. Elsewhere CREATE and DROP TABLE roll back with the transaction."""
TIME_ZONE_TIMESTAMPS = frozenset({"postgresql"})
"""Dialects that store a timestamp's time zone; elsewhere aware times are written in UTC."""

_INTEGER, _FLOAT, _BOOLEAN, _DATE, _STRING = (
    pa.int64(), pa.float64(), pa.bool_(), pa.date32(), pa.string(),
)  # fmt: skip
_DATETIME, _DATETIME_UTC = pa.timestamp("us"), pa.timestamp("us", tz="UTC")

_POSTGRES_TYPES = {
    20: _INTEGER, 21: _INTEGER, 23: _INTEGER,  # int8, int2, int4
    16: _BOOLEAN,
    700: _FLOAT, 701: _FLOAT, 1700: _FLOAT,  # float4, float8, numeric
    1082: _DATE,
    1114: _DATETIME, 1184: _DATETIME_UTC,  # timestamp, timestamptz
}  # fmt: skip
"""PostgreSQL type OIDs (as every PostgreSQL driver reports them); any other type is text."""
_MYSQL_TINY = 1
_MYSQL_TYPES = {
    _MYSQL_TINY: _INTEGER, 2: _INTEGER, 3: _INTEGER, 8: _INTEGER, 9: _INTEGER, 13: _INTEGER,
    0: _FLOAT, 4: _FLOAT, 5: _FLOAT, 246: _FLOAT,  # DECIMAL, FLOAT, DOUBLE, NEWDECIMAL
    10: _DATE, 14: _DATE,  # DATE, NEWDATE
    7: _DATETIME, 12: _DATETIME,  # TIMESTAMP, DATETIME
}  # fmt: skip
"""MySQL protocol field types (TINY, SHORT, LONG, LONGLONG, INT24, YEAR, ...); others are text."""

ParamName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
ParamValue = str | int | float | bool | None


class SqlInputParams(OperatorParams):
    connection: str = Field(
        title="Connection",
        description="Name of a database connection configured for the runtime.",
        min_length=1,
    )
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
        unused = [name for name in params if name not in used]
        if unused:
            raise ValueError(f"{unused[0]} is not used by the query (it has no :{unused[0]})")
        return params


def placeholders(query: str) -> list[str]:
    """The `:name` placeholders of a query, in order."""
    return list(sa.text(query).compile().params)


class SqlInput(Operator):
    name = "sql_input"
    kind = "input"
    title = "SQL query"
    description = "Run a SQL query on a named database connection and read its rows."
    inputs = ()
    outputs = (Port("out"),)
    Params = SqlInputParams

    def output_schema(self, ctx, inputs):
        sample = read_query(ctx, SCHEMA_SAMPLE_ROWS)
        columns = schema_of(sample).columns
        return {"out": Schema(tuple(Column(c.name, c.type, nullable=True) for c in columns))}

    def run(self, ctx, inputs):
        frame = read_query(ctx, ctx.row_limit)
        ctx.logger.info(f"read {len(frame)} rows from '{ctx.params.connection}'")
        return {"out": frame}


def read_query(ctx: NodeContext, row_limit: int | None) -> pd.DataFrame:
    """The rows of the node's query (at most `row_limit`), typed by the engine's convention."""
    params: SqlInputParams = ctx.params
    with (
        connect(ctx, params.connection) as connection,
        database_errors(f"query on '{params.connection}' failed", connection.engine.url),
    ):
        probed = _probe_declared_types(connection, params)
        streaming = connection.execution_options(yield_per=READ_CHUNK_ROWS)
        with (
            _select_limit(connection, row_limit),
            streaming.execute(sa.text(params.query), params.params) as result,
        ):
            names = _column_names(result)
            types = _column_types(connection, result, probed)
            tables = list(_fetch(ctx, result, names, types, row_limit))
    schema = pa.schema([(name, kind or _STRING) for name, kind in zip(names, types, strict=True)])
    table = pa.concat_tables([t.cast(schema) for t in tables]) if tables else schema.empty_table()
    return to_pandas(table)


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


def _column_types(connection: Connection, result: CursorResult, probed: list | None) -> list:
    """The Arrow type of each column, or None where only the values can tell."""
    description = result.cursor.description
    dialect = connection.dialect.name
    if dialect == "postgresql":
        return [_POSTGRES_TYPES.get(column[1], _STRING) for column in description]
    if dialect in ("mysql", "mariadb"):
        return [_mysql_type(column) for column in description]
    if probed is not None and len(probed) == len(description):
        return probed
    return [None] * len(description)


def _mysql_type(column: Sequence) -> pa.DataType:
    if column[1] == _MYSQL_TINY and column[3] == 1:
        return _BOOLEAN  # TINYINT(1), which BOOLEAN is
    return _MYSQL_TYPES.get(column[1], _STRING)


def _probe_declared_types(connection: Connection, params: SqlInputParams) -> list | None:
    """SQLite: the declared type of each column, read off a temporary view of the query."""
    if connection.dialect.name != "sqlite":
        return None
    view = f"pipewright_probe_{uuid.uuid4().hex}"
    with sqlite_temporary_objects(connection):  # the view is made, read and dropped, never run
        try:
            nulls = sa.text(params.query.strip().rstrip(";")).bindparams(
                **dict.fromkeys(params.params)
            )
            select = nulls.compile(
                dialect=connection.dialect, compile_kwargs={"literal_binds": True}
            )
            connection.exec_driver_sql(f'CREATE TEMP VIEW "{view}" AS {select}')
        except SQLAlchemyError:
            return None  # not a plain SELECT: the values will tell
        try:
            rows = connection.exec_driver_sql(f'PRAGMA temp.table_info("{view}")').all()
        finally:
            connection.exec_driver_sql(f'DROP VIEW temp."{view}"')
    return [_sqlite_type(row[2]) for row in rows]


def _sqlite_type(declared: str) -> pa.DataType | None:
    """SQLite's own affinity rules, refined by the names SQLAlchemy and people write."""
    name = declared.upper()
    rules = [
        (("BOOL",), _BOOLEAN),
        (("DATETIME", "TIMESTAMP"), _DATETIME),
        (("DATE",), _DATE),
        (("INT",), _INTEGER),
        (("CHAR", "CLOB", "TEXT"), _STRING),
        (("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL"), _FLOAT),
    ]
    return next((kind for words, kind in rules if any(word in name for word in words)), None)


@contextmanager
def _select_limit(connection: Connection, row_limit: int | None) -> Iterator[None]:
    """MySQL/MariaDB: the server stops after `row_limit` rows, so that closing a result cut
    short does not have to drain the rest of it. Other databases stop when asked to."""
    if row_limit is None or connection.dialect.name not in ("mysql", "mariadb"):
        yield
        return
    connection.execute(sa.text("SET SESSION sql_select_limit = :n"), {"n": row_limit})
    try:
        yield
    finally:
        connection.exec_driver_sql("SET SESSION sql_select_limit = DEFAULT")


def _fetch(
    ctx: NodeContext, result: CursorResult, names: list[str], types: list, row_limit: int | None
) -> Iterator[pa.Table]:
    """Arrow tables of up to READ_CHUNK_ROWS rows; `types` learns the undeclared columns."""
    done = 0
    while row_limit is None or done < row_limit:
        ctx.check_cancelled()
        wanted = READ_CHUNK_ROWS if row_limit is None else min(READ_CHUNK_ROWS, row_limit - done)
        rows = result.fetchmany(wanted)
        if not rows:
            break
        columns = [list(map(itemgetter(index), rows)) for index in range(len(names))]
        arrays = [_arrow_column(values, kind) for values, kind in zip(columns, types, strict=True)]
        for index, array in enumerate(arrays):
            if types[index] is None and not pa.types.is_null(array.type):
                types[index] = array.type
        yield pa.Table.from_arrays(arrays, names=names)
        done += len(rows)
        ctx.progress(done)


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
        return pa.array(objects.map(_as_text, na_action="ignore"), type=_STRING, from_pandas=True)
    try:
        return pa.array(values).cast(kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        converted = cast_series(objects, _public_type(kind))  # what does not convert is null
        return pa.array(converted, from_pandas=True).cast(kind)


def _inferred(values: Sequence) -> pa.Array:
    try:
        array = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return _coerced(values, _STRING)
    kind = array.type
    if pa.types.is_null(kind) or pa.types.is_timestamp(kind):
        return array
    if pa.types.is_integer(kind):
        return array.cast(_INTEGER)
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return array.cast(_FLOAT)
    if pa.types.is_boolean(kind) or pa.types.is_string(kind):
        return array
    if pa.types.is_date(kind):
        return array.cast(_DATE)
    return _coerced(values, _STRING)


def _public_type(kind: pa.DataType) -> TypeName:
    return type_name_of(pd.ArrowDtype(kind))


def _as_text(value) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


class SqlOutputParams(OperatorParams):
    connection: str = Field(
        title="Connection",
        description="Name of a database connection configured for the runtime.",
        min_length=1,
    )
    table: str = Field(
        title="Table",
        description="Table to write, optionally prefixed by its schema (sales.orders).",
        pattern=r"^[^.]+(\.[^.]+)?$",
    )
    mode: Literal["append", "replace", "upsert"] = Field(
        "append",
        title="Mode",
        description=(
            "append adds the rows; replace makes a new table of the rows; upsert updates the "
            "rows whose keys exist and adds the others."
        ),
    )
    keys: list[str] = Field(
        [],
        title="Key columns",
        description=(
            "Columns that identify a row: upsert matches rows on them, and a table this node "
            "creates gets them as its primary key."
        ),
        validate_default=True,
    )
    chunk_size: int = Field(
        10_000,
        title="Rows per batch",
        description="Rows sent per INSERT batch; all batches form a single transaction.",
        ge=1,
        le=1_000_000,
    )

    @field_validator("keys")
    @classmethod
    def _upsert_has_keys(cls, keys: list[str], info: ValidationInfo) -> list[str]:
        if info.data.get("mode") == "upsert" and not keys:
            raise ValueError("upsert needs the columns that identify a row; list them here")
        if len(set(keys)) != len(keys):
            raise ValueError("a key column is listed twice")
        return keys


class SqlOutput(Operator):
    name = "sql_output"
    kind = "output"
    title = "Write to a database table"
    description = (
        "Write rows to a table of a named database connection, in one transaction: "
        "all of them or none."
    )
    inputs = (Port("in"),)
    outputs = ()
    Params = SqlOutputParams

    def output_schema(self, ctx, inputs):
        writable(ctx, ctx.params.connection, ctx.params.table)
        require_columns("keys", ctx.params.keys, inputs["in"].names)
        return {}

    def run(self, ctx, inputs):
        params: SqlOutputParams = ctx.params
        frame: pd.DataFrame = inputs["in"]
        require_columns("keys", params.keys, frame.columns)
        with (
            connect(ctx, params.connection, write_to=params.table) as connection,
            database_errors(
                f"writing to table '{params.table}' on '{params.connection}' failed",
                connection.engine.url,
            ),
        ):
            _write(ctx, connection, frame)
        ctx.metrics.update(table=params.table, rows_written=len(frame))
        ctx.logger.info(f"wrote {len(frame)} rows to '{params.table}' ({params.mode})")
        return {}


def _write(ctx: NodeContext, connection: Connection, frame: pd.DataFrame) -> None:
    params: SqlOutputParams = ctx.params
    schema, _, name = params.table.rpartition(".")
    existing = _existing_table(connection, name, schema or None)
    if existing is not None and params.mode == "upsert":
        _require_unique_keys(connection, existing, params)
    if existing is not None and params.mode != "replace":
        _insert(ctx, connection, _matching(existing, frame, params.table), frame)
        ctx.commit(connection.commit)
    elif connection.dialect.name in SWAP_DIALECTS:
        _write_by_swap(ctx, connection, frame, existing, name, schema or None)
    else:
        if existing is not None:
            existing.drop(connection)
        table = _new_table(frame, name, schema or None, params.keys)
        table.create(connection)
        _insert(ctx, connection, table, frame)
        ctx.commit(connection.commit)


def _write_by_swap(ctx, connection, frame, existing, name, schema) -> None:
    """Fill a staging table, then rename it into place at commit (DDL that auto-commits)."""
    staging_name = f"{name[:40]}__pw_{uuid.uuid4().hex[:10]}"  # MySQL names: 64 characters
    staging = _new_table(frame, staging_name, schema, ctx.params.keys)
    target = sa.Table(name, sa.MetaData(), schema=schema)
    old = sa.Table(f"{staging_name}_old", sa.MetaData(), schema=schema)
    quote = connection.dialect.identifier_preparer.format_table
    renames = [(staging, target)] if existing is None else [(target, old), (staging, target)]
    swap = ", ".join(f"{quote(source)} TO {quote(destination)}" for source, destination in renames)
    staging.create(connection)
    try:
        _insert(ctx, connection, staging, frame)
        connection.commit()
        ctx.commit(lambda: connection.exec_driver_sql(f"RENAME TABLE {swap}"))  # atomic
    finally:
        _drop_quietly(ctx, connection, [staging, old])


def _drop_quietly(ctx: NodeContext, connection: Connection, tables: list[sa.Table]) -> None:
    """Drop these tables if they exist; a failure is logged, not raised over the first one."""
    try:
        connection.rollback()
        for table in tables:
            table.drop(connection, checkfirst=True)
        connection.commit()
    except SQLAlchemyError as error:
        message = driver_message(error, connection.engine.url)
        names = " and ".join(f"'{table.name}'" for table in tables)
        ctx.logger.warning(f"could not drop the staging tables {names}: {message}")


def _existing_table(connection: Connection, name: str, schema: str | None) -> sa.Table | None:
    if not sa.inspect(connection).has_table(name, schema=schema):
        return None
    return sa.Table(name, sa.MetaData(), schema=schema, autoload_with=connection)


def _require_unique_keys(connection: Connection, table: sa.Table, params: SqlOutputParams):
    inspector = sa.inspect(connection)
    where = {"table_name": table.name, "schema": table.schema}
    unique = [inspector.get_pk_constraint(**where).get("constrained_columns") or []]
    unique += [c["column_names"] for c in inspector.get_unique_constraints(**where)]
    unique += [index["column_names"] for index in inspector.get_indexes(**where) if index["unique"]]
    if set(params.keys) not in [set(columns) for columns in unique]:
        raise ParamsError(
            "keys",
            f"table '{params.table}' has no primary key or unique index on "
            f"({', '.join(params.keys)}); upsert needs one to find existing rows",
        )


def _matching(table: sa.Table, frame: pd.DataFrame, label: str) -> sa.Table:
    missing = [str(name) for name in frame.columns if str(name) not in table.c]
    if missing:
        raise OperatorError(
            f"table '{label}' has no column {', '.join(missing)} (its columns: "
            f"{', '.join(table.c.keys())}); add it to the table or leave it out of the rows"
        )
    return table


def _new_table(frame: pd.DataFrame, name: str, schema: str | None, keys: list[str]) -> sa.Table:
    """A table shaped by the frame's dtypes, with a primary key on `keys` if any."""
    columns = [
        sa.Column(
            str(column),
            _sql_type(frame[column].dtype, key=column in keys),
            primary_key=column in keys,
            nullable=column not in keys,
            autoincrement=False,
        )
        for column in frame.columns
    ]
    return sa.Table(name, sa.MetaData(), *columns, schema=schema, mysql_engine="InnoDB")


def _sql_type(dtype, *, key: bool) -> sa.types.TypeEngine:
    kind = type_name_of(dtype)
    if kind == "integer":
        return sa.BigInteger()
    if kind == "float":
        return sa.Double()
    if kind == "boolean":
        return sa.Boolean()
    if kind == "date":
        return sa.Date()
    if kind == "datetime":
        timezone = getattr(dtype, "tz", None) is not None
        microseconds = mysql.DATETIME(fsp=6)  # MySQL's DATETIME would drop them
        return sa.DateTime(timezone=timezone).with_variant(microseconds, "mysql", "mariadb")
    if key:  # MySQL cannot index TEXT without a length
        return sa.Text().with_variant(sa.String(255), "mysql", "mariadb")
    return sa.Text()


def _insert(ctx: NodeContext, connection: Connection, table: sa.Table, frame: pd.DataFrame):
    """Insert (or upsert) the rows in executemany batches of `chunk_size`."""
    params: SqlOutputParams = ctx.params
    names = [str(column) for column in frame.columns]
    statement = _insert_statement(connection, table, params, names)
    zones = connection.dialect.name in TIME_ZONE_TIMESTAMPS
    for start in range(0, len(frame), params.chunk_size):
        ctx.check_cancelled()
        chunk = frame.iloc[start : start + params.chunk_size]
        columns = [_python_values(chunk[column], zones) for column in chunk.columns]
        rows = zip(*columns, strict=True)
        connection.execute(statement, [dict(zip(names, row, strict=True)) for row in rows])
        ctx.progress(start + len(chunk))


def _insert_statement(connection, table: sa.Table, params: SqlOutputParams, names: list[str]):
    if params.mode != "upsert":
        return table.insert()
    updates = [name for name in names if name not in params.keys]
    dialect = connection.dialect.name
    if dialect in ("postgresql", "sqlite"):
        insert = (postgresql if dialect == "postgresql" else sqlite).insert(table)
        if not updates:
            return insert.on_conflict_do_nothing(index_elements=params.keys)
        changes = {name: insert.excluded[name] for name in updates}
        return insert.on_conflict_do_update(index_elements=params.keys, set_=changes)
    if dialect in ("mysql", "mariadb"):
        insert = mysql.insert(table)
        return insert.on_duplicate_key_update(
            {name: insert.inserted[name] for name in updates or params.keys}
        )
    raise ParamsError("mode", f"upsert is not available for {dialect}; use append or replace")


def _python_values(series: pd.Series, zones: bool) -> list:
    """The column as Python values for the driver, nulls (NA, NaN, NaT) as None; without
    `zones` (a database whose timestamps have no time zone), aware times become UTC."""
    if type_name_of(series.dtype) == "datetime":
        if not zones and series.dt.tz is not None:
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        values = pd.Series(series.dt.to_pydatetime(), index=series.index, dtype=object)
    else:
        values = series.astype(object)
    return values.where(series.notna(), None).tolist()
