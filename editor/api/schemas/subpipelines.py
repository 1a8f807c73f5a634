"""The OpenAPI contract of the sub-pipelines a pipeline may use: ports and parameters only."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field


class ExpectedColumn(Schema):
    name: str
    type: str


class SubpipelineInput(Schema):
    name: str
    columns: list[ExpectedColumn] = Field(description="The columns the input expects.")


class SubpipelineOutput(Schema):
    name: str


class UsableSubpipeline(Schema):
    """A pipeline of the workspace that declares inputs or outputs; never its nodes."""

    id: int
    name: str
    description: str
    revision: int = Field(description="Its latest revision: what 'latest' means now.")
    revisions: list[int] = Field(description="The revisions its history keeps, newest first.")
    parameters: dict[str, Any] = Field(
        description="Its parameters with their defaults (a value's type is the parameter's)."
    )
    inputs: list[SubpipelineInput]
    outputs: list[SubpipelineOutput]


class InsideRun(Schema):
    id: int
    number: int
    status: str


class InsidePipeline(Schema):
    id: int
    name: str


class InsideInner(Schema):
    id: int
    name: str
    revision: int | None = Field(description="The revision the run used (None: not saved).")


class InsideLoop(Schema):
    node: str = Field(description="The `for_each` node's id in the run.")
    iteration: int = Field(description="The iteration shown, from 0.")
    iterations: int = Field(description="How many iterations the run unrolled.")
    labels: list[str | None] = Field(
        description="Each iteration's file, as the run gave it (at most 200 characters); null "
        "where the inner pipeline uses it only within a longer setting."
    )


class RunInside(Schema):
    """What ran inside a sub-pipeline node of a run: the inner pipeline as the run used it;
    its node `x` ran as `prefix + x` in the run's nodes."""

    run: InsideRun
    pipeline: InsidePipeline = Field(description="The outer pipeline, whose run it is.")
    path: str
    prefix: str
    labels: list[str] = Field(description="The labels of the outer nodes the path goes through.")
    inner: InsideInner
    document: dict[str, Any] = Field(description="The inner pipeline's document.")
    loop: InsideLoop | None


class RunDrawn(Schema):
    document: dict[str, Any] = Field(
        description="The run's pipeline as drawn: its sub-pipeline nodes, not inlined."
    )
