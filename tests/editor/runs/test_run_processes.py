"""Runs in processes of their own, from the web app's side: started through the API, recorded
as before, cancelled for real, and failed with the reason when their process dies or breaks a
limit. Real processes and signals; tests assert order and final states, never durations (a
timeout only bounds how long a test waits)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pytest

from editor.models import Run
from editor.runs import local
from editor.runs.local import LocalSupervisor
from runtime.budget import Budget
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.operators.registry import default_registry
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.worker.wire import RunOrder
from tests.editor.conftest import SEED, wait_for_run
from tests.editor.runs.helpers import (
    chain,
    files_under,
    nodes_of,
    start,
    wait_for_node,
    wait_until,
    without_timing,
)
from tests.plugin_sites import operator_site

BIG_ROWS = 1_500_000
"""Rows of the big CSV: sorting or writing it takes seconds on this kind of machine."""
FINAL_WITHIN_S = 5
"""How long a test waits for a run to be final after its cancel: grace, terminate, margin."""
EXITING = """
import os
from pydantic import Field
from runtime.operators.contract import Operator, OperatorParams

class ExitParams(OperatorParams):
    code: int = Field(3, title="Exit code", description="The process's exit code.")

class ExitProcess(Operator):
    name = "exit_process"
    kind = "process"
    title = "Exit the process"
    Params = ExitParams
    deterministic = False

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        os._exit(ctx.params.code)
"""

pytestmark = pytest.mark.django_db(transaction=True)


def process_of(run_id: int) -> int | None:
    """The pid of the process executing run `run_id` (named `pw-run-<id>`), if any."""
    return next(iter(processes_named(f"pw-run-{run_id}")), None)


def processes_named(name: str) -> list[int]:
    """The live processes named `name` that this test process's fork server forked."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or (entry / "comm").read_text().strip() != name:
                continue
            state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            server = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()[1]
        except OSError:
            continue
        if state != "Z" and int(server) == os.getpid():
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory) -> Path:
    """A CSV of BIG_ROWS rows: id, email (unique-ish text, slow to sort), amount."""
    path = tmp_path_factory.mktemp("big") / "big.csv"
    rng = np.random.default_rng(7)
    numbers = pc.cast(pa.array(rng.integers(0, 10**9, BIG_ROWS)), pa.string())
    table = pa.table({
        "id": np.arange(BIG_ROWS),
        "email": pc.binary_join_element_wise("user", numbers, "@example.com", ""),
        "amount": rng.uniform(0, 1000, BIG_ROWS),
    })  # fmt: skip
    pa_csv.write_csv(table, path)
    return path


@pytest.fixture
def big(big_csv, data_root) -> Path:
    """The big CSV in the owner's workspace, as `big.csv`."""
    os.link(big_csv, data_root / "big.csv")
    return data_root


@pytest.fixture
def exit_operator(tmp_path_factory):
    """An operator that ends its process with an exit code (`exit_process`), installed."""
    site = operator_site(tmp_path_factory.mktemp("exit-site"), "pipewright_exit", EXITING,
                         {"exit_process": "ExitProcess"})  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        default_registry.cache_clear()
        yield
    default_registry.cache_clear()


def test_a_run_in_its_process_relays_the_events_executing_it_here_gives(data_root):
    area = FileArea(data_root)
    plan = build_plan(load_document(SEED), {"min_age": 30})
    here = ListSink()
    execute(prepare(plan, data_root=area), sinks=[here], run_id=9, data_root=area)
    relayed = ListSink()
    order = RunOrder(SEED, {"min_age": 30}, area, {}, Budget(2**30, 1), list(sys.path), run_id=9)
    ending = LocalSupervisor().supervise(order, plan, [relayed], threading.Event(), timeout_s=60)
    assert (ending.status, ending.error) == ("succeeded", "")
    assert ending.result.nodes["adults"].rows_out == 2
    assert without_timing(relayed.events) == without_timing(here.events)
    assert [event["seq"] for event in relayed.events] == list(range(1, len(here.events) + 1))


