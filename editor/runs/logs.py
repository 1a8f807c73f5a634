"""A run's log: which events become log lines, and how many of them a run keeps.

Every line is kept with its run (`RunLog`): the run's start and end, what nodes log, each
retry and each failure. A run keeps at most `PIPEWRIGHT_LOG_LINES` lines: the first half of
them (how the run began) and the latest half (how it ended). Lines in between are deleted as
newer ones arrive and counted in `Run.logs_dropped`, so that a reader knows what is missing.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from editor.models import Run, RunLog
from runtime import Event


def log_line(event: Event) -> tuple[str, str] | None:
    """The `(level, message)` an event adds to its run's log, if any."""
    kind, status = event["type"], event.get("status")
    if kind == "node_log":
        return event["level"], event["message"]
    if kind == "run_started":
        return "info", f"run started: {len(event['nodes'])} nodes"
    if kind == "run_finished":
        level = "info" if status == "succeeded" else "error"
        return level, f"run {status.replace('_', ' ')} after {event['duration_s']:.2f} s"
    if kind == "node_status" and status == "retrying":
        return "warning", (
            f"attempt {event['attempt']} failed: {event.get('error', '')}; "
            f"retrying in {event['delay_s']:g} s"
        )
    if kind == "node_status" and event.get("error"):
        return "error", f"{status.replace('_', ' ')}: {event['error']}"
    return None


def append(run_id: int, events: list[Event], kept: int) -> int:
    """Write the log lines of `events` after the `kept` lines the run has; how many it has now."""
    lines = [
        _row(run_id, event, *line) for event in events if (line := log_line(event)) is not None
    ]
    if not lines:
        return kept
    RunLog.objects.bulk_create(lines)
    limit = settings.PIPEWRIGHT_LOG_LINES
    over = kept + len(lines) - limit
    if over <= 0:
        return kept + len(lines)
    head = limit // 2
    middle = RunLog.objects.filter(run_id=run_id).order_by("seq", "pk")[head : head + over]
    RunLog.objects.filter(pk__in=list(middle.values_list("pk", flat=True))).delete()
    Run.objects.filter(pk=run_id).update(logs_dropped=F("logs_dropped") + over)
    return limit


def kept_after(events: list[Event], kept: int) -> int:
    """How many lines a run that had `kept` has once `events` are written (as `append` says)."""
    added = sum(1 for event in events if log_line(event) is not None)
    return min(kept + added, settings.PIPEWRIGHT_LOG_LINES) if added else kept


def _row(run_id: int, event: Event, level: str, message: str) -> RunLog:
    time = _when(event.get("time"))
    node = event.get("node") or ""
    return RunLog(
        run_id=run_id, seq=event["seq"], time=time, level=level, node=node, message=message
    )


def _when(text) -> datetime:
    """An event's time; now, for an event without a readable one (a plugin's sink, say)."""
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return timezone.now()
