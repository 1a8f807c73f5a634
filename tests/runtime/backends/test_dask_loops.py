"""A loop over groups on a real Dask cluster (a `LocalCluster` of two worker processes): its
iterations, partitioned by their key into batches, run as tasks on the workers, and give what
the run's own process gives, in key order."""

from __future__ import annotations

import pandas as pd
import pytest
from distributed import Client, get_task_stream

from runtime.backends.dask.loops import batches
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.execution.test_loops import inlined, looping

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def orders(tmp_path):
    countries = [f"C{n:02d}" for n in range(40)]
    rows = [(i, countries[(i * 7) % 40], i % 13) for i in range(400)]
    pd.DataFrame(rows, columns=["order_id", "country", "amount"]).to_csv(
        tmp_path / "orders.csv", index=False
    )
    return tmp_path


def run(root, cluster=None, sinks=()):
    plan = prepare(build_plan(inlined(looping()).document), data_root=FileArea(root),
                   cluster=cluster)  # fmt: skip
    result = execute(plan, data_root=root, sinks=sinks)
    assert result.ok, result.error
    return plan, result, pd.read_csv(root / "totals.csv")


def test_iterations_run_as_tasks_on_the_cluster_and_match_the_local_run(orders, cluster):
    _, local, expected = run(orders)
    with Client(cluster, set_as_default=False) as client, get_task_stream(client) as stream:
        plan, on_cluster, found = run(orders, cluster)
    pd.testing.assert_frame_equal(found, expected)
    assert list(found["country"]) == sorted(found["country"])  # key order
    assert on_cluster.nodes["each"].extra == {"over": "groups", "tasks": 20, "iterations": 40}
    assert "tasks" not in local.nodes["each"].extra
    ran = [task["key"] for task in stream.data if "run_batch" in str(task["key"])]
    assert len(ran) == 20  # 40 keys, 2 a task
    assert len({task["worker"] for task in stream.data}) == 2
    assert any("each's iterations over its groups run on the Dask cluster" in note
               for note in plan.notes)  # fmt: skip


def test_a_loop_on_the_cluster_reports_its_iterations_as_its_tasks_end(orders, cluster):
    events = ListSink()
    run(orders, cluster, sinks=[events])
    counts = [event["iterations"] for event in events.events
              if event["type"] == "node_progress" and event["node"] == "each"]  # fmt: skip
    assert counts[-1] == [40, 40]
    assert all(done % 2 == 0 and total == 40 for done, total in counts)  # 2 keys a task
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)


def test_keys_are_cut_into_contiguous_batches_in_order():
    keys = [((f"k{n}",), n) for n in range(10)]
    cut = batches(keys, most=4)
    assert [[number for number, _, _ in batch] for batch in cut] == [
        [1, 2, 3], [4, 5, 6], [7, 8, 9], [10]
    ]  # fmt: skip
    assert [len(batch) for batch in batches(keys[:3], most=4)] == [1, 1, 1]
