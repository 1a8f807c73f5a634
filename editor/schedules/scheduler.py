"""The scheduler: one loop that fires due schedules, each due time exactly once, however many
scheduler processes run (the web processes' embedded loops, `manage.py runscheduler`).

At each tick it claims each due schedule's row as the run queue claims runs (`editor.runs.queue`):
`SELECT … FOR UPDATE SKIP LOCKED` on PostgreSQL and MariaDB, a write transaction (IMMEDIATE)
on SQLite. In that transaction it re-reads that the schedule is still due, queues the run
(marked scheduled) that `check_start` checked just before, outside any transaction
(the check reads the inputs, which takes up to PIPEWRIGHT_PREVIEW_TIMEOUT), and moves
`next_fire_at` past now: the run and the move commit together, so another claimer finds the
schedule no longer due.

A time is on time when a tick sees it within `GRACE_S`; older ones were missed (no scheduler
ran): `skip` starts nothing for them, `run_once` starts one run for all of them. The loop
reads time from a clock (its seam): tests drive a fake one and never sleep.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from editor.audit import log as audit_log
from editor.backfills import advance as backfills
from editor.errors import ActionError
from editor.models import AuditSource, Run, Schedule
from editor.runs.actions import (
    PROBLEM_CODES,
    CheckedStart,
    Reuse,
    check_start,
    queue_checked,
    record_refused,
)
from editor.schedules import actions, cron_times
from editor.triggers import watch
from editor.workspaces.permissions import Action, may

log = logging.getLogger(__name__)

GRACE_S = 120
"""A due time seen later than this after it was missed (the scheduler was down)."""
TICK_S = 10
"""How often the loop looks for due schedules."""
BATCH = 100
"""Schedules looked at per tick (the rest wait for the next tick)."""


class Clock(Protocol):
    """Where the loop reads the time and waits."""

    def now(self) -> datetime: ...

    def wait(self, seconds: float, stop: threading.Event) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return timezone.now()

    def wait(self, seconds: float, stop: threading.Event) -> None:
        stop.wait(seconds)


def tick(now: datetime) -> list[int]:
    """Fire every schedule due at `now`, then move every backfill on; the ids of the runs
    started."""
    due = Schedule.objects.filter(enabled=True, next_fire_at__lte=now).order_by("next_fire_at")
    started = []
    for schedule_id in list(due.values_list("pk", flat=True)[:BATCH]):
        try:
            run = fire(schedule_id, now)
        except Exception:  # one broken schedule must not stop the others firing
            log.exception("schedule %s could not fire", schedule_id)
            continue
        if run is not None:
            started.append(run.pk)
    return started + backfills.advance_all(now)


def fire(schedule_id: int, now: datetime) -> Run | None:
    """Claim the schedule if it is still due and nobody else holds it, start its run (or
    record why not) and move it to its next time; the run started, if any.

    The check before the run reads its inputs, up to PIPEWRIGHT_PREVIEW_TIMEOUT: it is made
    before the claim's transaction, which holds the schedule's row (on SQLite, the database);
    the run queued in it is of the document checked."""
    due = Schedule.objects.filter(pk=schedule_id, enabled=True, next_fire_at__lte=now).first()
    if due is None:
        return None
    checked = _checked(due, now)
    with transaction.atomic():
        claim = Schedule.objects.filter(pk=schedule_id, enabled=True, next_fire_at__lte=now)
        if connection.features.has_select_for_update_skip_locked:
            claim = claim.select_for_update(skip_locked=True)
        schedule = claim.first()
        if schedule is None:
            return None
        zone = cron_times.check_zone(schedule.timezone)
        on_time = _on_time(schedule, now)
        run = None
        missed_since = _when(schedule.next_fire_at)
        if on_time is not None:
            run, outcome = _start(schedule, on_time, checked)
            schedule.last_fire_at = on_time
        elif schedule.missed == Schedule.Missed.RUN_ONCE:
            run, outcome = _start(schedule, schedule.next_fire_at, checked)
            outcome = f"ran once for the times missed since {missed_since}: {outcome}"
            schedule.last_fire_at = schedule.next_fire_at
        else:
            outcome = f"skipped the times missed since {missed_since} (no scheduler was running)"
        schedule.next_fire_at = cron_times.next_time(schedule.cron, zone, now)
        schedule.last_outcome = outcome[:500]
        if run is not None:
            schedule.last_run = run
        Schedule.objects.filter(pk=schedule.pk).update(
            next_fire_at=schedule.next_fire_at,
            last_fire_at=schedule.last_fire_at,
            last_outcome=schedule.last_outcome,
            last_run=schedule.last_run,
        )
    log.info("schedule %s: %s", schedule.pk, outcome)
    return run


def _on_time(schedule: Schedule, now: datetime) -> datetime | None:
    """The schedule's fire time seen within the grace before `now`, if one is."""
    zone = cron_times.check_zone(schedule.timezone)
    window_start = max(schedule.next_fire_at, now - timedelta(seconds=GRACE_S))
    return cron_times.within(window_start - timedelta(microseconds=1), now, schedule.cron, zone)


