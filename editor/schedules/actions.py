"""What users do to schedules, each in one transaction: create, update, delete, and pause
(by hand, or by the server when the owner may no longer run the pipeline).

The API and the admin both save through here. Every change ends in `changed`, the one place
to hook a record of it (the audit log). A schedule's runs use its owner's rights, so whoever
saves a schedule becomes its owner: nobody makes runs happen with someone else's rights.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Literal

from django.db import transaction
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from editor.audit import log as audit_log
from editor.errors import ActionError, problems_error
from editor.models import Pipeline, Schedule, Workspace
from editor.pipelines.subpipelines import inlined_or_refused
from editor.runs import jobs
from editor.schedules import cron_times
from editor.workspaces.membership import engine_access
from editor.workspaces.permissions import Action, may

log = logging.getLogger(__name__)

PREVIEW_COUNT = 5
"""How many next fire times a preview shows."""
MAX_PER_PIPELINE = 50
"""Schedules one pipeline may have: each fires runs with its owner's rights (a script once
made 1,000)."""


class ScheduleIn(BaseModel):
    """A schedule as the API and the admin take it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=200)
    cron: str = Field(max_length=cron_times.CRON_MAX_LENGTH)
    timezone: str = Field("UTC", max_length=cron_times.ZONE_MAX_LENGTH)
    parameters: dict = Field(default_factory=dict)
    enabled: bool = True
    missed: Literal["skip", "run_once"] = "skip"
    overlap: Literal["skip", "queue"] = "skip"
    use_pins: bool = False
    tuning: bool = True


def checked_times(cron: str, zone: str) -> tuple[str, object]:
    """The normalised expression and the zone, or a 400 naming the field that is wrong."""
    try:
        return cron_times.check_cron(cron), cron_times.check_zone(zone)
    except cron_times.CronError as error:
        raise ActionError(400, "invalid_schedule", str(error), field=error.field) from None


def preview(cron: str, zone: str, now: datetime | None = None) -> list[datetime]:
    """The next `PREVIEW_COUNT` fire times of `cron` in `zone` after `now` (UTC)."""
    expression, zone_info = checked_times(cron, zone)
    return cron_times.next_times(expression, zone_info, now or timezone.now(), PREVIEW_COUNT)


def _check_parameters(pipeline: Pipeline, owner, parameters: dict) -> None:
    """Refuse parameters a manual start would refuse (422, as that start answers)."""
    access = engine_access(pipeline.workspace, owner)
    summary = "the pipeline cannot run with these parameters"
    document = inlined_or_refused(pipeline, parameters=parameters, summary=summary).document
    problems = jobs.run_problems(document, parameters, **access)
    if problems:
        raise problems_error(422, "invalid_pipeline", summary, problems)


def check(pipeline: Pipeline, owner, fields: ScheduleIn) -> tuple[str, object]:
    """What a save of `fields` checks (the admin's form asks before saving): the normalised
    expression and the zone, or an ActionError naming the field."""
    expression, zone = checked_times(fields.cron, fields.timezone)
    _check_parameters(pipeline, owner, fields.parameters)
    return expression, zone


def refuse_too_many(pipeline: Pipeline) -> None:
    """Raise 400 `too_many_schedules` when `pipeline` has `MAX_PER_PIPELINE` already."""
    if pipeline.schedules.count() >= MAX_PER_PIPELINE:
        raise ActionError(
            400, "too_many_schedules",
            f"a pipeline has at most {MAX_PER_PIPELINE} schedules; delete one to add another",
        )  # fmt: skip


def _apply(
    schedule: Schedule, fields: ScheduleIn, owner, now: datetime, checked: tuple[str, object]
) -> Schedule:
    """Set `fields` on the schedule and save it; `checked`: what `check` answered of them."""
    expression, zone = checked
    times_changed = (schedule.cron, schedule.timezone) != (expression, fields.timezone)
    resumed = fields.enabled and not schedule.enabled
    schedule.name = fields.name
    schedule.cron = expression
    schedule.timezone = fields.timezone
    schedule.parameters = fields.parameters
    schedule.enabled = fields.enabled
    schedule.missed = fields.missed
    schedule.overlap = fields.overlap
    schedule.use_pins = fields.use_pins
    schedule.tuning = fields.tuning
    schedule.owner = owner
    if fields.enabled:
        schedule.paused_reason = ""
    if schedule.next_fire_at is None or times_changed or resumed:
        # From now on: a paused schedule being resumed has missed nothing.
        schedule.next_fire_at = cron_times.next_time(expression, zone, now)
    schedule.save()
    return schedule


