"""Every query runs read-only, enforced by each database, one statement at a time, and
leaves no session state to the next (real attacks on the three; see sql_attacks.py).
"""

from __future__ import annotations

import shutil

import pytest
import sqlalchemy as sa

from runtime.errors import OperatorError, ParamsError
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.operators.sql import SqlOutput
from tests.runtime.conftest import DATABASES
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_attacks import READ_ONLY_REFUSALS, output, query, superuser


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
