"""The stored positions of a pipeline's incremental inputs: given to each run, advanced only
by a run that succeeded as a whole (in the transaction that writes its end), reset by editors.

Belongs here: reading, advancing and resetting `InputPosition` rows. Who may do that is
`editor.workspaces.permissions`' business; the positions' meaning is `runtime.io.incremental`'s.
"""

from __future__ import annotations

from editor.models import InputPosition, NodeRun, Pipeline, Run
from runtime.io.incremental import reached_positions


def positions_of(pipeline_id: int) -> dict:
    """Where each incremental input of the pipeline starts its next run, by node id."""
    rows = InputPosition.objects.filter(pipeline_id=pipeline_id).values_list("node_id", "position")
    return dict(rows)


def advance(run_id: int) -> None:
    """Keep the positions the run's incremental inputs reached; call it, in the transaction
    writing the run's end, only for a run that succeeded."""
    run = Run.objects.only("pipeline_id", "number").get(pk=run_id)
    metrics = dict(NodeRun.objects.filter(run_id=run_id).values_list("node_id", "metrics"))
    for node_id, position in reached_positions(metrics).items():
        InputPosition.objects.update_or_create(
            pipeline_id=run.pipeline_id,
            node_id=node_id,
            defaults={"position": position, "run_id": run_id, "run_number": run.number},
        )


def stored_position(pipeline: Pipeline, node_id: str) -> InputPosition | None:
    return InputPosition.objects.filter(pipeline=pipeline, node_id=node_id).first()


def reset(pipeline: Pipeline, node_id: str) -> bool:
    """Forget where the node stopped: its next run reads everything. False if nothing was kept."""
    deleted, _ = InputPosition.objects.filter(pipeline=pipeline, node_id=node_id).delete()
    return bool(deleted)
