"""The state of a pipeline's latest run as of one `seq`: what a live view starts from."""

from __future__ import annotations

from django.db import transaction

from editor.models import Run


@transaction.atomic
def latest_run_snapshot(pipeline_id: int) -> tuple[int, dict | None]:
    """`(seq, run)`: `run` is None before any run, else its status and every node's state."""
    run = Run.objects.latest_of(pipeline_id).first()
    if run is None:
        return 0, None
    nodes = {
        node.node_id: {"status": node.status, "metrics": node.metrics}
        for node in run.node_runs.all()
    }
    return run.last_seq, {"id": run.pk, "status": run.status, "nodes": nodes}
