"""The OpenAPI contract of a schedule's backfills (the body one is started with is
`editor.backfills.actions.BackfillIn`)."""

from __future__ import annotations

from ninja import Schema


class Progress(Schema):
    waiting: int
    running: int
    succeeded: int
    failed: int
    cancelled: int
    total: int


class BackfillOut(Schema):
    id: int
    pipeline: int
    schedule: int
    owner: str
    start: str
    end: str
    start_parameter: str
    end_parameter: str
    value_format: str
    concurrency: int
    status: str
    created_at: str
    finished_at: str | None
    progress: Progress


class BackfillList(Schema):
    items: list[BackfillOut]


class IntervalOut(Schema):
    start: str
    end: str
    status: str
    run: int | None
    attempts: int
    error: str


class IntervalList(Schema):
    items: list[IntervalOut]
