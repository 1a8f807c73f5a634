"""Connections of the SQL operators: unknown names, unreachable servers, SQLite files
under the data root, and one engine per URL.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from runtime.errors import ParamsError, UnreachableError, UnsafePathError
from runtime.io.sql.connections import engine_for
from runtime.operators.sql import SqlInput, SqlOutput
from runtime.tables.schema import Column, Schema
from tests.runtime.conftest import DATABASES
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_nodes import DATA_ROOT, numbers, read_from


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
    with pytest.raises(UnreachableError) as raised:  # a run's retries may find it back
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
