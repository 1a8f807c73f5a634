"""The graph of a workspace's pipelines (JSON and SVG), and a pipeline's dependencies: list,
declare, remove.

Seeing a workspace lets one read its graph (only its own pipelines are in it); declaring or
removing what a pipeline reads needs the right to edit that pipeline, and to see the other.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Router
from ninja.responses import Status

from editor.api.bodies import json_object, parse_body
from editor.api.pipelines import PICTURE_POLICY
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.api.schemas.dependencies import Dependencies, DependencyIn, PipelineGraph
from editor.dependencies import actions, graph
from editor.errors import ActionError
from editor.models import DeclaredDependency
from editor.workspaces.permissions import Action, pipeline_for, workspace_for

SVG_PICTURE = {
    "responses": {
        200: {
            "description": "The picture",
            "content": {"image/svg+xml": {"schema": {"type": "string"}}},
        }
    }
}

workspaces = Router()
pipelines = Router()


@workspaces.get(
    "/{slug}/pipeline-graph",
    response=answers({200: PipelineGraph}, 404),
    summary="The graph of a workspace's pipelines",
)
def pipeline_graph(request, slug: str):
    """An edge where one pipeline reads what another writes: detected from their input and
    output nodes' paths and tables, or declared."""
    return graph.workspace_graph(workspace_for(request.user, slug))


@workspaces.get(
    "/{slug}/pipeline-graph.svg",
    response=answers({200: None}, 404),
    openapi_extra=SVG_PICTURE,
    summary="The graph of a workspace's pipelines, drawn",
)
def pipeline_graph_image(request, slug: str):
    """SVG laid out by Graphviz; a declared edge is dashed."""
    picture = graph.render(graph.workspace_graph(workspace_for(request.user, slug)))
    response = HttpResponse(picture, content_type="image/svg+xml")
    response["Content-Security-Policy"] = PICTURE_POLICY
    response["X-Content-Type-Options"] = "nosniff"
    return response


@pipelines.get(
    "/{int:pipeline_id}/dependencies",
    response=answers({200: Dependencies}, 404),
    summary="What a pipeline reads from and what reads it",
)
def list_dependencies(request, pipeline_id: ObjectId):
    pipeline = pipeline_for(request.user, pipeline_id)
    edges = graph.edges(pipeline.workspace)
    return {
        "upstream": [edge for edge in edges if edge["downstream"] == pipeline.pk],
        "downstream": [edge for edge in edges if edge["upstream"] == pipeline.pk],
    }


@pipelines.post(
    "/{int:pipeline_id}/dependencies",
    response=answers({201: Dependencies}, 400, 403, 404),
    openapi_extra=request_body(DependencyIn.model_json_schema()),
    summary="Declare that a pipeline reads another's output",
)
def declare_dependency(request, pipeline_id: ObjectId):
    """For what detection cannot see (a view, a file named at run time)."""
    body = json_object(request)
    downstream = pipeline_for(request.user, pipeline_id, Action.EDIT)
    fields = parse_body(DependencyIn, body)
    upstream = pipeline_for(request.user, fields.upstream)
    actions.declare(downstream, upstream, request.user, fields.note[:300])
    return Status(201, list_dependencies(request, pipeline_id))


@pipelines.delete(
    "/{int:pipeline_id}/dependencies",
    response=answers({204: None}, 400, 403, 404),
    summary="Remove a declared dependency",
)
def remove_dependency(request, pipeline_id: ObjectId, upstream: ObjectId | None = None):
    """`?upstream=<id>` names the dependency; the pipeline is checked first, so a user who may
    not see it learns nothing from a missing `upstream`."""
    downstream = pipeline_for(request.user, pipeline_id, Action.EDIT)
    if upstream is None:
        raise ActionError(400, "invalid_dependency", "say which: ?upstream=<id>", field="upstream")
    dependency = get_object_or_404(DeclaredDependency, downstream=downstream, upstream_id=upstream)
    actions.remove(dependency, request.user)
    return Status(204, None)
