"""Runs on a Dask cluster (PIPEWRIGHT_DASK_SCHEDULER), from the web app's side: recorded as a
local run is, cancelled, given a clear end when a worker is lost or none is there, and never
showing a password to the cluster. Real Dask throughout: a `LocalCluster` of two worker
processes for the module, and a scheduler and two workers started with the `dask` commands,
over TLS. Tests assert order and final states, never durations."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import dask
import pandas as pd
import pytest
from distributed import Client, LocalCluster, get_task_stream

from editor.models import Run, RunLog
from editor.runs import dask_cluster
from editor.runs.dask import DaskSupervisor
from editor.runs.local import LocalSupervisor
from runtime.budget import Budget
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.operators.registry import default_registry
from runtime.plan import build_plan
from runtime.worker.wire import RunOrder
from tests.dask_clusters import DaskProcesses, tls_config
from tests.editor.conftest import SEED, wait_for_run
from tests.editor.live.test_live_server import start_run as start_live_run
from tests.editor.live.test_live_server import watch_run
from tests.editor.runs.helpers import (
    chain,
    files_under,
    nodes_of,
    start,
    wait_for_node,
    wait_until,
    without_timing,
)
from tests.live_client import api_states, assert_complete_stream
from tests.servers import api, create_pipeline, pause_pipeline

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]  # Dask processes

PASSWORD = "pw-7c1e-never-shown"
WAITING = chain(
    ("read", "csv_input", {"path": "people.csv"}),
    ("wait", "pause", {"seconds": 60}),
    ("write", "csv_output", {"path": "out/people.csv"}),
)
"""A run whose node `wait` runs until it is cancelled, or its worker lost."""


@pytest.fixture(scope="module")
def cluster(plugin_site):
    """Two worker processes with their nannies (a killed worker is started again), which find
    the demo plugin's operators: they are spawned with this process's module path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(plugin_site))
        default_registry.cache_clear()  # this process finds them too
        with LocalCluster(
            n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0"
        ) as local:
            yield local
            dask_cluster.cluster_clients.close()
    default_registry.cache_clear()


@pytest.fixture(scope="module")
def observer(cluster):
    """A client of the test's own, to look at the cluster as its operator would."""
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        yield client


@pytest.fixture
def on_the_cluster(cluster, settings):
    """Runs started through the API execute on `cluster`."""
    settings.PIPEWRIGHT_DASK_SCHEDULER = cluster.scheduler_address
    return cluster


def task_of(observer: Client, run_id: int | str) -> tuple[str, str] | None:
    """The key of run `run_id`'s task and the worker it executes on, while it does."""
    for worker, keys in observer.processing().items():
        for key in keys:
            if key.startswith(f"pipewright-run-{run_id}-"):
                return key, worker
    return None


def kill_worker_of(observer: Client, run_id: int) -> str:
    """SIGKILL the worker process executing run `run_id`; its address."""
    _, worker = task_of(observer, run_id)
    os.kill(observer.run(os.getpid, workers=[worker])[worker], signal.SIGKILL)
    return worker


def node_threads(observer: Client, worker: str) -> int:
    """How many threads of `worker` execute a node of a run."""

    def count() -> int:
        return sum(thread.name == "pipewright-node" for thread in threading.enumerate())

    return observer.run(count, workers=[worker])[worker]


def order_of(document: dict, root, *, connections=None, run_id: str = "direct") -> RunOrder:
    return RunOrder(
        run_id=run_id, document=document, parameters={}, area=FileArea(root),
        connections=connections or {}, budget=Budget(2**30, 1), sys_path=list(sys.path),
    )  # fmt: skip


def test_a_run_on_the_cluster_relays_the_events_a_local_run_does_and_writes_the_same(
    data_root, settings, cluster
):
    settings.PIPEWRIGHT_DASK_SCHEDULER = cluster.scheduler_address
    plan = build_plan(load_document(SEED))
    here, there = ListSink(), ListSink()
    order = order_of(SEED, data_root)
    local = LocalSupervisor().supervise(order, plan, [here], threading.Event(), timeout_s=60)
    written_here = (data_root / "out" / "adults.csv").read_text()
    (data_root / "out" / "adults.csv").unlink()
    on_dask = DaskSupervisor().supervise(order, plan, [there], threading.Event(), timeout_s=60)
    assert (on_dask.status, on_dask.error) == (local.status, local.error) == ("succeeded", "")
    assert on_dask.result.totals == local.result.totals
    assert without_timing(there.events) == without_timing(here.events)
    assert (data_root / "out" / "adults.csv").read_text() == written_here


