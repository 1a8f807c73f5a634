"""The optimised plan of a saved pipeline: what a run would do, for the editor's plan view.

Its own router beside `editor.api.pipelines` (mounted under `/pipelines` too): it plans, in a
job's process (`editor.runs.jobs`), never running or reading data beyond the file sizes and
schemas the planner looks at.
"""

from __future__ import annotations

from typing import Annotated

from ninja import Query, Router

from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.plans import ExplainedPlan
from editor.errors import ActionError, problems_error
from editor.models import NodeRun
from editor.pipelines.pins import pin_paths, run_pins
from editor.pipelines.subpipelines import inlined_or_refused
from editor.runs import jobs
from editor.workspaces.membership import engine_access
from editor.workspaces.permissions import pipeline_for
from runtime.document.backend_names import Backend
from runtime.document.parameters import parse_cli_pair
from runtime.execution.statuses import NodeStatus
from runtime.plan.inline import describe
from runtime.plan.reuse.reuse_pass import REUSED

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
    the nodes pinned (`pinned`, with the pipeline's pins as a run from the editor uses them),
    and `explain`'s text; `backend` overrides the document's. 422 `invalid_pipeline` with
    the problems when a run of the saved document would be refused."""
    pipeline = pipeline_for(request.user, pipeline_id)
    parameters = _parameters(param or [])
    access = engine_access(pipeline.workspace, request.user)
    summary = "the pipeline cannot be planned"
    inlined = inlined_or_refused(pipeline, parameters=parameters, summary=summary)
    pinned = pin_paths(run_pins(pipeline, inlined.document))
    problems, plan = jobs.explained_plan(
        inlined.document, parameters, backend=backend, pins=pinned, **access
    )
    if problems:
        raise problems_error(422, "invalid_pipeline", summary, problems)
    text = "\n".join([plan["text"], *describe(inlined)])
    return {**plan, "text": text, "subpipelines": inlined.subpipelines,
            "reused_from": _reused_from(pipeline, plan.get("reuse", {}))}  # fmt: skip


def _reused_from(pipeline, reuse: dict[str, str]) -> dict[str, int]:
    """For each node the plan reuses, the number of the newest run that computed it (succeeded,
    not itself read from the store)."""
    reused = [node for node, why in reuse.items() if why.startswith(REUSED)]
    found: dict[str, int] = {}
    if not reused:
        return found
    computed = NodeRun.objects.filter(
        run__pipeline=pipeline, node_id__in=reused, status=NodeStatus.SUCCEEDED
    ).order_by("-run__number")
    for node_id, number, metrics in computed.values_list("node_id", "run__number", "metrics"):
        if node_id not in found and not (metrics or {}).get("cached"):
            found[node_id] = number
    return found


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
