"""`sql_input` and `sql_output` against real SQLite, PostgreSQL and MariaDB databases.

Every behaviour runs on the three (the `db` fixture of conftest.py): types and nulls, bound
parameters, chunks and row limits, the three write modes, all-or-nothing writes, stops, and
the errors a user reads.
"""

from __future__ import annotations

import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from runtime import context
from runtime.errors import NodeCancelled, OperatorError, ParamsError, UnsafePathError
from runtime.executor import execute
from runtime.operators import sql
from runtime.operators.sql import SqlInput, SqlOutput
from runtime.plan import build_plan
from runtime.schema import DATE_DTYPE, Column, Schema
from runtime.spec import load_document
from runtime.sql_connections import engine_for
from tests.runtime.operators import contract
from tests.runtime.operators.conftest import DATABASES
from tests.runtime.operators.contract import OperatorContract, make_ctx
from tests.runtime.test_cli import GOLDEN, ROOT, runtime_cli

DATA_ROOT = Path(__file__).parent
MODES = ("append", "replace", "upsert")


def people() -> pd.DataFrame:
    """The six column types, each with a null."""
    return pd.DataFrame(
        {
            "id": pd.array([1, 2, 3], dtype="Int64"),
            "age": pd.array([36, None, 85], dtype="Int64"),
            "score": [1.5, np.nan, -2.25],
            "member": pd.array([True, None, False], dtype="boolean"),
            "born": pd.Series([date(1988, 1, 31), None, date(1939, 5, 1)], dtype=DATE_DTYPE),
            "seen": pd.Series(
                [datetime(2024, 1, 31, 10, 0, 0, 123456), None, datetime(2023, 5, 1)],
                dtype="datetime64[us]",
            ),
            "name": pd.Series(["Ada", None, "O'Brien ✓"], dtype="str"),
        }
    )


def numbers(count: int, start: int = 0) -> pd.DataFrame:
    return pd.DataFrame({"id": pd.array(range(start, start + count), dtype="Int64")})


def read(db, query: str, params: dict | None = None, **options) -> pd.DataFrame:
    return read_from(db.connections, query, params, data_root=db.data_root, **options)


def read_from(
    connections: dict, query: str, params: dict | None = None, data_root=DATA_ROOT, **options
):
    operator = SqlInput()
    settings = {"connection": "db", "query": query, "params": params or {}}
    ctx = make_ctx(operator, settings, data_root, connections=connections, **options)
    return operator.run(ctx, {})["out"]


def output_ctx(db, emit=None, **params) -> context.NodeContext:
    settings = {"connection": "db", "table": db.table, **params}
    return make_ctx(SqlOutput(), settings, db.data_root, connections=db.connections, emit=emit)


def write(db, frame: pd.DataFrame, emit=None, **params) -> context.NodeContext:
    ctx = output_ctx(db, emit, **params)
    SqlOutput().run(ctx, {"in": frame})
    return ctx


def ids(db) -> list[int]:
    return [row[0] for row in db.rows(f"SELECT id FROM {db.table} ORDER BY id")]


class DatabaseContract(OperatorContract):
    """The contract, on each database, with the connection `db` known to every context."""

    @pytest.fixture(autouse=True)
    def _connected(self, db, monkeypatch):
        unconnected = contract.make_ctx

        def connected(operator, params, _data_root, **options):
            return unconnected(
                operator, params, db.data_root, connections=db.connections, **options
            )

        monkeypatch.setattr(contract, "make_ctx", connected)
        write(db, people(), table="contract_people", mode="replace")


class TestSqlInputContract(DatabaseContract):
    operator_cls = SqlInput
    params = {"connection": "db", "query": "SELECT * FROM contract_people ORDER BY id"}
    bad_params = [
        ({"query": "SELECT 1"}, r"^node\.params\.connection: Connection: required$"),
        (
            {"connection": "db", "query": ""},
            r"^node\.params\.query: Query: must not be empty$",
        ),
        (
            {"connection": "db", "query": "SELECT :a + :b", "params": {"a": 1}},
            r"^node\.params\.params: Parameters: the query uses :b; give b a value here$",
        ),
        (
            {"connection": "db", "query": "SELECT :a", "params": {"a": 1, "z": 2}},
            r"^node\.params\.params: Parameters: z is not used by the query \(it has no :z\)$",
        ),
        (
            {"connection": "db", "query": "SELECT 1", "params": {"a b": 1}},
            r"^node\.params\.params\.a b\.\[key\]: Parameters, the name 'a b': must match the",
        ),
        (
            {"connection": "db", "query": "SELECT :a", "params": {"a": [1, 2]}},
            r"^node\.params\.params\.a: Parameters, a: must be text, a whole number, a number or",
        ),
    ]


class TestSqlOutputContract(DatabaseContract):
    operator_cls = SqlOutput
    params = {"connection": "db", "table": "contract_out", "mode": "replace"}
    inputs = {"in": people()}
    bad_params = [
        (
            {"connection": "db", "table": "t", "mode": "merge"},
            r"^node\.params\.mode: Mode: must be one of 'append', 'replace' or 'upsert'$",
        ),
        (
            {"connection": "db", "table": "t", "mode": "upsert"},
            r"^node\.params\.keys: Key columns: upsert needs the columns that identify a row; list",
        ),
        (
            {"connection": "db", "table": "t", "keys": ["id", "id"]},
            r"^node\.params\.keys: Key columns: a key column is listed twice$",
        ),
        (
            {"connection": "db", "table": "a.b.c"},
            r"^node\.params\.table: Table: must match the pattern",
        ),
        (
            {"connection": "db", "table": "t", "chunk_size": 0},
            r"^node\.params\.chunk_size: Rows per batch: must be at least 1$",
        ),
    ]