def run_over_a_folder(client, data_root, files: int = 3) -> tuple[Run, dict]:
    """A run of a chain over a folder of `files` Parquet files; the run and its node rows."""
    (data_root / "sales").mkdir()
    for index in range(files):
        part = pd.DataFrame({"region": ["n", "s", "n"], "amount": [index, 2, 3]})
        part.to_parquet(data_root / "sales" / f"part-{index}.parquet")
    run_id = start(client, chain(
        ("sales", "parquet_input", {"path": "sales"}),
        ("some", "filter", {"condition": "amount > 0"}),
        ("by_region", "aggregate", {"group_by": ["region"], "aggregations": [
            {"column": "amount", "function": "sum", "name": "amount"}]}),
        ("write", "csv_output", {"path": "out/by_region.csv"}),
    ))  # fmt: skip
    return wait_for_run(run_id), nodes_of(run_id)


def test_a_run_on_the_cluster_runs_its_chain_over_a_folder_a_partition_per_file(
    client, data_root, on_the_cluster
):
    run, nodes = run_over_a_folder(client, data_root)

    assert run.status == "succeeded", run.error
    assert nodes["sales"].metrics["backend"] == "dask"
    assert (nodes["sales"].metrics["rows_out"], nodes["some"].metrics["rows_out"]) == (9, 8)
    written = pd.read_csv(data_root / "out" / "by_region.csv")
    assert written.to_dict("list") == {"region": ["n", "s"], "amount": [12, 6]}


def test_a_run_leaves_its_thread_to_its_partitions_on_a_worker_of_one_thread(
    client, data_root, settings
):
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as single:
        settings.PIPEWRIGHT_DASK_SCHEDULER = single.scheduler_address
        run, nodes = run_over_a_folder(client, data_root)
        dask_cluster.cluster_clients.close()

    assert run.status == "succeeded", run.error
    assert nodes["by_region"].metrics["backend"] == "dask"


def test_cancel_on_the_cluster_cancels_the_nodes_and_commits_nothing(
    client, data_root, on_the_cluster, observer
):
    run_id = start(client, WAITING)
    wait_for_node(run_id, "wait", "running")
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    run = wait_for_run(run_id)
    assert (run.status, run.error) == ("cancelled", "")
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "wait": "cancelled", "write": "cancelled",
    }  # fmt: skip
    wait_until(lambda: task_of(observer, run_id) is None)  # its thread is free again
    assert not (data_root / "out").exists()


def test_a_run_whose_worker_does_not_answer_is_cancelled_here_and_its_task_cancelled(
    client, data_root, on_the_cluster, observer
):
    """A worker stopped by SIGSTOP stands for a run stuck in native code: it cannot end its run
    itself, so the supervisor ends it after the grace; once the worker goes on, the run hears
    that its link ended and stops, committing nothing."""
    run_id = start(client, WAITING)
    wait_for_node(run_id, "wait", "running")
    _, worker = task_of(observer, run_id)
    pid = observer.run(os.getpid, workers=[worker])[worker]
    os.kill(pid, signal.SIGSTOP)
    try:
        assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
        run = wait_for_run(run_id)
        assert task_of(observer, run_id) is None  # the scheduler forgot its task
    finally:
        os.kill(pid, signal.SIGCONT)
    assert (run.status, run.error) == ("cancelled", "")
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "wait": "cancelled", "write": "cancelled",
    }  # fmt: skip
    wait_until(lambda: not node_threads(observer, worker))
    assert not (data_root / "out").exists()


def test_a_lost_worker_interrupts_a_run_whose_nodes_allow_no_retries(
    client, data_root, on_the_cluster, observer
):
    run_id = start(client, WAITING)
    wait_for_node(run_id, "wait", "running")
    worker = kill_worker_of(observer, run_id)
    run = wait_for_run(run_id)
    assert (run.status, run.error) == ("interrupted", (
        f"the Dask worker {worker} running the run was lost at node wait; "
        "not retried: node wait allows no retries"
    ))  # fmt: skip
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "wait": "interrupted", "write": "cancelled",
    }  # fmt: skip
    wait_until(lambda: task_of(observer, run_id) is None)  # Dask's own retry ran nothing
    assert not (data_root / "out").exists()


