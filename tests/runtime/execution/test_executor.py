"""The executor's contract: order, concurrency, failures, retries, timeouts, cancel, events."""

from __future__ import annotations

import threading
import time
import uuid

import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.plan import build_plan
from tests.runtime.engine_operators import ATTEMPTS, TRACKER, document, engine_registry


def run(doc, **options):
    sink = ListSink()
    result = execute(build_plan(doc, registry=engine_registry()), sinks=[sink], **options)
    return result, sink


def statuses(result) -> dict[str, str]:
    return {node_id: node.status for node_id, node in result.nodes.items()}


def status_trail(sink: ListSink, node: str) -> list[str]:
    return [e["status"] for e in sink.of_type("node_status") if e["node"] == node]


def token() -> str:
    return uuid.uuid4().hex


def test_a_diamond_runs_every_node_once_and_passes_rows_along():
    doc = document(
        {"a": ("test_source", {"rows": 4}), "b": "test_step", "c": "test_step", "d": "test_step"},
        ["a->b", "a->c", "b->d", "c->d"],
    )
    result, sink = run(doc)
    assert result.status == "succeeded"
    assert statuses(result) == dict.fromkeys("abcd", "succeeded")
    assert result.nodes["d"].rows_in == {"in": 8}
    assert result.nodes["d"].rows_out == 8
    assert next(e["type"] for e in sink.events) == "run_started"
    assert sink.events[-1]["type"] == "run_finished"
    assert status_trail(sink, "b") == ["queued", "running", "succeeded"]


def test_independent_branches_overlap_up_to_the_concurrency_limit():
    nodes = {f"n{i}": ("test_source", {"sleep_s": 0.15}) for i in range(6)}
    TRACKER.reset()
    started = time.perf_counter()
    result, _ = run(document(nodes, max_concurrency=3))
    elapsed = time.perf_counter() - started
    assert result.ok
    assert TRACKER.peak == 3
    assert elapsed < 6 * 0.15  # overlapped, not one after another


def test_stop_on_error_cancels_what_has_not_started():
    doc = document(
        {
            # bad fails only after slow has surely started: stop-on-error lets it finish
            "bad": ("test_source", {"always_fail": True, "sleep_s": 0.3}),
            "slow": ("test_source", {"sleep_s": 0.6}),
            "after_bad": "test_step",
            "after_slow": "test_step",
        },
        ["bad->after_bad", "slow->after_slow"],
        max_concurrency=2,
    )
    result, sink = run(doc)
    assert result.status == "failed"
    assert statuses(result) == {
        "bad": "failed",
        "slow": "succeeded",  # already running when the failure came: it finishes
        "after_bad": "cancelled",
        "after_slow": "cancelled",
    }
    failed = next(e for e in sink.of_type("node_status") if e["status"] == "failed")
    assert failed["error"] == "bad failed on attempt 1"
    assert "OperatorError" in failed["traceback"]


def test_continue_mode_skips_only_the_descendants_of_a_failure():
    doc = document(
        {
            "bad": ("test_source", {"always_fail": True}),
            "good": "test_source",
            "child": "test_step",
            "grandchild": "test_step",
            "other": "test_step",
        },
        ["bad->child", "child->grandchild", "good->other", "good->grandchild"],
        stop_on_error=False,
    )
    result, _ = run(doc)
    assert result.status == "failed"
    assert statuses(result) == {
        "bad": "failed",
        "good": "succeeded",
        "child": "skipped",
        "grandchild": "skipped",
        "other": "succeeded",
    }


def test_a_failing_node_is_retried_with_backoff_until_it_succeeds():
    t = token()
    doc = document(
        {"flaky": ("test_source", {"fail_times": 2, "token": t})}, retries=3, retry_delay_s=0.02
    )
    started = time.perf_counter()
    result, sink = run(doc)
    elapsed = time.perf_counter() - started
    assert result.ok
    assert result.nodes["flaky"].attempts == 3
    assert ATTEMPTS[f"{t}:flaky"] == 3
    assert status_trail(sink, "flaky") == [
        "queued", "running", "retrying", "running", "retrying", "running", "succeeded"
    ]  # fmt: skip
    delays = [e["delay_s"] for e in sink.of_type("node_status") if e["status"] == "retrying"]
    assert delays == [0.02, 0.04]
    assert elapsed >= 0.06


def test_retries_run_out_and_the_node_fails_with_its_last_error():
    t = token()
    doc = document({"flaky": ("test_source", {"fail_times": 5, "token": t})}, retry_delay_s=0)
    doc.nodes[0].retries = 1
    result, _ = run(doc)
    assert result.nodes["flaky"].status == "failed"
    assert result.nodes["flaky"].attempts == 2
    assert result.nodes["flaky"].error == "flaky failed on attempt 2"


