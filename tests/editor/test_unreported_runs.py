"""A run whose process died after every node succeeded (its outputs committed) but before it
reported its end: it succeeded, and says the process ended before it reported; it does not
read "failed". Real run processes, killed for real."""

from __future__ import annotations

import pytest

from editor.models import Run
from runtime.registry import default_registry
from tests.editor.conftest import wait_for_run
from tests.editor.runs import nodes_of, start
from tests.plugin_sites import operator_site

KILLED_AFTER_OUTPUT = """
import os
import signal
import time
from pydantic import Field
from runtime.operator import Operator, OperatorParams, Port

class KillParams(OperatorParams):
    after: str = Field(title="After", description="The file whose commit ends the process.")

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
        os.kill(os.getpid(), signal.SIGKILL)
"""

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kill_operator(tmp_path_factory):
    site = operator_site(
        tmp_path_factory.mktemp("kill-site"), "pipewright_kill", KILLED_AFTER_OUTPUT,
        {"kill_after_output": "KillAfterOutput"},
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        default_registry.cache_clear()
        yield
    default_registry.cache_clear()


def test_a_run_whose_process_died_after_every_node_succeeded_reads_succeeded(
    client, data_root, kill_operator
):
    run_id = start(client, {
        "format": "pipewright.pipeline", "version": 2, "name": "dies after its work",
        "config": {"backend": "pandas"},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/people.csv"}},
            {"id": "kill", "operator": "kill_after_output", "params": {"after": "out/people.csv"}},
        ],
        "edges": [{"source": "read", "target": "write"}, {"source": "read", "target": "kill"}],
    })  # fmt: skip
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
