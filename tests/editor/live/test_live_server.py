"""Live execution end to end: daphne processes, the HTTP API and real websockets.

Runs start over HTTP (a bearer token) and are watched over websockets (the session cookie,
an Origin header), as a browser and a script would. The servers serve this test's database;
Redis carries frames between two servers. These tests fail, never skip, when daphne or
Redis are missing.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from editor.models import NodeRun
from tests.live_client import (
    LiveView,
    api_states,
    assert_complete_stream,
    follow,
    open_socket,
    websocket_transport,
)
from tests.servers import DaphneServer, api, create_pipeline, pause_pipeline

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.server]
ACTIVE = ("queued", "running")


async def start_run(server: DaphneServer, token: str, pipeline_id: int) -> int:
    return (await api(server, "POST", f"/api/pipelines/{pipeline_id}/runs", token, {}))["id"]


async def wait_for(server: DaphneServer, token: str, run_id: int, done, timeout: float = 15):
    """Poll `GET /api/runs/{id}` until `done(body)`; the last answer."""
    async with asyncio.timeout(timeout):
        while not done(body := await api(server, "GET", f"/api/runs/{run_id}", token)):
            await asyncio.sleep(0.02)
    return body


def succeeded(body: dict) -> int:
    return sum(node["status"] == "succeeded" for node in body["nodes"].values())


async def watch_run(server, pipeline_id, cookie, start) -> tuple[LiveView, int]:
    """Connect, take the snapshot, call `start()` for a run id, follow it to its end."""
    async with open_socket(server, pipeline_id, cookie) as socket:
        transport = websocket_transport(socket)
        view = await follow(LiveView(), *transport, until=lambda view: view.snapshots)
        run_id = await start()
        await follow(view, *transport, until=lambda view: view.finished(run_id))
    return view, run_id


@sync_to_async
def database_states(run_id: int) -> dict[str, dict]:
    rows = NodeRun.objects.filter(run_id=run_id)
    return {
        row.node_id: {"status": row.status, "metrics": row.metrics, "spans": row.attempt_spans}
        for row in rows
    }


async def test_a_run_started_over_http_streams_every_event_to_a_websocket(
    asgi_server, token, cookie
):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("stream", 5, 0.05))
    view, run_id = await watch_run(
        asgi_server, pipeline_id, cookie, lambda: start_run(asgi_server, token, pipeline_id)
    )

    assert_complete_stream(view, run_id)
    assert view.dropped == 0
    body = await api(asgi_server, "GET", f"/api/runs/{run_id}", token)
    assert body["status"] == "succeeded" == view.runs[run_id].status
    assert body["last_seq"] == view.runs[run_id].seq
    assert view.node_states(run_id) == api_states(body) == await database_states(run_id)
    assert succeeded(body) == 6


async def test_reconnecting_mid_run_loses_nothing_and_duplicates_nothing(
    asgi_server, token, cookie
):
    pipeline_id = await create_pipeline(asgi_server, token, pause_pipeline("resume", 8, 0.08))
    view = LiveView()
    async with open_socket(asgi_server, pipeline_id, cookie) as socket:
        transport = websocket_transport(socket)
        await follow(view, *transport, until=lambda view: view.snapshots)
        run_id = await start_run(asgi_server, token, pipeline_id)
        await follow(view, *transport, until=lambda view: view.count(run_id, "succeeded") >= 1)
    heard = view.runs[run_id].seq
    await wait_for(asgi_server, token, run_id, lambda body: succeeded(body) >= 3)

    async with open_socket(asgi_server, pipeline_id, cookie) as socket:
        await follow(view, *websocket_transport(socket), until=lambda view: view.finished(run_id))

    reconnected = view.snapshots[1]
    assert reconnected["run"]["status"] == "running" and reconnected["seq"] > heard
    seqs = [event["seq"] for event in view.applied]
    assert seqs == sorted(set(seqs))
    body = await api(asgi_server, "GET", f"/api/runs/{run_id}", token)
    assert body["status"] == "succeeded" and body["last_seq"] == view.runs[run_id].seq
    assert view.node_states(run_id) == api_states(body)


async def test_concurrent_runs_of_two_pipelines_never_cross_streams(asgi_server, token, cookie):
    first, second = [
        await create_pipeline(asgi_server, token, pause_pipeline(name, 4, 0.05))
        for name in ("first", "second")
    ]
    views = await asyncio.gather(
        *(
            watch_run(
                asgi_server, pipeline, cookie, lambda p=pipeline: start_run(asgi_server, token, p)
            )
            for pipeline in (first, second)
        )
    )

    run_ids = [run_id for _, run_id in views]
    for view, run_id in views:
        assert set(view.runs) == {run_id}
        assert {item["run_id"] for frame in view.frames for item in frame["events"]} == {run_id}
        assert_complete_stream(view, run_id)
        body = await api(asgi_server, "GET", f"/api/runs/{run_id}", token)
        assert view.node_states(run_id) == api_states(body)
    assert len(set(run_ids)) == 2


async def test_over_redis_a_run_on_one_server_streams_to_a_websocket_on_another(
    start_server, redis_layer, token, cookie
):
    runner, watcher = await asyncio.to_thread(start_server, 2, redis_layer)
    pipeline_id = await create_pipeline(runner, token, pause_pipeline("across", 4, 0.05))
    view, run_id = await watch_run(
        watcher, pipeline_id, cookie, lambda: start_run(runner, token, pipeline_id)
    )

    assert_complete_stream(view, run_id)
    on_runner = await api(runner, "GET", f"/api/runs/{run_id}", token)
    on_watcher = await api(watcher, "GET", f"/api/runs/{run_id}", token)
    assert on_runner == on_watcher and on_runner["status"] == "succeeded"
    assert view.node_states(run_id) == api_states(on_watcher)


async def test_a_server_killed_during_a_run_leaves_it_interrupted_after_a_restart(
    start_server, token, cookie
):
    [doomed] = await asyncio.to_thread(start_server)
    pipeline_id = await create_pipeline(doomed, token, pause_pipeline("doomed", 8, 0.1))
    run_id = await start_run(doomed, token, pipeline_id)
    await wait_for(doomed, token, run_id, lambda body: succeeded(body) >= 2)
    doomed.kill()

    [restarted] = await asyncio.to_thread(start_server, 1, None, doomed.data_root)
    body = await wait_for(restarted, token, run_id, lambda body: body["status"] not in ACTIVE)

    assert body["status"] == "interrupted"
    assert body["error"] == "the server process running it stopped before it finished"
    statuses = [node["status"] for node in body["nodes"].values()]
    assert statuses.count("succeeded") >= 2 and statuses.count("interrupted") >= 1
    assert set(statuses) == {"succeeded", "interrupted"}
    async with open_socket(restarted, pipeline_id, cookie) as socket:
        snapshot = await follow(
            LiveView(), *websocket_transport(socket), until=lambda view: view.snapshots
        )
    assert snapshot.runs[run_id].status == "interrupted"