def test_a_run_takes_the_warmed_up_spare_process_and_a_new_spare_follows_it(
    data_root, pause_operator
):
    local.spare.refill()
    wait_until(local.spare.is_ready)
    [spare] = processes_named("pw-standby")
    document = chain(
        ("read", "csv_input", {"path": "people.csv"}), ("wait", "pause", {"seconds": 60})
    )
    area = FileArea(data_root)
    order = RunOrder(document, {}, area, {}, Budget(2**30, 1), list(sys.path), run_id=31)
    cancel, ended = threading.Event(), []
    plan = build_plan(load_document(document))
    supervising = threading.Thread(target=lambda: ended.append(
        LocalSupervisor().supervise(order, plan, [ListSink()], cancel, timeout_s=60)
    ))  # fmt: skip
    supervising.start()
    wait_until(lambda: process_of(31) is not None)
    assert process_of(31) == spare
    cancel.set()
    supervising.join(FINAL_WITHIN_S)
    assert ended[0].status == "cancelled"
    wait_until(local.spare.is_ready)
    assert processes_named("pw-standby") != [spare]


def test_a_run_whose_spare_process_was_killed_forks_its_own(data_root):
    local.spare.refill()
    wait_until(local.spare.is_ready)
    [spare] = processes_named("pw-standby")
    os.kill(spare, signal.SIGKILL)
    wait_until(lambda: not local.spare.is_ready())  # its end has reached us
    area = FileArea(data_root)
    order = RunOrder(SEED, {"min_age": 30}, area, {}, Budget(2**30, 1), list(sys.path), run_id=32)
    plan = build_plan(load_document(SEED), {"min_age": 30})
    ending = LocalSupervisor().supervise(order, plan, [ListSink()], threading.Event(), timeout_s=60)
    assert (ending.status, ending.error) == ("succeeded", "")
    wait_until(local.spare.is_ready)  # the dead spare was replaced after the run


def test_cancel_stops_a_long_sort_and_commits_no_output(client, big):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "big.csv"}),
        ("sort", "sort", {"by": [{"column": "email"}]}),
        ("write", "csv_output", {"path": "out/sorted.csv"}),
    ))  # fmt: skip
    wait_for_node(run_id, "sort", "running")
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    run = wait_for_run(run_id, timeout=FINAL_WITHIN_S)
    assert run.status == "cancelled"
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "sort": "cancelled", "write": "cancelled",
    }  # fmt: skip
    wait_until(lambda: process_of(run_id) is None, timeout=FINAL_WITHIN_S)
    assert not (big / "out").exists() or files_under(big / "out") == []


def test_cancel_during_a_write_publishes_nothing_and_leaves_no_temporary_file(client, big):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "big.csv"}),
        ("write", "csv_output", {"path": "out/copy.csv"}),
    ))  # fmt: skip
    wait_for_node(run_id, "write", "running")
    wait_until(lambda: (big / "out").exists() and files_under(big / "out"))  # mid-write
    client.post(f"/api/runs/{run_id}/cancel")
    run = wait_for_run(run_id, timeout=FINAL_WITHIN_S)
    assert (run.status, nodes_of(run_id)["write"].status) == ("cancelled", "cancelled")
    wait_until(lambda: process_of(run_id) is None, timeout=FINAL_WITHIN_S)
    assert files_under(big / "out") == []


def test_a_run_whose_process_does_not_answer_is_terminated_and_cancelled_here(
    client, data_root, pause_operator
):
    """A process stopped by SIGSTOP stands for one stuck in native code: it cannot end its run
    itself, so the supervisor terminates it after the grace and ends the run."""
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("wait", "pause", {"seconds": 60}),
        ("write", "csv_output", {"path": "out/people.csv"}),
    ))  # fmt: skip
    wait_for_node(run_id, "wait", "running")
    os.kill(process_of(run_id), signal.SIGSTOP)
    client.post(f"/api/runs/{run_id}/cancel")
    run = wait_for_run(run_id, timeout=FINAL_WITHIN_S)
    nodes = nodes_of(run_id)
    assert (run.status, run.error) == ("cancelled", "")
    assert (nodes["wait"].status, nodes["write"].status) == ("cancelled", "cancelled")
    assert process_of(run_id) is None
    assert not (data_root / "out").exists()


def test_a_killed_run_process_fails_the_run_naming_the_node_and_leaves_no_file(client, big):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "big.csv"}),
        ("write", "csv_output", {"path": "out/copy.csv"}),
    ))  # fmt: skip
    wait_for_node(run_id, "write", "running")
    wait_until(lambda: (big / "out").exists() and files_under(big / "out"))  # mid-write
    os.kill(process_of(run_id), signal.SIGKILL)
    run = wait_for_run(run_id)
    assert run.status == "failed"
    assert run.error == "the run's process was killed (SIGKILL) at node write"
    write = nodes_of(run_id)["write"]
    assert (write.status, write.error) == ("failed", run.error)
    assert files_under(big / "out") == []  # its temporary file removed, nothing published


