"""Named connections: their specs, their engines, and database errors in words a user can act on.

A pipeline names a connection (`warehouse`); the runtime is given each name's `ConnectionSpec`
(a URL, whether it is read-only, the schema or table prefix it may write to), so URLs and their
passwords stay out of pipelines. A bare URL string is a writable connection (the CLI's own
`--connections` file). `sql_input` always reads through a read-only session, whatever the
connection allows; `sql_output` needs a writable connection and a table inside its prefix.

An SQLite connection is a relative path to a file inside the data root, nothing else: no
absolute path, no `file:` URI, no in-memory database, no URL options. One engine per (URL,
read-only flag, prefix, session kind) serves the process, created on first use under a lock;
it keeps no pooled connection (`NullPool`), so no state of one query reaches the next, and
`runtime.io.sql.sessions` confines every connection it opens. No message ever shows a password.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError, StatementError
from sqlalchemy.pool import NullPool

from runtime.errors import OperatorError, ParamsError, UnreachableError
from runtime.io.addresses import AddressRefused
from runtime.io.sql.connection_specs import ConnectionSpec, as_spec, hidden, secrets_of
from runtime.io.sql.sessions import SQLITE_REFUSED, confine


class ConnectingContext(Protocol):
    """What connecting needs of a node's context (`runtime.operators.context.NodeContext` is
    one): the run's connections by name, and its file area for SQLite files."""

    connections: Mapping[str, object]

    def resolve_path(self, path: str, *, write: bool = False) -> Path: ...


CONNECT_TIMEOUT_S = 10
"""How long to wait for a server that does not answer (a refused connection fails at once)."""
_TIMEOUT_DRIVERS = frozenset({"psycopg", "psycopg2", "pymysql", "mysqldb"})
"""Drivers that take a `connect_timeout` argument, in seconds."""
_READ_TIMEOUT_DRIVERS = frozenset({"pymysql", "mysqldb"})
"""Drivers that take `read_timeout` and `write_timeout` arguments, in seconds."""

_SQLITE_DENIALS = ("not authorized", "authorization denied")
"""How SQLite words a refusal of the authorizer (the second: inside VACUUM INTO)."""

_engines: dict[tuple, Engine] = {}
_engines_lock = threading.Lock()


def connection_spec(ctx: ConnectingContext, name: str) -> ConnectionSpec:
    """The spec of connection `name`; an unknown name says so and nothing about the others."""
    value = ctx.connections.get(name)
    if value is None:
        raise ParamsError("connection", f"no connection named '{name}' in this workspace")
    return as_spec(value)


def connection_url(ctx: ConnectingContext, name: str, *, write: bool = False) -> URL:
    """The URL of connection `name`, an SQLite path checked and resolved in the node's file
    area (for writing, when `write`: the shared folder is read-only); a server's, checked by
    the connection's guard and pinned to the address it checked."""
    spec = connection_spec(ctx, name)
    try:
        url = sa.make_url(spec.url)
    except (ArgumentError, ValueError):
        raise OperatorError(
            f"connection '{name}' has a malformed database URL; fix it in the connections settings"
        ) from None
    try:
        if url.get_backend_name() != "sqlite":
            return spec.guard.pinned(url) if spec.guard else url
        path = str(ctx.resolve_path(sqlite_path(url, name), write=write))
        if spec.guard:
            spec.guard.check_file(path)
    except AddressRefused as refused:
        raise OperatorError(f"connection '{name}' is refused: {refused}") from None
    return url.set(database=path)


def sqlite_path(url: URL, name: str) -> str:
    """The relative file path of an SQLite URL; anything else is refused."""
    database = url.database or ""
    fix = "give a path relative to the data root, such as sqlite:///shop.db"
    if url.query:
        raise OperatorError(f"connection '{name}': an SQLite URL takes no options (?...); {fix}")
    if database in ("", ":memory:") or database.startswith("file:"):
        raise OperatorError(f"connection '{name}': an SQLite database must be a file; {fix}")
    if Path(database).is_absolute() or database.startswith("~"):
        raise OperatorError(f"connection '{name}': '{database}' is an absolute path; {fix}")
    if url.get_driver_name() != "pysqlite":
        raise OperatorError(f"connection '{name}': use sqlite:/// (not {url.drivername}); {fix}")
    return database


def writable(ctx: ConnectingContext, name: str, table: str) -> ConnectionSpec:
    """The spec of connection `name` if it may write `table`, else a ParamsError saying why."""
    spec = connection_spec(ctx, name)
    connection_url(ctx, name, write=True)
    if spec.read_only:
        raise ParamsError(
            "connection",
            f"connection '{name}' is read-only; writing needs a connection that allows "
            "writes (a workspace admin can allow them)",
        )
    prefix = spec.prefix
    if prefix and not _within(table, prefix):
        where = f"schema '{prefix[:-1]}'" if prefix.endswith(".") else f"tables named {prefix}..."
        raise ParamsError(
            "table",
            f"connection '{name}' may only write to {where}; name a table such as "
            f"'{prefix}{table.rpartition('.')[2]}'",
        )
    return spec


