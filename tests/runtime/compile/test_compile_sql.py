"""SQL nodes in a script: the connection's URL comes from `PIPEWRIGHT_CONN_<NAME>`, the query
and the table written are the run's (PostgreSQL, a schema of this test's own)."""

from __future__ import annotations

import uuid

import pandas as pd
import pytest
import sqlalchemy as sa

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.plan import build_plan
from tests.runtime.compile.scripts import compiled, run_script

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def schema_url():
    """A URL whose search path is a fresh schema holding a `people` table."""
    schema = f"pw_compile_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(SERVER)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        connection.exec_driver_sql(
            f'CREATE TABLE "{schema}".people (id integer primary key, name text, age integer, '
            "born date, score numeric(6, 2))"
        )
        connection.exec_driver_sql(
            f"INSERT INTO \"{schema}\".people VALUES (1, 'Ada', 36, '1815-12-10', 9.5), "
            "(2, 'Linus', 17, NULL, NULL), (3, 'Grace', 85, '1906-12-09', 7.25), "
            "(4, NULL, NULL, NULL, 1)"
        )
    yield sa.make_url(SERVER).update_query_dict({"options": f"-csearch_path={schema}"})
    with admin.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.dispose()


def sql_pipeline() -> dict:
    query = "SELECT id, name, age, born, score FROM people WHERE age >= :min OR age IS NULL"
    return {
        "name": "warehouse copy",
        "config": {"parameters": {"min_age": 18}},
        "nodes": [
            {"id": "people", "operator": "sql_input", "params": {
                "connection": "warehouse", "query": query, "params": {"min": "${min_age}"}}},
            {"id": "older", "operator": "transform", "params": {"mappings": [
                {"target": "next_age", "expression": "age + 1"}]}},
            {"id": "csv", "operator": "csv_output", "params": {"path": "people.csv"}},
            {"id": "copy", "operator": "sql_output", "params": {
                "connection": "warehouse", "table": "adults", "mode": "replace", "keys": ["id"]}},
        ],
        "edges": [{"source": "people", "target": "older"}, {"source": "older", "target": "csv"},
                  {"source": "older", "target": "copy"}],
    }  # fmt: skip


def table(url, name: str) -> pd.DataFrame:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return pd.read_sql(sa.text(f"SELECT * FROM {name} ORDER BY id"), connection)
    finally:
        engine.dispose()


def test_a_scripts_query_and_table_are_the_runs(schema_url, tmp_path):
    url = schema_url.render_as_string(hide_password=False)
    document = sql_pipeline()
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
    connections = {"warehouse": url}
    plan = build_plan(load_document(document), {"min_age": 30}, data_root=folders["run"])
    assert execute(plan, data_root=folders["run"], connections=connections).ok
    written_by_run = table(url, "adults")

    script = compiled(document, folders["script"], tmp_path, connections)
    assert "PIPEWRIGHT_CONN_WAREHOUSE" in script.read_text() and url not in script.read_text()
    env = {"PIPEWRIGHT_CONN_WAREHOUSE": url}
    ran = run_script(script, "--min_age", "30", cwd=folders["script"], env=env)
    assert ran.returncode == 0, ran.stderr

    pd.testing.assert_frame_equal(table(url, "adults"), written_by_run)
    assert len(written_by_run) == 3  # Ada, Grace and the row without an age
    run_csv = (folders["run"] / "people.csv").read_bytes()
    assert (folders["script"] / "people.csv").read_bytes() == run_csv


def test_a_script_whose_connection_variable_is_unset_says_which_to_set(schema_url, tmp_path):
    url = schema_url.render_as_string(hide_password=False)
    script = compiled(sql_pipeline(), tmp_path, tmp_path, {"warehouse": url})
    ran = run_script(script, cwd=tmp_path, env={"PIPEWRIGHT_CONN_WAREHOUSE": ""})
    assert ran.returncode != 0
    assert "set the environment variable PIPEWRIGHT_CONN_WAREHOUSE" in ran.stderr
