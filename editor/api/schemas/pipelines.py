"""The OpenAPI contract of pipelines: documents in and out, pages of them, what analysing one
finds (problems, columns), previews of rows, layouts, and the bodies that start runs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import Many, Problem, Timestamp
from editor.api.schemas.runs import RUN_STATUSES
from runtime import Pipeline as PipelineSpec
from runtime.execution.preview import DEFAULT_LIMIT, MAX_LIMIT


class PipelineIn(PipelineSpec):
    """A pipeline document as a body; a save also carries the `revision` it started from.

    The read-only fields of an answer may be sent back and are ignored.
    """

    revision: int | None = None
    base: dict[str, Any] | None = Field(
        None,
        description="The document `revision` was (as loaded, or as the last save answered): "
        "with it a stale save is merged with what was saved meanwhile (409 only for what both "
        "changed differently).",
    )


class PipelineOut(PipelineSpec):
    """A pipeline document with its read-only fields."""

    id: int
    revision: int
    owner: str
    workspace: str
    folder: str
    tags: list[str]
    created_at: Timestamp
    updated_at: Timestamp


class LastRun(Schema):
    id: int
    status: Literal[RUN_STATUSES]
    created_at: Timestamp


class FilingIn(Schema):
    """Where a pipeline is filed: either field may be left out."""

    folder: str | None = Field(None, description='A path such as "sales/monthly"; "" is the top.')
    tags: list[str] | None = Field(None, description="Short words, stored lower case.")


class PipelineSummary(Schema):
    """A list entry: no graph, but the latest run's status."""

    id: int
    revision: int
    owner: str
    workspace: str
    folder: str
    tags: list[str]
    created_at: Timestamp
    updated_at: Timestamp
    name: str
    description: str
    last_run: LastRun | None


class PipelinePage(Schema):
    items: list[PipelineSummary]
    count: int


class Column(Many):
    name: str
    type: str
    nullable: bool


class NodeSchemas(Many):
    """A node's input columns per port (a list of them for a many-edge port) and outputs."""

    inputs: dict[str, list[Column] | list[list[Column] | None] | None]
    outputs: dict[str, list[Column]]
    problems: list[Problem]
    views: dict[str, list[Column]] = Field(
        default_factory=dict,
        description="Rows its expression params read that are no input's, by the name their "
        "`x-port` gives (a join's `joined` row, for its condition); only when there are some.",
    )


class InferredSchemas(Many):
    nodes: dict[str, NodeSchemas]
    problems: list[Problem]


class CheckedDocument(Many):
    """What one analysis of an unsaved document found, as a save of it would answer."""

    problems: list[Problem] = Field(description="Every problem, as `validate` answers them.")
    schemas: dict[str, NodeSchemas] = Field(description="Each node's columns, as `schemas`.")


class MergedNode(Schema):
    id: str
    label: str


class Merged(Schema):
    """What a stale save took from the save made meanwhile."""

    by: str = Field(description="Who saved meanwhile.")
    revision: int = Field(description="The revision their save made.")
    nodes: list[MergedNode] = Field(description="The nodes whose changes are theirs.")


class SavedPipeline(PipelineOut):
    """A saved pipeline, with what one analysis of the saved document found."""

    problems: list[Problem] = Field(description="Every problem, as `validate` answers them.")
    schemas: dict[str, NodeSchemas] = Field(description="Each node's columns, as `schemas`.")
    merged: Merged | None = Field(
        None, description="Set when the save was merged with a save made meanwhile."
    )


class Validation(Schema):
    valid: bool
    problems: list[Problem]


class RowsPreview(Schema):
    """The first rows at a node's port; `total_rows` when the preview computed all of them."""

    node: str
    port: str
    columns: list[Column]
    rows: list[list[Any]]
    total_rows: int | None
    rows_read: int | None = Field(
        description="Rows its inputs read: fewer than the files hold when it stopped early."
    )


class Position(Schema):
    x: float
    y: float


class Layout(Schema):
    positions: dict[str, Position]


class RunIn(Schema):
    """Optional body of validate and start run: values for the pipeline's `${parameters}`."""

    parameters: dict[str, Any] = {}


class RunStartIn(RunIn):
    """Optional body of start run: parameter values, and which results the run may reuse."""

    fresh: bool = Field(
        False, description="Ignore stored results: every node runs (and stores anew)."
    )
    tuning: bool = Field(
        True,
        description="Plan from the figures of past runs (docs/plan.md, tuning from past runs); "
        "false: the fixed rules, as `--no-tuning` (the run is labelled untuned).",
    )
    up_to: str | None = Field(None, description="Run only this node and its ancestors.")
    from_node: str | None = Field(
        None, description="Run this node and everything below it, reusing what is stored above it."
    )
    pins: bool = Field(
        True,
        description="Use the pipeline's pins: each pinned node does not run, its output is its "
        "pin's rows (docs/pins.md).",
    )
    allow_problems: bool = Field(
        False,
        description="Run despite the problems the editor shows: the nodes with problems and "
        "everything below them are left out, the rest runs. Without it, such a pipeline is "
        "refused (422 `pipeline_has_problems`, listing each problem with its node's label).",
    )


class PreviewIn(Schema):
    """Which node's rows to show, how many, and parameter values."""

    node: str
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT
    port: str | None = None
    parameters: dict[str, Any] = {}
