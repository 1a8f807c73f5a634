"""An ordinary user's SQL, through the web app: the takeover of the app's own database.

Before workspaces and the SQLite authorizer, a non-staff user could make a SQLite connection,
`ATTACH` the application's database through a preview, read every session key and connection
password, and append a row to `auth_user` that made her a superuser. These tests make those
moves for real against the test server's own database file, and check that passwords never
leave the server: not in answers, exports, run snapshots, the admin, messages or logs.
"""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection as django_connection

from editor.models import Connection, Run
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import client_for, post_json, put_json, wait_for_run

PASSWORD = "pw-LEAK-7f3a"


def sql_pipeline(query: str, *, output_table: str | None = None) -> dict:
    nodes = [
        {"id": "query", "operator": "sql_input", "params": {"connection": "mine", "query": query}}
    ]
    edges = []
    if output_table:
        nodes.append(
            {
                "id": "write",
                "operator": "sql_output",
                "params": {"connection": "mine", "table": output_table, "mode": "append"},
            }
        )
        edges.append({"source": "query", "target": "write"})
    return {"format": "pipewright.pipeline", "version": 1, "name": "sql", "nodes": nodes,
            "edges": edges}  # fmt: skip


@pytest.fixture
def app_database(tmp_path_factory) -> str:
    """The application's own database file (the one this test server writes); on PostgreSQL,
    an SQLite file outside every workspace with the same tables stands in for it."""
    if django_connection.vendor == "sqlite":
        return str(settings.DATABASES["default"]["NAME"])
    stand_in = tmp_path_factory.mktemp("app") / "db.sqlite3"
    with sqlite3.connect(stand_in) as app:
        app.execute("create table django_session (session_key text, session_data text)")
        app.execute(
            "create table auth_user (id integer primary key, password text, is_superuser int, "
            "username text, first_name text, last_name text, email text, is_staff int, "
            "is_active int, date_joined text)"
        )
    return str(stand_in)


def superusers(app_database: str) -> list:
    with sqlite3.connect(app_database) as app:
        return app.execute("select username from auth_user where is_superuser").fetchall()


@pytest.fixture
def my_sqlite(client, data_root):
    """A writable SQLite connection in the user's own workspace, as any member may ask for."""
    sqlite3.connect(data_root / "mine.db").execute("create table t (x int)").connection.commit()
    answer = put_json(
        client,
        "/api/workspaces/owner/connections/mine",
        {"url": "sqlite:///mine.db", "read_only": False},
    )
    assert answer.status_code == 200, answer.content


@pytest.mark.django_db(transaction=True)
def test_attaching_the_app_database_through_a_preview_is_refused(client, my_sqlite, app_database):
    query = f"ATTACH DATABASE '{app_database}' AS app"
    created = post_json(client, "/api/pipelines", sql_pipeline(query)).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "query"})
    assert answer.status_code == 422
    assert "may not attach or detach a database" in answer.json()["message"]
    selecting = post_json(
        client,
        "/api/pipelines",
        sql_pipeline("select session_key from app.django_session"),
    ).json()
    answer = post_json(client, f"/api/pipelines/{selecting['id']}/preview", {"node": "query"})
    assert answer.status_code == 422 and "rows" not in answer.json()


MALLORY = (
    "select 'x' as password, 1 as is_superuser, 'mallory' as username, '' as first_name, "
    "'' as last_name, '' as email, 1 as is_staff, 1 as is_active, "
    "'2026-01-01 00:00:00' as date_joined"
)


@pytest.mark.django_db(transaction=True)
def test_a_run_cannot_append_a_superuser_to_the_app_database(client, my_sqlite, app_database):
    """The original two steps: ATTACH in a preview (kept by a pooled connection), then a run
    whose sql_output appends to `app.auth_user`."""
    attach = post_json(
        client, "/api/pipelines", sql_pipeline(f"ATTACH DATABASE '{app_database}' AS app")
    ).json()
    post_json(client, f"/api/pipelines/{attach['id']}/preview", {"node": "query"})
    created = post_json(
        client, "/api/pipelines", sql_pipeline(MALLORY, output_table="app.auth_user")
    ).json()
    run = wait_for_run(post_json(client, f"/api/pipelines/{created['id']}/runs", {}).json()["id"])
    assert run.status == "failed"
    assert superusers(app_database) == []


