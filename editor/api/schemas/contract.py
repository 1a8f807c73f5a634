"""The API's contract in the OpenAPI schema: answers, error answers, paging and ids.

Each operation declares `response=answers({200: ItsSchema}, *error_statuses)`; ninja checks
what the view returns against the schema, and every error is an `Error` (the exception
handlers in `editor.api.errors` write them). Query and path numbers are typed `Limit`,
`Offset` and `ObjectId`, so that a negative, huge or non-integer one is a 422 naming it
before any database sees it. Request bodies are read by hand (`editor.api.bodies`) after
the permission check; `request_body(...)` documents them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import BaseModel, Field

from runtime.preview import DEFAULT_LIMIT, MAX_LIMIT
from runtime.spec import Pipeline as PipelineSpec
from runtime.statuses import RunStatus

RUN_STATUSES = tuple(status.value for status in RunStatus)

MAX_PAGE = 200
MAX_OFFSET = 1_000_000_000
MAX_ID = 2**63 - 1
"""The largest id a database's 64-bit key column holds."""

Limit = Annotated[int, Field(ge=1, le=MAX_PAGE, description=f"Items per page, 1 to {MAX_PAGE}.")]
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description="Items to skip.")]
ObjectId = Annotated[int, Field(ge=1, le=MAX_ID)]
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]

ALWAYS = (401, 422)
"""Any operation may answer: not signed in, or a malformed path or query parameter."""


class Many(BaseModel):
    """An item answers hold by the thousand (a node's columns, a run's node states): checked
    as the plain dict it is built from. Ninja's `Schema` first wraps each item in a getter
    for model instances, which made the schemas of a 1,000-node pipeline take 60 ms to
    check instead of 17."""


class Problem(Many):
    """One thing wrong with a pipeline, at a node and field."""

    code: str
    node: str | None
    field: str | None
    field_title: str | None = Field(
        None, description='The field as the form titles it ("Group by, item 1"), if any.'
    )
    message: str
    line: int | None = Field(
        None, description="In an expression's text: the 1-based line of the problem."
    )
    column: int | None = Field(None, description="Its 1-based column on that line.")
    end_column: int | None = Field(
        None, description="The column just after the token at fault, when known."
    )


class Error(Schema):
    """Every 4xx answer: a stable `code` to branch on, a message, and the place if any."""

    code: str
    message: str
    node: str | None
    field: str | None
    problems: list[Problem] | None = Field(None, description="Every problem, when validating.")
    revision: int | None = Field(None, description="The current revision, on a `conflict`.")
    run_id: int | None = Field(None, description="The active run, on `run_in_progress`.")


def answers(success: dict[int, Any], *errors: int) -> dict[int, Any]:
    """An operation's `response=`: its success schemas, and `Error` for each error status."""
    return {**success, **dict.fromkeys(sorted({*ALWAYS, *errors}), Error)}


def request_body(schema: dict, *, required: bool = True) -> dict:
    """An operation's `openapi_extra=` documenting a JSON body that the view reads itself."""
    content = {"application/json": {"schema": _inlined(schema)}}
    return {"requestBody": {"required": required, "content": content}}


def _inlined(schema: dict) -> dict:
    """A pydantic JSON Schema with its `$defs` written in place (they are not components)."""
    definitions = schema.pop("$defs", {})

    def inline(value):
        if isinstance(value, dict):
            reference = value.get("$ref", "")
            if reference.startswith("#/$defs/"):
                return inline(definitions[reference.removeprefix("#/$defs/")])
            return {key: inline(item) for key, item in value.items()}
        if isinstance(value, list):
            return [inline(item) for item in value]
        return value

    return inline(schema)


class PipelineIn(PipelineSpec):
    """A pipeline document as a body; a save also carries the `revision` it started from.

    The read-only fields of an answer may be sent back and are ignored.
    """

    revision: int | None = None


class PipelineOut(PipelineSpec):
    """A pipeline document with its read-only fields."""

    id: int
    revision: int
    owner: str
    workspace: str
    created_at: Timestamp
    updated_at: Timestamp


class LastRun(Schema):
    id: int
    status: Literal[RUN_STATUSES]


class PipelineSummary(Schema):
    """A list entry: no graph, but the latest run's status."""

    id: int
    revision: int
    owner: str
    workspace: str
    created_at: Timestamp
    updated_at: Timestamp
    name: str
    description: str
    last_run: LastRun | None


