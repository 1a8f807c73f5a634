"""Runs on a Dask cluster (PIPEWRIGHT_DASK_SCHEDULER), from the web app's side: recorded as a
local run is, over a folder a partition per file, cancelled, given a clear end when a worker is
lost or stops answering, and never showing a password to the cluster. Real Dask: the
`LocalCluster` of two worker processes of conftest.py, for the module. Tests assert order and
final states, never durations. How deployments reach a cluster: test_dask_deployments.py."""

from __future__ import annotations

import os
import signal
import sys
import threading

import pandas as pd
import pytest
from distributed import Client, LocalCluster

from editor.models import RunLog
from editor.runs import dask_cluster, launcher
from editor.runs.dask import DaskSupervisor
from editor.runs.local import LocalSupervisor
from runtime.budget import Budget
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.plan import build_plan
from runtime.worker.wire import RunOrder
from tests.editor.conftest import RUNS_END_S, SEED, wait_for_run
from tests.editor.runs.helpers import (
    WAITING,
    chain,
    files_under,
    nodes_of,
    run_over_a_folder,
    start,
    wait_for_node,
    wait_until,
    without_timing,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]  # Dask processes

PASSWORD = "pw-7c1e-never-shown"


@pytest.fixture(scope="module")
def observer(cluster):
    """A client of the test's own, to look at the cluster as its operator would."""
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        yield client


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
        # The run is recorded as ended before its thread lets go of its task on the cluster:
        # closing the cluster's client first would leave that thread waiting forever.
        assert launcher.stop_embedded_pool(timeout=RUNS_END_S)
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
