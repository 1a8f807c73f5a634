"""`manage.py runworkers` as a service of its own: web processes in `service` mode queue runs,
the service claims and executes them, and every web process streams them (over Redis)."""

from __future__ import annotations

import asyncio
import signal

import pytest
from django.core.management import CommandError, call_command

from editor.models import Run
from tests.editor.live.test_live_server import start_run, succeeded, wait_for, watch_run
from tests.live_client import api_states, assert_complete_stream
from tests.servers import api, create_pipeline, pause_pipeline

SERVICE = {"PIPEWRIGHT_WORKERS": "service"}
ACTIVE = ("queued", "running")


@pytest.fixture
def web_and_workers(start_server, start_workers, redis_layer):
    """Two web processes that execute nothing, and one worker service, over one Redis."""

    def start():
        runner, watcher = start_server(2, {**redis_layer, **SERVICE})
        workers = start_workers(redis_layer, runner.data_root)
        return runner, watcher, workers

    return start


@pytest.mark.server
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_run_queued_on_one_web_process_executes_on_the_service_and_streams_to_another(
    web_and_workers, token, cookie
):
    runner, watcher, workers = await asyncio.to_thread(web_and_workers)
    pipeline_id = await create_pipeline(runner, token, pause_pipeline("service", 4, 0.05))
    view, run_id = await watch_run(
        watcher, pipeline_id, cookie, lambda: start_run(runner, token, pipeline_id)
    )

    assert_complete_stream(view, run_id)
    body = await api(watcher, "GET", f"/api/runs/{run_id}", token)
    assert body["status"] == "succeeded" and view.node_states(run_id) == api_states(body)
    run = await asyncio.to_thread(lambda: Run.objects.get(pk=run_id))
    assert run.pid == workers.process.pid


@pytest.mark.server
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_embedded_server_executes_the_runs_left_queued_when_it_starts(start_server, token):
    [web] = await asyncio.to_thread(start_server, 1, SERVICE)
    pipeline_id = await create_pipeline(web, token, pause_pipeline("left", 1, 0))
    run_id = await start_run(web, token, pipeline_id)
    await asyncio.to_thread(web.stop)

    [embedded] = await asyncio.to_thread(start_server, 1, None, web.data_root)
    body = await wait_for(embedded, token, run_id, lambda body: body["status"] not in ACTIVE)
    assert body["status"] == "succeeded"


@pytest.mark.server
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_embedded_server_that_never_looks_takes_queued_runs_only_once_it_queues_one(
    start_server, token
):
    """A server's first look is as it starts: a run queued before is still so seconds after
    (the default's look executes it, above). Woken by a run of its own, its pool takes every
    waiting run in turn."""
    [web] = await asyncio.to_thread(start_server, 1, SERVICE)
    left_id = await create_pipeline(web, token, pause_pipeline("left", 1, 0))
    left_run = await start_run(web, token, left_id)
    await asyncio.to_thread(web.stop)

    never_looks = {"PIPEWRIGHT_QUEUE_LOOK_S": "0"}
    [embedded] = await asyncio.to_thread(start_server, 1, never_looks, web.data_root)
    await asyncio.sleep(2)
    assert (await api(embedded, "GET", f"/api/runs/{left_run}", token))["status"] == "queued"

    own_id = await create_pipeline(embedded, token, pause_pipeline("own", 1, 0))
    own_run = await start_run(embedded, token, own_id)
    for run_id in (own_run, left_run):
        body = await wait_for(embedded, token, run_id, lambda body: body["status"] not in ACTIVE)
        assert body["status"] == "succeeded"


@pytest.mark.server
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_cancel_on_a_web_process_stops_the_run_on_the_service(web_and_workers, token):
    runner, watcher, _ = await asyncio.to_thread(web_and_workers)
    pipeline_id = await create_pipeline(runner, token, pause_pipeline("stuck", 1, 60))
    run_id = await start_run(runner, token, pipeline_id)
    await wait_for(runner, token, run_id, lambda body: body["status"] == "running")

    await api(watcher, "POST", f"/api/runs/{run_id}/cancel", token)
    body = await wait_for(runner, token, run_id, lambda body: body["status"] not in ACTIVE)
    assert body["status"] == "cancelled"
    assert body["nodes"]["p0"]["status"] == "cancelled"