class PipelinePage(Schema):
    items: list[PipelineSummary]
    count: int


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
    up_to: str | None = Field(description="The node the run stopped at (None: the whole pipeline).")
    from_node: str | None = Field(
        description="The node the run started from, reusing what is stored above it."
    )
    started_by: str | None
    trigger: Literal["manual", "schedule"] = Field(
        description="Started by a person (manual) or by one of the pipeline's schedules."
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


class Run(RunSummary):
    """A run with its timings, the document that ran, its node runs by node id and its log
    lines."""

    document: dict[str, Any] = Field(description="The pipeline document as it ran.")
    nodes: dict[str, NodeRun]
    logs: list[LogLine] = Field(description="In order; see `logs_dropped` for lines not kept.")
    logs_dropped: int = Field(
        description="Lines not kept between the first and the latest PIPEWRIGHT_LOG_LINES / 2."
    )


class RunPage(Schema):
    items: list[RunSummary]
    count: int


class Port(Schema):
    name: str
    many: bool
    required: bool
    description: str


class OutputsFrom(Schema):
    """How a node's output ports follow its params: one per item of a list param."""

    param: str = Field(description="The list param whose items name the ports (`conditions`).")
    key: str = Field(description="The field of each item that is a port's name (`name`).")
    after: list[str] = Field(description="Ports every node has, after the items' (`otherwise`).")


class Operator(Schema):
    """A catalog entry: the palette and the node form are built from it."""

    name: str
    kind: str
    title: str
    description: str
    summary: str = Field(
        description='What a node does, for its card: a template of its params ("by {group_by}").'
    )
    inputs: list[Port]
    outputs: list[Port] = Field(
        description="The output ports; with `outputs_from`: the ones every node has."
    )
    outputs_from: OutputsFrom | None = Field(
        description="Set when a node's outputs follow its params (route); null: `outputs` are all."
    )
    params_schema: dict[str, Any] = Field(description="The JSON Schema of the node's params.")


class Statuses(Schema):
    """Node and run statuses, and their named sets (`FINAL`, `FAILURES`, `ACTIVE`) by kind."""

    node: list[str]
    run: list[str]
    sets: dict[str, dict[str, list[str]]] = Field(
        description='By kind ("node", "run"), each set\'s statuses: {"node": {"FINAL": [...]}}.'
    )


class OperatorCatalog(Schema):
    items: list[Operator]
    count: int
    statuses: Statuses


class ExpressionFunction(Schema):
    name: str
    usage: str = Field(description="Its signature: `substr(text, start, length?)`.")
    returns: str = Field(description="The type of its result (number: as its argument's).")
    help: str = Field(description="What it does, in one line.")


class ExpressionOperator(Schema):
    name: str
    usage: str
    help: str


class ExpressionConstant(Schema):
    name: str
    help: str


class ExpressionLanguage(Schema):
    """What an expression may use, from the runtime's registry, and its documentation page."""

    functions: list[ExpressionFunction]
    operators: list[ExpressionOperator]
    constants: list[ExpressionConstant]
    docs_url: str


class Column(Many):
    name: str
    type: str
    nullable: bool


class NodeSchemas(Many):
    """A node's input columns per port (a list of them for a many-edge port) and outputs."""

    inputs: dict[str, list[Column] | list[list[Column] | None] | None]
    outputs: dict[str, list[Column]]
    problems: list[Problem]


class InferredSchemas(Many):
    nodes: dict[str, NodeSchemas]
    problems: list[Problem]


class CheckedDocument(Many):
    """What one analysis of an unsaved document found, as a save of it would answer."""

    problems: list[Problem] = Field(description="Every problem, as `validate` answers them.")
    schemas: dict[str, NodeSchemas] = Field(description="Each node's columns, as `schemas`.")


class SavedPipeline(PipelineOut):
    """A saved pipeline, with what one analysis of the saved document found."""

    problems: list[Problem] = Field(description="Every problem, as `validate` answers them.")
    schemas: dict[str, NodeSchemas] = Field(description="Each node's columns, as `schemas`.")


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


class Position(Schema):
    x: float
    y: float


class Layout(Schema):
    positions: dict[str, Position]


class PlanSegment(Schema):
    """Nodes that one backend runs in one go, and why that backend."""

    id: str
    backend: str
    nodes: list[str]
    reason: str


class ExplainedPlan(Schema):
    """What a run would do: `explain`'s account as data, and its text."""

    segments: list[PlanSegment]
    pandas: list[str] = Field(description="Nodes run one by one on pandas, in run order.")
    eliminated: dict[str, str] = Field(description="Nodes not run, with the reason.")
    merged: dict[str, str] = Field(description="Nodes computed once: alias to the kept node.")
    notes: list[str]
    text: str


class RunIn(Schema):
    """Optional body of validate and start run: values for the pipeline's `${parameters}`."""

    parameters: dict[str, Any] = {}


class RunStartIn(RunIn):
    """Optional body of start run: parameter values, and which results the run may reuse."""

    fresh: bool = Field(
        False, description="Ignore stored results: every node runs (and stores anew)."
    )
    up_to: str | None = Field(None, description="Run only this node and its ancestors.")
    from_node: str | None = Field(
        None, description="Run this node and everything below it, reusing what is stored above it."
    )


class PreviewIn(Schema):
    """Which node's rows to show, how many, and parameter values."""

    node: str
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT
    port: str | None = None
    parameters: dict[str, Any] = {}
