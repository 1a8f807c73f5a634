"""Attacks through SQLite connections: the application's own database stays out of reach,
and nothing a file holds reaches past it. The attacks are real; see sql_attacks.py.
"""

from __future__ import annotations

import shutil
import sqlite3

import pandas as pd
import pytest

from runtime.errors import OperatorError, UnsafePathError
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.io.sql.sessions import sqlite_authorizer
from tests.runtime.operators.sql_attacks import (
    READ_ONLY_REFUSALS,
    REFUSED,
    UNSAFE,
    app_users,
    output,
    query,
    superuser,
)


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