@pytest.mark.django_db(transaction=True)
def test_a_read_only_connection_refuses_writes_made_by_a_query(client, data_root):
    sqlite3.connect(data_root / "ro.db").execute("create table t (x int)").connection.commit()
    put_json(client, "/api/workspaces/owner/connections/mine", {"url": "sqlite:///ro.db"})
    for query in ("insert into t values (1)", "drop table t", "pragma query_only=off"):
        created = post_json(client, "/api/pipelines", sql_pipeline(query)).json()
        answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "query"})
        assert answer.status_code == 422, query
    rows = sqlite3.connect(data_root / "ro.db").execute("select count(*) from t").fetchone()
    assert rows == (0,)


@pytest.mark.django_db
def test_another_workspaces_connection_cannot_be_named(client, other, data_root):
    theirs = Connection(workspace=personal_workspace(other), name="theirs", url="sqlite:///t.db")
    theirs.save()
    document = sql_pipeline("select 1").copy()
    document["nodes"][0]["params"]["connection"] = "theirs"
    created = post_json(client, "/api/pipelines", document).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "query"})
    assert answer.status_code == 422
    assert "no connection named 'theirs' in this workspace" in answer.json()["message"]
    schemas = client.get(f"/api/pipelines/{created['id']}/schemas").content.decode()
    assert "no connection named 'theirs' in this workspace" in schemas


@pytest.mark.django_db(transaction=True)
def test_a_connection_password_is_never_shown_anywhere(client, owner, data_root, caplog, settings):
    # a closed port of this machine: staff's, since only staff may reach a non-public address
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.1:1"]
    owner.is_staff = True
    owner.save(update_fields=["is_staff"])
    put_json(
        client,
        "/api/workspaces/owner/connections/mine",
        {"url": "postgresql+psycopg://app@127.0.0.1:1/nowhere", "password": PASSWORD},
    )
    caplog.set_level(logging.DEBUG)
    created = post_json(client, "/api/pipelines", sql_pipeline("select 1")).json()
    pipeline = f"/api/pipelines/{created['id']}"
    seen = [
        client.get("/api/workspaces/owner/connections"),
        client.get(f"{pipeline}/export"),
        client.get(f"{pipeline}/schemas"),
        post_json(client, f"{pipeline}/preview", {"node": "query"}),
        post_json(client, f"{pipeline}/validate", {}),
    ]
    # The check before a run connects; a database out of reach does not refuse the run,
    # which connects again and fails there.
    started = post_json(client, f"{pipeline}/runs", {})
    assert started.status_code == 202, started.content
    run = wait_for_run(started.json()["id"])
    assert run.status == "failed"
    assert "cannot connect to 'mine'" in run.node_runs.get(node_id="query").error
    seen += [started, client.get(f"/api/runs/{run.pk}")]
    staff = get_user_model().objects.create_superuser("boss", password="x-boss-pw-123")
    admin = client_for(staff)
    connection_id = Connection.objects.get().pk
    for page in ("connection/", f"connection/{connection_id}/change/", f"run/{run.pk}/change/"):
        seen.append(admin.get(f"/admin/editor/{page}"))
    texts = [response.content.decode() for response in seen]
    texts += [json.dumps(run.document), run.error or "", caplog.text]
    texts += [json.dumps(node.metrics) + node.error + node.traceback
              for node in Run.objects.get().node_runs.all()]  # fmt: skip
    assert all(response.status_code < 500 for response in seen)
    leaks = [text[:200] for text in texts if PASSWORD in text]
    assert leaks == []
    assert PASSWORD not in Connection.objects.get().encrypted_password
