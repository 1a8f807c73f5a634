"""`GET /api/pipelines/{id}/script`: the compiled script as a download, for whoever may view
the pipeline; a 404 for other users; a 422 naming the node that cannot be compiled."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from editor.models import Connection, Role
from editor.workspaces.membership import create_workspace, personal_workspace, set_member
from tests.editor.conftest import SEED, client_for, post_json, put_json


def test_the_script_downloads_as_a_python_file_that_runs(client, pipeline_id, data_root):
    response = client.get(f"/api/pipelines/{pipeline_id}/script")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/x-python"
    assert response["Content-Disposition"] == 'attachment; filename="adults.py"'
    assert_runs_and_writes_the_adults(response.content, data_root)


def assert_runs_and_writes_the_adults(script_text: bytes, data_root) -> None:
    """The downloaded script, run with --min_age 40, writes the one person that old."""
    script = data_root / "adults.py"
    script.write_bytes(script_text)
    ran = subprocess.run(
        [sys.executable, "-I", str(script), "--min_age", "40"],
        capture_output=True, text=True, cwd=data_root,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (data_root / "out" / "adults.csv").read_text() == "id,name,age\n3,Grace,85\n"


def test_another_user_gets_404_for_the_script(pipeline_id, other, data_root):
    assert client_for(other).get(f"/api/pipelines/{pipeline_id}/script").status_code == 404


@pytest.mark.django_db
def test_a_viewer_of_the_workspace_downloads_the_script(owner, other, data_root):
    team = create_workspace("Team", admin=owner)
    set_member(team, other, Role.VIEWER)
    folder = data_root.parent / team.slug
    folder.mkdir(exist_ok=True)
    (folder / "people.csv").write_text((data_root / "people.csv").read_text())
    created = post_json(client_for(owner), "/api/pipelines", {**SEED, "workspace": team.slug})
    assert created.status_code == 201, created.content
    response = client_for(other).get(f"/api/pipelines/{created.json()['id']}/script")
    assert response.status_code == 200, response.content


def test_a_pipeline_that_cannot_be_compiled_answers_422_naming_the_node(client, data_root):
    params = {"path": "*.csv", "incremental": {"mode": "new_files"}}
    reader = {"id": "read", "operator": "csv_input", "params": params}
    document = {**SEED, "nodes": [reader, *SEED["nodes"][1:]]}
    created = post_json(client, "/api/pipelines", document)
    assert created.status_code == 201, created.content
    response = client.get(f"/api/pipelines/{created.json()['id']}/script")
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "not_compilable" and body["node"] == "read"
    assert "an incremental input keeps" in body["message"]
    assert str(data_root) not in body["message"]


def test_the_script_follows_the_backend_asked_for(client, pipeline_id, data_root):
    duckdb = client.get(f"/api/pipelines/{pipeline_id}/script?backend=duckdb")
    assert duckdb.status_code == 200, duckdb.content
    assert b"import duckdb" in duckdb.content
    assert_runs_and_writes_the_adults(duckdb.content, data_root)
    pandas = client.get(f"/api/pipelines/{pipeline_id}/script?backend=pandas")
    assert pandas.status_code == 200 and b"duckdb" not in pandas.content


def test_an_unknown_backend_answers_422_naming_the_field_as_the_plan_does(client, pipeline_id):
    response = client.get(f"/api/pipelines/{pipeline_id}/script?backend=polars')--")
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_request" and body["field"] == "backend"
    assert "polars" not in body["message"]


WAREHOUSE_PASSWORD = "hunter2-not-in-scripts"


def sql_pipeline(client, nodes: list[dict], edges: list[dict]) -> int:
    document = {**SEED, "name": "from the warehouse", "nodes": nodes, "edges": edges}
    created = post_json(client, "/api/pipelines", document)
    assert created.status_code == 201, created.content
    return created.json()["id"]


def test_a_query_on_a_workspace_connection_compiles_to_a_script_reading_its_variable(
    client, data_root
):
    """Export as Python with an `sql_input` on the workspace's connection, as a user clicks it
    in the editor: the script reads the URL from PIPEWRIGHT_CONN_WAREHOUSE, never holds it,
    and run with that variable writes what a run writes (it was a 400, "no connection named")."""
    with sqlite3.connect(data_root / "warehouse.db") as database:
        database.execute("create table people (name text, age integer)")
        database.executemany("insert into people values (?, ?)", [("Ada", 36), ("Linus", 17)])
    saved = put_json(
        client, "/api/workspaces/owner/connections/warehouse", {"url": "sqlite:///warehouse.db"}
    )
    assert saved.status_code == 200, saved.content
    query = {"connection": "warehouse", "query": "select name, age from people where age > 18"}
    pipeline_id = sql_pipeline(
        client,
        [
            {"id": "query", "operator": "sql_input", "params": query},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/adults.csv"}},
        ],
        [{"source": "query", "target": "write"}],
    )
    response = client.get(f"/api/pipelines/{pipeline_id}/script")
    assert response.status_code == 200, response.content
    script = response.content.decode()
    assert "PIPEWRIGHT_CONN_WAREHOUSE" in script
    assert "warehouse.db" not in script

    (data_root / "adults.py").write_text(script)
    environment = {**os.environ, "PIPEWRIGHT_CONN_WAREHOUSE": "sqlite:///warehouse.db"}
    ran = subprocess.run(
        [sys.executable, "-I", "adults.py"], capture_output=True, text=True, cwd=data_root,
        env=environment,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (data_root / "out" / "adults.csv").read_text() == "name,age\nAda,36\n"


def test_a_script_writing_to_a_connection_holds_neither_its_url_nor_its_password(
    client, owner, data_root, settings
):
    """A staff-saved connection to this machine's MariaDB (allowed as an operator would),
    with a password: the script names its variable, never its account, host or password."""
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8"]
    warehouse = Connection(
        workspace=personal_workspace(owner), name="warehouse", read_only=False,
        url="mysql+pymysql://loader@127.0.0.1:3306/dw", saved_by_staff=True,
    )  # fmt: skip
    warehouse.set_password(WAREHOUSE_PASSWORD)
    warehouse.save()
    pipeline_id = sql_pipeline(
        client,
        [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "load", "operator": "sql_output",
             "params": {"connection": "warehouse", "table": "people"}},
        ],
        [{"source": "read", "target": "load"}],
    )  # fmt: skip
    response = client.get(f"/api/pipelines/{pipeline_id}/script")
    assert response.status_code == 200, response.content
    script = response.content.decode()
    assert "PIPEWRIGHT_CONN_WAREHOUSE" in script
    for secret in (WAREHOUSE_PASSWORD, "127.0.0.1", "loader"):
        assert secret not in script


def test_a_query_on_a_connection_the_workspace_lacks_answers_422_listing_the_problem(
    client, data_root
):
    query = {"connection": "nowhere", "query": "select 1 as one"}
    pipeline_id = sql_pipeline(
        client, [{"id": "query", "operator": "sql_input", "params": query}], []
    )
    response = client.get(f"/api/pipelines/{pipeline_id}/script")
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "invalid_pipeline"
    assert [problem["node"] for problem in body["problems"]] == ["query"]
