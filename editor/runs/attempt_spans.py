"""Each attempt of a node from its start to its end, as a run's `node_status` events tell it:
what a run's timeline draws, one bar per attempt.

A span opens when the node starts running and closes at the next status that ends the
attempt: `retrying` (the attempt failed and another follows) or a final status. A node that
never ran (skipped, cancelled while queued) has none; a span still open when its run ended
(the run's process died) ends, for whoever draws it, when the run did.
"""

from __future__ import annotations

from runtime import Event, NodeStatus

ENDS_AN_ATTEMPT = NodeStatus.FINAL | {NodeStatus.RETRYING}


def with_event(spans: list[dict], event: Event) -> list[dict]:
    """`spans` after one `node_status` event of their node (the same list if it changes none)."""
    status, time = event["status"], event["time"]
    if status == NodeStatus.RUNNING:
        opened = {"attempt": event.get("attempt", 0), "started_at": time, "finished_at": None}
        return [*spans, {**opened, "status": str(status)}]
    if status in ENDS_AN_ATTEMPT and spans and spans[-1]["finished_at"] is None:
        return [*spans[:-1], {**spans[-1], "finished_at": time, "status": str(status)}]
    return spans