def test_a_lost_worker_gives_a_run_that_allows_retries_a_second_attempt_on_another(
    client, data_root, on_the_cluster, observer
):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("wait", "pause", {"seconds": 2}),
        ("write", "csv_output", {"path": "out/people.csv"}),
        retries=1,
    ))  # fmt: skip
    wait_for_node(run_id, "wait", "running")
    lost = kill_worker_of(observer, run_id)
    run = wait_for_run(run_id)
    assert (run.status, run.error) == ("succeeded", "")
    [note] = RunLog.objects.filter(run_id=run_id, level="warning")
    assert note.message.startswith(
        f"the Dask worker {lost} running the run was lost at node wait; the run starts again on "
    )
    assert not note.message.endswith(lost)
    assert {row.status for row in nodes_of(run_id).values()} == {"succeeded"}
    assert (data_root / "out" / "people.csv").read_text() == (data_root / "people.csv").read_text()


def test_a_lost_worker_interrupts_a_run_that_had_committed_an_output(
    client, data_root, on_the_cluster, observer
):
    document = chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("first", "csv_output", {"path": "out/first.csv"}),
        retries=1,
    )
    document["nodes"].append({"id": "wait", "operator": "pause", "params": {"seconds": 60}})
    document["nodes"].append({"id": "last", "operator": "csv_output",
                              "params": {"path": "out/last.csv"}})  # fmt: skip
    document["edges"] += [
        {"source": "read", "target": "wait"},
        {"source": "wait", "target": "last"},
    ]
    run_id = start(client, document)
    wait_for_node(run_id, "first", "succeeded")
    wait_for_node(run_id, "wait", "running")
    worker = kill_worker_of(observer, run_id)
    run = wait_for_run(run_id)
    assert run.status == "interrupted"
    assert run.error == (
        f"the Dask worker {worker} running the run was lost at node wait; "
        "not retried: it had committed an output"
    )
    wait_until(lambda: task_of(observer, run_id) is None)
    assert files_under(data_root / "out") == ["first.csv"]


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


@pytest.fixture
def no_worker(settings):
    """A scheduler without workers, which runs started through the API go to."""
    with LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as empty:
        settings.PIPEWRIGHT_DASK_SCHEDULER = empty.scheduler_address
        yield empty
        dask_cluster.cluster_clients.close()


def waiting_note(cluster) -> str:
    return f"waiting for a Dask worker: the cluster at {cluster.scheduler_address} has none"


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


def test_connection_passwords_show_in_no_task_key_argument_repr_or_log(
    data_root, settings, cluster, observer, pause_operator
):
    settings.PIPEWRIGHT_DASK_SCHEDULER = cluster.scheduler_address
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/test"  # trusted: any password
    document = chain(
        ("read", "sql_input", {"connection": "warehouse", "query": "select 1 as one"}),
        ("wait", "pause", {"seconds": 60}),
    )
    order = order_of(document, data_root, connections={"warehouse": ConnectionSpec(url)})
    plan = build_plan(load_document(document))
    sink, cancel = ListSink(), threading.Event()
    running = threading.Thread(
        target=DaskSupervisor().supervise,
        args=(order, plan, [sink], cancel),
        kwargs={"timeout_s": 60},
    )
    running.start()
    try:
        waiting = {"node": "wait", "status": "running"}
        wait_until(lambda: any(waiting.items() <= event.items() for event in sink.events))
        key, worker = task_of(observer, order.run_id)
        on_scheduler = observer.run_on_scheduler(
            lambda dask_scheduler: repr(dask_scheduler.tasks[key].run_spec)
        )
        on_worker = observer.run(
            lambda dask_worker: repr(dask_worker.state.tasks[key].run_spec), workers=[worker]
        )[worker]
    finally:
        cancel.set()
        running.join()
    read = next(e for e in sink.of_type("node_status") if e["node"] == "read" and "metrics" in e)
    assert read["status"] == "succeeded"  # the password reached the run, over its queue
    logs = [observer.get_scheduler_logs(), *observer.get_worker_logs().values()]
    for seen in (key, on_scheduler, on_worker, repr(logs)):
        assert PASSWORD not in seen
    assert "run_on_worker" in on_scheduler  # what was looked at is the run's task


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
