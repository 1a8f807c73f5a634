"""Pipelines: CRUD with optimistic locking, validation, schemas, previews, export and import,
graph pictures and layout, and starting runs."""

from __future__ import annotations

from django.http import HttpResponse
from ninja import Router, Status
from ninja.errors import HttpError

from editor.api.bodies import json_object, parse_body, read_document
from editor.api.representations import (
    ORIGINS,
    page,
    pipeline_json,
    pipeline_summary,
    run_json,
)
from editor.api.schemas.contract import Limit, ObjectId, Offset, answers, request_body
from editor.api.schemas.pipelines import (
    CheckedDocument,
    FilingIn,
    InferredSchemas,
    Layout,
    PipelineIn,
    PipelineOut,
    PipelinePage,
    PipelineSummary,
    PreviewIn,
    RowsPreview,
    RunIn,
    RunStartIn,
    SavedPipeline,
    Validation,
)
from editor.api.schemas.runs import Run, RunPage
from editor.errors import ActionError
from editor.models import latest_statuses
from editor.pipelines import actions, filing
from editor.pipelines.documents import to_document
from editor.pipelines.exports import export_download
from editor.pipelines.graph_image import layout, render
from editor.pipelines.merging import merge_stale
from editor.pipelines.subpipelines import (
    checked_inlined,
    on_the_canvas,
    previewed,
    with_subpipeline_columns,
)
from editor.runs import actions as run_actions
from editor.runs import jobs
from editor.workspaces.membership import engine_access, personal_workspace
from editor.workspaces.permissions import Action, pipeline_for, visible_pipelines, workspace_for
from runtime import Pipeline as PipelineSpec
from runtime import Problem

router = Router()

