"""`GET` / `DELETE /api/pipelines/{id}/nodes/{node}/position`: where an incremental input
stopped reading, and forgetting it so that its next run reads everything.

Whoever may view the pipeline reads the position; editors reset it; anyone else gets 404.
"""

from __future__ import annotations

from ninja import Router
from ninja.responses import Status

from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.positions import StoredPosition
from editor.errors import ActionError
from editor.runs.positions import reset, stored_position
from editor.workspaces.permissions import Action, pipeline_for

router = Router()


@router.get(
    "/{int:pipeline_id}/nodes/{node_id}/position",
    response=answers({200: StoredPosition}, 404),
    summary="An incremental input's stored position",
)
def get_position(request, pipeline_id: ObjectId, node_id: str):
    """Where the node's last successful run stopped reading (404: it has no position)."""
    kept = stored_position(pipeline_for(request.user, pipeline_id), node_id)
    if kept is None:
        raise ActionError(404, "no_position", f"node '{node_id}' has no stored position")
    return StoredPosition(
        node_id=kept.node_id, position=kept.position, updated_at=kept.updated_at.isoformat(),
        run_id=kept.run_id, run_number=kept.run_number,
    )  # fmt: skip


@router.delete(
    "/{int:pipeline_id}/nodes/{node_id}/position",
    response=answers({204: None}, 403, 404),
    summary="Reset an incremental input",
)
def delete_position(request, pipeline_id: ObjectId, node_id: str):
    """Forget the node's position: its next run reads everything again."""
    if not reset(pipeline_for(request.user, pipeline_id, Action.EDIT), node_id):
        raise ActionError(404, "no_position", f"node '{node_id}' has no stored position")
    return Status(204, None)
