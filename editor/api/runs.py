"""Runs: details with node runs, and cancelling."""

from ninja import Router

from editor.api.representations import run_json
from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.runs import Run
from editor.runs import actions
from editor.workspaces.permissions import Action, run_for

router = Router()


@router.get("/{int:run_id}", response=answers({200: Run}, 404), summary="A run with its node runs")
def get_run(request, run_id: ObjectId):
    return run_json(run_for(request.user, run_id), user=request.user)


@router.post("/{int:run_id}/cancel", response=answers({200: Run}, 403, 404), summary="Cancel a run")
def cancel_run(request, run_id: ObjectId):
    """Stops a queued or running run within about a second; a finished run is unchanged."""
    run = actions.cancel_run(run_for(request.user, run_id, Action.RUN))
    return run_json(run, user=request.user)
