"""Staging tables of `sql_output` on MariaDB carry their run's id, and the staging tables of
one run, left by its killed process, are dropped by whoever ends or reaps it; no other run's
tables, nor the target, are touched. Real MariaDB."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from runtime.document.spec import load_document
from runtime.io.paths import FileArea
from runtime.operators.sql.staging import NAME_LIMIT, OLD, drop_staging_tables, staging_name
from runtime.plan import build_plan
from tests.runtime.conftest import Database


@pytest.fixture
def mariadb(mariadb_url, sql_data_root):
    url, schema = mariadb_url
    engine = sa.create_engine(url)
    yield Database("mariadb", url, schema, sql_data_root, engine)
    engine.dispose()


def writing_plan(db: Database, table: str):
    document = {
        "format": "pipewright.pipeline", "version": 2, "name": "load",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
            {"id": "load", "operator": "sql_output",
             "params": {"connection": "db", "table": table, "mode": "replace"}},
        ],
        "edges": [{"source": "read", "target": "load"}],
    }  # fmt: skip
    return build_plan(load_document(document), data_root=db.data_root)


@pytest.mark.parametrize("run_id", [7, "3f2b8c1d9e0a4b5c8d7e6f5a4b3c2d1e"], ids=["server", "cli"])
def test_a_staging_name_names_its_run_and_fits_mysqls_limit_with_old_after_it(run_id):
    name = staging_name("x" * 80, run_id)
    assert f"__pw_{str(run_id)[:16]}_" in name
    assert len(name + OLD) <= NAME_LIMIT


def test_the_staging_tables_of_one_run_are_dropped_and_nothing_else(mariadb):
    db = mariadb
    theirs = staging_name(db.table, 42)
    mine = staging_name(db.table, 41)
    for table in (db.table, mine, mine + OLD, theirs):
        db.execute(f"CREATE TABLE `{table}` (id INTEGER)")

    dropped = drop_staging_tables(
        writing_plan(db, db.table), 41, data_root=FileArea(db.data_root),
        connections=db.connections,
    )  # fmt: skip

    assert sorted(dropped) == sorted([mine, mine + OLD])
    assert db.tables() == {db.table, theirs}


def test_an_unreachable_database_is_left_and_nothing_raised(mariadb):
    db = mariadb
    unreachable = {"db": "mysql+pymysql://root@127.0.0.1:1/test"}
    dropped = drop_staging_tables(
        writing_plan(db, db.table), 41, data_root=FileArea(db.data_root), connections=unreachable
    )
    assert dropped == []
