"""Websocket abuse against a real daphne process: floods in, and a client that never reads.

Each test performs the attack with raw `websockets` clients. A flooding client is closed
(4429 for too many messages, 4413 for a frame over 4 KiB); a client that stops reading while
a run streams its events is disconnected (4408) once its queue passes 1 MiB, the server's
memory (VmRSS) comes back to within 50 MiB of where it was, and a client that reads keeps
receiving every event.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
import websockets

from editor.live.backpressure import TOO_SLOW
from tests.live_client import (
    LiveView,
    assert_complete_stream,
    follow,
    open_socket,
    websocket_transport,
)
from tests.servers import DaphneServer, api, create_pipeline, pause_pipeline, rss_bytes

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.server]
MIB = 2**20


async def close_code(connection) -> int:
    """Read (and drop) whatever the server still sends, until it closes; its close code."""
    async with asyncio.timeout(10):
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await connection.recv()
    return closed.value.rcvd.code if closed.value.rcvd else 1006


async def test_a_client_flooding_messages_is_closed_with_4429(asgi_server, token, cookie):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("flood", 1, 0))
    async with open_socket(asgi_server, pipeline_id, cookie) as connection:
        assert json.loads(await connection.recv())["type"] == "snapshot"
        request = json.dumps({"type": "snapshot_request"})
        for _ in range(200):
            await connection.send(request)
        assert await close_code(connection) == 4429


async def test_a_client_that_asks_calmly_is_never_closed(asgi_server, token, cookie):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("calm", 1, 0))
    async with open_socket(asgi_server, pipeline_id, cookie) as connection:
        receive, send = websocket_transport(connection)
        assert (await receive())["type"] == "snapshot"
        for _ in range(30):  # a burst within the allowance
            await send({"type": "snapshot_request"})
        answers = [await receive() for _ in range(30)]
        assert {answer["type"] for answer in answers} == {"snapshot"}


async def test_a_frame_over_4_kib_is_refused_with_4413(asgi_server, token, cookie):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("big", 1, 0))
    async with open_socket(asgi_server, pipeline_id, cookie) as connection:
        assert json.loads(await connection.recv())["type"] == "snapshot"
        padding = "x" * (4 * 1024)
        await connection.send(json.dumps({"type": "snapshot_request", "padding": padding}))
        assert await close_code(connection) == 4413


@pytest.mark.parametrize("frame", ["[" * 4000, '{"type": NaN}', "not json"])
async def test_a_frame_that_is_not_plain_json_is_refused_with_4400(
    asgi_server, token, cookie, frame
):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("deep", 1, 0))
    printed_before = len(asgi_server.log())
    async with open_socket(asgi_server, pipeline_id, cookie) as connection:
        assert json.loads(await connection.recv())["type"] == "snapshot"
        await connection.send(frame)
        assert await close_code(connection) == 4400
    assert "Traceback" not in asgi_server.log()[printed_before:]


def chatty_pipeline(nodes: int) -> dict:
    """Many instant `pause` nodes with long ids: a run streams over 5 MiB of events."""
    document = pause_pipeline("chatty", nodes, 0, chains=40, max_concurrency=40)
    long_ids = {node["id"]: f"{node['id']}-{'x' * 90}" for node in document["nodes"][1:]}
    for node in document["nodes"]:
        node["id"] = long_ids.get(node["id"], node["id"])
    for edge in document["edges"]:
        edge["source"] = long_ids.get(edge["source"], edge["source"])
        edge["target"] = long_ids[edge["target"]]
    return document


def tiny_window_socket(server: DaphneServer) -> socket.socket:
    """A connected TCP socket whose receive buffer is tiny: the kernel holds little for it."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", server.port))
    return raw


async def watch_a_run(server: DaphneServer, pipeline_id: int, token: str, cookie: str):
    """Start a run and follow it to its end as a reading client; the view and the peak RSS."""
    async with open_socket(server, pipeline_id, cookie) as reader:
        transport = websocket_transport(reader)
        view = await follow(LiveView(), *transport, until=lambda view: view.snapshots)
        run_id = (await api(server, "POST", f"/api/pipelines/{pipeline_id}/runs", token, {}))["id"]
        await follow(view, *transport, until=lambda view: view.finished(run_id), timeout=120)
        peak = rss_bytes(server.process.pid)
    assert_complete_stream(view, run_id)
    return view, peak


async def test_a_client_that_never_reads_is_disconnected_and_the_memory_comes_back(
    start_server, token, cookie
):
    [server] = await asyncio.to_thread(start_server)
    warm_up, pipeline_id = [
        await create_pipeline(server, token, chatty_pipeline(4000)) for _ in "ab"
    ]
    view, _ = await watch_a_run(server, warm_up, token, cookie)  # the run's own memory, once
    assert sum(len(json.dumps(frame)) for frame in view.frames) > 5 * MIB
    baseline = rss_bytes(server.process.pid)

    stalled = await websockets.connect(
        f"{server.ws_url}/ws/pipelines/{pipeline_id}/",
        sock=tiny_window_socket(server),
        origin=server.url,
        additional_headers={"Cookie": cookie},
        max_queue=1,  # the client library stops reading once one message waits
    )
    _, peak = await watch_a_run(server, pipeline_id, token, cookie)  # the reader misses nothing

    # The close frame waits behind what the client never read, so it usually sees the TCP
    # connection dropped (1006) one close-handshake timeout later rather than the 4408 itself.
    assert await close_code(stalled) in (TOO_SLOW, 1006)
    settled = rss_bytes(server.process.pid)
    figures = f"RSS {baseline / MIB:.0f} MiB, peak {peak / MIB:.0f}, after {settled / MIB:.0f}"
    assert settled - baseline < 50 * MIB, figures
