""" "Test connection": one bounded connection through the rules a run's connection follows,
against real SQLite and PostgreSQL, answering what the server is or why it cannot be reached,
never with the password.
"""

from __future__ import annotations

import socket
import sqlite3

import pytest

from editor.models import Connection
from editor.workspaces.membership import personal_workspace
from runtime.io.sql import connections as sql_connections
from tests.editor.conftest import client_for, post_json, put_json

PROBE = "/api/workspaces/{slug}/test-connection"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"


@pytest.mark.django_db
def test_an_sqlite_file_of_the_workspace_answers_select_1(client, data_root):
    sqlite3.connect(data_root / "shop.db").close()
    answer = post_json(client, PROBE.format(slug="owner"), {"url": "sqlite:///shop.db"})
    assert answer.status_code == 200, answer.content
    assert answer.json()["ok"] and answer.json()["message"].startswith("Connected: SQLite 3.")


@pytest.mark.django_db
def test_a_missing_sqlite_file_is_refused_and_not_made(client, data_root):
    answer = post_json(client, PROBE.format(slug="owner"), {"url": "sqlite:///nope.db"})
    assert answer.status_code == 400
    assert answer.json()["code"] == "connection_failed" and answer.json()["field"] == "url"
    assert "no SQLite file 'nope.db'" in answer.json()["message"]
    assert not (data_root / "nope.db").exists()


@pytest.mark.django_db
def test_a_url_the_rules_refuse_is_refused_before_connecting(client, data_root):
    answer = post_json(client, PROBE.format(slug="owner"), {"url": "sqlite:////etc/passwd"})
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_connection"
    assert "inside the workspace's folder" in answer.json()["message"]


@pytest.mark.django_db
def test_a_private_server_is_for_staff_to_test_only(client, data_root, settings):
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8"]
    answer = post_json(client, PROBE.format(slug="owner"), {"url": POSTGRES.format(port=5432)})
    assert answer.status_code == 403 and answer.json()["code"] == "staff_only"


@pytest.mark.django_db
def test_postgresql_answers_with_its_version_and_the_password_is_never_echoed(
    staff, data_root, settings
):
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8"]
    body = {"url": POSTGRES.format(port=5432), "password": "hunter2-secret"}
    answer = post_json(client_for(staff), PROBE.format(slug="staff"), body)
    assert answer.status_code == 200, answer.content
    assert answer.json()["message"].startswith("Connected: PostgreSQL ")
    assert "hunter2" not in answer.content.decode()


@pytest.mark.django_db
def test_an_unreachable_server_is_a_clear_400_without_the_password(staff, data_root, settings):
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8"]
    body = {"url": POSTGRES.format(port=1), "password": "hunter2-secret"}
    answer = post_json(client_for(staff), PROBE.format(slug="staff"), body)
    assert answer.status_code == 400 and answer.json()["code"] == "connection_failed"
    message = answer.json()["message"]
    assert message.startswith("cannot connect to 'new' (postgresql+psycopg://postgres:***@")
    assert "refused" in message.lower() and "hunter2" not in answer.content.decode()


@pytest.fixture
def silent_server():
    """A port of this machine where connections are accepted and nothing is ever said."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)  # the kernel completes the handshakes; nobody reads or writes
        yield listening.getsockname()[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["mysql+pymysql://root@127.0.0.1:{port}/x", "postgresql+psycopg://postgres@127.0.0.1:{port}/x"],
)
def test_a_server_that_accepts_and_never_answers_is_a_400_not_a_hung_request(
    staff, data_root, settings, monkeypatch, silent_server, url
):
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8"]
    monkeypatch.setattr(sql_connections, "PROBE_TIMEOUT_S", 2)
    body = {"url": url.format(port=silent_server)}
    answer = post_json(client_for(staff), PROBE.format(slug="staff"), body)
    assert answer.status_code == 400 and answer.json()["code"] == "connection_failed"


@pytest.mark.django_db
def test_a_stored_password_is_used_when_none_is_given(client, owner, data_root):
    connection = Connection(workspace=personal_workspace(owner), name="shop", url="sqlite:///x.db")
    connection.set_password("kept-secret")
    connection.save()
    sqlite3.connect(data_root / "x.db").close()
    body = {"url": "sqlite:///x.db", "name": "shop"}
    answer = post_json(client, PROBE.format(slug="owner"), body)
    assert answer.status_code == 200 and "kept-secret" not in answer.content.decode()


@pytest.mark.django_db
def test_only_those_who_manage_connections_test_them(other, data_root):
    answer = post_json(client_for(other), PROBE.format(slug="owner"), {"url": "sqlite:///a.db"})
    assert answer.status_code == 404


def stored_warehouse(owner) -> Connection:
    """A connection whose password someone typed, to a public server."""
    connection = Connection(
        workspace=personal_workspace(owner),
        name="warehouse",
        url="postgresql+psycopg://reader@8.8.8.8:5432/sales",
    )
    connection.set_password("their-secret")
    connection.save()
    return connection


@pytest.mark.django_db
def test_a_stored_password_is_never_sent_to_another_server_by_a_test(client, owner, data_root):
    stored_warehouse(owner)
    for url in (
        "postgresql+psycopg://reader@8.8.4.4:5432/sales",  # another server
        "postgresql+psycopg://admin@8.8.8.8:5432/sales",  # another user
        "mysql+pymysql://reader@8.8.8.8:5432/sales",  # another kind of database
    ):
        body = {"url": url, "name": "warehouse"}
        answer = post_json(client, PROBE.format(slug="owner"), body)
        assert answer.status_code == 400, url
        assert (answer.json()["code"], answer.json()["field"]) == ("password_required", "password")


@pytest.mark.django_db
def test_pointing_a_saved_connection_elsewhere_needs_its_password_again(client, owner, data_root):
    stored_warehouse(owner)
    url = "/api/workspaces/owner/connections/warehouse"
    moved = {"url": "postgresql+psycopg://reader@8.8.4.4:5432/sales"}
    answer = put_json(client, url, moved)
    assert answer.status_code == 400 and answer.json()["field"] == "password"
    assert Connection.objects.get().url.endswith("@8.8.8.8:5432/sales")  # unchanged
    assert put_json(client, url, {**moved, "password": "typed-again"}).status_code == 200
    same_place = {"url": "postgresql+psycopg://reader@8.8.4.4:5432/sales", "read_only": False}
    assert put_json(client, url, same_place).status_code == 200  # the password stays
    assert Connection.objects.get().has_password
