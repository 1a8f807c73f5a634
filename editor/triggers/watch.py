"""The scheduler's watch step: see the files and upstream runs of the enabled triggers, record
each new one as an event (`events.record`, once however many processes look), and start the
oldest waiting event's run of each trigger.

An event's run is claimed as a schedule's is (`editor.schedules.scheduler`): the check that
reads the inputs is made outside any transaction, then the event's row is claimed (`SELECT …
FOR UPDATE SKIP LOCKED` on PostgreSQL and MariaDB, the write transaction on SQLite) and, if
it still waits, its run is queued and the event marked started in the same transaction. A
pipeline runs once at a time: while it is busy its events wait (at most `MAX_WAITING`).
"""

from __future__ import annotations

import logging

from django.db import connection, transaction
from django.db.models import Min

from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.models import AuditSource, Run, Trigger, TriggerEvent
from editor.pipelines.documents import to_document
from editor.runs.actions import PROBLEM_CODES, check_start, queue_checked, record_refused
from editor.triggers import events, files, parameters
from editor.triggers.events import Seen
from editor.workspaces.membership import workspace_folder
from editor.workspaces.permissions import Action, may
from runtime import RunStatus

log = logging.getLogger(__name__)

BUSY = frozenset({"run_in_progress", "too_many_runs"})
"""Refusals that pass: the event waits for a later tick."""


def tick() -> list[int]:
    """See every enabled file and upstream trigger's events, then start the runs of waiting
    ones; the ids of the runs started."""
    enabled = Trigger.objects.filter(
        kind__in=(Trigger.Kind.FILE, Trigger.Kind.UPSTREAM), enabled=True
    ).order_by("pk")
    for trigger in enabled.select_related("pipeline__workspace", "upstream", "owner"):
        try:
            look(trigger)
        except Exception:  # one broken trigger must not stop the others
            log.exception("trigger %s could not look for events", trigger.pk)
    return start_waiting()


def look(trigger: Trigger) -> events.Recorded | None:
    """See a file or upstream trigger's events now (a save does, so that what is there when
    it is saved is recorded as present, not fired by the next tick)."""
    if trigger.kind == Trigger.Kind.FILE:
        return see_files(trigger)
    if trigger.kind == Trigger.Kind.UPSTREAM:
        return see_upstream(trigger)
    return None


def see_files(trigger: Trigger) -> events.Recorded:
    """Record the files the trigger's glob matches that are new or changed (by modification
    time and size); at its first look, those present are recorded as present."""
    found, whole = files.scan(workspace_folder(trigger.pipeline.workspace), trigger.pattern)
    seen = [
        Seen(version.identity, f"file {version.path} appeared or changed", version.fields)
        for version in found
    ]
    recorded = _record(trigger, seen)
    if whole:  # what a partial look did not see may still be there
        events.prune(trigger, seen)
    return recorded


def see_upstream(trigger: Trigger) -> events.Recorded:
    """Record the upstream pipeline's succeeded runs not seen yet (its newest `MAX_WAITING`),
    if the trigger's owner may still read that pipeline."""
    upstream = trigger.upstream
    if upstream is None or not may(trigger.owner, Action.VIEW, upstream):
        return events.Recorded([], 0, 0)
    succeeded = Run.objects.filter(pipeline=upstream, status=RunStatus.SUCCEEDED)
    seen = [
        Seen(
            f"run:{run.pk}",
            f"run #{run.number} of '{upstream.name}' succeeded",
            {"run_id": run.pk, "run_number": run.number, "pipeline_id": upstream.pk},
        )
        for run in succeeded.order_by("-id")[: events.MAX_WAITING]
    ]
    recorded = _record(trigger, seen)
    events.prune(trigger)
    return recorded


def _record(trigger: Trigger, seen: list[Seen]) -> events.Recorded:
    """Record `seen`; at the trigger's first look (it was saved or its source changed) as
    present, firing nothing. Whoever primes it first wins: it is re-read under the lock."""
    if not trigger.primed:
        with transaction.atomic():
            locked = Trigger.objects.select_for_update().get(pk=trigger.pk)
            if not locked.primed:
                recorded = events.record(trigger.pk, seen, present=True)
                Trigger.objects.filter(pk=trigger.pk).update(primed=True)
                return recorded
    return events.record(trigger.pk, seen)


