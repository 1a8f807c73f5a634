"""Attacks on named SQL connections, each refused by the database or by the connection rules.

An ordinary user controls the SQL of `sql_input`, the table of `sql_output` and what an SQLite
file holds (views, triggers); an admin controls the connection's URL, its read-only flag and
its prefix. Each test performs the attack for real on SQLite, PostgreSQL or MariaDB and checks
both the refusal a user reads and that nothing happened.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from runtime.connection_specs import ConnectionSpec, as_spec, hidden
from runtime.errors import OperatorError, ParamsError, UnsafePathError
from runtime.operators.sql import SqlInput, SqlOutput
from runtime.paths import FileArea
from runtime.schema import Column, Schema
from runtime.sql_connections import engine_for
from runtime.sql_sessions import sqlite_authorizer
from tests.runtime.operators.conftest import DATABASES
from tests.runtime.operators.contract import make_ctx
from tests.runtime.test_cli import runtime_cli

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


# -- SQLite: the application's own database is out of reach --------------------------------


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


def app_users(app_db: Path) -> list[tuple]:
    connection = sqlite3.connect(app_db)
    try:
        return connection.execute("SELECT username, is_superuser FROM auth_user").fetchall()
    finally:
        connection.close()


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "writable"])
def test_attaching_the_application_database_is_refused(app, read_only):
    app_db, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db", read_only=read_only)
    with pytest.raises(OperatorError, match=REFUSED):
        query(spec, data_root, f"ATTACH DATABASE '{app_db}' AS app")
    with pytest.raises(OperatorError, match=r"no such table: app\.secrets"):
        query(spec, data_root, "SELECT value FROM app.secrets")


def test_sql_output_cannot_reach_an_attached_application_database(app):
    app_db, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False)
    with pytest.raises(OperatorError, match=REFUSED):
        query(spec, data_root, f"ATTACH DATABASE '{app_db}' AS app")
    with pytest.raises(OperatorError, match="unknown database app"):
        output(spec, data_root, "app.auth_user", superuser())
    assert app_users(app_db) == [("admin", "1")]


@pytest.mark.parametrize(
    "attack",
    [
        "SELECT load_extension('{target}') AS x",
        "PRAGMA query_only = OFF",
        "PRAGMA writable_schema = ON",
        "DETACH DATABASE main",
        "SELECT * FROM pragma_compile_options",
    ],
    ids=["load-extension", "query-only-off", "writable-schema", "detach",
         "pragma-function"],
)  # fmt: skip
def test_sqlite_statements_that_reach_past_the_file_are_refused(app, tmp_path, attack):
    _, data_root = app
    target = tmp_path / "stolen.db"
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False)
    with pytest.raises(OperatorError, match=REFUSED):
        query(spec, data_root, attack.format(target=target))
    assert not target.exists()


@pytest.mark.parametrize("where", ["in a transaction", "on its own"])
def test_vacuum_into_a_file_anywhere_is_refused(app, tmp_path, where):
    _, data_root = app
    target = tmp_path / "stolen.db"
    attack = f"VACUUM INTO '{target}'"
    if where == "in a transaction":  # where every query of sql_input runs
        with pytest.raises(OperatorError, match=r"^query on 'db' failed: "):
            query(ConnectionSpec("sqlite:///copy.db", read_only=False), data_root, attack)
    else:
        connection = sqlite3.connect(data_root / "copy.db", isolation_level=None)
        connection.set_authorizer(sqlite_authorizer)
        with pytest.raises(sqlite3.DatabaseError, match="authorization denied"):
            connection.execute(attack)
        connection.close()
    assert not target.exists()


def test_turning_query_only_off_does_not_make_the_next_query_write(app):
    _, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db")
    with pytest.raises(OperatorError, match=REFUSED):
        query(spec, data_root, "PRAGMA query_only = OFF")
    with pytest.raises(OperatorError, match=READ_ONLY_REFUSALS["sqlite"]):
        query(spec, data_root, "INSERT INTO auth_user VALUES ('mallory', '1') RETURNING *")
    assert app_users(data_root / "copy.db") == [("admin", "1")]


def test_views_and_triggers_of_the_file_cannot_call_unsafe_functions(app):
    _, data_root = app
    with sqlite3.connect(data_root / "copy.db") as connection:
        connection.execute("CREATE VIEW loader AS SELECT load_extension('/tmp/evil') AS x")
        connection.execute(
            "CREATE TRIGGER on_write AFTER INSERT ON auth_user "
            "BEGIN SELECT load_extension('/tmp/evil'); END"
        )
    connection.close()
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False)
    with pytest.raises(OperatorError, match=UNSAFE):
        query(spec, data_root, "SELECT * FROM loader")
    with pytest.raises(OperatorError, match=UNSAFE):
        output(spec, data_root, "auth_user", superuser())
    assert app_users(data_root / "copy.db") == [("admin", "1")]


def test_sqlite_has_no_backtracking_regexp_function(app):
    _, data_root = app
    catastrophic = "SELECT ('" + "a" * 40 + "!') REGEXP '(a+)+$' AS hit"
    refused = rf"{REFUSED}.*\(not authorized to use function: REGEXP\)$"
    with pytest.raises(OperatorError, match=refused):
        query(ConnectionSpec("sqlite:///copy.db"), data_root, catastrophic)


def test_table_descriptions_still_work_for_reflection_and_upsert(app):
    _, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False)
    frame = pd.DataFrame({"id": pd.array([1, 2], dtype="Int64")})
    output(spec, data_root, "numbers", frame, mode="upsert", keys=["id"])
    output(spec, data_root, "numbers", frame, mode="upsert", keys=["id"])
    assert query(spec, data_root, "SELECT id FROM numbers ORDER BY id")["id"].tolist() == [1, 2]


BAD_SQLITE_URLS = {
    "absolute": ("sqlite:///{app_db}", "is an absolute path"),
    "home": ("sqlite:///~/db.sqlite3", "is an absolute path"),
    "outside": ("sqlite:///../app/db.sqlite3", "is outside the data root"),
    "file-uri": ("sqlite:///file:{app_db}?mode=ro&uri=true", "takes no options"),
    "file-uri-plain": ("sqlite:///file:copy.db", "must be a file"),
    "uri-option": ("sqlite:///copy.db?uri=true", "takes no options"),
    "mode-option": ("sqlite:///copy.db?mode=rwc", "takes no options"),
    "memory": ("sqlite:///:memory:", "must be a file"),
    "empty": ("sqlite://", "must be a file"),
    "other-driver": ("sqlite+pysqlcipher:///copy.db", r"use sqlite:/// \(not sqlite\+pysqlciph"),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(BAD_SQLITE_URLS))
def test_an_sqlite_connection_is_only_a_relative_file_inside_the_data_root(app, kind):
    app_db, data_root = app
    url, message = BAD_SQLITE_URLS[kind]
    spec = ConnectionSpec(url.format(app_db=app_db), read_only=False)
    error = UnsafePathError if kind == "outside" else OperatorError
    with pytest.raises(error, match=message):
        query(spec, data_root, "SELECT * FROM auth_user")
    with pytest.raises(error, match=message):
        output(spec, data_root, "auth_user", superuser())
    assert app_users(app_db) == [("admin", "1")]


def test_a_symlink_to_the_application_database_is_outside_the_data_root(app):
    app_db, data_root = app
    (data_root / "link.db").symlink_to(app_db)
    with pytest.raises(UnsafePathError, match="outside the data root"):
        query(ConnectionSpec("sqlite:///link.db"), data_root, "SELECT * FROM secrets")


def test_an_sqlite_file_in_the_shared_folder_is_read_but_never_written(app, tmp_path):
    _, data_root = app
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.copy(data_root / "copy.db", shared / "common.db")
    area = FileArea(data_root, shared=shared)
    spec = ConnectionSpec("sqlite:///shared/common.db", read_only=False)
    assert query(spec, area, "SELECT username FROM auth_user")["username"].tolist() == ["admin"]
    with pytest.raises(UnsafePathError, match="in the shared folder, which is read-only"):
        output(spec, area, "auth_user", superuser())
    assert app_users(shared / "common.db") == [("admin", "1")]


# -- read-only, enforced by each database -------------------------------------------------


@pytest.fixture
def people(db):
    db.execute(f"CREATE TABLE {db.table} (id INTEGER, name VARCHAR(20))")
    db.execute(f"INSERT INTO {db.table} VALUES (1, 'Ada')")
    return db


def unchanged(db) -> bool:
    return db.rows(f"SELECT id, name FROM {db.table}") == [(1, "Ada")]


def writes(db) -> dict[str, str]:
    """One query per kind of write, each returning rows where the dialect allows it."""
    table = db.table
    if db.kind == "postgresql":
        return {"function": f"SELECT {table}_write() AS id", "sequence": "SELECT nextval('s') AS n"}
    returning = " RETURNING id" if db.kind == "sqlite" else ""
    return {
        "insert": f"INSERT INTO {table} VALUES (2, 'Eve'){returning}",
        "update": f"UPDATE {table} SET name = 'Eve'{returning}",
        "create": f"CREATE TABLE {table}_new (id INTEGER)",
        "drop": f"DROP TABLE {table}",
    }


@pytest.fixture
def pg_write_function(people):
    """PostgreSQL reads through a cursor that takes only SELECT: a write hides in a function."""
    if people.kind == "postgresql":
        people.execute(
            f"CREATE FUNCTION {people.table}_write() RETURNS integer AS "
            f"$$ INSERT INTO {people.table} VALUES (2, 'Eve') RETURNING id $$ LANGUAGE sql"
        )
        people.execute("CREATE SEQUENCE IF NOT EXISTS s")
    return people


@pytest.mark.parametrize("spec_read_only", [True, False], ids=["read-only", "writable"])
def test_a_query_never_writes_whatever_the_connection_allows(pg_write_function, spec_read_only):
    db = pg_write_function
    spec = ConnectionSpec(db.runtime_url, read_only=spec_read_only)
    for kind, sql in writes(db).items():
        with pytest.raises(OperatorError, match=READ_ONLY_REFUSALS[db.kind]):
            query(spec, db.data_root, sql)
        assert unchanged(db), kind
    assert db.table + "_new" not in db.tables()


def test_sql_output_on_a_read_only_connection_is_refused_before_it_runs(people):
    spec = ConnectionSpec(people.runtime_url)
    expected = r"^connection: connection 'db' is read-only; writing needs a connection"
    with pytest.raises(ParamsError, match=expected):
        output(spec, people.data_root, people.table, superuser())
    operator = SqlOutput()
    ctx = make_ctx(
        operator, {"connection": "db", "table": people.table}, people.data_root,
        connections={"db": spec},
    )  # fmt: skip
    with pytest.raises(ParamsError, match=expected):
        operator.run(ctx, {"in": superuser()})  # without the schema check first
    assert unchanged(people)


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_a_session_made_writable_in_one_query_is_read_only_in_the_next(request, kind, tmp_path):
    url, _ = request.getfixturevalue(f"{kind}_url")
    engine = sa.create_engine(url)
    table = "pw_made_writable"
    with engine.begin() as connection:
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
    spec = ConnectionSpec(url.render_as_string(hide_password=False))
    if kind == "postgresql":
        made_writable = query(
            spec, tmp_path, "SELECT set_config('default_transaction_read_only', 'off', false) AS s"
        )
        assert made_writable["s"].tolist() == ["off"]
        write = "SELECT nextval('s') AS n"
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE SEQUENCE IF NOT EXISTS s")
    else:
        with pytest.raises(ParamsError, match="returns no rows"):
            query(spec, tmp_path, "SET SESSION TRANSACTION READ WRITE")
        write = f"CREATE TABLE {table} (id INTEGER)"  # DDL commits at once on MariaDB
    with pytest.raises(OperatorError, match=READ_ONLY_REFUSALS[kind]):
        query(spec, tmp_path, write)
    assert not sa.inspect(engine).has_table(table)
    engine.dispose()


# -- no state from one query to the next --------------------------------------------------

LEAVE_AND_LOOK = {
    "postgresql": (  # a session lock survives the rollback that ends every query
        "SELECT 'left behind' AS m FROM (SELECT pg_advisory_lock(4242)) AS locked",
        "SELECT 'left behind' AS m FROM pg_locks "
        "WHERE locktype = 'advisory' AND objid = 4242 AND pid = pg_backend_pid()",
    ),
    "mariadb": ("SELECT @marker := 'left behind' AS m", "SELECT @marker AS m"),
}


@pytest.mark.parametrize("kind", list(LEAVE_AND_LOOK))
def test_no_session_state_reaches_the_next_query(request, kind, tmp_path):
    url, _ = request.getfixturevalue(f"{kind}_url")
    spec = ConnectionSpec(url.render_as_string(hide_password=False))
    leave, look = LEAVE_AND_LOOK[kind]
    assert query(spec, tmp_path, leave)["m"].tolist() == ["left behind"]
    assert query(spec, tmp_path, look)["m"].dropna().tolist() == []


def test_engines_differ_by_read_only_flag_and_prefix(app):
    _, data_root = app
    specs = {
        "read": ConnectionSpec("sqlite:///copy.db"),
        "write": ConnectionSpec("sqlite:///copy.db", read_only=False),
        "staging": ConnectionSpec("sqlite:///copy.db", read_only=False, prefix="stg_"),
    }
    ctx = make_ctx(SqlInput(), {"connection": "read", "query": "SELECT 1"}, data_root,
                   connections=specs)  # fmt: skip
    engines = {engine_for(ctx, name, write=True) for name in specs}
    assert len(engines) == 3


# -- one statement per query ----------------------------------------------------------------


@pytest.mark.parametrize("kind", DATABASES)
def test_two_statements_in_one_query_are_refused(request, kind, tmp_path):
    url, _ = request.getfixturevalue(f"{kind}_url")
    if kind == "sqlite":
        shutil.copy(url.database, tmp_path / "test.db")
        text = "sqlite:///test.db"
    else:  # MariaDB: even when the URL asks for CLIENT_MULTI_STATEMENTS
        extra = {"client_flag": str(1 << 16)} if kind == "mariadb" else {}
        text = url.update_query_dict(extra).render_as_string(hide_password=False)
    spec = ConnectionSpec(text, read_only=False)
    with pytest.raises(OperatorError, match=r"^query on 'db' failed: "):
        query(spec, tmp_path, "SELECT 1 AS a; SELECT 2 AS b")


# -- prefixes --------------------------------------------------------------------------------

PREFIXED = [
    ("stg_", "stg_orders", None),
    ("stg_", "orders", "may only write to tables named stg_...; name a table such as 'stg_orders'"),
    ("stg_", "main.stg_orders", "may only write to tables named stg_"),
    ("main.", "main.orders", None),
    ("main.", "orders", "may only write to schema 'main'; name a table such as 'main.orders'"),
    ("main.", "temp.orders", "may only write to schema 'main'"),
]  # fmt: skip


@pytest.mark.parametrize(("prefix", "table", "refusal"), PREFIXED)
def test_a_prefixed_connection_writes_only_inside_its_prefix(app, prefix, table, refusal):
    _, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False, prefix=prefix)
    if refusal is None:
        output(spec, data_root, table, superuser())
        assert len(query(spec, data_root, f"SELECT * FROM {table}")) == 1
        return
    with pytest.raises(ParamsError, match="^table: connection 'db' " + refusal.replace(".", r"\.")):
        output(spec, data_root, table, superuser())


# -- passwords are never shown ----------------------------------------------------------------


def test_a_spec_shows_its_url_without_the_password():
    spec = ConnectionSpec("postgresql+psycopg://u:s3cret@db/x?sslpassword=k3y", read_only=False)
    assert "s3cret" not in repr(spec) and "k3y" not in repr(spec)
    assert repr(spec) == (
        "ConnectionSpec(url='postgresql+psycopg://u:***@db/x?sslpassword=***', "
        "read_only=False, prefix=None)"
    )
    assert as_spec("sqlite:///a.db") == ConnectionSpec("sqlite:///a.db", read_only=False)
    assert as_spec(spec) is spec


@pytest.mark.parametrize(
    "url",
    [
        "mysql+pymysql://root:s3cret@127.0.0.1:3306/test",  # wrong password: access denied
        "postgresql+psycopg://postgres@127.0.0.1:1/test?password=s3cret",  # refused connection
        "postgresql+nosuchdriver://u:s3cret@127.0.0.1/test",  # no driver
    ],
    ids=["mariadb-denied", "postgresql-query-password", "unknown-driver"],
)
def test_connection_failures_never_show_the_password(url, tmp_path):
    with pytest.raises(OperatorError) as raised:
        query(url, tmp_path, "SELECT 1 AS a")
    assert "s3cret" not in str(raised.value)
    assert hidden(sa.make_url(url)).count("s3cret") == 0


# -- the command line -------------------------------------------------------------------------


def cli_pipeline(tmp_path: Path, connections: dict, nodes: list, edges=()) -> object:
    (tmp_path / "connections.json").write_text(json.dumps(connections))
    document = {"name": "t", "nodes": nodes, "edges": list(edges)}
    (tmp_path / "p.json").write_text(json.dumps(document))
    return runtime_cli(
        "run", "p.json", "--data-root", "data", "--connections", "connections.json",
        cwd=tmp_path,
    )  # fmt: skip


def test_the_cli_takes_read_only_connections_and_refuses_writes_through_them(app, tmp_path):
    nodes = [
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "shop", "query": "SELECT * FROM auth_user"}},
        {"id": "write", "operator": "sql_output",
         "params": {"connection": "shop", "table": "auth_user"}},
    ]  # fmt: skip
    connections = {"shop": {"url": "sqlite:///copy.db", "read_only": True}}
    result = cli_pipeline(tmp_path, connections, nodes, [{"source": "read", "target": "write"}])
    assert result.returncode == 1
    assert "connection 'shop' is read-only" in result.stderr


def test_the_cli_applies_the_sqlite_rules(app, tmp_path):
    app_db, _ = app
    nodes = [
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "app", "query": f"ATTACH DATABASE '{app_db}' AS app"}},
    ]  # fmt: skip
    for url, message in [(f"sqlite:///{app_db}", "is an absolute path"), ("sqlite:///copy.db",
                         "refused: an SQLite connection may not attach")]:  # fmt: skip
        result = cli_pipeline(tmp_path, {"app": url}, nodes)
        assert result.returncode == 1
        assert message in result.stderr


@pytest.mark.parametrize(
    "connections",
    [
        {"db": 5},
        {"db": {"read_only": True}},
        {"db": {"url": "sqlite:///a.db", "read_only": "yes"}},
        {"db": {"url": "sqlite:///a.db", "password": "x"}},
        ["sqlite:///a.db"],
    ],
    ids=["number", "no-url", "read-only-not-a-boolean", "unknown-key", "a-list"],
)
def test_a_bad_connections_file_is_a_clear_error(tmp_path, connections):
    (tmp_path / "data").mkdir()
    node = {"id": "read", "operator": "sql_input",
            "params": {"connection": "db", "query": "SELECT 1"}}  # fmt: skip
    result = cli_pipeline(tmp_path, connections, [node])
    assert result.returncode == 2
    assert "error: connections file 'connections.json'" in result.stderr
    assert "Traceback" not in result.stderr