def test_a_node_past_its_deadline_is_timed_out_and_its_result_discarded():
    doc = document(
        {"stuck": ("test_source", {"sleep_s": 1.5, "cooperative": False}), "next": "test_step"},
        ["stuck->next"],
        timeout_s=0.2,
        stop_on_error=False,
    )
    started = time.perf_counter()
    result, sink = run(doc)
    elapsed = time.perf_counter() - started
    assert statuses(result) == {"stuck": "timed_out", "next": "skipped"}
    assert result.status == "failed"
    assert result.nodes["stuck"].error == "timed out after 0.2 s (attempt 1)"
    assert elapsed < 1.2  # marked within about a second of the deadline, not when it returned
    time.sleep(1.5)  # the abandoned thread returns now; nothing more may be emitted
    assert sink.events[-1]["type"] == "run_finished"


def test_cancel_stops_running_nodes_and_starts_nothing_new():
    cancel = threading.Event()
    doc = document({"slow": ("test_source", {"sleep_s": 5}), "next": "test_step"}, ["slow->next"])
    threading.Timer(0.2, cancel.set).start()
    started = time.perf_counter()
    result, sink = run(doc, cancel_event=cancel)
    assert time.perf_counter() - started < 1.0
    assert result.status == "cancelled"
    assert statuses(result) == {"slow": "cancelled", "next": "cancelled"}
    assert sink.events[-1]["status"] == "cancelled"


