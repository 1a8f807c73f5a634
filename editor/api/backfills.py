"""A schedule's backfills: list, start, read (with progress), the intervals (the calendar),
cancel, and retry the failed intervals.

Seeing a pipeline lets one read its backfills; starting, cancelling or retrying one needs the
right to run it (editor), since its runs start with the starter's rights.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from ninja import Router
from ninja.responses import Status

from editor.api.bodies import json_object, parse_body
from editor.api.schemas.backfills import BackfillList, BackfillOut, IntervalList
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.backfills import actions
from editor.backfills.actions import BackfillIn
from editor.models import Backfill, Schedule
from editor.workspaces.permissions import Action, pipeline_for

router = Router()

LISTED = 50
"""Backfills a list shows, the newest first."""


def backfill_json(backfill: Backfill) -> dict:
    """A backfill as the API answers it, with its progress; its range in the schedule's time
    zone, as its runs' parameters are (the database keeps UTC)."""
    return {
        "id": backfill.pk,
        "pipeline": backfill.pipeline_id,
        "schedule": backfill.schedule_id,
        "owner": backfill.owner.get_username(),
        "start": actions.in_schedule_zone(backfill, backfill.start).isoformat(),
        "end": actions.in_schedule_zone(backfill, backfill.end).isoformat(),
        "start_parameter": backfill.start_parameter,
        "end_parameter": backfill.end_parameter,
        "value_format": backfill.value_format,
        "concurrency": backfill.concurrency,
        "status": backfill.status,
        "created_at": backfill.created_at.isoformat(),
        "finished_at": backfill.finished_at.isoformat() if backfill.finished_at else None,
        "progress": actions.progress(backfill),
    }


def _schedule(request, pipeline_id: int, schedule_id: int, action: Action) -> Schedule:
    pipeline = pipeline_for(request.user, pipeline_id, action)
    return get_object_or_404(
        Schedule.objects.select_related("pipeline"), pk=schedule_id, pipeline=pipeline
    )


def _backfill(request, pipeline_id, schedule_id, backfill_id, action: Action) -> Backfill:
    schedule = _schedule(request, pipeline_id, schedule_id, action)
    return get_object_or_404(
        Backfill.objects.select_related("owner", "schedule"), pk=backfill_id, schedule=schedule
    )


PATH = "/{int:pipeline_id}/schedules/{int:schedule_id}/backfills"
ONE = PATH + "/{int:backfill_id}"


@router.get(PATH, response=answers({200: BackfillList}, 404), summary="A schedule's backfills")
def list_backfills(request, pipeline_id: ObjectId, schedule_id: ObjectId):
    schedule = _schedule(request, pipeline_id, schedule_id, Action.VIEW)
    found = schedule.backfills.select_related("owner", "schedule").order_by("-created_at", "-id")
    found = found[:LISTED]
    return {"items": [backfill_json(backfill) for backfill in found]}


@router.post(
    PATH,
    response=answers({201: BackfillOut}, 400, 403, 404),
    openapi_extra=request_body(BackfillIn.model_json_schema()),
    summary="Start a backfill",
)
def create_backfill(request, pipeline_id: ObjectId, schedule_id: ObjectId):
    """Each interval of the schedule's cron between `start` and `end` becomes a run with the
    interval's start and end as the parameters named; its runs use your rights. 400
    `too_many_intervals` past 10,000; 400 `invalid_backfill` names the field."""
    body = json_object(request)
    schedule = _schedule(request, pipeline_id, schedule_id, Action.RUN)
    fields = parse_body(BackfillIn, body)
    return Status(201, backfill_json(actions.create_backfill(schedule, request.user, fields)))


@router.get(ONE, response=answers({200: BackfillOut}, 404), summary="One backfill")
def get_backfill(request, pipeline_id: ObjectId, schedule_id: ObjectId, backfill_id: ObjectId):
    return backfill_json(_backfill(request, pipeline_id, schedule_id, backfill_id, Action.VIEW))


@router.get(
    ONE + "/intervals",
    response=answers({200: IntervalList}, 404),
    summary="A backfill's intervals (its calendar)",
)
def list_intervals(request, pipeline_id: ObjectId, schedule_id: ObjectId, backfill_id: ObjectId):
    """Every interval in order (at most 10,000), with its state and run; its start and end in
    the schedule's time zone, so that a calendar day is the schedule's day."""
    backfill = _backfill(request, pipeline_id, schedule_id, backfill_id, Action.VIEW)
    rows = backfill.intervals.order_by("start").values_list(
        "start", "end", "status", "run", "attempts", "error"
    )
    keys = ("start", "end", "status", "run", "attempts", "error")

    def local(moment):
        return actions.in_schedule_zone(backfill, moment).isoformat()

    return {
        "items": [
            dict(zip(keys, (local(start), local(end), *rest), strict=True))
            for start, end, *rest in rows
        ]
    }


@router.post(
    ONE + "/cancel", response=answers({200: BackfillOut}, 403, 404), summary="Cancel a backfill"
)
def cancel_backfill(request, pipeline_id: ObjectId, schedule_id: ObjectId, backfill_id: ObjectId):
    """Waiting intervals are cancelled, running ones through their runs' cancel."""
    backfill = _backfill(request, pipeline_id, schedule_id, backfill_id, Action.RUN)
    return backfill_json(actions.cancel_backfill(backfill, request.user))


@router.post(
    ONE + "/retry",
    response=answers({200: BackfillOut}, 403, 404),
    summary="Retry a backfill's failed intervals",
)
def retry_backfill(request, pipeline_id: ObjectId, schedule_id: ObjectId, backfill_id: ObjectId):
    backfill = _backfill(request, pipeline_id, schedule_id, backfill_id, Action.RUN)
    actions.retry_failed(backfill, request.user)
    return backfill_json(backfill)
