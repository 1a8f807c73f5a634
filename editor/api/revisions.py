"""A pipeline's history: its kept versions, one version's document, the difference between
two, and restoring one (a save like any other, so it is itself a new, restorable version).

Its own router beside `editor.api.pipelines`, mounted under `/pipelines` too. Reading history
needs the right to see the pipeline; restoring needs the right to edit it.
"""

from __future__ import annotations

from typing import Annotated

from django.http import Http404
from ninja import Query, Router

from editor.api.bodies import json_object, parse_body, read_document
from editor.api.pipelines import DOCUMENT_BODY, saved_answer
from editor.api.representations import page
from editor.api.schemas.contract import Limit, ObjectId, Offset, answers, request_body
from editor.api.schemas.pipelines import SavedPipeline
from editor.api.schemas.revisions import (
    DocumentDiff,
    RestoreIn,
    RevisionDocument,
    RevisionPage,
    UnsavedDiff,
)
from editor.errors import ActionError, problems_error
from editor.models import Pipeline, PipelineRevision
from editor.pipelines import revisions
from editor.pipelines.documents import to_document
from editor.workspaces.permissions import Action, pipeline_for
from runtime import PipelineValidationError, load_document
from runtime.document.diff import diff_documents, summarise
from runtime.document.spec import to_json_dict

router = Router()

RESTORE_BODY = request_body(RestoreIn.model_json_schema())


@router.get(
    "/{int:pipeline_id}/revisions",
    response=answers({200: RevisionPage}, 404),
    summary="History: the kept versions",
)
def list_revisions(request, pipeline_id: ObjectId, limit: Limit = 50, offset: Offset = 0):
    """The newest first, each with who saved it, when, and what it changed."""
    pipeline = pipeline_for(request.user, pipeline_id)
    versions = _kept(pipeline).select_related("author")
    return {**page(versions, limit, offset, revision_json), "current": pipeline.revision}


@router.get(
    "/{int:pipeline_id}/revisions/{int:revision}",
    response=answers({200: RevisionDocument}, 404),
    summary="One version's document",
)
def get_revision(request, pipeline_id: ObjectId, revision: ObjectId):
    version = _version(pipeline_for(request.user, pipeline_id), revision)
    return {**revision_json(version), "document": version.document}


@router.get(
    "/{int:pipeline_id}/diff",
    response=answers({200: DocumentDiff}, 404),
    by_alias=True,
    summary="What changed between two versions",
)
def diff_revisions(
    request,
    pipeline_id: ObjectId,
    from_: Annotated[ObjectId | None, Query(alias="from", description="One version.")] = None,
    to: Annotated[ObjectId | None, Query(description="The version compared with it.")] = None,
):
    """The nodes, edges, notes, groups and settings that differ from version `from` to `to`
    (either order; moves are listed apart, as `moved`). Both are required; a missing one is
    reported after the permission check, so that it tells nothing of a pipeline one may not see."""
    pipeline = pipeline_for(request.user, pipeline_id)
    for name, value in (("from", from_), ("to", to)):
        if value is None:
            raise ActionError(422, "invalid_request", f"give `{name}`, a revision", field=name)
    diff = diff_documents(_version(pipeline, from_).document, _version(pipeline, to).document)
    return {"from": from_, "to": to, "summary": summarise(diff), **diff}


@router.post(
    "/{int:pipeline_id}/diff",
    response=answers({200: UnsavedDiff}, 400, 404, 413),
    openapi_extra=DOCUMENT_BODY,
    by_alias=True,
    summary="What an unsaved document changes",
)
def diff_unsaved(request, pipeline_id: ObjectId):
    """What differs from the pipeline as saved (`from`: its revision) to the document in the
    body, as `diff` answers two versions: after a refused save (409), what the editor's version
    changes in the one saved meanwhile. Whoever may view the pipeline may ask: nothing runs."""
    pipeline = pipeline_for(request.user, pipeline_id)
    document, _ = read_document(request)
    diff = diff_documents(to_json_dict(to_document(pipeline)), to_json_dict(document))
    return {"from": pipeline.revision, "summary": summarise(diff), **diff}


@router.post(
    "/{int:pipeline_id}/revisions/{int:revision}/restore",
    response=answers({200: SavedPipeline}, 400, 403, 404, 409),
    openapi_extra=RESTORE_BODY,
    summary="Restore a version",
)
def restore_revision(request, pipeline_id: ObjectId, revision: ObjectId):
    """Save version `revision`'s document as the pipeline now: a new version, which can itself
    be undone by restoring the one before. `revision` in the body guards it as a save's does.
    The pipeline keeps its current name: a restore brings back the graph, not an old title."""
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    loaded = parse_body(RestoreIn, json_object(request)).revision
    version = _version(pipeline, revision)
    try:
        document = load_document(version.document)
    except PipelineValidationError as error:
        message = f"revision {revision} can no longer be loaded"
        raise problems_error(400, "invalid_document", message, error.problems) from None
    document = document.model_copy(update={"name": pipeline.name})
    return saved_answer(request, pipeline, document, loaded, restored=revision)


def revision_json(version: PipelineRevision) -> dict:
    return {
        "revision": version.revision,
        "kind": version.kind,
        "author": version.author.get_username() if version.author else None,
        "created_at": version.created_at.isoformat(),
        "saved_at": version.saved_at.isoformat(),
        "summary": version.summary,
    }


def _kept(pipeline: Pipeline):
    """The pipeline's versions, after giving one saved before history existed its first."""
    revisions.start_history(pipeline)
    return pipeline.revisions.all()


def _version(pipeline: Pipeline, revision: int) -> PipelineRevision:
    version = _kept(pipeline).filter(revision=revision).first()
    if version is None:
        raise Http404(f"history keeps no revision {revision} of this pipeline")
    return version
