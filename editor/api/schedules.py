"""A pipeline's schedules: list, create, read, replace, delete, and the next fire times of an
expression as the user types it (`/schedules/preview`).

Seeing a pipeline lets one read its schedules; changing them needs the right to run it
(editor), since their runs start with the saver's rights. Saves go through
`editor.schedules.actions`, as the admin's do.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from ninja import Router
from ninja.responses import Status

from editor.api.bodies import json_object, parse_body
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.api.schemas.schedules import Preview, PreviewIn, ScheduleList, ScheduleOut
from editor.models import Schedule
from editor.schedules import actions
from editor.schedules.actions import ScheduleIn
from editor.workspaces.permissions import Action, pipeline_for

router = Router()
previews = Router()

SCHEDULE_BODY = request_body(ScheduleIn.model_json_schema())


def schedule_json(schedule: Schedule) -> dict:
    """A schedule as the API answers it, with its next five fire times (empty when paused)."""
    upcoming = actions.preview(schedule.cron, schedule.timezone) if schedule.enabled else []
    return {
        "id": schedule.pk,
        "pipeline": schedule.pipeline_id,
        "owner": schedule.owner.get_username(),
        "name": schedule.name,
        "cron": schedule.cron,
        "timezone": schedule.timezone,
        "parameters": schedule.parameters,
        "enabled": schedule.enabled,
        "paused_reason": schedule.paused_reason,
        "missed": schedule.missed,
        "overlap": schedule.overlap,
        "use_pins": schedule.use_pins,
        "tuning": schedule.tuning,
        "next_fire_at": _time(schedule.next_fire_at),
        "last_fire_at": _time(schedule.last_fire_at),
        "last_run": schedule.last_run_id,
        "last_outcome": schedule.last_outcome,
        "next_times": [_time(moment) for moment in upcoming],
    }


def _time(moment) -> str | None:
    return moment.isoformat() if moment else None


def _schedule(request, pipeline_id: int, schedule_id: int, action: Action) -> Schedule:
    pipeline = pipeline_for(request.user, pipeline_id, action)
    return get_object_or_404(
        Schedule.objects.select_related("owner", "pipeline"), pk=schedule_id, pipeline=pipeline
    )


@router.get(
    "/{int:pipeline_id}/schedules",
    response=answers({200: ScheduleList}, 404),
    summary="A pipeline's schedules",
)
def list_schedules(request, pipeline_id: ObjectId):
    pipeline = pipeline_for(request.user, pipeline_id)
    found = pipeline.schedules.select_related("owner").order_by("pk")
    return {"items": [schedule_json(schedule) for schedule in found]}


@router.post(
    "/{int:pipeline_id}/schedules",
    response=answers({201: ScheduleOut}, 400, 403, 404, 422),
    openapi_extra=SCHEDULE_BODY,
    summary="Add a schedule",
)
def create_schedule(request, pipeline_id: ObjectId):
    """Its runs use your rights; 400 `invalid_schedule` names the field (cron, timezone);
    400 `too_many_schedules` once the pipeline has 50."""
    body = json_object(request)
    pipeline = pipeline_for(request.user, pipeline_id, Action.RUN)
    fields = parse_body(ScheduleIn, body)
    schedule = actions.create_schedule(pipeline, request.user, fields)
    return Status(201, schedule_json(schedule))


@router.get(
    "/{int:pipeline_id}/schedules/{int:schedule_id}",
    response=answers({200: ScheduleOut}, 404),
    summary="One schedule",
)
def get_schedule(request, pipeline_id: ObjectId, schedule_id: ObjectId):
    return schedule_json(_schedule(request, pipeline_id, schedule_id, Action.VIEW))


@router.put(
    "/{int:pipeline_id}/schedules/{int:schedule_id}",
    response=answers({200: ScheduleOut}, 400, 403, 404, 422),
    openapi_extra=SCHEDULE_BODY,
    summary="Replace a schedule",
)
def update_schedule(request, pipeline_id: ObjectId, schedule_id: ObjectId):
    """You become its owner: its runs use your rights from now on."""
    body = json_object(request)
    schedule = _schedule(request, pipeline_id, schedule_id, Action.RUN)
    fields = parse_body(ScheduleIn, body)
    return schedule_json(actions.update_schedule(schedule, fields, request.user))


@router.delete(
    "/{int:pipeline_id}/schedules/{int:schedule_id}",
    response=answers({204: None}, 403, 404),
    summary="Delete a schedule",
)
def delete_schedule(request, pipeline_id: ObjectId, schedule_id: ObjectId):
    actions.delete_schedule(_schedule(request, pipeline_id, schedule_id, Action.RUN), request.user)
    return Status(204, None)


@previews.post(
    "/preview",
    response=answers({200: Preview}, 400, 422),
    openapi_extra=request_body(PreviewIn.model_json_schema()),
    summary="The next five fire times of an expression",
)
def preview_schedule(request):
    """For the editor to show as the user types; 400 `invalid_schedule` names the field."""
    fields = parse_body(PreviewIn, json_object(request))
    return {
        "next_times": [_time(moment) for moment in actions.preview(fields.cron, fields.timezone)]
    }
