"""What users do to backfills: create one from a schedule and a date range (its intervals
inserted in bulk), cancel it, retry its failed intervals, and read its progress.

A backfill's runs use its owner's rights, as a schedule's do: whoever starts it owns it. The
parameters its runs get are the schedule's, plus the interval's start and end under the names
the backfill gives, which must be parameters the pipeline declares.
"""

from __future__ import annotations

import itertools
import logging
from datetime import UTC, datetime
from typing import Literal

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.models import Backfill, BackfillInterval, Run, Schedule
from editor.pipelines.documents import to_document
from editor.runs.actions import cancel_run
from editor.schedules import cron_times

log = logging.getLogger(__name__)

MAX_INTERVALS = 10_000
"""Intervals one backfill may have (10 years of days fit; a minute-by-minute year does not)."""
MAX_CONCURRENCY = 32
INSERT_BATCH = 1_000
"""Intervals inserted per statement."""

Interval = BackfillInterval.Status


class BackfillIn(BaseModel):
    """A backfill as the API and the CLI take it: a time without a zone is the schedule's."""

    model_config = ConfigDict(extra="forbid")

    start: datetime
    end: datetime
    start_parameter: str = Field("interval_start", max_length=100)
    end_parameter: str = Field("interval_end", max_length=100)
    value_format: Literal["datetime", "date"] = "datetime"
    concurrency: int = Field(1, ge=1, le=MAX_CONCURRENCY)


def _refused(message: str, field: str | None = None, code: str = "invalid_backfill"):
    return ActionError(400, code, message, field=field)


def intervals_of(schedule: Schedule, start: datetime, end: datetime) -> list[tuple]:
    """The (start, end) of each interval between two fire times of the schedule within
    [`start`, `end`]; 400 `too_many_intervals` past `MAX_INTERVALS` (found lazily: a larger
    range is never listed whole)."""
    zone = cron_times.check_zone(schedule.timezone)
    start, end = _aware(start, zone), _aware(end, zone)
    if end <= start:
        raise _refused("the end must come after the start", "end")
    times = list(
        itertools.islice(
            cron_times.times_between(schedule.cron, zone, start, end), MAX_INTERVALS + 2
        )
    )
    if len(times) - 1 > MAX_INTERVALS:
        raise _refused(
            f"a backfill has at most {MAX_INTERVALS:,} intervals; this range has more — "
            "split it into several backfills",
            "end",
            code="too_many_intervals",
        )
    if len(times) < 2:
        raise _refused(
            f"no interval of '{schedule.cron}' ({schedule.timezone}) lies whole between the "
            "start and the end",
            "end",
        )
    return list(itertools.pairwise(times))


def _aware(moment: datetime, zone) -> datetime:
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _check_parameters(schedule: Schedule, fields: BackfillIn) -> None:
    """Refuse parameter names the pipeline does not declare (400 naming the field)."""
    declared = to_document(schedule.pipeline).config.parameters
    names = {"start_parameter": fields.start_parameter, "end_parameter": fields.end_parameter}
    if fields.start_parameter == fields.end_parameter:
        raise _refused("the start and the end need parameters of their own", "end_parameter")
    for field, name in names.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "it declares none"
            raise _refused(
                f"the pipeline declares no parameter '{name}' (known: {known}); declare it in "
                "the pipeline's parameters or name another",
                field,
            )


def create_backfill(schedule: Schedule, owner, fields: BackfillIn) -> Backfill:
    """A backfill of `schedule` over the range, owned by `owner`, its intervals waiting (one
    insert per `INSERT_BATCH`); the audit log records it on the schedule."""
    _check_parameters(schedule, fields)
    intervals = intervals_of(schedule, fields.start, fields.end)
    with transaction.atomic():
        backfill = Backfill.objects.create(
            pipeline=schedule.pipeline,
            schedule=schedule,
            owner=owner,
            start=intervals[0][0],
            end=intervals[-1][1],
            start_parameter=fields.start_parameter,
            end_parameter=fields.end_parameter,
            value_format=fields.value_format,
            concurrency=fields.concurrency,
        )
        BackfillInterval.objects.bulk_create(
            (BackfillInterval(backfill=backfill, start=s, end=e) for s, e in intervals),
            batch_size=INSERT_BATCH,
        )
        details = {"backfill": backfill.pk, "intervals": len(intervals)}
        audit_log.record("backfill.created", schedule, details=details, user=owner)
    log.info(
        "backfill %s of pipeline %s: %d intervals",
        backfill.pk,
        schedule.pipeline_id,
        len(intervals),
    )
    return backfill


def cancel_backfill(backfill: Backfill, by) -> Backfill:
    """Cancel the waiting intervals and, through the runs' own cancel, the running ones; no
    interval is left running (one being started sees it was cancelled and starts nothing)."""
    with transaction.atomic():
        locked = Backfill.objects.select_for_update().get(pk=backfill.pk)
        if locked.status != Backfill.Status.RUNNING:
            return locked
        now = timezone.now()
        Backfill.objects.filter(pk=backfill.pk).update(
            status=Backfill.Status.CANCELLED, finished_at=now
        )
        running = BackfillInterval.objects.select_for_update().filter(
            backfill=backfill, status=Interval.RUNNING
        )
        run_ids = [run for run in running.values_list("run", flat=True) if run is not None]
        BackfillInterval.objects.filter(
            backfill=backfill, status__in=[Interval.WAITING, Interval.RUNNING]
        ).update(status=Interval.CANCELLED, error="cancelled")
        audit_log.record(
            "backfill.cancelled", backfill.schedule, details={"backfill": backfill.pk}, user=by
        )
    for run in Run.objects.filter(pk__in=run_ids):
        cancel_run(run)
    backfill.refresh_from_db()
    return backfill


def retry_failed(backfill: Backfill, by) -> int:
    """Put the failed intervals back to waiting (the backfill runs again); how many."""
    with transaction.atomic():
        Backfill.objects.select_for_update().get(pk=backfill.pk)
        count = BackfillInterval.objects.filter(backfill=backfill, status=Interval.FAILED).update(
            status=Interval.WAITING, error="", claimed_at=None
        )
        if count:
            Backfill.objects.filter(pk=backfill.pk).update(
                status=Backfill.Status.RUNNING, finished_at=None
            )
            details = {"backfill": backfill.pk, "intervals": count}
            audit_log.record("backfill.retried", backfill.schedule, details=details, user=by)
    backfill.refresh_from_db()
    return count


def in_schedule_zone(backfill: Backfill, moment: datetime) -> datetime:
    """`moment` (the database keeps UTC) as the schedule's clock shows it, as its runs'
    parameters are; in UTC if the system no longer knows that zone (a listing still
    answers)."""
    try:
        zone = cron_times.check_zone(backfill.schedule.timezone)
    except cron_times.CronError:
        zone = UTC
    return moment.astimezone(zone)


def progress(backfill: Backfill) -> dict[str, int]:
    """How many intervals are in each state (one query)."""
    counts = dict.fromkeys(Interval.values, 0)
    found = backfill.intervals.values_list("status").annotate(count=Count("pk")).order_by()
    counts.update(dict(found))
    counts["total"] = sum(counts[status] for status in Interval.values)
    return counts
