"""The worker service and the TLS Dask cluster of docs/deploy.md, started from the page's
commands (tests/deploy/conftest.py), used as a browser and a script use them: two web
processes over Redis and PostgreSQL, `runworkers` executing every run on the cluster,
`runscheduler` firing schedules. Tests assert what arrives and how runs end, never durations.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time

import pandas as pd
import pytest
from distributed import get_task_stream

from editor.live.consumers import HEARTBEAT_S
from tests.editor.live.test_live_server import start_run, watch_run
from tests.editor.runs.helpers import chain
from tests.live_client import api_states, assert_complete_stream, open_socket, websocket_transport
from tests.servers import INPUT_CSV, api, create_pipeline, pause_pipeline

pytestmark = pytest.mark.server
RUN_TIMEOUT_S = 60
ACTIVE = ("queued", "running")


@pytest.fixture(scope="module", autouse=True)
def scheduled_pipeline(deployment) -> int:
    """A pipeline scheduled every minute, made first, so its minute comes while the others
    run: its id. A retry allowed: the worker the test below kills may be executing it."""
    web = deployment.web[0]
    document = pause_pipeline("scheduled", 1, 0.01)
    document["config"]["retries"] = 1
    pipeline_id = request(web, deployment.token, "POST", "/api/pipelines", document)["id"]
    request(web, deployment.token, "POST", f"/api/pipelines/{pipeline_id}/schedules",
            {"cron": "* * * * *"})  # fmt: skip
    return pipeline_id


def request(server, token: str, method: str, path: str, body=None):
    status, answer = server.request(method, path, body, token)
    assert status < 300, f"{method} {path}: {status} {answer}\n{server.errors()}"
    return answer


def wait_for(condition, timeout: float = RUN_TIMEOUT_S, what: str = "") -> object:
    """Poll `condition()` until it answers something true; that answer."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)
    return found


def finished_run(deployment, run_id: int) -> dict:
    def ended():
        body = request(deployment.web[1], deployment.token, "GET", f"/api/runs/{run_id}")
        return body if body["status"] not in ACTIVE else None

    return wait_for(ended, what=f"run {run_id} to end")


@pytest.mark.asyncio
async def test_a_run_started_on_one_web_process_streams_to_a_watcher_on_the_other(
    deployment,
):
    runner, watcher = deployment.web
    token, cookie = deployment.token, deployment.cookie
    pipeline_id = await create_pipeline(runner, token, pause_pipeline("across", 4, 0.05))
    view, run_id = await watch_run(
        watcher, pipeline_id, cookie, lambda: start_run(runner, token, pipeline_id)
    )

    assert_complete_stream(view, run_id)
    body = await api(watcher, "GET", f"/api/runs/{run_id}", token)
    assert body["status"] == "succeeded" and view.node_states(run_id) == api_states(body)


@pytest.mark.asyncio
async def test_an_idle_watchers_socket_stays_open_and_hears_heartbeats(deployment):
    """Idle for two heartbeats and more (35 s; the server beats every 15 s). With the
    list-based Redis layer, whose receive blocks for 5 s, redis-py 8's own 5 s socket timeout
    closed every idle socket (1011) after about 5 s."""
    runner, watcher = deployment.web
    pipeline_id = await create_pipeline(runner, deployment.token, pause_pipeline("idle", 1, 0))
    heard = []
    async with open_socket(watcher, pipeline_id, deployment.cookie) as socket:
        receive, send = websocket_transport(socket)
        assert (await receive())["type"] == "snapshot"
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2 * HEARTBEAT_S + 5):
                while True:
                    heard.append(await receive())
        await send({"type": "snapshot_request"})
        assert (await receive())["type"] == "snapshot"

    assert heard == [{"type": "heartbeat"}] * 2