def _checked(schedule: Schedule, now: datetime) -> CheckedStart | ActionError | None:
    """The check of the run the schedule would start now, or why it cannot start; None when
    it would start none (times missed under `skip`) or its owner may no longer run it."""
    starts = _on_time(schedule, now) is not None or schedule.missed == Schedule.Missed.RUN_ONCE
    if not starts or not may(schedule.owner, Action.RUN, schedule.pipeline):
        return None
    try:
        return check_start(
            schedule.pipeline,
            schedule.owner,
            schedule.parameters,
            Reuse(pins=schedule.use_pins, tuning=schedule.tuning),
            queue=schedule.overlap == Schedule.Overlap.QUEUE,
        )
    except ActionError as refused:
        return refused


def _start(
    schedule: Schedule, fire_at: datetime, checked: CheckedStart | ActionError | None
) -> tuple[Run | None, str]:
    """Start the schedule's run for `fire_at` with its owner's rights, from its check made
    before the claim: the run and what happened, in words."""
    pipeline, owner = schedule.pipeline, schedule.owner
    if not may(owner, Action.RUN, pipeline):
        actions.pause(schedule, actions.owner_left_reason(owner, pipeline.workspace))
        return None, schedule.paused_reason
    try:
        if checked is None:  # changed between the look and the claim (it was edited)
            raise ActionError(409, "schedule_changed", "the schedule was changed as it fired")
        if isinstance(checked, ActionError):
            raise checked
        with transaction.atomic(), audit_log.acting(AuditSource.SCHEDULE, owner):
            run = queue_checked(
                checked,
                schedule=schedule,
                scheduled_for=fire_at,
                queue=schedule.overlap == Schedule.Overlap.QUEUE,
            )
    except ActionError as refused:
        if refused.code in PROBLEM_CODES:  # the pipeline's own: a failed run says so, and notifies
            with transaction.atomic(), audit_log.acting(AuditSource.SCHEDULE, owner):
                run = record_refused(
                    pipeline, owner, refused, schedule=schedule, scheduled_for=fire_at
                )
            return run, f"run #{run.number} for {_when(fire_at)} failed at once: {refused.message}"
        verb = "skipped" if refused.code == "run_in_progress" else "could not start"
        return None, f"{verb} the time {_when(fire_at)}: {refused.message}"
    return run, f"started run #{run.number} for {_when(fire_at)}"


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


class Scheduler:
    """The loop: tick, wait `TICK_S`, until `stop()`."""

    def __init__(self, clock: Clock | None = None, tick_s: float = TICK_S):
        self.clock = clock or SystemClock()
        self.tick_s = tick_s
        self._stop = threading.Event()

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                close_old_connections()
                tick(self.clock.now())
            except Exception:  # the database may be briefly away; the next tick will do
                log.warning("the scheduler's tick failed", exc_info=True)
            try:  # the triggers' watch step: files and upstream runs seen, waiting runs started
                watch.tick()
            except Exception:
                log.warning("the triggers' watch step failed", exc_info=True)
            self.clock.wait(self.tick_s, self._stop)
        close_old_connections()

    def stop(self) -> None:
        self._stop.set()


def serve_embedded() -> None:
    """At web server start (embedded default): run the loop on a thread of this process."""
    if settings.PIPEWRIGHT_SCHEDULER == "embedded":
        threading.Thread(target=Scheduler().run, name="pipewright-scheduler", daemon=True).start()
