"""`GET /api/pipelines/{id}/subpipelines`: what the palette's Sub-pipelines group offers.

The pipelines of the same workspace that declare inputs or outputs, with their ports,
parameters and kept revisions, for anyone who may view the outer pipeline (a pipeline of
another workspace is never listed, nor usable: see `editor.pipelines.subpipelines`).
"""

from __future__ import annotations

from ninja import Router

from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.subpipelines import UsableSubpipeline
from editor.pipelines.subpipelines import usable
from editor.workspaces.permissions import pipeline_for

router = Router()


@router.get(
    "/{int:pipeline_id}/subpipelines",
    response=answers({200: list[UsableSubpipeline]}, 404),
    summary="Pipelines usable as sub-pipelines",
)
def usable_subpipelines(request, pipeline_id: ObjectId):
    """The workspace's pipelines declaring inputs or outputs (the pipeline itself left out:
    a pipeline cannot use itself)."""
    pipeline = pipeline_for(request.user, pipeline_id)
    return [entry for entry in usable(pipeline.workspace) if entry["id"] != pipeline.pk]