def test_a_partitioned_run_over_4_files_spreads_its_partitions_over_both_tls_workers(
    deployment,
):
    sales = deployment.data_root / "shared" / "sales"
    sales.mkdir(parents=True)
    for index in range(4):
        frame = pd.DataFrame({"region": ["n", "s", "n"], "amount": [index, 2, 3]})
        frame.to_parquet(sales / f"part-{index}.parquet")
    document = chain(
        ("sales", "parquet_input", {"path": "shared/sales"}),
        ("some", "filter", {"condition": "amount > 0"}),
        ("by_region", "aggregate", {"group_by": ["region"], "aggregations": [
            {"column": "amount", "function": "sum", "name": "amount"}]}),
        ("write", "csv_output", {"path": "out/by_region.csv"}),
    )  # fmt: skip
    web, token = deployment.web[0], deployment.token
    pipeline_id = request(web, token, "POST", "/api/pipelines", document)["id"]
    with deployment.observer() as observer, get_task_stream(observer) as stream:
        run_id = request(web, token, "POST", f"/api/pipelines/{pipeline_id}/runs", {})["id"]
        body = finished_run(deployment, run_id)

    assert (body["status"], body["error"]) == ("succeeded", "")
    sales_node = body["nodes"]["sales"]["metrics"]
    assert (sales_node["backend"], sales_node["rows_out"]) == ("dask", 12)
    assert body["nodes"]["by_region"]["metrics"]["rows_out"] == 2
    partitions = [task for task in stream.data if "pipewright-run-" not in str(task["key"])]
    assert len({task["worker"] for task in partitions}) == 2


def test_a_worker_killed_mid_run_gives_the_run_its_documented_second_attempt(
    deployment,
):
    """docs/deploy.md: a run whose worker is lost starts again, once, on the worker Dask gives
    its task to next, when it committed nothing and its nodes allow a retry; its log says so."""
    document = chain(
        ("read", "csv_input", {"path": INPUT_CSV}),
        ("wait", "pause", {"seconds": 5}),
        ("write", "csv_output", {"path": "out/rows.csv"}),
        retries=1,
    )
    web, token = deployment.web[0], deployment.token
    pipeline_id = request(web, token, "POST", "/api/pipelines", document)["id"]
    run_id = request(web, token, "POST", f"/api/pipelines/{pipeline_id}/runs", {})["id"]
    with deployment.observer() as observer:
        worker = wait_for(lambda: worker_running(observer, run_id), what="the run's task")
        wait_for(
            lambda: (
                request(web, token, "GET", f"/api/runs/{run_id}")["nodes"]["wait"]["status"]
                == "running"
            ),
            what="node wait to run",
        )
        os.kill(observer.run(os.getpid, workers=[worker])[worker], signal.SIGKILL)
        body = finished_run(deployment, run_id)

    assert (body["status"], body["error"]) == ("succeeded", "")
    [note] = [line for line in body["logs"] if line["level"] == "warning"]
    assert note["message"].startswith(
        f"the Dask worker {worker} running the run was lost at node wait; the run starts again on "
    )
    assert {node["status"] for node in body["nodes"].values()} == {"succeeded"}


def worker_running(observer, run_id: int) -> str | None:
    """The address of the worker executing run `run_id`'s task, while one does."""
    for worker, keys in observer.processing().items():
        if any(str(key).startswith(f"pipewright-run-{run_id}-") for key in keys):
            return worker
    return None


def test_runscheduler_fires_the_schedule_and_the_run_executes(deployment, scheduled_pipeline: int):
    web, token = deployment.web[1], deployment.token
    path = f"/api/pipelines/{scheduled_pipeline}/runs"

    def fired():
        runs = request(web, token, "GET", path)["items"]
        return [run for run in runs if run["status"] not in ACTIVE]

    # its minute began at most 60 s after the schedule was made, which the tests above took
    [run, *_] = wait_for(fired, timeout=90, what="a run of the schedule")
    assert (run["trigger"], run["status"]) == ("schedule", "succeeded")
