"""Where runs on Dask find their cluster, as deployments set it up: a scheduler and two
workers started with the `dask` commands, over TLS; web processes sharing Redis with runs on
such a cluster; a scheduler that cannot be reached, or has no worker yet; an address that is
neither tcp:// nor tls://, which stops the server at start. Real Dask throughout."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import dask
import pytest
from distributed import Client, get_task_stream

from editor.models import Run
from editor.runs import dask_cluster
from tests.dask_clusters import DaskProcesses, tls_config
from tests.editor.conftest import SEED, wait_for_run
from tests.editor.live.test_live_server import start_run as start_live_run
from tests.editor.live.test_live_server import watch_run
from tests.editor.runs.helpers import nodes_of, run_over_a_folder, start, wait_until, waiting_note
from tests.live_client import api_states, assert_complete_stream
from tests.servers import api, create_pipeline, pause_pipeline

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]  # Dask processes


def test_an_unreachable_scheduler_fails_the_run_naming_its_address(client, data_root, settings):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{unused.getsockname()[1]}"
    settings.PIPEWRIGHT_DASK_SCHEDULER = address
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        run = wait_for_run(start(client, SEED))
    assert run.status == "failed"
    assert run.error.startswith(f"could not reach the Dask scheduler at {address}: ")
    assert not (data_root / "out").exists()  # nothing ran here instead


def test_a_run_waits_queued_while_the_cluster_has_no_worker_then_fails(
    client, data_root, settings, no_worker
):
    settings.PIPEWRIGHT_DASK_WAIT_S = 1
    run_id = start(client, SEED)
    wait_until(lambda: Run.objects.get(pk=run_id).error == waiting_note(no_worker))
    assert Run.objects.get(pk=run_id).status == "queued"
    run = wait_for_run(run_id)
    assert (run.status, run.error) == ("failed", (
        f"no Dask worker came within 1 s (PIPEWRIGHT_DASK_WAIT): the cluster at "
        f"{no_worker.scheduler_address} has none"
    ))  # fmt: skip
    assert {row.status for row in nodes_of(run_id).values()} == {"cancelled"}


def test_a_run_waiting_for_a_worker_runs_once_one_comes(client, data_root, no_worker):
    run_id = start(client, SEED)
    wait_until(lambda: Run.objects.get(pk=run_id).error == waiting_note(no_worker))
    no_worker.scale(1)
    run = wait_for_run(run_id, timeout=60)
    assert (run.status, run.error) == ("succeeded", "")
    assert (data_root / "out" / "adults.csv").exists()


@pytest.fixture(scope="module")
def dask_commands(tmp_path_factory, plugin_site):
    """A scheduler and two workers, each started with the `dask` command, over TLS."""
    processes = DaskProcesses(tmp_path_factory.mktemp("dask"), workers=2, python_path=[plugin_site])
    yield processes
    dask_cluster.cluster_clients.close()
    processes.stop()


def test_runs_go_to_a_scheduler_and_workers_started_with_the_dask_commands_over_tls(
    client, data_root, settings, dask_commands
):
    settings.PIPEWRIGHT_DASK_SCHEDULER = dask_commands.address
    assert dask_commands.address.startswith("tls://")
    with dask.config.set(tls_config(dask_commands.credentials)):
        run = wait_for_run(start(client, SEED))
    assert (run.status, run.error) == ("succeeded", "")
    assert {node: row.status for node, row in nodes_of(run.pk).items()} == {
        "read": "succeeded", "adults": "succeeded", "write": "succeeded",
    }  # fmt: skip
    assert (data_root / "out" / "adults.csv").read_text().splitlines() == [
        "id,name,age", "1,Ada,36", "3,Grace,85",
    ]  # fmt: skip


def test_a_partitioned_run_on_the_tls_cluster_spreads_its_partitions_over_both_workers(
    client, data_root, settings, dask_commands
):
    """The run's task is on a worker started with `--tls-*` options only: its partitions go
    through that worker's own client (a new one would have no TLS configuration)."""
    settings.PIPEWRIGHT_DASK_SCHEDULER = dask_commands.address
    with (
        dask.config.set(tls_config(dask_commands.credentials)),
        Client(dask_commands.address, set_as_default=False) as observer,
        get_task_stream(observer) as stream,
    ):
        run, nodes = run_over_a_folder(client, data_root, files=4)

    assert (run.status, run.error) == ("succeeded", "")
    assert nodes["sales"].metrics["backend"] == "dask"
    partitions = [task for task in stream.data if "pipewright-run-" not in str(task["key"])]
    assert len({task["worker"] for task in partitions}) == 2


def test_a_scheduler_address_neither_tcp_nor_tls_stops_the_server_at_start():
    environ = {**os.environ, "PIPEWRIGHT_DASK_SCHEDULER": "http://scheduler:8786"}
    started = subprocess.run(
        [sys.executable, "-c", "import pipewright.settings"],
        env=environ, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    assert started.returncode != 0
    assert (
        "PIPEWRIGHT_DASK_SCHEDULER is 'http://scheduler:8786': write tcp://host:port, or "
        "tls://host:port with Dask's TLS configuration (docs/deploy.md)"
    ) in started.stderr


@pytest.mark.asyncio
async def test_two_web_processes_over_redis_watch_a_run_that_executes_on_the_cluster(
    start_server, redis_layer, dask_commands, token, cookie
):
    """The deployment docs/deploy.md draws: web processes sharing Redis, runs on a cluster
    started with the `dask` commands; one process starts the run, the other streams it."""
    credentials = dask_commands.credentials
    cluster = {
        "PIPEWRIGHT_DASK_SCHEDULER": dask_commands.address,
        "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(credentials["ca"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(credentials["cert"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(credentials["key"]),
        "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
    }
    runner, watcher = await asyncio.to_thread(start_server, 2, {**redis_layer, **cluster})
    pipeline_id = await create_pipeline(runner, token, pause_pipeline("on dask", 4, 0.05))
    view, run_id = await watch_run(
        watcher, pipeline_id, cookie, lambda: start_live_run(runner, token, pipeline_id)
    )

    assert_complete_stream(view, run_id)
    body = await api(watcher, "GET", f"/api/runs/{run_id}", token)
    assert body["status"] == "succeeded" and view.node_states(run_id) == api_states(body)
    run = await asyncio.to_thread(Run.objects.get, pk=run_id)
    assert run.host and run.pid != os.getpid()  # supervised by the runner, not this process
