"""`sql_output`: rows written to a table of a named database, all of them or none.

It writes only through a connection that allows writes, to a table inside the connection's
prefix, all batches in one transaction committed through `ctx.commit`, so a failure or a stop
leaves the table as it was. PostgreSQL and SQLite have transactional DDL: creating or
replacing the table happens inside that transaction. MySQL and MariaDB commit DDL at once, so
a table to create or replace is built under a staging name and swapped into place by one
atomic `RENAME TABLE` at commit time; a failure drops the staging table, and a run whose process
was killed has its staging tables dropped by whoever ends or reaps it (`staging.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

import sqlalchemy as sa
from pydantic import Field, ValidationInfo, field_validator
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from runtime.errors import OperatorError, ParamsError
from runtime.io.sql.connections import database_errors, driver_message, writable
from runtime.lazy import pd
from runtime.operators.column_names import require_columns
from runtime.operators.column_params import ColumnOf
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.operators.sql.connection_field import ConnectionName
from runtime.operators.sql.dialects import (
    SWAP_DIALECTS,
    TIME_ZONE_TIMESTAMPS,
    sql_type,
    upsert_statement,
)
from runtime.operators.sql.node_connection import close_connection, node_connection, open_connection
from runtime.operators.sql.staging import OLD
from runtime.operators.sql.staging import staging_name as staging_table_name
from runtime.tables.schema import type_name_of
from runtime.tables.spilled import SpilledRows


class SqlOutputParams(OperatorParams):
    connection: ConnectionName
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
    keys: list[Annotated[str, ColumnOf("in")]] = Field(
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
    summary = "{connection} · {table} ({mode})"
    kind = "output"
    title = "Write to a database table"
    description = (
        "Write rows to a table of a named database connection, in one transaction: "
        "all of them or none."
    )
    inputs = (Port("in"),)
    outputs = ()
    Params = SqlOutputParams
    keywords = ("sqlite", "postgres", "postgresql", "mysql", "database", "db", "insert", "load")

    def output_schema(self, ctx, inputs):
        writable(ctx, ctx.params.connection, ctx.params.table)
        require_columns("keys", ctx.params.keys, inputs["in"].names)
        return {}

    def open(self, ctx):
        open_connection(ctx, ctx.params.connection, write_to=ctx.params.table)

    def close(self, ctx):
        close_connection(ctx)

    def reads_batches(self, params):
        return True

    def run(self, ctx, inputs):
        params: SqlOutputParams = ctx.params
        rows: pd.DataFrame | SpilledRows = inputs["in"]
        spilled = isinstance(rows, SpilledRows)
        shape = rows.empty() if spilled else rows
        require_columns("keys", params.keys, shape.columns)
        with (
            node_connection(ctx, params.connection, write_to=params.table) as connection,
            database_errors(
                f"writing to table '{params.table}' on '{params.connection}' failed",
                connection.engine.url,
            ),
        ):
            write_batches(ctx, connection, shape, rows.frames() if spilled else [rows])
        ctx.metrics.update(table=params.table, rows_written=len(rows))
        ctx.logger.info(f"wrote {len(rows)} rows to '{params.table}' ({params.mode})")
        return {}


def write_frame(ctx: NodeContext, connection: Connection, frame: pd.DataFrame) -> None:
    """Write `frame` to the table `ctx.params` names, in its mode, committing through `ctx`."""
    write_batches(ctx, connection, frame, [frame])


def write_batches(
    ctx: NodeContext, connection: Connection, frame: pd.DataFrame, frames: Iterable[pd.DataFrame]
) -> None:
    """Write the rows of `frames`, one after another, in one transaction (rows spilled to a
    file come a batch at a time); `frame` has their columns and dtypes."""
    params: SqlOutputParams = ctx.params
    schema, _, name = params.table.rpartition(".")
    existing = _existing_table(connection, name, schema or None)
    if existing is not None and params.mode == "upsert":
        _require_unique_keys(connection, existing, params)
    if existing is not None and params.mode != "replace":
        _insert(ctx, connection, _matching(existing, frame, params.table), frame, frames)
        ctx.commit(connection.commit)
    elif connection.dialect.name in SWAP_DIALECTS:
        _write_by_swap(ctx, connection, frame, frames, existing, name, schema or None)
    else:
        if existing is not None:
            existing.drop(connection)
        table = _new_table(frame, name, schema or None, params.keys)
        table.create(connection)
        _insert(ctx, connection, table, frame, frames)
        ctx.commit(connection.commit)


def _write_by_swap(ctx, connection, frame, frames, existing, name, schema) -> None:
    """Fill a staging table, then rename it into place at commit (DDL that auto-commits)."""
    staging_name = staging_table_name(name, ctx.run_id)  # named after the run: see staging.py
    staging = _new_table(frame, staging_name, schema, ctx.params.keys)
    target = sa.Table(name, sa.MetaData(), schema=schema)
    old = sa.Table(f"{staging_name}{OLD}", sa.MetaData(), schema=schema)
    quote = connection.dialect.identifier_preparer.format_table
    renames = [(staging, target)] if existing is None else [(target, old), (staging, target)]
    swap = ", ".join(f"{quote(source)} TO {quote(destination)}" for source, destination in renames)
    staging.create(connection)
    try:
        _insert(ctx, connection, staging, frame, frames)
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
            sql_type(frame[column].dtype, key=column in keys),
            primary_key=column in keys,
            nullable=column not in keys,
            autoincrement=False,
        )
        for column in frame.columns
    ]
    return sa.Table(name, sa.MetaData(), *columns, schema=schema, mysql_engine="InnoDB")


def _insert(
    ctx: NodeContext,
    connection: Connection,
    table: sa.Table,
    frame: pd.DataFrame,
    frames: Iterable[pd.DataFrame],
):
    """Insert (or upsert) the rows of `frames` (in `frame`'s columns) in executemany batches
    of `chunk_size`."""
    params: SqlOutputParams = ctx.params
    names = [str(column) for column in frame.columns]
    statement = _insert_statement(connection, table, params, names)
    zones = connection.dialect.name in TIME_ZONE_TIMESTAMPS
    done = 0
    for batch in frames:
        for start in range(0, len(batch), params.chunk_size):
            ctx.check_cancelled()
            chunk = batch.iloc[start : start + params.chunk_size]
            columns = [_python_values(chunk[column], zones) for column in chunk.columns]
            rows = zip(*columns, strict=True)
            connection.execute(statement, [dict(zip(names, row, strict=True)) for row in rows])
            done += len(chunk)
            ctx.progress(done)


def _insert_statement(connection, table: sa.Table, params: SqlOutputParams, names: list[str]):
    if params.mode != "upsert":
        return table.insert()
    return upsert_statement(connection, table, params.keys, names)


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