def upstream_succeeded(run_id: int) -> list[int]:
    """Where a run ends (`editor.runs.run_end` calls this, off the run's thread): if it
    succeeded, the triggers of the pipelines it feeds see it and start their runs now, not at
    the next tick; the ids of the runs started. Never raises: the run's end is written
    already, and the tick will retry."""
    try:
        run = Run.objects.filter(pk=run_id, status=RunStatus.SUCCEEDED).first()
        if run is None:
            return []
        fed = Trigger.objects.filter(
            kind=Trigger.Kind.UPSTREAM, enabled=True, upstream_id=run.pipeline_id
        )
        ids = []
        for trigger in fed.select_related("upstream", "owner"):
            see_upstream(trigger)
            ids.append(trigger.pk)
        return start_waiting(ids) if ids else []
    except Exception:
        log.exception("the triggers fed by run %s could not look at it", run_id)
        return []


def start_waiting(trigger_ids: list[int] | None = None) -> list[int]:
    """Start the oldest waiting event's run of each trigger with one (of `trigger_ids`, or
    any: a busy pipeline's costs a query or two, and at most `MAX_WAITING` wait per trigger);
    the ids of the runs started."""
    waiting = TriggerEvent.objects.filter(status=TriggerEvent.Status.WAITING, trigger__enabled=True)
    if trigger_ids is not None:
        waiting = waiting.filter(trigger_id__in=trigger_ids)
    oldest = waiting.values("trigger_id").annotate(first=Min("id")).order_by("first")
    started = []
    for event_id in oldest.values_list("first", flat=True):
        try:
            run = start(event_id)
        except Exception:  # one broken trigger must not stop the others
            log.exception("trigger event %s could not start its run", event_id)
            continue
        if run is not None:
            started.append(run.pk)
    return started


def start(event_id: int) -> Run | None:
    """Claim the event if it still waits and nobody else holds it, start its run (or record
    why not); the run started, if any. A busy pipeline leaves it waiting."""
    event = _waiting(TriggerEvent.objects).filter(pk=event_id).first()
    if event is None:
        return None
    trigger = event.trigger
    values, checked = _checked(event)
    if isinstance(checked, ActionError) and checked.code in BUSY:
        return None
    with transaction.atomic():
        claim = TriggerEvent.objects.filter(pk=event_id, status=TriggerEvent.Status.WAITING)
        if connection.features.has_select_for_update_skip_locked:
            claim = claim.select_for_update(skip_locked=True)
        if claim.values_list("pk", flat=True).first() is None:
            return None
        run, status, message = _start(event, values, checked)
        if status is None:  # busy since the check: it waits
            return None
        TriggerEvent.objects.filter(pk=event.pk).update(status=status, run=run, message=message)
        Trigger.objects.filter(pk=trigger.pk).update(last_outcome=message[:500])
    log.info("trigger %s: %s", trigger.pk, message)
    return run if status == TriggerEvent.Status.STARTED else None


def _waiting(events_of):
    return events_of.select_related("trigger__pipeline__workspace", "trigger__owner").filter(
        status=TriggerEvent.Status.WAITING, trigger__enabled=True
    )


def _checked(event: TriggerEvent):
    """The run's parameters from the event and its start's check (or why it cannot start),
    made outside any transaction: the check reads the inputs."""
    trigger = event.trigger
    declared = to_document(trigger.pipeline).config.parameters
    values, problems = parameters.fill(trigger.parameters, event.fields, declared)
    if problems:
        return values, ActionError(422, "invalid_event", str(problems[0]))
    if not may(trigger.owner, Action.RUN, trigger.pipeline):
        who = trigger.owner.get_username()
        return values, ActionError(403, "owner_may_not_run", f"{who} may no longer run it")
    try:
        return values, check_start(trigger.pipeline, trigger.owner, values)
    except ActionError as refused:
        return values, refused


def _start(event: TriggerEvent, values: dict, checked) -> tuple[Run | None, str | None, str]:
    """In the claim's transaction: the run, the event's new status (None: still waiting) and
    what happened, in words."""
    trigger = event.trigger
    words = f"trigger {trigger.pk} ({trigger.kind}): {event.description}"[:300]
    try:
        if isinstance(checked, ActionError):
            raise checked
        with transaction.atomic(), audit_log.acting(AuditSource.TRIGGER, trigger.owner):
            run = queue_checked(checked, triggered_by=words)
    except ActionError as refused:
        if refused.code in BUSY:
            return None, None, ""
        if refused.code in PROBLEM_CODES:  # the pipeline's own: a failed run says so
            with transaction.atomic(), audit_log.acting(AuditSource.TRIGGER, trigger.owner):
                run = record_refused(
                    trigger.pipeline, trigger.owner, refused, triggered_by=words, parameters=values
                )
            return run, TriggerEvent.Status.REFUSED, f"run #{run.number} failed at once"
        return None, TriggerEvent.Status.REFUSED, f"could not start: {refused.message}"[:500]
    return run, TriggerEvent.Status.STARTED, f"started run #{run.number} for {event.description}"
