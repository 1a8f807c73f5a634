"""`sql_output` on the three databases: the three write modes, nulls, keys, and writes
that are all or nothing, whether they fail or are stopped.
"""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.errors import NodeCancelled, OperatorError, ParamsError
from runtime.operators.sql import SqlOutput
from tests.runtime.operators.sql_nodes import ids, numbers, output_ctx, people, write

MODES = ("append", "replace", "upsert")


def test_append_creates_the_table_then_adds_rows_and_reports_them(db):
    write(db, numbers(2))
    ctx = write(db, numbers(3, start=2))
    assert ids(db) == [0, 1, 2, 3, 4]
    assert ctx.metrics == {"table": db.table, "rows_written": 3}


def test_append_may_leave_out_columns_but_not_add_new_ones(db):
    write(db, people())
    write(db, pd.DataFrame({"id": pd.array([4], dtype="Int64"), "name": ["Grace"]}))
    assert db.rows(f"SELECT name, age FROM {db.table} WHERE id = 4") == [("Grace", None)]
    with pytest.raises(OperatorError, match=rf"table '{db.table}' has no column nickname \("):
        write(db, pd.DataFrame({"id": [5], "nickname": ["G"]}))


def test_nulls_nan_and_nat_are_written_as_sql_null(db):
    write(db, people())
    for column in ["age", "score", "member", "born", "seen", "name"]:
        count = db.rows(f"SELECT COUNT(*) FROM {db.table} WHERE {column} IS NULL")
        assert count == [(1,)], column


def test_replace_makes_a_new_table_of_the_rows(db):
    db.execute(f"CREATE TABLE {db.table} (id INTEGER, old_column VARCHAR(10))")
    db.execute(f"INSERT INTO {db.table} VALUES (7, 'old')")
    write(db, people(), mode="replace")
    frame = db.frame()
    assert list(frame.columns) == list(people().columns)
    assert frame["id"].tolist() == [1, 2, 3]
    assert db.tables() == {db.table}  # no staging table left behind


def test_upsert_updates_existing_keys_and_inserts_new_ones(db):
    def amounts(rows):
        return pd.DataFrame(rows, columns=["id", "region", "amount"]).astype(
            {"id": "Int64", "region": "str"}
        )

    keys = ["id", "region"]
    write(db, amounts([(1, "eu", 1.0), (2, "eu", 2.0)]), mode="upsert", keys=keys)
    write(db, amounts([(2, "eu", 20.0), (3, "eu", 3.0), (2, "us", 5.0)]), mode="upsert", keys=keys)
    rows = db.rows(f"SELECT id, region, amount FROM {db.table} ORDER BY id, region")
    assert rows == [(1, "eu", 1.0), (2, "eu", 20.0), (2, "us", 5.0), (3, "eu", 3.0)]


def test_upsert_of_key_columns_only_adds_the_missing_keys(db):
    write(db, numbers(2), mode="upsert", keys=["id"])
    write(db, numbers(3), mode="upsert", keys=["id"])
    assert ids(db) == [0, 1, 2]


def test_upsert_needs_a_unique_key_on_the_key_columns(db):
    write(db, numbers(2))
    with pytest.raises(ParamsError, match=r"keys: table '.*' has no primary key or unique index"):
        write(db, numbers(2), mode="upsert", keys=["id"])


def test_keys_must_be_columns_of_the_rows(db):
    with pytest.raises(ParamsError, match="keys: unknown column 'idd'; did you mean 'id'"):
        write(db, numbers(2), mode="upsert", keys=["idd"])


def test_a_schema_qualified_table_name_is_written_in_that_schema(db):
    write(db, numbers(2), table=f"{db.schema}.{db.table}")
    assert ids(db) == [0, 1]


@pytest.mark.parametrize("mode", ["append", "upsert"])
def test_a_bad_row_in_a_later_batch_leaves_the_table_unchanged(db, mode):
    db.execute(f"CREATE TABLE {db.table} (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL)")
    db.execute(f"INSERT INTO {db.table} VALUES (1, 'before')")
    rows = pd.DataFrame({"id": range(2, 7), "name": ["a", "b", "c", "d", None]})
    with pytest.raises(OperatorError, match=rf"^writing to table '{db.table}' on 'db' failed: "):
        write(db, rows, mode=mode, keys=["id"], chunk_size=2)
    assert db.rows(f"SELECT id, name FROM {db.table}") == [(1, "before")]


@pytest.mark.parametrize("mode", MODES)
def test_a_failure_midway_leaves_the_table_as_it_was(db, mode):
    write(db, numbers(3), keys=["id"])

    def fail_after_the_first_batch(event_type, **fields):
        if event_type == "node_progress":
            raise RuntimeError("connection lost")

    with pytest.raises(RuntimeError, match="connection lost"):
        write(db, numbers(6, 10), fail_after_the_first_batch, mode=mode, keys=["id"], chunk_size=2)
    assert ids(db) == [0, 1, 2]
    assert db.tables() == {db.table}


@pytest.mark.parametrize("when", ["between batches", "at commit"])
@pytest.mark.parametrize("mode", MODES)
def test_a_stopped_node_leaves_the_table_as_it_was(db, mode, when):
    write(db, numbers(3), keys=["id"])
    stopped = []

    def stop_after_the_first_batch(event_type, **fields):
        if when == "between batches" and event_type == "node_progress":
            stopped.append(ctx.stop())

    ctx = output_ctx(db, stop_after_the_first_batch, mode=mode, keys=["id"], chunk_size=2)
    if when == "at commit":
        commit = ctx.commit

        def stop_then_commit(action):
            stopped.append(ctx.stop())
            return commit(action)

        ctx.commit = stop_then_commit
    with pytest.raises(NodeCancelled):
        SqlOutput().run(ctx, {"in": numbers(6, 10)})
    assert stopped == [True]
    assert not ctx.committed
    assert ids(db) == [0, 1, 2]
    assert db.tables() == {db.table}
