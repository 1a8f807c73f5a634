"""The live view's websocket, through Channels' test communicator, with real runs.

Runs start through `editor.runs.actions.start_run` and execute on the launcher's threads of this
process; their frames reach the consumer through the in-memory channel layer, as in the
embedded server.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from channels.testing import WebsocketCommunicator

from editor.live import consumers, relay
from editor.live.routing import websocket_urlpatterns
from editor.models import NodeRun, Pipeline
from editor.runs import actions
from tests.editor.conftest import client_for, post_json
from tests.live_client import (
    LiveView,
    api_states,
    assert_complete_stream,
    follow,
    session_cookie,
)
from tests.servers import pause_pipeline, write_input

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

application = AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
ORIGIN = (b"origin", b"http://127.0.0.1")


def communicator(pipeline_id: int, cookie: str = "") -> WebsocketCommunicator:
    headers = [ORIGIN, (b"cookie", cookie.encode())] if cookie else [ORIGIN]
    return WebsocketCommunicator(application, f"/ws/pipelines/{pipeline_id}/", headers=headers)


def transport(socket: WebsocketCommunicator):
    """`(receive, send)` for `follow`."""
    return (lambda: socket.receive_json_from(timeout=5)), socket.send_json_to


@pytest.fixture
def slow_pipeline(owner, client, pause_operator, settings, tmp_path) -> Pipeline:
    """Eight `pause` nodes of 0.08 s in a chain: a run lasts about 0.7 s."""
    settings.PIPEWRIGHT_DATA_ROOT = write_input(tmp_path)
    response = post_json(client, "/api/pipelines", pause_pipeline("slow", 8, 0.08))
    assert response.status_code == 201, response.content
    return Pipeline.objects.get(pk=response.json()["id"])


async def start_run(pipeline: Pipeline, user) -> int:
    run = await sync_to_async(actions.start_run)(pipeline, user)
    return run.pk


async def run_body(client, run_id: int) -> dict:
    return (await sync_to_async(client.get)(f"/api/runs/{run_id}")).json()


@pytest.fixture(params=["anonymous", "another user", "missing pipeline"])
def unwelcome(request, other, pipeline_id, cookie) -> tuple[int, str]:
    """`(pipeline id, cookie)` of someone who may not watch."""
    if request.param == "anonymous":
        return pipeline_id, ""
    if request.param == "another user":
        return pipeline_id, session_cookie(client_for(other))
    return pipeline_id + 1000, cookie


async def test_whoever_may_not_see_the_pipeline_is_closed_with_4403(unwelcome):
    socket = communicator(*unwelcome)
    connected, _ = await socket.connect()
    assert connected  # accepted first, so that the browser sees the close code
    assert await socket.receive_output() == {"type": "websocket.close", "code": 4403}


async def test_before_any_run_the_snapshot_is_empty(pipeline_id, cookie):
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert await socket.receive_json_from() == {"type": "snapshot", "seq": 0, "run": None}
    await socket.disconnect()


async def test_a_run_streams_every_event_in_seq_order_ending_with_run_finished(
    slow_pipeline, owner, client, cookie
):
    socket = communicator(slow_pipeline.pk, cookie)
    assert (await socket.connect())[0]
    view = await follow(LiveView(), *transport(socket), until=lambda view: view.snapshots)
    run_id = await start_run(slow_pipeline, owner)
    await follow(view, *transport(socket), until=lambda view: view.finished(run_id))
    await socket.disconnect()

    assert_complete_stream(view, run_id)
    assert view.dropped == 0
    body = await run_body(client, run_id)
    assert body["status"] == "succeeded" and body["last_seq"] == view.runs[run_id].seq
    assert view.node_states(run_id) == api_states(body)
    assert {state["status"] for state in api_states(body).values()} == {"succeeded"}


async def test_a_snapshot_request_is_answered_with_a_fresh_snapshot(
    slow_pipeline, owner, client, cookie
):
    socket = communicator(slow_pipeline.pk, cookie)
    assert (await socket.connect())[0]
    view = await follow(LiveView(), *transport(socket), until=lambda view: view.snapshots)
    run_id = await start_run(slow_pipeline, owner)
    await follow(view, *transport(socket), until=lambda view: view.finished(run_id))

    await socket.send_json_to({"type": "snapshot_request"})
    snapshot = await socket.receive_json_from()
    await socket.disconnect()
    body = await run_body(client, run_id)
    assert snapshot["type"] == "snapshot" and snapshot["seq"] == body["last_seq"]
    assert snapshot["run"] == {
        "id": run_id, "number": body["number"], "revision": body["revision"],
        "status": "succeeded", "started_at": body["started_at"], "nodes": api_states(body),
    }  # fmt: skip


async def test_a_client_reconnecting_mid_run_ends_with_the_complete_state(
    slow_pipeline, owner, client, cookie
):
    socket = communicator(slow_pipeline.pk, cookie)
    assert (await socket.connect())[0]
    view = await follow(LiveView(), *transport(socket), until=lambda view: view.snapshots)
    run_id = await start_run(slow_pipeline, owner)
    await follow(view, *transport(socket), until=lambda view: view.count(run_id, "succeeded") >= 1)
    await socket.disconnect()
    heard = view.runs[run_id].seq
    while await _succeeded_in_database(run_id) < 3:  # events go by while nobody listens
        await asyncio.sleep(0.02)

    socket = communicator(slow_pipeline.pk, cookie)
    assert (await socket.connect())[0]
    await follow(view, *transport(socket), until=lambda view: view.finished(run_id))
    await socket.disconnect()

    reconnected = view.snapshots[1]
    assert reconnected["run"]["status"] == "running" and reconnected["seq"] > heard
    seqs = [event["seq"] for event in view.applied]
    assert seqs == sorted(set(seqs))  # nothing applied twice
    body = await run_body(client, run_id)
    assert body["status"] == "succeeded" and view.runs[run_id].seq == body["last_seq"]
    assert view.node_states(run_id) == api_states(body)


async def test_a_client_that_missed_a_frame_catches_up_with_a_snapshot(
    slow_pipeline, owner, client, cookie
):
    socket = communicator(slow_pipeline.pk, cookie)
    assert (await socket.connect())[0]
    receive, send = transport(socket)
    lost = []

    async def lossy_receive() -> dict:
        message = await receive()
        if message["type"] == "events" and not lost:
            lost.append(message)  # as if the frame never came
            message = await receive()
        return message

    view = await follow(LiveView(), lossy_receive, send, until=lambda view: view.snapshots)
    run_id = await start_run(slow_pipeline, owner)
    await follow(view, lossy_receive, send, until=lambda view: view.finished(run_id))
    await socket.disconnect()

    assert lost and len(view.snapshots) >= 2
    body = await run_body(client, run_id)
    assert view.runs[run_id].seq == body["last_seq"]
    assert view.node_states(run_id) == api_states(body)


async def test_an_idle_connection_gets_heartbeats(pipeline_id, cookie, monkeypatch):
    monkeypatch.setattr(consumers, "HEARTBEAT_S", 0.05)
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "snapshot"
    assert await socket.receive_json_from() == {"type": "heartbeat"}
    await socket.disconnect()


async def test_a_large_batch_goes_out_as_chained_frames_of_bounded_size(pipeline_id, cookie):
    """A run of thousands of nodes starts with one huge batch: one frame would pass 1 MiB."""
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "snapshot"
    batch = [
        {"run_id": 1, "seq": seq, "type": "node_status", "node": f"n{seq}", "status": "queued"}
        for seq in range(11, 11 + 2 * relay.MAX_FRAME_EVENTS + 1)
    ]
    await sync_to_async(relay.broadcast)(pipeline_id, 10, batch)

    frames = [await socket.receive_json_from() for _ in range(3)]
    await socket.disconnect()
    assert [frame["after_seq"] for frame in frames] == [10, 510, 1010]
    assert [len(frame["events"]) for frame in frames] == [500, 500, 1]
    assert [item["event"] for frame in frames for item in frame["events"]] == batch


async def test_a_flood_of_snapshot_requests_is_closed_with_4429(pipeline_id, cookie):
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "snapshot"
    for _ in range(100):
        await socket.send_json_to({"type": "snapshot_request"})
    answers = []
    while (message := await socket.receive_output(timeout=5))["type"] == "websocket.send":
        answers.append(message)
    assert message == {"type": "websocket.close", "code": 4429}
    assert len(answers) < 100  # about the burst allowance (40): the rest is never answered


@sync_to_async
def _succeeded_in_database(run_id: int) -> int:
    return NodeRun.objects.filter(run_id=run_id, status="succeeded").count()