def committing_then_pausing(name: str) -> dict:
    """`pause_pipeline` with an output written at once, and one after its long pause."""
    document = pause_pipeline(name, 1, 60)
    write = {"id": "write", "operator": "csv_output", "params": {"path": f"{name}.csv"}}
    later = {"id": "later", "operator": "csv_output", "params": {"path": f"{name}-later.csv"}}
    edges = [{"source": "read", "target": "write"}, {"source": "p0", "target": "later"}]
    return {
        **document,
        "nodes": [*document["nodes"], write, later],
        "edges": [*document["edges"], *edges],
    }


@pytest.mark.server
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_stopped_service_finishes_its_runs_and_a_second_signal_stops_them_saying_why(
    start_server, start_workers, redis_layer, token
):
    """The second SIGTERM used to cancel every run with an empty message. Now a run that
    committed nothing is queued again, says so in its log, and the next worker executes it
    (its events numbered after the first attempt's); one that committed ends `cancelled`,
    saying a shutdown stopped it."""
    [runner] = await asyncio.to_thread(start_server, 1, {**redis_layer, **SERVICE})
    two_at_once = {**redis_layer, "PIPEWRIGHT_MAX_RUNNING_PER_USER": "3"}
    workers = await asyncio.to_thread(start_workers, two_at_once, runner.data_root)
    finishing = await create_pipeline(runner, token, pause_pipeline("finishing", 6, 0.2))
    idle = await create_pipeline(runner, token, pause_pipeline("idle", 1, 60))
    writing = await create_pipeline(runner, token, committing_then_pausing("writing"))
    runs = [await start_run(runner, token, pipeline) for pipeline in (finishing, idle, writing)]
    finishing_run, idle_run, writing_run = runs
    for run_id in runs:
        await wait_for(runner, token, run_id, lambda body: body["status"] == "running")
    await wait_for(
        runner, token, writing_run, lambda body: body["nodes"]["write"]["status"] == "succeeded"
    )

    workers.process.send_signal(signal.SIGTERM)
    # A second SIGTERM sent before the first is handled is the same one: the service would
    # only finish its runs (and miss the 20 s below, on a busy machine).
    await asyncio.to_thread(workers.wait_to_say, "stopping: waiting for")
    done = await wait_for(runner, token, finishing_run, lambda body: body["status"] not in ACTIVE)
    assert done["status"] == "succeeded" and succeeded(done) == 7
    assert workers.process.poll() is None
    workers.process.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(workers.process.wait, 20) == 0

    stopped = await api(runner, "GET", f"/api/runs/{writing_run}", token)
    assert stopped["status"] == "cancelled"
    assert stopped["error"] == (
        "the run was stopped by a shutdown of the worker service executing it; the outputs it "
        "had committed before stay"
    )
    requeued = await api(runner, "GET", f"/api/runs/{idle_run}", token)
    assert requeued["status"] == "queued"
    assert {node["status"] for node in requeued["nodes"].values()} == {"pending"}
    assert requeued["logs"][-1]["message"] == (
        "the worker service executing this run was shut down before the run committed "
        "anything: the run is queued again, for the next worker"
    )
    last_seq = requeued["logs"][-1]["seq"]

    await asyncio.to_thread(start_workers, two_at_once, runner.data_root)
    again = await wait_for(
        runner, token, idle_run, lambda body: body["nodes"]["p0"]["status"] == "running"
    )
    assert again["status"] == "running" and again["nodes"]["read"]["status"] == "succeeded"
    await api(runner, "POST", f"/api/runs/{idle_run}/cancel", token)
    ended = await wait_for(runner, token, idle_run, lambda body: body["status"] not in ACTIVE)
    assert ended["status"] == "cancelled"
    assert min(line["seq"] for line in ended["logs"] if line["seq"] > last_seq) > last_seq


@pytest.mark.django_db
def test_runworkers_refuses_to_start_without_a_shared_channel_layer():
    with pytest.raises(CommandError, match="runworkers needs REDIS_URL"):
        call_command("runworkers")