def test_event_seq_is_strictly_increasing_and_events_are_plain_json():
    import json

    doc = document({f"n{i}": "test_source" for i in range(20)}, max_concurrency=4)
    _, sink = run(doc, run_id=42)
    seqs = [event["seq"] for event in sink.events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert {event["run_id"] for event in sink.events} == {42}
    assert json.loads(json.dumps(sink.events)) == sink.events
    assert all(event["time"].endswith("+00:00") for event in sink.events)


def test_final_status_events_carry_metrics():
    doc = document({"a": ("test_source", {"rows": 5}), "b": "test_step"}, ["a->b"])
    _, sink = run(doc)
    final = [e for e in sink.of_type("node_status") if e["node"] == "b"][-1]
    metrics = final["metrics"]
    assert metrics["rows_in"] == {"in": 5}
    assert metrics["rows_out"] == 5
    assert metrics["bytes_out"] > 0
    assert metrics["attempts"] == 1
    assert metrics["duration_s"] >= 0
    assert metrics["started"] <= metrics["finished"]
    finished = sink.events[-1]
    assert finished["totals"]["nodes"] == {"succeeded": 2}
    assert finished["totals"]["rows_read"] == 5


def test_run_started_lists_the_nodes_in_topological_order():
    doc = document({"c": "test_step", "a": "test_source", "b": "test_step"}, ["a->b", "b->c"])
    _, sink = run(doc)
    assert sink.events[0]["nodes"] == ["a", "b", "c"]


def test_multi_port_operators_receive_and_send_by_port_name():
    doc = document(
        {
            "l": ("test_source", {"rows": 2}),
            "r": ("test_source", {"rows": 7}),
            "p": "test_pair",
            "x": "test_step",
            "y": "test_step",
        },
        ["l->p.left", "r->p.right", "p.out->x", "p.rest->y"],
    )
    result, _ = run(doc)
    assert result.ok
    assert result.nodes["p"].rows_in == {"left": 2, "right": 7, "extra": 0}
    assert result.nodes["x"].rows_out == 2
    assert result.nodes["y"].rows_out == 7


def test_retained_outputs_are_returned_and_others_are_released():
    doc = document({"a": "test_source", "b": "test_step", "c": "test_step"}, ["a->b", "b->c"])
    result = execute(build_plan(doc, registry=engine_registry()), retain=["b"])
    assert set(result.outputs) == {("b", "out")}
    assert isinstance(result.outputs[("b", "out")], pd.DataFrame)


@pytest.mark.parametrize("max_concurrency", [1, 4])
def test_a_long_chain_never_holds_every_intermediate_at_once(max_concurrency):
    """Each node makes a fresh 4 MB frame; peak memory must stay a few frames, not 40."""
    import tracemalloc

    from runtime.operators.contract import Operator, OperatorParams
    from runtime.operators.registry import Registry

    class Big(Operator):
        name, kind, title, inputs = "big", "input", "Big", ()
        Params = OperatorParams

        def run(self, ctx, inputs):
            return {"out": pd.DataFrame({"x": range(500_000)}, dtype="float64")}

    class Copy(Operator):
        name, kind, title = "copy", "process", "Copy"
        Params = OperatorParams

        def run(self, ctx, inputs):
            return {"out": inputs["in"] + 1.0}

    nodes = {"n0": "big"} | {f"n{i}": "copy" for i in range(1, 40)}
    edges = [f"n{i - 1}->n{i}" for i in range(1, 40)]
    doc = document(nodes, edges, max_concurrency=max_concurrency)
    plan = build_plan(doc, registry=Registry([Big, Copy]))
    tracemalloc.start()
    try:
        result = execute(plan)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.ok
    frame_bytes = 500_000 * 8
    assert peak < 6 * frame_bytes, f"peak {peak / 1e6:.1f} MB for 4 MB frames"


@pytest.mark.parametrize("error", ["params", "operator", "os"])
def test_errors_are_retried_unless_another_attempt_cannot_succeed(error):
    """Bad params fail the same way every time; I/O and operator errors may pass on a retry."""
    t = token()
    doc = document(
        {"node": ("test_source", {"fail_times": 1, "error": error, "token": t})},
        retries=2,
        retry_delay_s=0,
    )
    result, sink = run(doc)
    if error == "params":
        assert result.nodes["node"].status == "failed"
        assert result.nodes["node"].error == "rows: node failed on attempt 1"
        assert status_trail(sink, "node") == ["queued", "running", "failed"]
        assert ATTEMPTS[f"{t}:node"] == 1
    else:
        assert result.nodes["node"].status == "succeeded"
        assert result.nodes["node"].attempts == 2


def test_refused_paths_fail_at_once_without_retries(tmp_path):
    doc = load_document(
        {
            "name": "escape",
            "config": {"retries": 3, "retry_delay_s": 0},
            "nodes": [{"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}}],
            "edges": [],
        }
    )
    (tmp_path / "people.csv").symlink_to("/etc/hostname")  # leads out of the data root
    sink = ListSink()
    result = execute(build_plan(doc), sinks=[sink], data_root=tmp_path / ".")
    assert result.nodes["read"].status == "failed"
    assert result.nodes["read"].attempts == 1
    assert not [e for e in sink.of_type("node_status") if e["status"] == "retrying"]


def test_the_run_outcome_is_computed_once_and_carried_by_the_result_and_run_finished():
    doc = document(
        {
            "good": ("test_source", {"rows": 4}),
            "bad": ("test_source", {"always_fail": True, "sleep_s": 0.05, "token": token()}),
            "write": "test_sink",
            "after": "test_step",
        },
        ["good->write", "bad->after"],
        stop_on_error=False,
    )
    result, sink = run(doc)
    finished = sink.events[-1]
    assert result.status == finished["status"] == "failed"
    assert result.error == finished["error"] == "bad: bad failed on attempt 1"
    assert result.totals == finished["totals"]
    assert result.totals == {
        "nodes": {"failed": 1, "skipped": 1, "succeeded": 2},
        "rows_read": 4,
        "rows_written": 4,
        "reused": [],
        "fallbacks": {},
    }


def test_a_succeeded_run_has_no_error_on_its_outcome():
    result, sink = run(document({"a": "test_source"}))
    assert result.error == "" and "error" not in sink.events[-1]


def test_a_skipped_node_says_which_failure_it_is_downstream_of():
    doc = document(
        {
            "bad": ("test_source", {"always_fail": True}),
            "child": "test_step",
            "grandchild": "test_step",
        },
        ["bad->child", "child->grandchild"],
        stop_on_error=False,
    )
    result, sink = run(doc)
    reasons = {
        e["node"]: e.get("reason") for e in sink.of_type("node_status") if e["status"] == "skipped"
    }
    assert reasons == {
        "child": "downstream of a failure of bad",
        "grandchild": "downstream of a failure of bad",
    }
    assert result.nodes["grandchild"].reason == "downstream of a failure of bad"
    failed = next(e for e in sink.of_type("node_status") if e["status"] == "failed")
    assert "reason" not in failed  # its own doing


def test_cancelled_nodes_say_why():
    cancel = threading.Event()
    doc = document(
        {"bad": ("test_source", {"always_fail": True}), "slow": ("test_source", {"sleep_s": 5}),
         "next": "test_step"},
        ["slow->next"],
        max_concurrency=1,
    )  # fmt: skip
    result, _ = run(doc)
    assert result.nodes["slow"].reason == "stopped after the failure of bad"
    doc = document({"slow": ("test_source", {"sleep_s": 5}), "next": "test_step"}, ["slow->next"])
    threading.Timer(0.2, cancel.set).start()
    result, _ = run(doc, cancel_event=cancel)
    assert {node.reason for node in result.nodes.values()} == {"the run was cancelled"}


def test_a_succeeded_output_reports_the_rows_it_wrote():
    """An operator that does not count its rows wrote every row it read."""
    doc = document({"a": ("test_source", {"rows": 6}), "write": "test_sink"}, ["a->write"])
    result, sink = run(doc)
    final = [e for e in sink.of_type("node_status") if e["node"] == "write"][-1]
    assert final["metrics"]["rows_written"] == 6
    assert result.totals["rows_written"] == 6


def test_a_cancelled_output_never_reports_rows_it_did_not_write(tmp_path):
    cancel = threading.Event()
    doc = document(
        {"a": ("test_source", {"rows": 6}), "write": ("test_sink", {"sleep_s": 5})}, ["a->write"]
    )
    threading.Timer(0.2, cancel.set).start()
    result, sink = run(doc, cancel_event=cancel)
    final = [e for e in sink.of_type("node_status") if e["node"] == "write"][-1]
    assert final["status"] == "cancelled"
    assert "rows_written" not in final["metrics"]
    assert result.totals["rows_written"] == 0