# -- reading -------------------------------------------------------------------------------


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


def progress_into(events: list):
    def emit(event_type, **fields):
        if event_type == "node_progress":
            events.append(fields["rows"])

    return emit


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


# -- writing -------------------------------------------------------------------------------


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


# -- connections ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator_cls", "params"), [(SqlInput, {"query": "SELECT 1"}), (SqlOutput, {"table": "t"})]
)
def test_an_unknown_connection_names_neither_the_other_connections_nor_their_urls(
    operator_cls, params
):
    connections = {"warehouse": "postgresql+psycopg://u:s3cret@db/x", "shop": "sqlite:///s.db"}
    operator = operator_cls()
    settings = {"connection": "warehous", **params}
    ctx = make_ctx(operator, settings, DATA_ROOT, connections=connections)
    expected = r"^connection: no connection named 'warehous' in this workspace$"
    for attempt in (lambda: operator.run(ctx, {"in": numbers(1)}), lambda: schema_of_node(ctx)):
        with pytest.raises(ParamsError, match=expected):
            attempt()


def schema_of_node(ctx):
    """The node's output schema, its input being one integer column."""
    operator = SqlOutput() if "table" in ctx.params.model_fields_set else SqlInput()
    return operator.output_schema(ctx, {"in": Schema((Column("id", "integer"),))})


UNREACHABLE = {
    "sqlite": "sqlite:///nonexistent-folder/db.sqlite",
    "postgresql": "postgresql+psycopg://postgres:s3cret@127.0.0.1:1/test",
    "mariadb": "mysql+pymysql://root:s3cret@127.0.0.1:1/test",
}


@pytest.mark.parametrize("kind", DATABASES)
def test_an_unreachable_database_fails_within_seconds_without_showing_the_password(kind, tmp_path):
    url = sa.make_url(UNREACHABLE[kind])
    if kind == "sqlite":
        url = url.set(database=str(tmp_path / url.database))
    shown = url.render_as_string(hide_password=True)
    started = time.monotonic()
    with pytest.raises(OperatorError) as raised:
        read_from({"db": UNREACHABLE[kind]}, "SELECT 1", data_root=tmp_path)
    assert time.monotonic() - started < 5
    assert str(raised.value).startswith(f"cannot connect to 'db' ({shown}): ")
    assert "s3cret" not in str(raised.value)


def test_a_relative_sqlite_path_lives_under_the_data_root(tmp_path):
    (tmp_path / "data").mkdir()
    operator = SqlOutput()
    connections = {"local": "sqlite:///data/shop.db", "outside": "sqlite:///../shop.db"}
    for name in connections:
        ctx = make_ctx(
            operator, {"connection": name, "table": "t"}, tmp_path, connections=connections
        )
        if name == "local":
            operator.run(ctx, {"in": numbers(2)})
        else:
            with pytest.raises(UnsafePathError, match=r"'\.\./shop\.db' is outside the data root"):
                operator.run(ctx, {"in": numbers(2)})
    assert (tmp_path / "data" / "shop.db").is_file()


def test_one_engine_serves_a_url_even_when_threads_race_for_it(tmp_path):
    operator = SqlInput()
    connections = {"a": "sqlite:///a.db", "b": "sqlite:///b.db"}
    params = {"connection": "a", "query": "SELECT 1"}
    ctx = make_ctx(operator, params, tmp_path, connections=connections)
    with ThreadPoolExecutor(8) as pool:
        engines = list(pool.map(lambda i: engine_for(ctx, "ab"[i % 2]), range(32)))
    assert len({id(engine) for engine in engines}) == 2


# -- through the CLI -----------------------------------------------------------------------


def test_the_cli_copies_a_csv_file_into_each_database(db, tmp_path):
    (db.data_root / f"{db.table}.csv").write_text("id,name\n1,Ada\n2,\n")
    (tmp_path / "connections.json").write_text(json.dumps(db.connections))
    writing = {"connection": "db", "table": db.table}
    nodes = [
        {"id": "read", "operator": "csv_input", "params": {"path": f"{db.table}.csv"}},
        {"id": "write", "operator": "sql_output", "params": writing},
    ]
    edges = [{"source": "read", "target": "write"}]
    (tmp_path / "p.json").write_text(json.dumps({"name": "t", "nodes": nodes, "edges": edges}))
    result = runtime_cli(
        "run", "p.json", "--data-root", str(db.data_root), "--connections", "connections.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert db.rows(f"SELECT id, name FROM {db.table} ORDER BY id") == [(1, "Ada"), (2, None)]


def test_the_golden_pipeline_also_copies_the_rows_into_the_sqlite_file(tmp_path):
    case = GOLDEN / "sql_roundtrip"
    shutil.copytree(case / "input", tmp_path, dirs_exist_ok=True)
    result = runtime_cli(
        "run", str(case / "pipeline.json"), "--data-root", str(tmp_path),
        *(case / "args").read_text().split(), cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'shop.db'}")
    with engine.connect() as connection:
        copied = connection.exec_driver_sql("SELECT id, name FROM adults ORDER BY id").all()
    engine.dispose()
    expected = pd.read_csv(tmp_path / "out" / "people.csv")
    assert [row[0] for row in copied] == expected["id"].tolist()
