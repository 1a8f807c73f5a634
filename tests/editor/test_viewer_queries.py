"""A viewer cannot run SQL of their own on the workspace's connections.

A viewer may open, preview and plan a pipeline, which executes the queries its saved document
holds (an editor wrote them). Before, `POST …/check` with a document of the viewer's own ran
its `sql_input` query with the workspace's credentials, and the values came back through the
columns and error messages. Each endpoint that executes a document is tried here as that
viewer would: with a document asking for `secret_table`.
"""

from __future__ import annotations

import sqlite3

import pytest

from editor.models import Role
from editor.workspaces.membership import create_workspace, set_member, workspace_folder
from tests.editor.conftest import client_for, post_json, put_json

pytestmark = pytest.mark.django_db

SECRET = "s3cr3t-VALUE"
SECRET_QUERY = "select secret, cast(secret as integer) + missing_column from secret_table"


def sql_document(query: str) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "sql",
        "nodes": [
            {"id": "query", "operator": "sql_input",
             "params": {"connection": "warehouse", "query": query}},
        ],
        "edges": [],
    }  # fmt: skip


@pytest.fixture
def team(owner, other, data_root):
    """A workspace whose connection holds a secret table; `owner` admin, `other` viewer."""
    team = create_workspace("Team", admin=owner)
    set_member(team, other, Role.VIEWER)
    with sqlite3.connect(workspace_folder(team) / "warehouse.db") as database:
        database.execute("create table secret_table (secret text)")
        database.execute("insert into secret_table values (?)", (SECRET,))
        database.execute("create table public_table (name text)")
        database.execute("insert into public_table values ('public')")
    answer = put_json(
        client_for(owner),
        f"/api/workspaces/{team.slug}/connections/warehouse",
        {"url": "sqlite:///warehouse.db"},
    )
    assert answer.status_code == 200, answer.content
    return team


@pytest.fixture
def saved_id(owner, team) -> int:
    """The team's pipeline, as its editor saved it: a query of the public table."""
    document = {**sql_document("select name from public_table"), "workspace": team.slug}
    created = post_json(client_for(owner), "/api/pipelines", document)
    assert created.status_code == 201, created.content
    return created.json()["id"]


def test_a_viewer_checking_a_document_of_their_own_is_refused_naming_the_role(other, saved_id):
    answer = post_json(
        client_for(other), f"/api/pipelines/{saved_id}/check", sql_document(SECRET_QUERY)
    )
    assert answer.status_code == 403
    assert "you need the editor role" in answer.json()["message"]
    assert SECRET not in answer.content.decode()


def test_an_editor_may_still_check_a_document_of_their_own(owner, saved_id):
    document = sql_document("select secret from secret_table")
    answer = post_json(client_for(owner), f"/api/pipelines/{saved_id}/check", document)
    assert answer.status_code == 200, answer.content
    assert [column["name"] for column in answer.json()["schemas"]["query"]["outputs"]["out"]] == [
        "secret"
    ]


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "preview"), ("post", "validate"), ("get", "schemas"), ("get", "plan")],
)
def test_a_viewer_sending_a_document_elsewhere_gets_the_saved_documents_answer(
    other, saved_id, method, path
):
    body = {"node": "query", **sql_document(SECRET_QUERY)}
    client = client_for(other)
    url = f"/api/pipelines/{saved_id}/{path}"
    if method == "post":
        answer = post_json(client, url, body)
    else:
        answer = client.generic("GET", url, data=str(body), content_type="application/json")
    assert answer.status_code in (200, 400), answer.content
    assert SECRET not in answer.content.decode()
    assert "secret_table" not in answer.content.decode()
    assert "missing_column" not in answer.content.decode()
    if path == "preview" and answer.status_code == 200:
        assert answer.json()["rows"] == [["public"]]
