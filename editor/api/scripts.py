"""`GET /api/pipelines/{id}/script`: the pipeline compiled to a standalone Python script.

Whoever may view a pipeline may download its script; the script is compiled, in a job's
process as a preview is, against the files and connections of the pipeline's workspace (to
read its inputs' and queries' columns); the script names each connection's environment
variable, never its URL. A pipeline that cannot be compiled exactly (a plugin operator, an
incremental input ...) answers 422 naming the node; one with problems, 422 listing them.
The script runs where the pipeline's backend puts it (DuckDB segments where the plan would use
them); `?backend=` asks for another (`pandas`: a script of pandas only).
"""

from __future__ import annotations

from ninja import Router

from editor.api.schemas.contract import ObjectId, answers
from editor.errors import problems_error
from editor.pipelines.exports import download, script_name
from editor.pipelines.subpipelines import inlined_or_refused
from editor.runs import jobs
from editor.workspaces.membership import engine_access
from editor.workspaces.permissions import pipeline_for
from runtime import PipelineValidationError
from runtime.document.backend_names import Backend

router = Router()

SCRIPT_FILE = {
    "responses": {
        200: {
            "description": "The script, as a file to save",
            "content": {"text/x-python": {"schema": {"type": "string"}}},
        }
    }
}


@router.get(
    "/{int:pipeline_id}/script",
    response=answers({200: None}, 404, 422, 429),
    summary="Export as a Python script",
    openapi_extra=SCRIPT_FILE,
)
def pipeline_script(request, pipeline_id: ObjectId, backend: Backend | None = None):
    """A Python file that runs the pipeline with pandas, and DuckDB where the plan puts
    segments on it, with the same outputs as a run; `backend` overrides the document's (an
    unknown one is a 422 naming it, as for the plan)."""
    pipeline = pipeline_for(request.user, pipeline_id)
    access = engine_access(pipeline.workspace, request.user)
    try:
        inlined = inlined_or_refused(pipeline, summary="the pipeline cannot be compiled")
        script = jobs.compiled_script(inlined.document, backend=backend, **access)
    except PipelineValidationError as error:
        message = "the pipeline cannot be compiled"
        raise problems_error(422, "invalid_pipeline", message, error.problems) from error
    return download(script, script_name(pipeline), "text/x-python")
