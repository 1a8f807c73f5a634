"""The state of a pipeline's latest run as of one `seq`: what a live view starts from.

It goes out as one websocket message, so it stays bounded: a node that was retried many times
brings only its latest `SNAPSHOT_SPANS` attempts (the events that follow add the next ones;
the run's API answer has them all).
"""

from __future__ import annotations

from django.db import transaction

from editor.models import Run

SNAPSHOT_SPANS = 3
"""At most this many attempts per node: 1,000 nodes of 101 attempts each stay near 0.5 MB."""


@transaction.atomic
def latest_run_snapshot(pipeline_id: int) -> tuple[int, dict | None]:
    """`(seq, run)`: `run` is None before any run, else its number, status, start and every
    node's state with its latest attempts."""
    run = Run.objects.latest_of(pipeline_id).first()
    if run is None:
        return 0, None
    nodes = {
        node.node_id: {
            "status": node.status,
            "metrics": node.metrics,
            "spans": node.attempt_spans[-SNAPSHOT_SPANS:],
        }
        for node in run.node_runs.all()
    }
    started_at = run.started_at.isoformat() if run.started_at else None
    return run.last_seq, {
        "id": run.pk,
        "number": run.number,
        "revision": run.revision,
        "status": run.status,
        "started_at": started_at,
        "nodes": nodes,
    }