DOCUMENT_BODY = request_body(PipelineIn.model_json_schema())
PARAMETERS_BODY = request_body(RunIn.model_json_schema(), required=False)
RUN_BODY = request_body(RunStartIn.model_json_schema(), required=False)
PREVIEW_BODY = request_body(PreviewIn.model_json_schema())
FILING_BODY = request_body(FilingIn.model_json_schema())
GRAPH_PICTURE = {
    "responses": {
        200: {
            "description": "The picture",
            "content": {
                "image/svg+xml": {"schema": {"type": "string"}},
                "image/png": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    }
}


PICTURE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
"""The Content-Security-Policy of graph pictures: no script, no request, no navigation."""


@router.get("", response=answers({200: PipelinePage}, 400, 404), summary="List pipelines")
def list_pipelines(
    request,
    limit: Limit = 50,
    offset: Offset = 0,
    workspace: str | None = None,
    q: str = "",
    sort: str = "updated",
):
    """The pipelines of the caller's workspaces (or of one, by slug), newest change first
    (`sort=last_run`: latest run first; `sort=name`). `q` keeps those whose name, tags,
    folder, operators or node params (a file, a connection) have each of its words;
    `tag:x`, `folder:x` and `operator:x` look only there."""
    pipelines = visible_pipelines(request.user)
    if workspace is not None:
        pipelines = pipelines.filter(workspace=workspace_for(request.user, workspace))
    if q.strip():
        pipelines = filing.search(pipelines, q)
    return page(filing.ordered(pipelines.with_last_run(), sort), limit, offset, pipeline_summary)


@router.put(
    "/{int:pipeline_id}/filing",
    response=answers({200: PipelineSummary}, 400, 403, 404),
    openapi_extra=FILING_BODY,
    summary="Set folder and tags",
)
def set_filing(request, pipeline_id: ObjectId):
    """Sets the pipeline's `folder` and `tags` (either may be left out); the document, its
    revision and its history are not changed."""
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    filing.file_pipeline(pipeline, json_object(request))
    listed = visible_pipelines(request.user).with_last_run().get(pk=pipeline.pk)
    return pipeline_summary(listed)


@router.post(
    "",
    response=answers({201: PipelineOut}, 400, 403, 413),
    openapi_extra=DOCUMENT_BODY,
    summary="Create a pipeline",
)
def create_pipeline(request):
    """A new pipeline in `workspace` (a slug; default the caller's personal workspace)."""
    document, body = read_document(request)
    return Status(201, pipeline_json(_create(request, document, body)))


@router.post(
    "/import",
    response=answers({201: PipelineOut}, 400, 403, 413),
    openapi_extra=DOCUMENT_BODY,
    summary="Import",
)
def import_pipeline(request):
    """Create a pipeline from an exported document (the runtime CLI's format), in
    `workspace` (a slug; default the caller's personal workspace)."""
    document, body = read_document(request)
    imported = actions.import_pipeline(request.user, document, _workspace(request, body))
    return Status(201, pipeline_json(imported))


def _create(request, document, body: dict):
    return actions.create_pipeline(request.user, document, _workspace(request, body))


def _workspace(request, body: dict):
    """The workspace `body` names by slug (which the caller must be able to edit), or the
    caller's personal one."""
    slug = body.get("workspace")
    if slug is None:
        workspace = personal_workspace(request.user)
    elif isinstance(slug, str):
        workspace = workspace_for(request.user, slug, Action.EDIT)
    else:
        raise ActionError(
            400, "invalid_request", "workspace must be a workspace's slug", field="workspace"
        )
    return workspace


@router.get(
    "/{int:pipeline_id}", response=answers({200: PipelineOut}, 404), summary="Get a pipeline"
)
def get_pipeline(request, pipeline_id: ObjectId):
    return pipeline_json(pipeline_for(request.user, pipeline_id))


@router.put(
    "/{int:pipeline_id}",
    response=answers({200: SavedPipeline}, 400, 403, 404, 409, 413, 429),
    openapi_extra=DOCUMENT_BODY,
    summary="Save a pipeline",
)
def save_pipeline(request, pipeline_id: ObjectId):
    """Replace the whole graph; when `revision` is stale, merge it with what was saved
    meanwhile if the body has the `base` document (`merged` says what came from theirs), else
    409 with the current revision; 409 also for a merge whose sides changed the same things
    differently (`saved_by`, `conflicts` and `theirs` say who and what).

    The answer carries the saved document's problems and schemas (what `validate` and
    `schemas` would answer), so that an editor needs no other request after a save.
    """
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    document, body = read_document(request)
    revision = body.get("revision")
    if not isinstance(revision, int) or isinstance(revision, bool):
        raise ActionError(
            400, "revision_required", "send the revision you loaded, as a number", field="revision"
        )
    if revision != pipeline.revision and body.get("base") is not None:
        merged = merge_stale(pipeline, document, body["base"])
        answer = saved_answer(request, pipeline, merged.document, merged.revision)
        return {**answer, "merged": merged.taken}
    return saved_answer(request, pipeline, document, revision)


def saved_answer(
    request, pipeline, document: PipelineSpec, revision: int, restored: int | None = None
) -> dict:
    """Save `document` over `revision` as the caller, and answer what the save found."""
    checked = _checked(request, pipeline, document)
    problems = [Problem.from_json(problem) for problem in checked["problems"]]
    saved = actions.save_pipeline(pipeline, document, revision, request.user, problems, restored)
    return {**pipeline_json(saved, document), **checked}


@router.post(
    "/{int:pipeline_id}/check",
    response=answers({200: CheckedDocument}, 400, 403, 404, 413, 429),
    openapi_extra=DOCUMENT_BODY,
    summary="Check an unsaved document",
)
def check_pipeline(request, pipeline_id: ObjectId):
    """The problems and columns of the document in the body, as a save of it would answer
    them, with nothing saved: the editor's feedback while the user types. Editors only: the
    check reads the inputs the document names, queries on the workspace's connections
    included (a viewer's `schemas` and `validate` answer the saved document)."""
    pipeline = pipeline_for(request.user, pipeline_id, Action.TRY)
    document, _ = read_document(request)
    return _checked(request, pipeline, document)


@router.delete(
    "/{int:pipeline_id}", response=answers({204: None}, 403, 404), summary="Delete a pipeline"
)
def delete_pipeline(request, pipeline_id: ObjectId):
    actions.delete_pipeline(pipeline_for(request.user, pipeline_id, Action.EDIT))
    return Status(204, None)


@router.post(
    "/{int:pipeline_id}/duplicate",
    response=answers({201: PipelineOut}, 403, 404),
    summary="Duplicate",
)
def duplicate_pipeline(request, pipeline_id: ObjectId):
    copy = actions.duplicate_pipeline(
        pipeline_for(request.user, pipeline_id, Action.EDIT), request.user
    )
    return Status(201, pipeline_json(copy))


@router.post(
    "/{int:pipeline_id}/validate",
    response=answers({200: Validation}, 400, 403, 404, 413, 429),
    openapi_extra=PARAMETERS_BODY,
    summary="Validate",
)
def validate_pipeline(request, pipeline_id: ObjectId):
    """Every problem with node and field (body: optional `{parameters}`), schemas included."""
    pipeline = pipeline_for(request.user, pipeline_id)
    problems = _infer(request, pipeline, _parameters(json_object(request)))["problems"]
    return {"valid": not problems, "problems": problems}


@router.get(
    "/{int:pipeline_id}/schemas",
    response=answers({200: InferredSchemas}, 404, 429),
    summary="Columns per node",
)
def pipeline_schemas(request, pipeline_id: ObjectId):
    """Each node's input and output columns with types, inferred without running."""
    return _infer(request, pipeline_for(request.user, pipeline_id), {})


@router.post(
    "/{int:pipeline_id}/preview",
    response=answers({200: RowsPreview}, 400, 403, 404, 413, 429),
    openapi_extra=PREVIEW_BODY,
    summary="Preview a node's rows",
)
def preview_node(request, pipeline_id: ObjectId):
    """Runs only what the node needs, in a process of its own; never writes any output."""
    pipeline = pipeline_for(request.user, pipeline_id)
    body = parse_body(PreviewIn, json_object(request))
    inlined, _ = checked_inlined(pipeline, parameters=body.parameters)
    node, port, shown = previewed(inlined, body.node, body.port)
    found = jobs.preview(
        inlined.document,
        node,
        body.limit,
        port=port,
        parameters=body.parameters,
        **engine_access(pipeline.workspace, request.user),
    )
    return {**found, "node": body.node, "port": shown or found["port"]}


@router.get(
    "/{int:pipeline_id}/export",
    response=answers({200: PipelineSpec}, 404),
    summary="Export the document",
)
def export_pipeline(request, pipeline_id: ObjectId):
    """The document exactly as the runtime CLI accepts it: no database ids, no secrets."""
    return export_download(pipeline_for(request.user, pipeline_id))


@router.get(
    "/{int:pipeline_id}/graph.{fmt}",
    response=answers({200: None}, 404),
    openapi_extra=GRAPH_PICTURE,
    url_name="pipeline_graph",
    summary="Graph picture (svg or png)",
)
def graph_picture(request, pipeline_id: ObjectId, fmt: str):
    """A Graphviz picture, nodes coloured by the latest run's statuses.

    Served as an inert image: even opened on its own, a browser runs no script and follows no
    link in it, and never guesses another content type.
    """
    if fmt not in ("svg", "png"):
        raise HttpError(404, "graph pictures are svg or png")
    pipeline = pipeline_for(request.user, pipeline_id)
    content_type = "image/svg+xml" if fmt == "svg" else "image/png"
    response = HttpResponse(
        render(to_document(pipeline), latest_statuses(pipeline), fmt), content_type=content_type
    )
    response["Content-Security-Policy"] = PICTURE_POLICY
    response["X-Content-Type-Options"] = "nosniff"
    return response


@router.post(
    "/{int:pipeline_id}/layout",
    response=answers({200: Layout}, 403, 404),
    summary="Auto-layout positions",
)
def layout_pipeline(request, pipeline_id: ObjectId):
    """Node positions from Graphviz `dot`, for the editor to apply (nothing is saved)."""
    return {"positions": layout(to_document(pipeline_for(request.user, pipeline_id)))}


@router.post(
    "/{int:pipeline_id}/runs",
    response=answers({202: Run}, 400, 403, 404, 409, 413, 429),
    openapi_extra=RUN_BODY,
    summary="Start a run",
)
def start_run(request, pipeline_id: ObjectId):
    """Queue a run (body: optional `{parameters, fresh, tuning, up_to, from_node, pins,
    allow_problems}`; `tuning` defaults to true: planned from past runs' figures; `pins`
    defaults to true: the pipeline's pins are used); 409 `run_in_progress` while one is
    active, 422 `invalid_pipeline` or `pipeline_has_problems` (unless `allow_problems`), or
    `invalid_request` naming an unknown node."""
    body = json_object(request)
    pipeline = pipeline_for(request.user, pipeline_id, Action.RUN)
    start = parse_body(RunStartIn, body)
    reuse = run_actions.Reuse(
        fresh=start.fresh,
        up_to=start.up_to,
        from_node=start.from_node,
        pins=start.pins,
        tuning=start.tuning,
    )
    run = run_actions.start_run(
        pipeline, request.user, start.parameters, reuse, allow_problems=start.allow_problems
    )
    return Status(202, run_json(run, user=request.user))


@router.get("/{int:pipeline_id}/runs", response=answers({200: RunPage}, 404), summary="Run history")
def list_runs(request, pipeline_id: ObjectId, limit: Limit = 20, offset: Offset = 0):
    pipeline = pipeline_for(request.user, pipeline_id)
    runs = pipeline.runs.select_related("started_by").prefetch_related(*ORIGINS)
    return page(runs, limit, offset, lambda run: run_json(run, False))


def _parameters(body: dict) -> dict:
    parameters = body.get("parameters", {})
    if not isinstance(parameters, dict):
        raise ActionError(
            400, "invalid_request", "parameters must be an object", field="parameters"
        )
    return parameters


def _checked(request, pipeline, document: PipelineSpec) -> dict:
    """What a save answers of `document` besides the pipeline: its problems and each node's
    columns (`schemas`)."""
    found = _infer(request, pipeline, {}, document)
    return {"problems": found["problems"], "schemas": found["nodes"]}


def _infer(request, pipeline, parameters: dict, document: PipelineSpec | None = None) -> dict:
    """The schemas and problems of `document` (default: the pipeline's stored one), in the
    JSON form of `runtime.checks.inference.InferredSchemas`; sub-pipelines inlined, and the
    problems of their nodes shown at the node using them."""
    inlined, problems = checked_inlined(pipeline, document, parameters)
    found = jobs.infer_schemas(
        inlined.document, parameters, **engine_access(pipeline.workspace, request.user)
    )
    # Not inlined: a sub-pipeline node's columns are unknown, which its problems say already.
    refused = {problem.node for problem in problems} | {
        node.id for node in inlined.document.nodes if node.operator == "subpipeline"
    }
    shown = [problem.to_json() for problem in problems] + [
        problem for problem in found["problems"] if problem.get("node") not in refused
    ]
    found = with_subpipeline_columns({**found, "problems": shown}, inlined.subpipelines)
    return {**found, "problems": on_the_canvas(found["problems"], inlined.subpipelines)}
