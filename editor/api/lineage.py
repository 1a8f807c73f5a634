"""Column lineage of a saved pipeline: where each column comes from, for the canvas and API.

Its own router, mounted under `/pipelines`. The lineage is worked out in a job's process
(`editor.runs.jobs`), since it infers the schemas and so reads the inputs' samples.
"""

from __future__ import annotations

from ninja import Router

from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.lineage import PipelineLineage
from editor.dependencies.lineage import Neighbours
from editor.errors import ActionError
from editor.pipelines.subpipelines import inlined_or_refused
from editor.runs import jobs
from editor.workspaces.membership import engine_access
from editor.workspaces.permissions import pipeline_for

router = Router()


@router.get(
    "/{int:pipeline_id}/lineage",
    response=answers({200: PipelineLineage}, 400, 404, 422, 429),
    summary="Column lineage",
)
def pipeline_lineage(request, pipeline_id: ObjectId, node: str = "", column: str = ""):
    """Each node's columns with the upstream columns and expressions they come from, their
    input origins, the columns rows depend on, and which inputs reach each output. With `node`
    (an id, a label or an output's path) and `column`: that column's path as `selected`, and
    as `upstream` where it goes on in the pipelines of the workspace whose outputs its inputs
    read (those the user may read); 404 `unknown_column` when there is no such column. Each
    output node's `read_by` lists the inputs of the pipelines right downstream reading it."""
    if bool(node) != bool(column):
        message = "give both node and column, or neither"
        raise ActionError(400, "invalid_request", message, field="column" if node else "node")
    pipeline = pipeline_for(request.user, pipeline_id)
    access = engine_access(pipeline.workspace, request.user)
    document = inlined_or_refused(pipeline, summary="the lineage cannot be traced").document
    traced = {"key": pipeline.pk, "name": pipeline.name}
    neighbours = Neighbours(pipeline, request.user)
    upstreams = neighbours.upstream_documents() if column else []
    found = jobs.column_lineage(
        document, {}, node=node or None, column=column or None, traced=traced,
        upstreams=upstreams, **access,
    )  # fmt: skip
    if "not_found" in found:
        raise ActionError(404, "unknown_column", found["not_found"], node=node, field="column")
    for output, reading in neighbours.readers(document).items():
        if output in found["nodes"]:
            found["nodes"][output]["read_by"] = reading
    return found
