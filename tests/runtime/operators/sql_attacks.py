"""Attacks on named SQL connections, each refused by the database or by the connection rules.

An ordinary user controls the SQL of `sql_input`, the table of `sql_output` and what an SQLite
file holds (views, triggers); an admin controls the connection's URL, its read-only flag and
its prefix. The attack tests (test_sql_sqlite_safety, test_sql_sessions,
test_sql_connection_rules, test_sql_safety_cli) perform each attack for real on SQLite,
PostgreSQL or MariaDB and check both the refusal a user reads and that nothing happened. Here:
the calls they make (`query`, `output` on a connection named `db`) and the refusals they read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd

from runtime.operators.sql import SqlInput, SqlOutput
from runtime.tables.schema import Column, Schema
from tests.runtime.operators.contract import make_ctx

REFUSED = r"refused: an SQLite connection may not attach or detach a database"
UNSAFE = rf"{REFUSED}|unsafe use of load_extension\(\)"
"""A view or trigger of the file is stopped by `trusted_schema=OFF` before the authorizer."""
READ_ONLY_REFUSALS = {
    "sqlite": "attempt to write a readonly database",
    "postgresql": "in a read-only transaction",
    "mariadb": "Cannot execute statement in a READ ONLY transaction",
}


def query(connection, data_root: Path, sql: str) -> pd.DataFrame:
    """Run `sql` through `sql_input` on the connection named `db`."""
    operator = SqlInput()
    settings = {"connection": "db", "query": sql}
    ctx = make_ctx(operator, settings, data_root, connections={"db": connection})
    return operator.run(ctx, {})["out"]


def output(connection, data_root: Path, table: str, frame: pd.DataFrame, **params) -> None:
    """Write `frame` through `sql_output` on the connection named `db`, schema check first."""
    operator = SqlOutput()
    settings = {"connection": "db", "table": table, **params}
    ctx = make_ctx(operator, settings, data_root, connections={"db": connection})
    operator.output_schema(ctx, {"in": Schema(tuple(Column(c, "string") for c in frame))})
    operator.run(ctx, {"in": frame})


def superuser() -> pd.DataFrame:
    return pd.DataFrame({"username": ["mallory"], "is_superuser": ["1"]})


def app_users(app_db: Path) -> list[tuple]:
    connection = sqlite3.connect(app_db)
    try:
        return connection.execute("SELECT username, is_superuser FROM auth_user").fetchall()
    finally:
        connection.close()
