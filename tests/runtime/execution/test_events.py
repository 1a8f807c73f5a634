"""Event sinks (the JSON lines file, the terminal progress display) and the statuses."""

from __future__ import annotations

import io
import json

from runtime.execution.events import Emitter, JsonLinesSink, ListSink, read_json_lines
from runtime.execution.progress import TerminalProgress
from runtime.execution.statuses import NodeStatus, RunStatus, status_catalog


def test_json_lines_sink_writes_one_parseable_event_per_line(tmp_path):
    path = tmp_path / "events.jsonl"
    with JsonLinesSink(path) as sink:
        emitter = Emitter([sink], run_id="r1")
        emitter.emit("run_started", name="p", nodes=["a"])
        emitter.emit("node_log", node="a", level="info", message="héllo")
    events = read_json_lines(path)
    assert [(e["seq"], e["type"]) for e in events] == [(1, "run_started"), (2, "node_log")]
    assert events[1]["message"] == "héllo" and events[1]["run_id"] == "r1"


def test_the_emitter_hands_each_event_to_every_sink_in_order():
    first, second = ListSink(), ListSink()
    emitter = Emitter([first, second])
    for _ in range(3):
        emitter.emit("node_progress", node="a", rows=1)
    assert first.events == second.events
    assert [event["seq"] for event in first.events] == [1, 2, 3]


def feed(progress: TerminalProgress, *events: dict) -> None:
    for seq, event in enumerate(events, 1):
        progress({"run_id": "r", "seq": seq, "time": "", **event})


def test_terminal_progress_draws_running_nodes_and_an_overall_bar():
    screen = io.StringIO()
    progress = TerminalProgress(screen, force=True)
    feed(
        progress,
        {"type": "run_started", "name": "p", "nodes": ["read", "write"]},
        {"type": "node_status", "node": "read", "status": "running", "attempt": 1},
        {"type": "node_progress", "node": "read", "rows": 12345},
    )
    progress._draw()
    text = screen.getvalue()
    assert "read" in text and "running" in text and "12,345 rows" in text
    assert "0/2 nodes" in text


def test_terminal_progress_shows_the_share_done_of_a_node_in_a_duckdb_segment():
    screen = io.StringIO()
    progress = TerminalProgress(screen, force=True)
    feed(
        progress,
        {"type": "run_started", "name": "p", "nodes": ["join"]},
        {"type": "node_status", "node": "join", "status": "running", "attempt": 1},
        {"type": "node_progress", "node": "join", "share": 0.427},
    )
    progress._draw()
    assert "42 %" in screen.getvalue() and "rows" not in screen.getvalue()


def test_terminal_progress_clears_itself_when_the_run_finishes():
    screen = io.StringIO()
    progress = TerminalProgress(screen, force=True)
    feed(progress, {"type": "run_started", "name": "p", "nodes": ["a"]})
    progress._draw()
    feed(progress, {"type": "run_finished", "status": "succeeded", "duration_s": 0, "totals": {}})
    assert screen.getvalue().endswith("\x1b[J")


def test_terminal_progress_is_silent_when_not_on_a_terminal():
    screen = io.StringIO()
    progress = TerminalProgress(screen)
    feed(progress, {"type": "run_started", "name": "p", "nodes": ["a"]})
    assert screen.getvalue() == ""


def test_statuses_compare_equal_to_the_strings_stored_and_sent():
    assert NodeStatus.TIMED_OUT == "timed_out" and json.dumps(NodeStatus.TIMED_OUT) == '"timed_out"'
    assert "failed" in NodeStatus.FAILURES and NodeStatus.FAILED in NodeStatus.FINAL
    assert NodeStatus.FAILURES <= NodeStatus.FINAL and not NodeStatus.ACTIVE & NodeStatus.FINAL
    assert set(RunStatus) == RunStatus.ACTIVE | RunStatus.FINAL


def test_the_status_catalog_lists_every_status_and_named_set_in_order():
    catalog = status_catalog()
    assert catalog["node"][:3] == ["pending", "queued", "running"]
    assert catalog["sets"]["node"] == {
        "FINAL": ["succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted"],
        "FAILURES": ["failed", "timed_out"],
        "ACTIVE": ["queued", "running", "retrying"],
    }
    assert catalog["sets"]["run"]["FINAL"] == ["succeeded", "failed", "cancelled", "interrupted"]
