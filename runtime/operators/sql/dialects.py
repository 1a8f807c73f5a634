"""What differs between the databases the SQL operators speak to: how each describes the
types of a result's columns, how a read stops early, how a table is typed and how an upsert
is written.

PostgreSQL and MySQL/MariaDB describe every result column (a MySQL `TINYINT(1)`/`BOOLEAN`
reads as a boolean); SQLite gives the declared type of columns taken straight from a table,
found through a temporary view of the query.

A column declared DECIMAL or NUMERIC of up to 38 digits with its precision and scale is
`decimal` (Arrow's decimal128), as a Parquet file's is; unconstrained (PostgreSQL's bare
NUMERIC, SQLite's NUMERIC) or wider it is `float`, as DuckDB's database scanners read it.
MySQL's protocol gives a decimal's display length, which counts the sign of a signed column
and not of an unsigned one: the precision is read as signed, and an unsigned column whose
values need the digit more gets it when they are read (reading.py).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pyarrow as pa
import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.engine import Connection, CursorResult
from sqlalchemy.exc import SQLAlchemyError

from runtime.errors import ParamsError
from runtime.io.sql.sessions import sqlite_temporary_objects
from runtime.tables.schema import type_name_of

SWAP_DIALECTS = frozenset({"mysql", "mariadb"})
"""Dialects whose DDL commits at once: a table to create or replace is built aside, then
renamed into place. Elsewhere CREATE and DROP TABLE roll back with the transaction."""
TIME_ZONE_TIMESTAMPS = frozenset({"postgresql"})
"""Dialects that store a timestamp's time zone; elsewhere aware times are written in UTC."""

INTEGER, FLOAT, BOOLEAN, DATE, STRING = (
    pa.int64(), pa.float64(), pa.bool_(), pa.date32(), pa.string(),
)  # fmt: skip
DATETIME, DATETIME_UTC = pa.timestamp("us"), pa.timestamp("us", tz="UTC")
"""The Arrow types of the engine's public types that databases describe."""

POSTGRES_TYPES = {
    20: INTEGER, 21: INTEGER, 23: INTEGER,  # int8, int2, int4
    16: BOOLEAN,
    700: FLOAT, 701: FLOAT,  # float4, float8
    1082: DATE,
    1114: DATETIME, 1184: DATETIME_UTC,  # timestamp, timestamptz
}  # fmt: skip
"""PostgreSQL type OIDs (as every PostgreSQL driver reports them); any other type is text."""
MYSQL_TINY = 1
MYSQL_TYPES = {
    MYSQL_TINY: INTEGER, 2: INTEGER, 3: INTEGER, 8: INTEGER, 9: INTEGER, 13: INTEGER,
    4: FLOAT, 5: FLOAT,  # FLOAT, DOUBLE
    10: DATE, 14: DATE,  # DATE, NEWDATE
    7: DATETIME, 12: DATETIME,  # TIMESTAMP, DATETIME
}  # fmt: skip
"""MySQL protocol field types (TINY, SHORT, LONG, LONGLONG, INT24, YEAR, ...); others are text."""
POSTGRES_NUMERIC, MYSQL_DECIMALS = 1700, (0, 246)  # DECIMAL, NEWDECIMAL
_DECLARED_DECIMAL = re.compile(r"(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")


def column_types(connection: Connection, result: CursorResult, probed: list | None) -> list:
    """The Arrow type of each column, or None where only the values can tell."""
    description = result.cursor.description
    dialect = connection.dialect.name
    if dialect == "postgresql":
        return [_postgres_type(column) for column in description]
    if dialect in ("mysql", "mariadb"):
        return [_mysql_type(column) for column in description]
    if probed is not None and len(probed) == len(description):
        return probed
    return [None] * len(description)


def decimal_type(precision: int | None, scale: int | None) -> pa.DataType:
    """decimal128(precision, scale) when it holds the database's numbers exactly, else float."""
    if precision is None or not 0 < precision <= 38 or not 0 <= (scale or 0) <= precision:
        return FLOAT
    return pa.decimal128(precision, scale or 0)


def _postgres_type(column: Sequence) -> pa.DataType:
    if column[1] == POSTGRES_NUMERIC:  # precision and scale: None when unconstrained
        return decimal_type(column[4], column[5])
    return POSTGRES_TYPES.get(column[1], STRING)


def _mysql_type(column: Sequence) -> pa.DataType:
    if column[1] == MYSQL_TINY and column[3] == 1:
        return BOOLEAN  # TINYINT(1), which BOOLEAN is
    if column[1] in MYSQL_DECIMALS:  # the length counts the point, and a sign if signed
        scale = column[5]
        return decimal_type(column[3] - (1 if scale else 0) - 1, scale)
    return MYSQL_TYPES.get(column[1], STRING)


def probe_declared_types(connection: Connection, query: str, names: list[str]) -> list | None:
    """SQLite: the declared type of each column, read off a temporary view of the query
    whose placeholders `names` are bound to nulls."""
    if connection.dialect.name != "sqlite":
        return None
    view = f"pipewright_probe_{uuid.uuid4().hex}"
    with sqlite_temporary_objects(connection):  # the view is made, read and dropped, never run
        try:
            nulls = sa.text(query.strip().rstrip(";")).bindparams(**dict.fromkeys(names))
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
    declared_decimal = _DECLARED_DECIMAL.search(name)
    if declared_decimal is not None:
        precision, scale = declared_decimal.groups()
        return decimal_type(int(precision), int(scale or 0))
    rules = [
        (("BOOL",), BOOLEAN),
        (("DATETIME", "TIMESTAMP"), DATETIME),
        (("DATE",), DATE),
        (("INT",), INTEGER),
        (("CHAR", "CLOB", "TEXT"), STRING),
        (("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL"), FLOAT),
    ]
    return next((kind for words, kind in rules if any(word in name for word in words)), None)


@contextmanager
def select_limit(connection: Connection, row_limit: int | None) -> Iterator[None]:
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


def sql_type(dtype, *, key: bool) -> sa.types.TypeEngine:
    kind = type_name_of(dtype)
    if kind == "integer":
        return sa.BigInteger()
    if kind == "float":
        return sa.Double()
    if kind == "decimal":
        return sa.Numeric(dtype.pyarrow_dtype.precision, dtype.pyarrow_dtype.scale)
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


def upsert_statement(connection: Connection, table: sa.Table, keys: list[str], names: list[str]):
    """An INSERT of columns `names` that updates the rows whose `keys` exist, in the dialect's
    words."""
    updates = [name for name in names if name not in keys]
    dialect = connection.dialect.name
    if dialect in ("postgresql", "sqlite"):
        insert = (postgresql if dialect == "postgresql" else sqlite).insert(table)
        if not updates:
            return insert.on_conflict_do_nothing(index_elements=keys)
        changes = {name: insert.excluded[name] for name in updates}
        return insert.on_conflict_do_update(index_elements=keys, set_=changes)
    if dialect in ("mysql", "mariadb"):
        insert = mysql.insert(table)
        return insert.on_duplicate_key_update(
            {name: insert.inserted[name] for name in updates or keys}
        )
    raise ParamsError("mode", f"upsert is not available for {dialect}; use append or replace")
