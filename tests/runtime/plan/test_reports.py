"""What a run reports for the nodes a plan does not run as themselves: left out, merged."""

from __future__ import annotations

import dataclasses

from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.node_reports import NodeReports
from runtime.execution.results import NodeResult
from runtime.execution.statuses import NodeStatus
from runtime.execution.tasks import tasks_of
from runtime.plan import build_plan
from runtime.plan.model import count_consumers, predecessors_of
from tests.runtime.engine_operators import document, engine_registry


def without(plan, removed: set[str], rewire: dict[str, str] | None = None, **changes):
    """`plan` less `removed`, with inputs from an alias read from its twin instead."""
    rewire = rewire or {}
    nodes = {}
    for node_id, node in plan.nodes.items():
        if node_id in removed:
            continue
        inputs = {
            port: [(rewire.get(source, source), name) for source, name in sources]
            for port, sources in node.inputs.items()
        }
        nodes[node_id] = dataclasses.replace(node, inputs=inputs)
    return dataclasses.replace(
        plan,
        nodes=nodes,
        order=[node_id for node_id in plan.order if node_id not in removed],
        predecessors=predecessors_of(nodes),
        consumers=count_consumers(nodes),
        **changes,
    )


def statuses(sink: ListSink) -> dict[str, tuple]:
    finals = {}
    for event in sink.events:
        if event["type"] == "node_status" and event["status"] in NodeStatus.FINAL:
            finals[event["node"]] = (event["status"], event.get("reason"))
    return finals


def test_a_left_out_node_is_skipped_with_the_plans_reason():
    doc = document({"a": "test_source", "b": "test_sink", "c": "test_step"}, ["a->b", "a->c"])
    plan = build_plan(doc, registry=engine_registry())
    plan = without(plan, {"c"}, eliminated={"c": "reaches no output"})
    sink = ListSink()
    result = execute(plan, sinks=[sink])
    assert result.ok
    assert statuses(sink)["c"] == ("skipped", "reaches no output")
    assert result.nodes["c"].status == NodeStatus.SKIPPED
    assert result.totals["nodes"] == {"skipped": 1, "succeeded": 2}


def test_a_merged_node_reports_its_twins_result():
    nodes = {"a": "test_source", "b": "test_step", "b2": "test_step", "s": "test_pair"}
    doc = document(nodes, ["a->b", "a->b2", "b->s.left", "b2->s.right"])
    plan = build_plan(doc, registry=engine_registry())
    plan = without(plan, {"b2"}, rewire={"b2": "b"}, merged={"b2": "b"})
    sink = ListSink()
    result = execute(plan, sinks=[sink])
    assert result.ok
    assert statuses(sink)["b2"] == ("succeeded", "computed once with b")
    assert result.nodes["b2"].rows_out == result.nodes["b"].rows_out
    assert set(result.nodes) == {"a", "b", "b2", "s"}


def test_a_failed_copy_fails_the_node_it_copies_which_reports_once_its_copies_ended():
    doc = document({"a": "test_source", "b": "test_step", "s": "test_sink"}, ["a->b", "b->s"])
    plan = build_plan(doc, registry=engine_registry())
    twin = dataclasses.replace(plan.nodes["b"], id="b#2")
    plan = dataclasses.replace(
        plan,
        nodes={**plan.nodes, "b#2": twin},
        order=[*plan.order, "b#2"],
        predecessors={**plan.predecessors, "b#2": {"a"}},
    )
    tasks = tasks_of(plan, set())
    results = {task: NodeResult(task) for task in tasks.order}
    sink = ListSink()
    reports = NodeReports(
        plan, tasks, results, lambda kind, **fields: sink({"type": kind, **fields})
    )
    results["b"].status = NodeStatus.SUCCEEDED
    reports.settled("b", results["b"])
    results["b#2"].status, results["b#2"].error = NodeStatus.FAILED, "too large"
    reports.settled("b#2", results["b#2"])
    assert [(event["node"], event["status"]) for event in sink.events] == [("b", "failed")]
    assert set(reports.reported()) == {"a", "b", "s"}
    assert reports.reported()["b"].error == "too large"
