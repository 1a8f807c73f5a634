"""Recording a trigger's events, each once: the trigger's row is locked while the events seen
are compared with those recorded, so that processes seeing the same event at once record it
once (and the unique key per trigger would refuse a second row anyway).

The storm bound: at most `MAX_WAITING` events of a trigger wait for a run; those seen past it
are recorded as dropped (so they are not seen again) and the trigger counts and says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F

from editor.models import Trigger, TriggerEvent

MAX_WAITING = 100
"""Events of one trigger waiting for a run at once; the rest are dropped, and said so."""
KEEP_EVENTS = 1_000
"""Ended events kept per webhook or upstream trigger (a file trigger keeps those of the files
its glob still matches)."""
CHUNK = 500
"""Keys compared per query (SQLite bounds the parameters of one)."""


@dataclass(frozen=True)
class Seen:
    """An event as its source saw it: what identifies it, what it is in words, its fields."""

    identity: str
    description: str
    fields: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return hashlib.sha256(self.identity.encode()).hexdigest()


@dataclass(frozen=True)
class Recorded:
    """What a record made of the events seen: how many wait, were dropped, or were known."""

    waiting: list[int]
    dropped: int
    known: int


def record(trigger_id: int, seen: list[Seen], *, present: bool = False) -> Recorded:
    """Record the events in `seen` not recorded yet as waiting, up to `MAX_WAITING`, the rest
    dropped; `present`: as present when the trigger was saved (they fire nothing)."""
    by_key = {event.key: event for event in seen}
    with transaction.atomic():
        Trigger.objects.select_for_update().filter(pk=trigger_id).first()
        known = _known(trigger_id, list(by_key))
        new = [event for key, event in by_key.items() if key not in known]
        waiting = TriggerEvent.objects.filter(
            trigger_id=trigger_id, status=TriggerEvent.Status.WAITING
        ).count()
        room = 0 if present else max(0, MAX_WAITING - waiting)
        rows = [
            TriggerEvent(
                trigger_id=trigger_id,
                key=event.key,
                description=event.description[:500],
                fields=event.fields,
                status=_status(index, room, present),
                message="" if present or index < room else dropped_message(),
            )
            for index, event in enumerate(new)
        ]
        made = TriggerEvent.objects.bulk_create(rows)
        dropped = sum(row.status == TriggerEvent.Status.DROPPED for row in made)
        if dropped:
            Trigger.objects.filter(pk=trigger_id).update(
                dropped=F("dropped") + dropped,
                last_outcome=(
                    f"{len(new)} events seen at once: {min(room, len(new))} wait for a run, "
                    f"{dropped} dropped ({dropped_message()})"
                )[:500],
            )
        started = [row.pk for row in made if row.status == TriggerEvent.Status.WAITING]
    return Recorded(started, dropped, len(known))


def _status(index: int, room: int, present: bool) -> str:
    if present:
        return TriggerEvent.Status.PRESENT
    return TriggerEvent.Status.WAITING if index < room else TriggerEvent.Status.DROPPED


def dropped_message() -> str:
    return f"at most {MAX_WAITING} events of a trigger wait for a run"


def _known(trigger_id: int, keys: list[str]) -> set[str]:
    known: set[str] = set()
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        found = TriggerEvent.objects.filter(trigger_id=trigger_id, key__in=chunk)
        known.update(found.values_list("key", flat=True))
    return known


def prune(trigger: Trigger, current: list[Seen] | None = None) -> None:
    """Forget ended events: a file trigger's of files its glob no longer matches as they were
    (`current`: every version seen now), others' past the newest `KEEP_EVENTS`."""
    ended = TriggerEvent.objects.filter(trigger=trigger).exclude(status=TriggerEvent.Status.WAITING)
    if current is not None:
        keep = {event.key for event in current}
        stale = [key for key in ended.values_list("key", flat=True) if key not in keep]
        for start in range(0, len(stale), CHUNK):
            ended.filter(key__in=stale[start : start + CHUNK]).delete()
        return
    old = ended.order_by("-id").values_list("pk", flat=True)[KEEP_EVENTS:]
    TriggerEvent.objects.filter(pk__in=list(old)).delete()
