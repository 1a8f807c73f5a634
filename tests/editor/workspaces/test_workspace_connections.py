"""Connections belong to a workspace: named per workspace, their passwords encrypted and never
shown, their URLs neither leaking a secret nor reaching a file outside the workspace's folder
(through the API and the admin alike), and their keys rotated without losing one.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from editor.models import Connection
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import client_for, put_json


@pytest.mark.django_db
def test_connections_are_named_per_workspace_and_their_passwords_never_shown(client, other, owner):
    url = "/api/workspaces/owner/connections/warehouse"
    body = {"url": "postgresql+psycopg://app@db.example.com/sales", "password": "hunter2-x"}
    assert put_json(client, url, body).status_code == 200
    connection = Connection.objects.get()
    assert "hunter2" not in connection.encrypted_password and "hunter2" in connection.full_url()
    listed = client.get("/api/workspaces/owner/connections").content.decode()
    assert "hunter2" not in listed and '"has_password": true' in listed
    other_view = client_for(other).get("/api/workspaces/owner/connections")
    assert other_view.status_code == 404
    assert client_for(other).get("/api/workspaces/other/connections").json() == {"items": []}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://app:hunter2@db/sales", "not in the URL"),
        ("postgresql://app@db/sales?password=hunter2", "not in the URL's options"),
        ("sqlite:////work/main/db.sqlite3", "inside the workspace's folder"),
        ("sqlite:///../other/shop.db", "inside the workspace's folder"),
        ("sqlite:///file:shop.db?mode=ro&uri=true", "takes no options"),
        ("sqlite://", "is a file in the workspace"),
    ],
    ids=["user-info", "query", "absolute", "dot-dot", "uri", "memory"],
)
def test_connection_urls_that_leak_or_escape_are_refused(client, url, message):
    answer = put_json(client, "/api/workspaces/owner/connections/db", {"url": url})
    assert answer.status_code == 400 and message in answer.json()["message"]
    assert "hunter2" not in answer.content.decode()
    assert not Connection.objects.exists()


@pytest.mark.django_db
def test_rotatekeys_reencrypts_with_the_newest_key_and_old_keys_still_read(owner, settings):
    from cryptography.fernet import Fernet

    from editor import encryption

    old = settings.PIPEWRIGHT_ENCRYPTION_KEYS[0]
    connection = Connection(
        workspace=personal_workspace(owner), name="db", url="postgresql://a@b/c"
    )
    connection.set_password("s3cret-pw")
    connection.save()
    new = Fernet.generate_key().decode()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new, old]
    call_command("rotatekeys")
    connection.refresh_from_db()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new]
    assert "s3cret-pw" in connection.full_url()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [old]
    with pytest.raises(encryption.UnreadableSecret):
        connection.full_url()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["sqlite:////work/main/db.sqlite3", "sqlite:///file:db.sqlite3?uri=true", "sqlite:///../x.db"],
)
def test_the_admin_refuses_sqlite_files_outside_the_workspace(admin_client, owner, url):
    body = {
        "workspace": personal_workspace(owner).pk,
        "name": "escape",
        "url": url,
        "password": "",
        "read_only": "on",
    }
    page = admin_client.post("/admin/editor/connection/add/", body)
    assert page.status_code == 200 and "errorlist" in page.content.decode()
    assert not Connection.objects.exists()
