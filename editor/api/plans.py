"""The optimised plan of a saved pipeline: what a run would do, for the editor's plan view.

Its own router beside `editor.api.pipelines` (mounted under `/pipelines` too): it plans, it
never runs or reads data beyond the file sizes and schemas the planner looks at.
"""

from __future__ import annotations

from typing import Annotated

from ninja import Query, Router

from editor import preview_pool
from editor.api.schemas import ExplainedPlan, ObjectId, answers
from editor.documents import to_document
from editor.errors import ActionError, problems_error
from editor.permissions import pipeline_for
from editor.workspaces import engine_access
from runtime.backend_names import Backend
from runtime.parameters import parse_cli_pair
from runtime.plan import build_plan
from runtime.plan.explain import explain_json
from runtime.plan.prepare import prepare

router = Router()

PARAM = "A parameter's value as NAME=VALUE (VALUE parses as JSON, else stays text); repeatable."


@router.get(
    "/{int:pipeline_id}/plan",
    response=answers({200: ExplainedPlan}, 400, 404, 429),
    summary="The optimised plan",
)
def pipeline_plan(
    request,
    pipeline_id: ObjectId,
    backend: Backend | None = None,
    param: Annotated[list[str] | None, Query(description=PARAM)] = None,
):
    """Segments with their backend, nodes left on pandas, what the passes eliminated or merged,
    and `explain`'s text; `backend` overrides the document's. 422 `invalid_pipeline` with
    the problems when a run of the saved document would be refused."""
    pipeline = pipeline_for(request.user, pipeline_id)
    parameters = _parameters(param or [])
    access = engine_access(pipeline.workspace, request.user)
    document = to_document(pipeline)
    problems = preview_pool.run_problems(document, parameters, **access)
    if problems:
        raise problems_error(422, "invalid_pipeline", "the pipeline cannot be planned", problems)
    plan = build_plan(document, parameters, data_root=access["data_root"])
    return explain_json(prepare(plan, backend=backend, **access))


def _parameters(pairs: list[str]) -> dict:
    """`{name: value}` from `NAME=VALUE` pairs (VALUE parses as JSON, else stays a string)."""
    parameters = {}
    for pair in pairs:
        try:
            name, value = parse_cli_pair(pair)
        except ValueError as error:
            message = f"param expects NAME=VALUE, got '{pair}'"
            raise ActionError(400, "invalid_request", message, field="param") from error
        parameters[name] = value
    return parameters
