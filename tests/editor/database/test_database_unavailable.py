"""While the database cannot be reached the server answers 503 with `Retry-After` (JSON under
/api/, a plain page elsewhere), never 500: here SQLite stays locked by another connection for
longer than the server's connections wait for it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import Client

from editor.live import consumers
from tests.editor.conftest import SEED
from tests.editor.live.test_consumers import communicator

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="a lock of SQLite's own"),
]


def lock_database(monkeypatch) -> sqlite3.Connection:
    """Another connection holds SQLite's write lock (until it is closed); the server's
    connections give up after 0.2 s."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.2)
    connection.close()  # the next request connects with the short timeout
    holder = sqlite3.connect(connection.settings_dict["NAME"], check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    return holder


@pytest.fixture
def locked_database(monkeypatch) -> Iterator[None]:
    holder = lock_database(monkeypatch)
    yield
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


@pytest.mark.asyncio
async def test_a_live_view_asking_for_a_snapshot_is_told_to_come_back_later(
    pipeline_id, cookie, monkeypatch
):
    """No snapshot to start from: closed with 4503 (try again later), not a server error;
    the browser reconnects with backoff."""
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "snapshot"
    holder = await sync_to_async(lock_database)(monkeypatch)
    try:
        await socket.send_json_to({"type": "snapshot_request"})
        assert await socket.receive_output(timeout=10) == {
            "type": "websocket.close", "code": consumers.TRY_AGAIN_LATER,
        }  # fmt: skip
    finally:
        await sync_to_async(holder.close)()
