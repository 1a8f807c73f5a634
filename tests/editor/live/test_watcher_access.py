"""An open live-view websocket closes (4403) once its user may no longer watch: they left the
workspace, or signed out of the session that opened it, or the session is gone. Through the
whole ASGI websocket stack (`AuthMiddlewareStack`, real session rows), as in test_consumers."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.sessions.models import Session

from editor.live import consumers
from editor.models import Membership, Pipeline, Role
from tests.editor.conftest import client_for
from tests.editor.live.test_consumers import communicator
from tests.live_client import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
CLOSED = {"type": "websocket.close", "code": consumers.FORBIDDEN}


@sync_to_async
def signed_in(user) -> str:
    """The cookie of a new session of `user`."""
    return session_cookie(client_for(user))


async def watching(pipeline_id: int, cookie: str):
    """A socket that connected and took its snapshot."""
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "snapshot"
    return socket


async def test_a_member_who_leaves_the_workspace_stops_hearing_its_pipelines(pipeline_id, other):
    pipeline = await sync_to_async(Pipeline.objects.get)(pk=pipeline_id)
    membership = await sync_to_async(Membership.objects.create)(
        workspace_id=pipeline.workspace_id, user=other, role=Role.VIEWER
    )
    socket = await watching(pipeline_id, await signed_in(other))

    await sync_to_async(membership.delete)()
    assert await socket.receive_output(timeout=5) == CLOSED


async def test_signing_out_closes_the_sockets_of_that_session_only(pipeline_id, owner):
    signing_out = await sync_to_async(client_for)(owner)
    leaving = await watching(pipeline_id, session_cookie(signing_out))
    kept = await watching(pipeline_id, await signed_in(owner))

    await sync_to_async(signing_out.post)("/accounts/logout/")
    assert await leaving.receive_output(timeout=5) == CLOSED
    assert await kept.receive_nothing(timeout=0.5)
    await kept.disconnect()


async def test_a_socket_whose_session_is_gone_closes_at_its_next_heartbeat(
    pipeline_id, cookie, monkeypatch
):
    """No signal tells of a session that expired or was deleted by hand: the heartbeat asks."""
    monkeypatch.setattr(consumers, "HEARTBEAT_S", 0.2)
    socket = await watching(pipeline_id, cookie)
    await sync_to_async(Session.objects.all().delete)()
    assert await socket.receive_output(timeout=5) == CLOSED