def test_a_run_process_that_exits_fails_the_run_with_its_exit_code(
    client, data_root, exit_operator
):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("leave", "exit_process", {"code": 7}),
        ("write", "csv_output", {"path": "out/people.csv"}),
    ))  # fmt: skip
    run = wait_for_run(run_id)
    assert run.status == "failed"
    assert run.error == "the run's process exited with code 7 at node leave"
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "leave": "failed", "write": "cancelled",
    }  # fmt: skip


def test_a_run_over_its_memory_budget_is_killed_and_fails_naming_the_node(
    client, data_root, monkeypatch
):
    monkeypatch.setenv("PIPEWRIGHT_RUN_MEMORY", "200MiB")
    (data_root / "same.csv").write_text("k,v\n" + "".join(f"1,{i}\n" for i in range(5000)))
    document = chain(
        ("left", "csv_input", {"path": "same.csv"}),
        ("join", "join", {"how": "inner", "left_on": ["k"], "right_on": ["k"]}),
        ("write", "csv_output", {"path": "out/joined.csv"}),
    )  # 5000 x 5000 rows of one key: 25 million rows, some gigabytes
    right = {"id": "right", "operator": "csv_input", "params": {"path": "same.csv"}}
    document["nodes"].append(right)
    document["edges"] = [
        {"source": "left", "target": "join", "target_port": "left"},
        {"source": "right", "target": "join", "target_port": "right"},
        {"source": "join", "target": "write"},
    ]
    run = wait_for_run(start(client, document))
    assert run.status == "failed"
    assert run.error == (
        "the run's process was killed: out of memory at node join (it grew by more than the "
        "200 MiB that PIPEWRIGHT_RUN_MEMORY allows a run, and 128 MiB for the engine)"
    )
    nodes = nodes_of(run.pk)
    assert (nodes["join"].status, nodes["write"].status) == ("failed", "cancelled")
    assert not (data_root / "out").exists()


def test_a_run_past_the_wall_time_cap_fails_saying_so(client, data_root, pause_operator, settings):
    settings.PIPEWRIGHT_RUN_TIMEOUT_S = 1
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("wait", "pause", {"seconds": 60}),
    ))  # fmt: skip
    run = wait_for_run(run_id)
    assert run.status == "failed"
    assert run.error == (
        "the run took longer than the 1 s PIPEWRIGHT_RUN_TIMEOUT allows and was stopped at node "
        "wait"
    )
    assert nodes_of(run_id)["wait"].status == "failed"


def test_two_runs_execute_at_once_each_in_a_process_of_its_own(
    client, data_root, pause_operator, settings
):
    settings.PIPEWRIGHT_MAX_RUNS = 2
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 2
    document = chain(
        ("read", "csv_input", {"path": "people.csv"}), ("wait", "pause", {"seconds": 60})
    )
    runs = [start(client, {**document, "name": f"wait {index}"}) for index in range(2)]
    for run_id in runs:
        wait_for_node(run_id, "wait", "running")
    pids = [process_of(run_id) for run_id in runs]
    assert None not in pids and pids[0] != pids[1]
    assert all(Run.objects.get(pk=run_id).status == "running" for run_id in runs)
    for run_id in runs:
        client.post(f"/api/runs/{run_id}/cancel")
    assert [wait_for_run(run_id).status for run_id in runs] == ["cancelled", "cancelled"]


def test_a_run_fails_when_the_process_server_dies_and_the_next_run_gets_a_new_server(
    client, data_root, pause_operator
):
    """The kernel ends a run's process with the server that forked it (PR_SET_PDEATHSIG)."""
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "people.csv"}),
        ("wait", "pause", {"seconds": 60}),
    ))  # fmt: skip
    wait_for_node(run_id, "wait", "running")
    stat = Path(f"/proc/{process_of(run_id)}/stat").read_text()
    os.kill(int(stat.rsplit(")", 1)[1].split()[1]), signal.SIGKILL)  # its parent: the server
    run = wait_for_run(run_id)
    assert run.status == "failed"
    assert run.error == "the run's process ended with the server that forked it at node wait"
    again = start(client, chain(("read", "csv_input", {"path": "people.csv"})))
    assert wait_for_run(again).status == "succeeded"
