"""Secrets never come back out: connection passwords are write-only, a token is shown once
and only its hash is stored.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from editor.models import ApiToken, Connection
from tests.editor.admin.conftest import SECRET
from tests.editor.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_connection_password_is_write_only(admin_client, connection):
    url = f"/admin/editor/connection/{connection.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert SECRET not in page and "Leave empty to keep the current one." in page
    body = {
        "workspace": connection.workspace_id,
        "name": "sales",
        "url": connection.url,
        "description": "reporting",
        "password": "",
        "read_only": "on",
    }
    assert admin_client.post(url, body).status_code == 302
    connection.refresh_from_db()
    assert connection.description == "reporting"
    assert SECRET in connection.full_url() and SECRET not in connection.encrypted_password
    assert admin_client.post(url, {**body, "password": "rotated"}).status_code == 302
    connection.refresh_from_db()
    assert "rotated" in connection.full_url()
    for page in ("", "?q=sales", f"{connection.pk}/history/", f"{connection.pk}/delete/"):
        assert b"rotated" not in admin_client.get(f"/admin/editor/connection/{page}").content


def test_a_password_inside_the_connection_url_is_refused(admin_client):
    body = {"name": "leaky", "url": f"postgresql://app:{SECRET}@db/sales", "password": ""}
    response = admin_client.post("/admin/editor/connection/add/", body)
    assert "put the password in the password field, not in the URL" in response.content.decode()
    assert not Connection.objects.exists()


def test_staff_without_permissions_cannot_manage_connections(staff, connection):
    response = client_for(staff).get("/admin/editor/connection/")
    assert response.status_code == 403


def test_a_new_token_is_shown_once_and_only_its_hash_is_stored(admin_client, owner):
    response = admin_client.post(
        "/admin/editor/apitoken/add/", {"user": owner.pk, "name": "ci"}, follow=True
    )
    key = re.search(r"pw_[A-Za-z0-9_-]{43}", response.content.decode())[0]
    token = ApiToken.objects.get(user=owner, name="ci")
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert token.prefix == key[:8]
    assert key not in json.dumps(list(ApiToken.objects.values()), default=str)
    for page in ("", f"{token.pk}/change/"):
        content = admin_client.get(f"/admin/editor/apitoken/{page}").content
        assert key.encode() not in content and token.key_hash.encode() not in content