def _within(table: str, prefix: str) -> bool:
    schema, _, name = table.rpartition(".")
    if prefix.endswith("."):
        return schema == prefix[:-1] and bool(name)
    return not schema and name.startswith(prefix)


def engine_for(ctx: ConnectingContext, name: str, *, write: bool = False) -> Engine:
    """The process-wide engine of connection `name` (read-only sessions unless `write`)."""
    spec = connection_spec(ctx, name)
    read_only = spec.read_only or not write
    url = connection_url(ctx, name, write=not read_only)
    key = (url.render_as_string(hide_password=False), spec.read_only, spec.prefix, read_only)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = _create_engine(url, name, read_only=read_only)
    return engine


PROBE_TIMEOUT_S = 5
"""How long "Test connection" waits for a server (a form's answer, not a run's)."""


def probe(ctx: ConnectingContext, name: str) -> str:
    """Connect to `name` as a read-only session would, run `SELECT 1` and close: what the
    database calls itself ("PostgreSQL 16.4"), or an `OperatorError` saying why not. Checked by
    the connection's guard like every connection; no engine is kept, and an SQLite file that
    is not there is not made."""
    url = connection_url(ctx, name).difference_update_query(["connect_timeout"])
    if url.get_backend_name() == "sqlite" and not Path(url.database).is_file():
        shown = sqlite_path(sa.make_url(connection_spec(ctx, name).url), name)
        raise OperatorError(f"no SQLite file '{shown}' in the workspace folder; upload it first")
    engine = _create_engine(
        url, name, read_only=True, timeout=PROBE_TIMEOUT_S, answer_within=PROBE_TIMEOUT_S
    )
    try:
        action = f"cannot connect to '{name}' ({hidden(url)})"
        with database_errors(action, url), engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1").scalar()
            version = ".".join(str(part) for part in engine.dialect.server_version_info or ())
    finally:
        engine.dispose()
    return f"{_DIALECT_NAMES.get(engine.dialect.name, engine.dialect.name)} {version}".strip()


_DIALECT_NAMES = {"postgresql": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB",
                  "sqlite": "SQLite"}  # fmt: skip


def _create_engine(
    url: URL,
    name: str,
    *,
    read_only: bool,
    timeout: int = CONNECT_TIMEOUT_S,
    answer_within: int | None = None,
) -> Engine:
    """`answer_within`: seconds each read and write may wait (a probe's `SELECT 1`; never a
    run's queries, which may take long), for the drivers that wait on without it."""
    connect_args = {}
    driver = url.get_driver_name()
    if driver in _TIMEOUT_DRIVERS and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = timeout
    if answer_within is not None and driver in _READ_TIMEOUT_DRIVERS:
        # pymysql's connect_timeout covers the TCP connect only: a server that accepts and
        # never greets would hold the probe forever. (libpq's covers the whole handshake.)
        connect_args["read_timeout"] = connect_args["write_timeout"] = answer_within
    try:
        engine = sa.create_engine(url, poolclass=NullPool, connect_args=connect_args)
    except (NoSuchModuleError, ImportError) as error:
        raise OperatorError(
            f"connection '{name}': no database driver for '{url.drivername}' ({error}); "
            "install the driver or fix the URL"
        ) from None
    confine(engine, name, read_only=read_only)
    if engine.dialect.name == "sqlite":
        make_sqlite_transactional(engine)
    return engine


def make_sqlite_transactional(engine: Engine) -> None:
    """Let SQLAlchemy, not Python's sqlite3 module, begin transactions, so DDL is inside them."""

    @sa.event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")


@contextmanager
def connect(
    ctx: ConnectingContext, name: str, *, write_to: str | None = None
) -> Iterator[Connection]:
    """A read-only session of connection `name`, or one that may write table `write_to`;
    a server that cannot be reached is an UnreachableError."""
    if write_to is not None:
        writable(ctx, name, write_to)
    engine = engine_for(ctx, name, write=write_to is not None)
    try:
        connection = engine.connect()
    except SQLAlchemyError as error:
        message = driver_message(error, engine.url)
        raise UnreachableError(
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
    if url.get_backend_name() == "sqlite" and text.startswith(_SQLITE_DENIALS):
        text = f"{SQLITE_REFUSED} ({text})"
    for secret in secrets_of(url):
        text = text.replace(secret, "***")
    return text
