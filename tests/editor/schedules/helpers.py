"""Helpers for the schedules' tests: a fake clock, a schedule made as the API makes it, and
the runs the schedules started."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from django.utils import timezone

from editor.models import Pipeline, Run, Schedule
from editor.schedules import actions
from runtime.execution.statuses import RunStatus


class FakeClock:
    """The scheduler's clock, moved by its waits: each wait of the loop moves time on (and,
    when `finish_runs`, lets every active run end, as workers would); it stops the loop once
    time reaches `until`."""

    def __init__(self, start: datetime, until: datetime, finish_runs: bool = True):
        self.time = start
        self.until = until
        self.finish_runs = finish_runs
        self.ticks = 0

    def now(self) -> datetime:
        return self.time

    def wait(self, seconds: float, stop: threading.Event) -> None:
        self.ticks += 1
        if self.finish_runs:
            Run.objects.filter(status__in=RunStatus.ACTIVE).update(
                status=RunStatus.SUCCEEDED, finished_at=timezone.now()
            )
        self.time += timedelta(seconds=seconds)
        if self.time >= self.until:
            stop.set()


def make_schedule(pipeline: Pipeline, owner, now: datetime, **fields) -> Schedule:
    """A schedule of `pipeline` as `editor.schedules.actions` creates it at `now`."""
    return actions.create_schedule(pipeline, owner, actions.ScheduleIn(**fields), now)


def fire_times(schedule: Schedule, zone=None) -> list[str]:
    """The fire times the schedule's runs were started for, in order, as wall-clock text in
    `zone` (UTC by default)."""
    times = schedule.runs.order_by("scheduled_for").values_list("scheduled_for", flat=True)
    return [
        moment.astimezone(zone).strftime("%m-%d %H:%M %Z") if zone else f"{moment:%m-%d %H:%M}"
        for moment in times
    ]
