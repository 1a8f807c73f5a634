"""While the database cannot be reached the server answers 503 with `Retry-After` (JSON under
/api/, a plain page elsewhere), never 500: here SQLite stays locked by another connection for
longer than the server's connections wait for it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from tests.editor.conftest import SEED

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="a lock of SQLite's own"),
]


@pytest.fixture
def locked_database(monkeypatch) -> Iterator[None]:
    """Another connection holds SQLite's write lock; the server's give up after 0.2 s."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.2)
    connection.close()  # the next request connects with the short timeout
    holder = sqlite3.connect(connection.settings_dict["NAME"])
    holder.execute("BEGIN IMMEDIATE")
    yield
    holder.rollback()
    holder.close()


def test_an_api_write_answers_503_with_retry_after_while_the_database_is_locked(
    token, locked_database
):
    client = Client(raise_request_exception=False)
    response = client.post(
        "/api/pipelines", SEED, content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["code"] == "database_unavailable"


def test_signing_in_answers_a_503_page_while_the_database_is_locked(owner, locked_database):
    client = Client(raise_request_exception=False)
    response = client.post("/accounts/login/", {"username": "owner", "password": "pw-secret-123"})
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert b"Try again shortly" in response.content
