"""`GET /api/runs/{id}/inside/{path}`: the pipeline that ran inside a sub-pipeline node of a
run, for the editor's "run inside" view, and `GET /api/runs/{id}/drawn`: the run's pipeline
with its sub-pipeline nodes (a run's document has them inlined); for anyone who may view the
run (its inner pipelines are of the run's workspace: see `editor.runs.inside`)."""

from __future__ import annotations

from ninja import Router

from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.subpipelines import RunDrawn, RunInside
from editor.runs.inside import drawn, inside, inside_json
from editor.workspaces.permissions import run_for
from runtime.document.spec import to_json_dict

router = Router()


@router.get(
    "/{int:run_id}/inside/{path}",
    response=answers({200: RunInside}, 404),
    summary="The pipeline that ran inside a sub-pipeline node",
)
def run_inside(request, run_id: ObjectId, path: str):
    """`path`: the node as the run's ids name it (`sub`, `sub__nested`, `each__2` for a loop's
    third iteration)."""
    run = run_for(request.user, run_id)
    return inside_json(run, inside(run, path))


@router.get(
    "/{int:run_id}/drawn",
    response=answers({200: RunDrawn}, 404),
    summary="A run's pipeline with its sub-pipeline nodes",
)
def run_drawn(request, run_id: ObjectId):
    """The pipeline at the revision the run started from, each node with the params the run
    gave it; its sub-pipeline nodes' runs are those of the nodes under their ids (`sub__...`)."""
    return {"document": to_json_dict(drawn(run_for(request.user, run_id)))}
