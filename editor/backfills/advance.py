"""How a backfill moves on, however many processes tick: record how its running intervals'
runs ended, claim the next waiting intervals up to its concurrency, and start their runs.

The claim is one transaction holding the backfill's row (`SELECT … FOR UPDATE` on PostgreSQL
and MariaDB, the write transaction on SQLite): intervals are counted and marked running under
it, so two processes never claim one interval nor exceed the limit together. A run's check
reads its inputs (up to PIPEWRIGHT_PREVIEW_TIMEOUT), so it is made after the claim, outside any
transaction; the run is then queued in a transaction that re-reads the interval, so an
interval cancelled meanwhile starts nothing. An interval claimed by a process that died before
its run was queued goes back to waiting after `STALE_CLAIM_S`.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.models import AuditSource, Backfill, BackfillInterval
from editor.runs.actions import check_start, queue_checked
from editor.schedules import cron_times
from editor.workspaces.permissions import Action, may
from runtime import RunStatus

log = logging.getLogger(__name__)

STALE_CLAIM_S = 900
"""A claimed interval whose run was not queued by then goes back to waiting."""
BATCH = 100
"""Backfills advanced per tick."""

Interval = BackfillInterval.Status


def advance_all(now: datetime | None = None) -> list[int]:
    """Advance every running backfill (the scheduler's tick); the ids of the runs started."""
    started = []
    running = Backfill.objects.filter(status=Backfill.Status.RUNNING).order_by("pk")
    for backfill_id in list(running.values_list("pk", flat=True)[:BATCH]):
        try:
            started += advance(backfill_id, now)
        except Exception:  # one broken backfill must not stop the others
            log.exception("backfill %s could not advance", backfill_id)
    return started


def advance(backfill_id: int, now: datetime | None = None) -> list[int]:
    """Settle, claim and start one backfill's intervals; the ids of the runs started."""
    claimed = claim(backfill_id, now or timezone.now())
    return [run_id for interval in claimed if (run_id := start_claimed(interval)) is not None]


def run_ended(run_id: int) -> list[int]:
    """Where a run ends (`editor.runs.run_end` calls this, off the run's thread): if it was a
    backfill interval's, its backfill moves on now rather than at the next tick, so intervals
    follow each other at the pace of their runs; the ids of the runs started. Never raises:
    the run's end is written already, and the tick will retry."""
    try:
        intervals = BackfillInterval.objects.filter(run_id=run_id)
        backfill_id = intervals.values_list("backfill_id", flat=True).first()
        return advance(backfill_id) if backfill_id is not None else []
    except Exception:
        log.exception("the backfill of run %s could not move on", run_id)
        return []


def claim(backfill_id: int, now: datetime) -> list[BackfillInterval]:
    """Settle the running intervals and mark the next waiting ones running, up to the
    concurrency, holding the backfill's row; the intervals claimed (their runs not started)."""
    with transaction.atomic():
        backfill = (
            Backfill.objects.select_for_update()
            .filter(pk=backfill_id, status=Backfill.Status.RUNNING)
            .first()
        )
        if backfill is None:
            return []
        intervals = BackfillInterval.objects.filter(backfill=backfill)
        _settle(intervals)
        stale = now - timedelta(seconds=STALE_CLAIM_S)
        intervals.filter(status=Interval.RUNNING, run=None, claimed_at__lt=stale).update(
            status=Interval.WAITING, claimed_at=None
        )
        running = intervals.filter(status=Interval.RUNNING).count()
        waiting = intervals.filter(status=Interval.WAITING).order_by("start")
        chosen = list(
            waiting.values_list("pk", flat=True)[: max(backfill.concurrency - running, 0)]
        )
        if not chosen and not running and not waiting.exists():
            Backfill.objects.filter(pk=backfill_id).update(
                status=Backfill.Status.FINISHED, finished_at=now
            )
            return []
        intervals.filter(pk__in=chosen).update(
            status=Interval.RUNNING, claimed_at=now, attempts=F("attempts") + 1, error=""
        )
    return list(
        BackfillInterval.objects.filter(pk__in=chosen)
        .select_related("backfill__schedule", "backfill__pipeline__workspace", "backfill__owner")
        .order_by("start")
    )


def _settle(intervals) -> None:
    """Record how the runs of running intervals ended."""
    running = intervals.filter(status=Interval.RUNNING)
    running.filter(run__status=RunStatus.SUCCEEDED).update(status=Interval.SUCCEEDED)
    ended = RunStatus.FINAL - {RunStatus.SUCCEEDED}
    for status in ended:
        running.filter(run__status=status).update(
            status=Interval.FAILED, error=f"its run ended {status}"
        )


def parameters(interval: BackfillInterval) -> dict:
    """The run's parameters: the schedule's, with the interval's start and end."""
    backfill = interval.backfill
    zone = cron_times.check_zone(backfill.schedule.timezone)

    def value(moment: datetime) -> str:
        local = moment.astimezone(zone)
        return local.date().isoformat() if backfill.value_format == "date" else local.isoformat()

    return {
        **backfill.schedule.parameters,
        backfill.start_parameter: value(interval.start),
        backfill.end_parameter: value(interval.end),
    }


def start_claimed(interval: BackfillInterval) -> int | None:
    """Queue the claimed interval's run with its owner's rights; None when it could not
    start (it failed, it waits again when the owner has too many runs, or it was cancelled)."""
    backfill = interval.backfill
    pipeline, owner = backfill.pipeline, backfill.owner
    try:
        if not may(owner, Action.RUN, pipeline):
            raise ActionError(403, "forbidden", f"{owner} may no longer run this pipeline")
        checked = check_start(pipeline, owner, parameters(interval), alongside=True)
        with transaction.atomic(), audit_log.acting(AuditSource.SCHEDULE, owner):
            still = BackfillInterval.objects.select_for_update().filter(
                pk=interval.pk, status=Interval.RUNNING, run=None
            )
            if not still.exists():  # cancelled since the claim
                return None
            run = queue_checked(checked, alongside=True, backfill=True)
            still.update(run=run)
        return run.pk
    except ActionError as refused:
        claimed = BackfillInterval.objects.filter(pk=interval.pk, status=Interval.RUNNING, run=None)
        if refused.code == "too_many_runs":  # the owner's runs limit: the next tick tries again
            claimed.update(status=Interval.WAITING, claimed_at=None)
        else:
            claimed.update(status=Interval.FAILED, error=refused.message[:500])
        return None
