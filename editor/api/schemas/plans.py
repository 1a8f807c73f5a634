"""The OpenAPI contract of a pipeline's explained plan: segments, eliminated and merged nodes."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field


class PlanSegment(Schema):
    """Nodes that one backend runs in one go, and why that backend."""

    id: str
    backend: str
    nodes: list[str]
    reason: str


class TuningChoice(Schema):
    """A choice read from the figures of past runs of the same plan, and that figure."""

    choice: str
    because: str


class ExplainedPlan(Schema):
    """What a run would do: `explain`'s account as data, and its text."""

    segments: list[PlanSegment]
    pandas: list[str] = Field(description="Nodes run one by one on pandas, in run order.")
    fallbacks: dict[str, str] = Field(
        default_factory=dict,
        description="Nodes left to pandas although the backend lowers, with why (a column of "
        "a type DuckDB cannot read as pandas does, an operator that runs on pandas only).",
    )
    eliminated: dict[str, str] = Field(description="Nodes not run, with the reason.")
    pinned: list[str] = Field(
        default_factory=list, description="Pinned nodes: their output is their pin's rows."
    )
    merged: dict[str, str] = Field(description="Nodes computed once: alias to the kept node.")
    notes: list[str]
    reuse: dict[str, str] = Field(
        default_factory=dict,
        description="Why each node would run or be reused from the result store, by node, "
        "parents first (empty when the pipeline's store is off).",
    )
    subpipelines: dict[str, dict] = Field(
        default_factory=dict,
        description="Each sub-pipeline node (inner ones prefixed by their outer node's id): "
        "the pipeline, its revision and the inlined nodes it became.",
    )
    reused_from: dict[str, int] = Field(
        default_factory=dict,
        description="For each node the plan reuses, the number of the last run that computed "
        "it (its stored result is at most that old).",
    )
    tuning: list[TuningChoice] = Field(
        default_factory=list,
        description="Tuning from past runs: each choice (a segment's backend, DuckDB's "
        "threads and memory, max_concurrency) with the past figure it came from, or why "
        "nothing was tuned (empty when the pipeline's store is off).",
    )
    text: str
