"""A run in a process of its own uses the store its order's file area names, with the run
options the order carries (what the web app sends for "Run fresh", "run up to", "run from")."""

from __future__ import annotations

import sys

import pytest

from runtime.budget import Budget
from runtime.io.paths import CACHE, FileArea
from runtime.plan.run_options import RunOptions
from runtime.worker.wire import RunOrder
from runtime.worker.zygote import ForkServer
from tests.runtime.cache.runs import seed_document, write_data
from tests.runtime.worker.conversations import converse, events_of


@pytest.fixture(scope="module")
def server():
    server = ForkServer()
    server.start()
    yield server
    server.stop()


def run_order(root, options: RunOptions, run_id: int) -> RunOrder:
    return RunOrder(
        run_id=run_id, document=seed_document(), parameters={},
        area=FileArea(root, cache=root / CACHE), connections={},
        budget=Budget(memory_bytes=2**30, threads=1), sys_path=list(sys.path),
        run_options=options,
    )  # fmt: skip


def final_statuses(server: ForkServer, order: RunOrder) -> dict[str, tuple]:
    process = server.fork()
    process.link.send("start", **order.to_message())
    messages = converse(process)
    process.close()
    return {
        event["node"]: (event["status"], event["metrics"].get("cached", False))
        for event in events_of(messages)
        if event["type"] == "node_status" and "metrics" in event
    }


def test_the_run_options_cross_the_wire_unchanged(tmp_path):
    options = RunOptions(fresh=True, up_to="a", from_node="b", pins={"c": "/pins/c.parquet"})
    order = run_order(tmp_path, options, 1)
    assert RunOrder.from_message(order.to_message()) == order


def test_a_run_process_reuses_stores_and_follows_its_options(server, tmp_path):
    write_data(tmp_path)
    first = final_statuses(server, run_order(tmp_path, RunOptions(up_to="enrich"), 1))
    assert first["enrich"] == ("succeeded", False) and first["write"] == ("skipped", False)
    second = final_statuses(server, run_order(tmp_path, RunOptions(), 2))
    assert second["enrich"] == ("succeeded", True) and second["write"] == ("succeeded", False)
    third = final_statuses(server, run_order(tmp_path, RunOptions(), 3))
    assert set(third.values()) == {("succeeded", True)}
    fresh = final_statuses(server, run_order(tmp_path, RunOptions(fresh=True), 4))
    assert set(fresh.values()) == {("succeeded", False)}


def test_a_run_process_reads_a_pinned_node_from_its_pin(server, tmp_path):
    import pandas as pd

    write_data(tmp_path)
    pin = tmp_path / "pin.parquet"
    pd.DataFrame({"id": [1], "age": [20], "country": ["FR"], "amount_eur": [1.0]}).to_parquet(pin)
    statuses = final_statuses(server, run_order(tmp_path, RunOptions(pins={"enrich": str(pin)}), 5))
    assert statuses["users"][0] == "skipped" and statuses["write"] == ("succeeded", False)
