"""The OpenAPI contract of runs: a run with its node runs and log lines, and pages of runs."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import Many, Timestamp
from runtime import RunStatus

RUN_STATUSES = tuple(status.value for status in RunStatus)


class AttemptSpan(Many):
    """One attempt of a node: from its start to its end (None while it runs) and how it ended
    (`retrying`: it failed and another attempt followed)."""

    attempt: int
    started_at: Timestamp
    finished_at: Timestamp | None
    status: str


class NodeRun(Many):
    status: str
    attempts: int
    metrics: dict[str, Any]
    error: str
    traceback: str
    attempt_spans: list[AttemptSpan]


class StartedFrom(Schema):
    """What started a run besides a person or a schedule: `backfill` with the interval, or
    `trigger` with the trigger's id, kind and name."""

    kind: Literal["backfill", "trigger"]
    backfill: int | None = None
    interval_start: Timestamp | None = None
    interval_end: Timestamp | None = None
    trigger: int | None = None
    trigger_kind: str | None = None
    name: str | None = None


class RunSummary(Schema):
    """A run with its number in its pipeline, who started it and its timings."""

    id: int
    number: int = Field(description="1, 2, 3 … per pipeline, in the order its runs were made.")
    revision: int | None = Field(
        description="The pipeline's revision the run started from (None: not known, an old run)."
    )
    pipeline: int
    status: Literal[RUN_STATUSES]
    parameters: dict[str, Any]
    fresh: bool = Field(description="Whether the run ignored stored results.")
    tuning: bool = Field(
        True, description="Whether the run was planned from past runs' figures (false: untuned)."
    )
    up_to: str | None = Field(description="The node the run stopped at (None: the whole pipeline).")
    from_node: str | None = Field(
        description="The node the run started from, reusing what is stored above it."
    )
    pins: list[str] = Field(
        default_factory=list, description="Nodes whose output was their pin's rows (not run)."
    )
    left_out: list[str] = Field(
        [],
        description="Nodes left out with everything below them: the run was started despite "
        "their problems (`allow_problems`).",
    )
    started_by: str | None
    trigger: Literal["manual", "schedule", "trigger", "backfill"] = Field(
        description="Started by a person (manual), one of the pipeline's schedules, one of "
        "its triggers, or a backfill (one of its intervals)."
    )
    triggered_by: str = Field(
        "", description="The trigger's event that started it, in words (triggered runs)."
    )
    started_from: StartedFrom | None = Field(
        None,
        description="The backfill interval or the trigger that started it (None for a person's "
        "or a schedule's run, and once the trigger is deleted).",
    )
    schedule: int | None = Field(description="The schedule that started it, if it still exists.")
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None
    duration_s: float | None
    error: str
    last_seq: int


class LogLine(Many):
    """One line of a run's log; `node` is None for the run's own lines."""

    seq: int
    time: Timestamp
    level: str
    node: str | None
    message: str


class UpstreamRun(Schema):
    """A run of a pipeline this run reads from: its latest succeeded run when this one was
    queued (`run` None: it had none, or it was pruned since)."""

    pipeline: int
    pipeline_name: str
    run: int | None
    number: int | None
    via: str = Field(description="The paths or tables read of it.")


class Run(RunSummary):
    """A run with its timings, the document that ran, its node runs by node id and its log
    lines."""

    document: dict[str, Any] = Field(description="The pipeline document as it ran.")
    nodes: dict[str, NodeRun]
    logs: list[LogLine] = Field(description="In order; see `logs_dropped` for lines not kept.")
    logs_dropped: int = Field(
        description="Lines not kept between the first and the latest PIPEWRIGHT_LOG_LINES / 2."
    )
    upstream_runs: list[UpstreamRun] = Field(
        [], description="The upstream pipelines' runs it read (see docs/dependencies.md)."
    )


class RunPage(Schema):
    items: list[RunSummary]
    count: int
