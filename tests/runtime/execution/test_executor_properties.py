"""Invariants of the executor over random DAGs (hypothesis)."""

from __future__ import annotations

import threading
import uuid

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.statuses import NodeStatus
from runtime.plan import build_plan
from tests.runtime.engine_operators import ATTEMPTS, TRACKER, document, engine_registry
from tests.strategies import bounded

SETTINGS = bounded(60, tolerate=[HealthCheck.too_slow])


@st.composite
def dags(draw, max_nodes: int = 12):
    """Nodes n0..nk with edges only from lower to higher numbers, so never a cycle."""
    count = draw(st.integers(1, max_nodes))
    parents = {
        i: sorted(draw(st.sets(st.integers(0, i - 1), max_size=3))) if i else []
        for i in range(count)
    }
    return count, parents


def descendants(parents: dict[int, list[int]], roots: set[int]) -> set[int]:
    found: set[int] = set()
    for child in sorted(parents):
        if any(p in roots or p in found for p in parents[child]):
            found.add(child)
    return found


def build(count, parents, params_of, **config):
    nodes = {
        f"n{i}": ("test_step" if parents[i] else "test_source", params_of(i)) for i in range(count)
    }
    edges = [f"n{p}->n{i}" for i in range(count) for p in parents[i]]
    return document(nodes, edges, **config)


def run(doc, **options):
    TRACKER.reset()
    sink = ListSink()
    result = execute(build_plan(doc, registry=engine_registry()), sinks=[sink], **options)
    return result, sink


def assert_event_stream_is_well_formed(sink: ListSink, count: int) -> None:
    seqs = [event["seq"] for event in sink.events]
    assert seqs == sorted(set(seqs)), "seq must be strictly increasing"
    assert sink.events[0]["type"] == "run_started"
    assert sink.events[-1]["type"] == "run_finished"
    finals = [e["node"] for e in sink.of_type("node_status") if e["status"] in NodeStatus.FINAL]
    assert sorted(finals) == sorted(f"n{i}" for i in range(count)), "one final status per node"
    settled: set[str] = set()
    for event in sink.events:
        node = event.get("node")
        assert node not in settled, f"event for {node} after its final status: {event}"
        if event["type"] == "node_status" and event["status"] in NodeStatus.FINAL:
            settled.add(node)


@SETTINGS
@given(dags(), st.integers(1, 4), st.data())
def test_every_node_runs_once_after_all_its_parents_within_the_limit(dag, limit, data):
    count, parents = dag
    sleeps = data.draw(st.lists(st.sampled_from([0, 0, 0.002]), min_size=count, max_size=count))
    doc = build(count, parents, lambda i: {"sleep_s": sleeps[i]}, max_concurrency=limit)
    result, sink = run(doc)
    assert result.status == "succeeded"
    starts = [node for kind, node in TRACKER.log if kind == "start"]
    assert sorted(starts) == sorted(f"n{i}" for i in range(count)), "each node runs exactly once"
    position = {entry: index for index, entry in enumerate(TRACKER.log)}
    for child, its_parents in parents.items():
        for parent in its_parents:
            assert position[("end", f"n{parent}")] < position[("start", f"n{child}")]
    assert TRACKER.peak <= limit
    assert_event_stream_is_well_formed(sink, count)


@SETTINGS
@given(dags(), st.integers(1, 4), st.data())
def test_in_continue_mode_exactly_the_descendants_of_failures_are_skipped(dag, limit, data):
    count, parents = dag
    failing = data.draw(st.sets(st.integers(0, count - 1), max_size=3))
    doc = build(
        count,
        parents,
        lambda i: {"always_fail": i in failing},
        max_concurrency=limit,
        stop_on_error=False,
    )
    result, sink = run(doc)
    skipped = descendants(parents, failing)
    expected = {
        f"n{i}": "skipped" if i in skipped else "failed" if i in failing else "succeeded"
        for i in range(count)
    }
    assert {node: r.status for node, r in result.nodes.items()} == expected
    assert result.status == ("failed" if failing - skipped else "succeeded")
    assert_event_stream_is_well_formed(sink, count)


@SETTINGS
@given(dags(max_nodes=6), st.data())
def test_retries_are_counted_and_a_node_succeeds_once_its_failures_run_out(dag, data):
    count, parents = dag
    token = uuid.uuid4().hex
    failures = data.draw(st.lists(st.integers(0, 3), min_size=count, max_size=count))
    doc = build(
        count,
        parents,
        lambda i: {"fail_times": failures[i], "token": token},
        retries=2,
        retry_delay_s=0,
        stop_on_error=False,
    )
    result, sink = run(doc)
    failed = {i for i in range(count) if failures[i] > 2}
    skipped = descendants(parents, failed)
    for i in range(count):
        node = result.nodes[f"n{i}"]
        if i in skipped:
            assert node.status == "skipped" and node.attempts == 0
        elif i in failed:
            assert node.status == "failed" and node.attempts == 3
        else:
            assert node.status == "succeeded" and node.attempts == failures[i] + 1
            assert ATTEMPTS[f"{token}:n{i}"] == failures[i] + 1
    assert_event_stream_is_well_formed(sink, count)


@bounded(15)
@given(dags(max_nodes=8), st.integers(1, 3), st.data())
def test_nodes_past_their_deadline_time_out_and_the_rest_is_consistent(dag, limit, data):
    count, parents = dag
    stuck = data.draw(st.sets(st.integers(0, count - 1), min_size=1, max_size=2))
    doc = build(
        count,
        parents,
        lambda i: {"sleep_s": 0.5 if i in stuck else 0, "cooperative": False},
        max_concurrency=limit,
        stop_on_error=False,
        timeout_s=0.1,
    )
    result, sink = run(doc)
    statuses = {node: r.status for node, r in result.nodes.items()}
    for i in range(count):
        if i in stuck and statuses[f"n{i}"] != "skipped":
            assert statuses[f"n{i}"] == "timed_out"
    assert result.status == "failed"
    assert_event_stream_is_well_formed(sink, count)


@bounded(15)
@given(dags(max_nodes=10), st.integers(1, 3), st.floats(0, 0.05))
def test_cancel_at_any_moment_leaves_every_node_settled_and_nothing_after(dag, limit, delay):
    count, parents = dag
    doc = build(count, parents, lambda i: {"sleep_s": 0.01}, max_concurrency=limit)
    cancel = threading.Event()
    timer = threading.Timer(delay, cancel.set)
    timer.start()
    result, sink = run(doc, cancel_event=cancel)
    timer.join()
    assert result.status in ("cancelled", "succeeded")  # it may finish before the signal
    for node_id, node in result.nodes.items():
        parents_ok = all(
            result.nodes[f"n{p}"].status == "succeeded" for p in parents[int(node_id[1:])]
        )
        assert node.status in ("succeeded", "cancelled")
        if node.status == "succeeded":
            assert parents_ok
    assert_event_stream_is_well_formed(sink, count)
