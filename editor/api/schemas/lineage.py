"""The OpenAPI contract of a pipeline's column lineage (`runtime.checks.lineage`'s JSON)."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import Many, Problem


class ColumnRef(Many):
    """A column of a node's port (an output node's columns are its input port's, `in`)."""

    node: str
    port: str
    column: str


class Origin(Many):
    """A column of an input node (a file, a table or a query) that a column comes from."""

    node: str
    column: str


class ColumnDerivation(Many):
    """How a node makes one of its columns."""

    column: str
    how: str = Field(description='"read", "passed", "renamed", "computed", "aggregated", ...')
    inputs: list[ColumnRef] = Field(description="The upstream columns it is made from.")
    expressions: list[str]
    all_inputs: bool = Field(
        description="The operator cannot say which input columns: `inputs` holds all of them."
    )
    origins: list[Origin]


class RowCondition(Many):
    """An input column a node reads to choose, group, match or order its rows."""

    node: str
    port: str
    column: str
    why: str


class PathCondition(RowCondition):
    at: str = Field(description="The node whose rows depend on the column.")


class Reaching(Many):
    """An input node whose columns reach an output."""

    node: str
    source: str | None = Field(description="The file, table or query it reads.")
    columns: list[str]


class Reader(Many):
    """An input of a pipeline right downstream that reads what an output writes."""

    pipeline: int
    name: str
    input: str
    via: str = Field(description="The path, glob or `connection:table` it reads.")


class NodeLineage(Many):
    operator: str
    kind: str
    label: str | None
    source: str | None
    ports: dict[str, list[ColumnDerivation]]
    conditions: list[RowCondition]
    reached_by: list[Reaching] | None = Field(
        None, description="An output node's: which inputs (and columns) reach it."
    )
    read_by: list[Reader] | None = Field(
        None, description="An output node's: the pipelines downstream that read it."
    )


class PathEdge(Many):
    source: str
    source_port: str
    target: str


class LineagePath(Many):
    """What one column came through, for the canvas to highlight."""

    column: ColumnRef
    columns: list[ColumnRef]
    nodes: list[str]
    edges: list[PathEdge]
    conditions: list[PathCondition]
    origins: list[Origin]


class UpstreamHop(Many):
    """The column crossing into the pipeline whose output wrote what an input read."""

    pipeline: int = Field(description="The upstream pipeline's id.")
    name: str
    via: str = Field(description="The path, glob or `connection:table` that links them.")
    reader: int = Field(description="The pipeline whose input read it.")
    input: str = Field(description="That input node's id.")
    output: str = Field(description="The upstream's output node that wrote it.")
    column: str
    depth: int = Field(description="Pipelines upstream of the asked one: 1 for the nearest.")
    path: LineagePath = Field(description="The column's path in the upstream pipeline.")


class UpstreamLineage(Many):
    """Where the asked column goes on in other pipelines, and where following it stopped."""

    hops: list[UpstreamHop]
    stops: list[str] = Field(description="A cycle of pipelines, the depth bound, a lost column.")


class PipelineLineage(Schema):
    """Every node's columns and where they come from; the problems that hid the others."""

    nodes: dict[str, NodeLineage]
    problems: list[Problem]
    selected: LineagePath | None = Field(None, description="The asked column's path.")
    upstream: UpstreamLineage | None = Field(
        None, description="With `selected`: where the column goes on upstream (at most 10 deep)."
    )
