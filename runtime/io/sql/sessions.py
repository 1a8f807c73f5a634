"""What a database session of a named connection may do, enforced by the database itself.

The engines of `runtime.io.sql.connections` open a fresh DBAPI connection for every use and
close it after (no pool, so no `ATTACH`, `SET`, temporary table or session setting outlives
the query that made it). On each new connection, `confine` installs the limits below, before
any user SQL runs:

- read-only sessions: PostgreSQL `SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY` and
  MySQL/MariaDB `SET SESSION TRANSACTION READ ONLY` (every transaction of the session starts
  read-only; neither lets a statement make its own transaction writable), SQLite
  `PRAGMA query_only=ON`. Other dialects cannot be made read-only and are refused.
- SQLite, always: an authorizer refusing `ATTACH` (also behind `VACUUM INTO`), `DETACH`, the
  `load_extension` and `regexp` functions (SQLAlchemy's `regexp` runs Python's backtracking
  `re`, which one pattern keeps busy for hours) and every PRAGMA outside a short list of
  table descriptions; `SQLITE_LIMIT_ATTACHED` 0; `trusted_schema=OFF`, so views and triggers
  of the file call no function with side effects.
- MySQL/MariaDB, always: no multi-statement flag and no `LOAD DATA LOCAL` (a server chosen
  by whoever typed the URL could otherwise ask for any file of this machine), whatever the
  URL's query says. PostgreSQL and SQLite run one statement per query by themselves
  (psycopg's server-side cursors, sqlite3's `execute`).

Parsing SQL decides nothing here: a statement is allowed or refused by the database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from runtime.errors import OperatorError

SQLITE_READ_PRAGMAS = frozenset(
    {"database_list", "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo",
     "foreign_key_list"}
)  # fmt: skip
"""The PRAGMAs an SQLite query may run: descriptions of tables (reflection reads them)."""
SQLITE_REFUSED_FUNCTIONS = frozenset({"load_extension", "regexp"})
SQLITE_REFUSED = (
    "refused: an SQLite connection may not attach or detach a database (nor VACUUM INTO a "
    "file), load an extension, use REGEXP, or run a PRAGMA other than "
    + ", ".join(sorted(SQLITE_READ_PRAGMAS))
)
"""What a user reads instead of SQLite's bare "not authorized"."""
_MYSQL_MULTI_STATEMENTS = 1 << 16
"""CLIENT_MULTI_STATEMENTS of the MySQL protocol."""
_MYSQL_CONNECT_DRIVERS = frozenset({"pymysql", "mysqldb"})
"""MySQL drivers whose connect arguments are `client_flag`, `local_infile`, `read_default_file`."""
_READ_ONLY_SESSION = {
    "postgresql": "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
    "mysql": "SET SESSION TRANSACTION READ ONLY",
    "mariadb": "SET SESSION TRANSACTION READ ONLY",
}


def confine(engine: Engine, name: str, *, read_only: bool) -> None:
    """Install on `engine` the listeners that confine each of its new DBAPI connections."""
    dialect = engine.dialect.name
    if read_only and dialect not in _READ_ONLY_SESSION and dialect != "sqlite":
        raise OperatorError(
            f"connection '{name}': a {dialect} database cannot be opened read-only here; "
            "Pipewright connects to PostgreSQL, MySQL/MariaDB and SQLite"
        )
    if dialect == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_session(read_only))
        return
    if dialect in ("mysql", "mariadb"):
        if engine.dialect.driver not in _MYSQL_CONNECT_DRIVERS:
            raise OperatorError(
                f"connection '{name}': use the pymysql or mysqldb driver for {dialect} "
                f"(not {engine.dialect.driver})"
            )
        sa.event.listen(engine, "do_connect", _mysql_connect_arguments)
    if read_only:
        sa.event.listen(engine, "connect", _read_only_session(_READ_ONLY_SESSION[dialect]))


def _sqlite_session(read_only: bool):
    def start(dbapi_connection: sqlite3.Connection, _record) -> None:
        if read_only:
            dbapi_connection.execute("PRAGMA query_only = ON")
        dbapi_connection.execute("PRAGMA trusted_schema = OFF")
        dbapi_connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        dbapi_connection.set_authorizer(sqlite_authorizer)

    return start


def sqlite_authorizer(action: int, arg1, arg2, _database, _trigger) -> int:
    """SQLite's verdict on each step of a statement being compiled (`set_authorizer`)."""
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and str(arg2).lower() in SQLITE_REFUSED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and str(arg1).lower() not in SQLITE_READ_PRAGMAS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


@contextmanager
def sqlite_temporary_objects(connection: Connection) -> Iterator[None]:
    """Lift `query_only` of an SQLite session while Pipewright's own code makes and drops a
    temporary object (`query_only` refuses even those); the authorizer stays on."""
    dbapi_connection = connection.connection.dbapi_connection
    read_only = _own_pragma(dbapi_connection, "PRAGMA query_only")[0][0]
    if read_only:
        _own_pragma(dbapi_connection, "PRAGMA query_only = OFF")
    try:
        yield
    finally:
        if read_only:
            _own_pragma(dbapi_connection, "PRAGMA query_only = ON")


def _own_pragma(dbapi_connection: sqlite3.Connection, statement: str) -> list:
    dbapi_connection.set_authorizer(None)
    try:
        return dbapi_connection.execute(statement).fetchall()
    finally:
        dbapi_connection.set_authorizer(sqlite_authorizer)


def _mysql_connect_arguments(_dialect, _record, _args, kwargs: dict) -> None:
    kwargs["client_flag"] = kwargs.get("client_flag", 0) & ~_MYSQL_MULTI_STATEMENTS
    kwargs["local_infile"] = False
    kwargs.pop("read_default_file", None)


def _read_only_session(statement: str):
    def start(dbapi_connection, _record) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        finally:
            cursor.close()
        dbapi_connection.commit()

    return start
