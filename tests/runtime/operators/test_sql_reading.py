"""`sql_input` on the three databases: types and nulls, bound parameters, chunks and row
limits, stops, and the errors a user reads.
"""

from __future__ import annotations

import decimal

import pandas as pd
import pyarrow as pa
import pytest

from runtime.document.spec import load_document
from runtime.errors import NodeCancelled, OperatorError, ParamsError
from runtime.execution.executor import execute
from runtime.operators import context, sql
from runtime.operators.sql import SqlInput
from runtime.plan import build_plan
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_nodes import numbers, people, progress_into, read, write


def test_all_six_types_and_their_nulls_survive_a_round_trip(db):
    write(db, people())
    frame = read(db, f"SELECT * FROM {db.table} ORDER BY id")
    pd.testing.assert_frame_equal(frame, people())


def test_an_empty_result_and_a_column_of_nulls_keep_their_types(db):
    write(db, people())
    empty = read(db, f"SELECT * FROM {db.table} WHERE 1 = 0")
    assert empty.empty
    assert empty.dtypes.to_dict() == people().dtypes.to_dict()
    gaps = read(db, f"SELECT age, member, born FROM {db.table} WHERE age IS NULL")
    assert [str(dtype) for dtype in gaps.dtypes] == ["Int64", "boolean", "date32[day][pyarrow]"]
    assert gaps.isna().all().all()


def test_aware_times_are_stored_as_the_same_instant(db):
    paris = pd.Series([pd.Timestamp("2024-01-31 12:00", tz="Europe/Paris"), None])
    write(db, pd.DataFrame({"id": [1, 2], "at": paris}))
    read_back = read(db, f"SELECT at FROM {db.table} ORDER BY id")["at"]
    utc = read_back.dt.tz_convert(None) if read_back.dt.tz else read_back  # naive UTC but in PG
    assert utc.tolist()[0] == pd.Timestamp("2024-01-31 11:00")
    assert utc.isna().tolist() == [False, True]


def test_declared_decimals_read_as_exact_decimals_and_unconstrained_or_wider_ones_as_floats(db):
    db.execute(f"CREATE TABLE {db.table} (id INTEGER, price NUMERIC(15,2), wide NUMERIC(40,3))")
    db.execute(
        f"INSERT INTO {db.table} VALUES (1, 12.34, 1.5), (2, -0.05, NULL), "
        "(3, NULL, 2), (4, 1234567890123.45, 0)"
    )
    query = f"SELECT price, wide FROM {db.table} ORDER BY id"
    frame = read(db, query)
    assert pa.types.is_decimal(frame["price"].dtype.pyarrow_dtype)
    assert frame["price"].dtype.pyarrow_dtype.scale == 2
    assert frame["price"].tolist()[:2] == [decimal.Decimal("12.34"), decimal.Decimal("-0.05")]
    assert frame["price"].tolist()[3] == decimal.Decimal("1234567890123.45")
    assert str(frame["wide"].dtype) == "float64" and frame["wide"].tolist()[0] == 1.5
    ctx = make_ctx(
        SqlInput(), {"connection": "db", "query": query}, db.data_root, connections=db.connections
    )
    schema = SqlInput().output_schema(ctx, {})["out"]
    assert [column.type for column in schema.columns] == ["decimal", "float"]
    write(db, frame[["price"]], table=f"{db.table}_copy", mode="replace")
    copied = read(db, f"SELECT price FROM {db.table}_copy")["price"]
    pd.testing.assert_series_equal(copied, frame["price"])


def test_a_table_name_is_an_identifier_never_sql(db):
    name = f"{db.table} x'; --"
    for mode in ("replace", "append"):
        write(db, numbers(2), table=name, mode=mode)
    assert db.frame(name)["id"].tolist() == [0, 0, 1, 1]
    assert db.tables() == {name}


def test_the_predicted_schema_matches_what_is_read(db):
    write(db, people())
    operator = SqlInput()
    query = {"connection": "db", "query": f"SELECT name, age AS years, born FROM {db.table}"}
    ctx = make_ctx(operator, query, db.data_root, connections=db.connections)
    schema = operator.output_schema(ctx, {})["out"]
    assert [(c.name, c.type, c.nullable) for c in schema.columns] == [
        ("name", "string", True),
        ("years", "integer", True),
        ("born", "date", True),
    ]


