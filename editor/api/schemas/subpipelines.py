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
