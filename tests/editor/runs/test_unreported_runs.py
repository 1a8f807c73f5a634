"""A run whose process died after every node succeeded (its outputs committed) but before it
reported its end: it succeeded, and says the process ended before it reported; it does not
read "failed". Real run processes, killed for real."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from editor.models import NodeRun, Run
from editor.runs.watch import reap_and_remove_leftovers
from runtime.operators.registry import default_registry
from tests.editor.conftest import wait_for_run
from tests.editor.runs.helpers import nodes_of, start, wait_until
from tests.plugin_sites import operator_site

KILLED_AFTER_OUTPUT = """
import os
import signal
import time
from pydantic import Field
from runtime.operators.contract import Operator, OperatorParams, Port

class KillParams(OperatorParams):
    after: str = Field(title="After", description="The file whose commit ends the process.")
    service: bool = Field(False, title="Service", description="Kill the worker service too.")

class KillAfterOutput(Operator):
    name = "kill_after_output"
    kind = "output"
    title = "Kill the run's process once another output is written"
    inputs = [Port("in")]
    outputs = []
    Params = KillParams
    deterministic = False

    def output_schema(self, ctx, inputs):
        return {}

    def run(self, ctx, inputs):
        return {}

    def close(self, ctx):
        # Once the other output is committed and every node's success has been sent (events
        # leave every 20 ms), the process dies before the run's end is reported.
        target = ctx.data_root / ctx.params.after
        deadline = time.monotonic() + 30
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)
        if ctx.params.service:  # the service that forked the process server that forked this
            stat = open(f"/proc/{os.getppid()}/stat").read()
            os.kill(int(stat.rsplit(")", 1)[1].split()[1]), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)
"""

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kill_operator(tmp_path_factory):
    """The `kill_after_output` operator installed here; its folder (for another process)."""
    site = operator_site(
        tmp_path_factory.mktemp("kill-site"), "pipewright_kill", KILLED_AFTER_OUTPUT,
        {"kill_after_output": "KillAfterOutput"},
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        default_registry.cache_clear()
        yield site
    default_registry.cache_clear()


def dies_after_its_work(service: bool = False) -> dict:
    after = {"after": "out/people.csv", "service": service}
    return {
        "format": "pipewright.pipeline", "version": 2, "name": "dies after its work",
        "config": {"backend": "pandas"},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/people.csv"}},
            {"id": "kill", "operator": "kill_after_output", "params": after},
        ],
        "edges": [{"source": "read", "target": "write"}, {"source": "read", "target": "kill"}],
    }  # fmt: skip


def test_a_run_whose_process_died_after_every_node_succeeded_reads_succeeded(
    client, data_root, kill_operator
):
    run_id = start(client, dies_after_its_work())
    run = wait_for_run(run_id)
    assert {node: row.status for node, row in nodes_of(run_id).items()} == {
        "read": "succeeded", "write": "succeeded", "kill": "succeeded",
    }  # fmt: skip
    assert run.status == "succeeded", run.error
    assert run.error == (
        "the process ended before it reported; every node had succeeded, outputs written "
        "(the run's process was killed (SIGKILL))"
    )
    assert (data_root / "out" / "people.csv").read_text().startswith("id,name,age\n")
    logged = [line.message for line in Run.objects.get(pk=run_id).logs.all()]
    assert any(message.startswith("run succeeded: the process ended") for message in logged)


def test_a_run_whose_worker_service_died_after_every_node_succeeded_is_reaped_as_succeeded(
    client, data_root, kill_operator, settings, start_workers, redis_layer
):
    """The service itself is killed (with the run's process) once the work is done: the
    process that reaps the run finds every node succeeded and says so, not `interrupted`."""
    settings.PIPEWRIGHT_WORKERS = "service"  # this process executes nothing
    path = os.pathsep.join([str(kill_operator), str(ROOT)])  # the operator, and Pipewright
    workers = start_workers({**redis_layer, "PYTHONPATH": path}, data_root.parent)
    run_id = start(client, dies_after_its_work(service=True))
    workers.process.wait(60)
    wait_until(lambda: NodeRun.objects.filter(run_id=run_id, status="succeeded").count() == 3)

    assert reap_and_remove_leftovers() == [run_id]
    run = Run.objects.get(pk=run_id)
    assert run.status == "succeeded"
    assert run.error == (
        "the process ended before it reported; every node had succeeded, outputs written "
        "(the server process running it stopped)"
    )