def test_bound_parameters_select_the_rows(db):
    write(db, people())
    query = f"SELECT id FROM {db.table} WHERE age >= :min_age AND name LIKE :pattern"
    frame = read(db, query, {"min_age": 30, "pattern": "O%"})
    assert frame["id"].tolist() == [3]


def test_a_parameter_value_is_only_ever_a_value(db):
    write(db, people())
    query = f"SELECT id FROM {db.table} WHERE name = :name"
    for attempt in ["x' OR '1'='1", f"'; DROP TABLE {db.table}; --"]:
        assert read(db, query, {"name": attempt}).empty
    assert read(db, query, {"name": "O'Brien ✓"})["id"].tolist() == [3]
    assert db.table in db.tables()


def test_pipeline_parameters_feed_the_bound_values_but_never_the_query_text(db):
    write(db, people())
    node = {
        "id": "read",
        "operator": "sql_input",
        "params": {
            "connection": "db",
            "query": f"SELECT id, '${{min_age}}' AS raw FROM {db.table} WHERE age >= :min_age",
            "params": {"min_age": "${min_age}"},
        },
    }
    document = {"name": "t", "config": {"parameters": {"min_age": 18}}, "nodes": [node]}
    plan = build_plan(load_document(document), {"min_age": 40})
    result = execute(plan, retain=["read"], data_root=db.data_root, connections=db.connections)
    assert result.ok, result.nodes["read"].error
    frame = result.outputs[("read", "out")]
    assert frame["id"].tolist() == [3]
    assert frame["raw"].tolist() == ["${min_age}"]


def test_rows_are_read_in_chunks_with_a_progress_event_each(db, monkeypatch):
    monkeypatch.setattr(sql.reading, "READ_CHUNK_ROWS", 3)
    monkeypatch.setattr(context, "PROGRESS_INTERVAL_S", 0)
    write(db, numbers(10))
    events = []
    frame = read(db, f"SELECT id FROM {db.table} ORDER BY id", emit=progress_into(events))
    assert frame["id"].tolist() == list(range(10))
    assert events == [3, 6, 9, 10]


def test_the_row_limit_stops_fetching_and_does_not_limit_the_next_read(db, monkeypatch):
    monkeypatch.setattr(sql.reading, "READ_CHUNK_ROWS", 4)
    monkeypatch.setattr(context, "PROGRESS_INTERVAL_S", 0)
    write(db, numbers(100))
    events = []
    query = f"SELECT id FROM {db.table} ORDER BY id"
    frame = read(db, query, row_limit=10, emit=progress_into(events))
    assert frame["id"].tolist() == list(range(10))
    assert events == [4, 8, 10]
    assert len(read(db, query)) == 100  # the same pooled connection reads everything again


def test_a_stopped_read_raises_between_chunks(db, monkeypatch):
    monkeypatch.setattr(sql.reading, "READ_CHUNK_ROWS", 2)
    write(db, numbers(10))
    operator = SqlInput()
    query = {"connection": "db", "query": f"SELECT id FROM {db.table}"}
    ctx = make_ctx(operator, query, db.data_root, connections=db.connections)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {})


def test_bad_sql_fails_with_the_database_message(db):
    with pytest.raises(OperatorError, match=r"^query on 'db' failed: .*syntax"):
        read(db, "SELEC 1")


def test_a_query_never_commits_what_it_changes(db):
    write(db, people())
    with pytest.raises(OperatorError):  # PostgreSQL refuses it; the others return no rows
        read(db, f"UPDATE {db.table} SET name = 'changed'")
    assert db.rows(f"SELECT COUNT(*) FROM {db.table} WHERE name = 'changed'") == [(0,)]


def test_two_columns_with_one_name_are_refused(db):
    with pytest.raises(ParamsError, match="query: the query returns two columns named 'a'"):
        read(db, "SELECT 1 AS a, 2 AS a")


@pytest.mark.parametrize("db", ["mariadb"], indirect=True)
def test_an_unsigned_mariadb_decimal_reads_its_widest_values_with_a_digit_more(db):
    db.execute(f"CREATE TABLE {db.table} (id INTEGER, price DECIMAL(15,2) UNSIGNED)")
    db.execute(f"INSERT INTO {db.table} VALUES (1, 1.5), (2, 9999999999999.99)")
    frame = read(db, f"SELECT price FROM {db.table} ORDER BY id")
    assert str(frame["price"].dtype) == "decimal128(15, 2)[pyarrow]"
    assert frame["price"].tolist() == [decimal.Decimal("1.50"), decimal.Decimal("9999999999999.99")]
