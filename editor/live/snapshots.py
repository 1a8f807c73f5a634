"""The state of a pipeline's latest run as of one `seq`: what a live view starts from.

It goes out as one websocket message, so it stays bounded: a node that was retried many times
brings only its latest `SNAPSHOT_SPANS` attempts (the events that follow add the next ones;
the run's API answer has them all).

The run's `last_seq` and its node rows are one consistent read: the client applies every
event after that `seq` on top, so a node row newer than it would get the same attempt twice
(a phantom span). PostgreSQL's default READ COMMITTED gives each statement its own view, and
a recorder batch committed between the two reads would do just that: the read runs in
REPEATABLE READ there. SQLite's transactions already read one state (and take its write lock
as they begin, here); MariaDB's default is REPEATABLE READ.
"""

from __future__ import annotations

from django.db import connection, transaction

from editor.models import Run

SNAPSHOT_SPANS = 3
"""At most this many attempts per node: 1,000 nodes of 101 attempts each stay near 0.5 MB."""


def latest_run_snapshot(pipeline_id: int) -> tuple[int, dict | None]:
    """`(seq, run)`: `run` is None before any run, else its number, status, start and every
    node's state with its latest attempts, as of that `seq`."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # before the transaction's first read
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _snapshot(pipeline_id)


def _snapshot(pipeline_id: int) -> tuple[int, dict | None]:
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
