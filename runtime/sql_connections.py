"""Database engines for named connections, and database errors in words a user can act on.

A pipeline names a connection (`warehouse`); the runtime is given each name's SQLAlchemy URL
(the CLI's `--connections` file), so URLs and their passwords stay out of pipelines. One engine
per URL serves the whole process: created on first use under a lock, checking a pooled
connection before handing it out (`pool_pre_ping`). A relative SQLite path resolves under the
data root, like every file path of a pipeline. No message ever shows a password.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError, StatementError

from runtime.context import NodeContext
from runtime.errors import OperatorError, ParamsError

CONNECT_TIMEOUT_S = 10
"""How long to wait for a server that does not answer (a refused connection fails at once)."""
_TIMEOUT_DRIVERS = frozenset({"psycopg", "psycopg2", "pymysql", "mysqldb"})
"""Drivers that take a `connect_timeout` argument, in seconds."""


@dataclass(frozen=True)
class ConnectionSpec:
    """A named connection as the runtime receives it."""

    url: str
    read_only: bool = True
    prefix: str | None = None


_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def connection_url(ctx: NodeContext, name: str) -> URL:
    """The URL of connection `name`, a relative SQLite path resolved under the data root."""
    spec = ctx.connections.get(name)
    text = spec.url if isinstance(spec, ConnectionSpec) else spec
    if text is None:
        known = ", ".join(sorted(ctx.connections)) or "none are configured"
        raise ParamsError("connection", f"unknown connection '{name}'; known connections: {known}")
    try:
        url = sa.make_url(text)
    except ArgumentError:
        raise OperatorError(
            f"connection '{name}' has a malformed database URL; fix it in the connections settings"
        ) from None
    return _under_data_root(ctx, url)


def _under_data_root(ctx: NodeContext, url: URL) -> URL:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file:")
    if url.get_backend_name() != "sqlite" or in_memory or Path(database).is_absolute():
        return url
    return url.set(database=str(ctx.resolve_path(database)))


def engine_for(ctx: NodeContext, name: str) -> Engine:
    """The process-wide engine of connection `name`, created on first use."""
    url = connection_url(ctx, name)
    key = url.render_as_string(hide_password=False)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = _create_engine(url, name)
    return engine


def _create_engine(url: URL, name: str) -> Engine:
    connect_args = {}
    if url.get_driver_name() in _TIMEOUT_DRIVERS and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except (NoSuchModuleError, ImportError) as error:
        raise OperatorError(
            f"connection '{name}': no database driver for '{url.drivername}' ({error}); "
            "install the driver or fix the URL"
        ) from None
    if engine.dialect.name == "sqlite":
        _make_sqlite_transactional(engine)
    return engine


def _make_sqlite_transactional(engine: Engine) -> None:
    """Let SQLAlchemy, not Python's sqlite3 module, begin transactions, so DDL is inside them."""

    @sa.event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")


def hidden(url: URL) -> str:
    """The URL as it may be shown: with its password masked."""
    return url.render_as_string(hide_password=True)


@contextmanager
def connect(ctx: NodeContext, name: str) -> Iterator[Connection]:
    """A connection of connection `name`; a server that cannot be reached is an OperatorError."""
    engine = engine_for(ctx, name)
    try:
        connection = engine.connect()
    except SQLAlchemyError as error:
        message = driver_message(error, engine.url)
        raise OperatorError(
            f"cannot connect to '{name}' ({hidden(engine.url)}): {message}"
        ) from error
    with connection:
        yield connection


@contextmanager
def database_errors(action: str, url: URL) -> Iterator[None]:
    """Turn a database error raised inside into `OperatorError("<action>: <driver's words>")`."""
    try:
        yield
    except SQLAlchemyError as error:
        raise OperatorError(f"{action}: {driver_message(error, url)}") from error


def driver_message(error: SQLAlchemyError, url: URL) -> str:
    """What the database driver said, without SQLAlchemy's additions and without the password."""
    cause = error.orig if isinstance(error, StatementError) and error.orig is not None else error
    args = cause.args
    if len(args) == 2 and isinstance(args[0], int) and isinstance(args[1], str):
        text = args[1]  # MySQL drivers: (error code, message)
    elif isinstance(cause, SQLAlchemyError) and args:
        text = str(args[0])
    else:
        text = str(cause)
    text = text.strip() or type(cause).__name__
    return text.replace(url.password, "***") if url.password else text
