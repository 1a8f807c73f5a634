"""The OpenAPI contract of a pipeline's schedules and of the fire-time preview of a cron
expression (the body a schedule is saved with is `editor.schedules.actions.ScheduleIn`)."""

from __future__ import annotations

from ninja import Schema


class PreviewIn(Schema):
    cron: str
    timezone: str = "UTC"


class ScheduleOut(Schema):
    id: int
    pipeline: int
    owner: str
    name: str
    cron: str
    timezone: str
    parameters: dict
    enabled: bool
    paused_reason: str
    missed: str
    overlap: str
    use_pins: bool
    tuning: bool
    next_fire_at: str | None
    last_fire_at: str | None
    last_run: int | None
    last_outcome: str
    next_times: list[str]


class ScheduleList(Schema):
    items: list[ScheduleOut]


class Preview(Schema):
    next_times: list[str]
