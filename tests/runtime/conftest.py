"""Real databases for the SQL tests (operators and io/sql): SQLite, PostgreSQL and MariaDB.

Each test session works in a schema (PostgreSQL) or database (MariaDB) of its own, named
`pw_test_<random>` and dropped at the end, so runs never see each other's tables. The servers
are found at the URLs below (override them with PIPEWRIGHT_TEST_POSTGRES_URL and
PIPEWRIGHT_TEST_MARIADB_URL). A server that is missing FAILS the tests that need it, it does
not skip them: CI must notice. The fixtures are lazy: other runtime tests never connect.
The `app` fixture is the SQLite "application database" the attack tests aim at.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import SQLAlchemyError

DATABASES = ("sqlite", "postgresql", "mariadb")
SERVERS = {
    "postgresql": (
        "PIPEWRIGHT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    ),
    "mariadb": ("PIPEWRIGHT_TEST_MARIADB_URL", "mysql+pymysql://root@127.0.0.1:3306/test"),
}  # fmt: skip


@dataclass
class Database:
    """One test's database: its kind, its URL, the data root its runs use (where an SQLite
    file lives), as seen by the runtime (the writable connection `db`), and a table name."""

    kind: str
    url: URL
    schema: str
    data_root: Path
    engine: Engine = field(repr=False)
    table: str = field(default_factory=lambda: f"t_{uuid.uuid4().hex[:10]}")

    @property
    def runtime_url(self) -> str:
        """The URL the runtime is given: an SQLite file relative to the data root."""
        if self.kind == "sqlite":
            return f"sqlite:///{Path(self.url.database).relative_to(self.data_root)}"
        return self.url.render_as_string(hide_password=False)

    @property
    def connections(self) -> dict[str, str]:
        return {"db": self.runtime_url}

    def execute(self, sql: str, params: dict | None = None) -> None:
        """Run one statement and commit it."""
        with self.engine.begin() as connection:
            connection.execute(sa.text(sql), params or {})

    def rows(self, sql: str) -> list[tuple]:
        with self.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(sql))]

    def frame(self, table: str | None = None, order_by: str = "id") -> pd.DataFrame:
        """A table's rows as the driver returns them (no Pipewright code involved)."""
        with self.engine.connect() as connection:
            query = sa.select(sa.text("*")).select_from(sa.table(table or self.table))
            result = connection.execute(query.order_by(sa.text(order_by)))
            return pd.DataFrame(result.all(), columns=list(result.keys()), dtype=object)

    def tables(self) -> set[str]:
        """This test's tables: its table, and any staging table named after it."""
        names = sa.inspect(self.engine).get_table_names()
        return {name for name in names if name.startswith(self.table)}


def _reachable(kind: str) -> URL:
    variable, default = SERVERS[kind]
    url = sa.make_url(os.environ.get(variable, default))
    engine = sa.create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as error:
        pytest.fail(
            f"{kind} is not reachable at {url.render_as_string(hide_password=True)}: "
            f"{error.orig if hasattr(error, 'orig') else error}. The SQL operator tests need it "
            f"and fail rather than skip; start the server or set {variable}.",
            pytrace=False,
        )
    finally:
        engine.dispose()
    return url


def _session_name() -> str:
    return f"pw_test_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[tuple[URL, str]]:
    """A PostgreSQL URL whose search path is a schema made for this session."""
    server = _reachable("postgresql")
    schema = _session_name()
    admin = sa.create_engine(server)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    yield server.update_query_dict({"options": f"-csearch_path={schema}"}), schema
    with admin.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.dispose()


@pytest.fixture(scope="session")
def mariadb_url() -> Iterator[tuple[URL, str]]:
    """A MariaDB URL of a database made for this session."""
    server = _reachable("mariadb")
    database = _session_name()
    admin = sa.create_engine(server)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE `{database}`")
    yield server.set(database=database), database
    with admin.begin() as connection:
        connection.exec_driver_sql(f"DROP DATABASE `{database}`")
    admin.dispose()


@pytest.fixture(scope="session")
def sql_data_root(tmp_path_factory) -> Path:
    """The data root of the SQL tests' runs; the SQLite test file lives in it."""
    return tmp_path_factory.mktemp("sql_data_root").resolve()


@pytest.fixture(scope="session")
def sqlite_url(sql_data_root) -> tuple[URL, str]:
    return sa.make_url(f"sqlite:///{sql_data_root / 'test.db'}"), "main"


@pytest.fixture(params=DATABASES)
def db(request, sql_data_root) -> Iterator[Database]:
    """The same test against SQLite, PostgreSQL and MariaDB."""
    url, schema = request.getfixturevalue(f"{request.param}_url")
    engine = sa.create_engine(url)
    yield Database(request.param, url, schema, sql_data_root, engine)
    engine.dispose()


@pytest.fixture
def app(tmp_path) -> tuple[Path, Path]:
    """An "application database" outside the data root, and a data root holding a copy of it
    (what an ordinary user could upload): `(absolute path of the app database, data root)`."""
    app_db = tmp_path / "app" / "db.sqlite3"
    app_db.parent.mkdir()
    with sqlite3.connect(app_db) as connection:
        connection.execute("CREATE TABLE auth_user (username TEXT, is_superuser TEXT)")
        connection.execute("CREATE TABLE secrets (value TEXT)")
        connection.execute("INSERT INTO auth_user VALUES ('admin', '1')")
        connection.execute("INSERT INTO secrets VALUES ('session-key-s3cret')")
    connection.close()
    data_root = tmp_path / "data"
    data_root.mkdir()
    shutil.copy(app_db, data_root / "copy.db")
    return app_db, data_root