def create_schedule(
    pipeline: Pipeline, owner, fields: ScheduleIn, now: datetime | None = None
) -> Schedule:
    """A new schedule of `pipeline`, owned by `owner`, first firing after `now`; at most
    `MAX_PER_PIPELINE` (the pipeline's row is locked while they are counted). Its parameters
    are checked as a run's are, before the transaction: the check reads the inputs."""
    checked = check(pipeline, owner, fields)
    with transaction.atomic():
        refuse_too_many(Pipeline.objects.select_for_update().get(pk=pipeline.pk))
        schedule = _apply(
            Schedule(pipeline=pipeline), fields, owner, now or timezone.now(), checked
        )
        changed(schedule, "created", owner)
    return schedule


def update_schedule(
    schedule: Schedule, fields: ScheduleIn, by, now: datetime | None = None
) -> Schedule:
    """Replace the schedule's settings; `by` becomes its owner. A new expression, zone, or a
    resume counts from `now`. Checked before the transaction, as `create_schedule` is."""
    checked = check(schedule.pipeline, by, fields)
    with transaction.atomic():
        schedule = Schedule.objects.select_for_update().get(pk=schedule.pk)
        _apply(schedule, fields, by, now or timezone.now(), checked)
        changed(schedule, "updated", by)
    return schedule


@transaction.atomic
def delete_schedule(schedule: Schedule, by) -> None:
    """Delete the schedule; the runs it started stay, marked scheduled."""
    changed(schedule, "deleted", by)
    schedule.delete()


def pause(schedule: Schedule, reason: str) -> None:
    """Stop the schedule firing, saying why, and tell the workspace's admins."""
    Schedule.objects.filter(pk=schedule.pk).update(
        enabled=False, paused_reason=reason[:300], updated_at=timezone.now()
    )
    schedule.enabled, schedule.paused_reason = False, reason[:300]
    changed(schedule, "paused", None)
    tell_admins(
        schedule.pipeline.workspace, f"schedule {schedule.pk} of '{schedule.pipeline}': {reason}"
    )


def pause_where_owner_may_not_run(workspace: Workspace, user) -> int:
    """Pause `user`'s enabled schedules in `workspace` that they may no longer run (they left,
    or their role fell below editor); how many were paused."""
    paused = 0
    owned = Schedule.objects.filter(pipeline__workspace=workspace, owner=user, enabled=True)
    for schedule in owned.select_related("pipeline__workspace", "owner"):
        if not may(user, Action.RUN, schedule.pipeline):
            pause(schedule, owner_left_reason(user, workspace))
            paused += 1
    return paused


def owner_left_reason(user, workspace: Workspace) -> str:
    return (
        f"paused: its owner {user.get_username()} may no longer run pipelines in workspace "
        f"'{workspace.slug}'; an editor who saves it again becomes its owner"
    )


def tell_admins(workspace: Workspace, message: str) -> None:
    """Tell the workspace's admins: a warning in the server log here, and the workspace page
    lists each paused schedule with its reason."""
    log.warning("workspace %s: %s", workspace.slug, message)


def paused_schedules(workspace: Workspace) -> list[dict]:
    """What the workspace page shows its admins: the schedules the server paused, and why."""
    paused = Schedule.objects.filter(pipeline__workspace=workspace, enabled=False)
    paused = paused.exclude(paused_reason="").select_related("pipeline").order_by("pk")
    return [
        {
            "id": schedule.pk,
            "pipeline": schedule.pipeline_id,
            "pipeline_name": schedule.pipeline.name,
            "cron": schedule.cron,
            "reason": schedule.paused_reason,
        }
        for schedule in paused
    ]


def changed(schedule: Schedule, change: str, by) -> None:
    """A schedule was created, updated, deleted or paused (`by` None: by the server)."""
    who = by.get_username() if by is not None else "the server"
    log.info("schedule %s of pipeline %s %s by %s", schedule.pk, schedule.pipeline_id, change, who)
    details = {"cron": schedule.cron, "timezone": schedule.timezone, "enabled": schedule.enabled}
    if change == "paused":
        details["reason"] = schedule.paused_reason
    audit_log.record(f"schedule.{change}", schedule, details=details, user=by)
