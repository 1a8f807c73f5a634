"""`pipeline_input`, `pipeline_output`, `subpipeline` and `for_each`: one pipeline used inside
another (`for_each`: once per file a pattern matches, the results stacked).

A pipeline declares its ports with `pipeline_input` and `pipeline_output` nodes; another uses
it through a `subpipeline` node, whose ports are those names. A `subpipeline` node never runs:
`runtime.plan.inline` replaces it by the inner pipeline's nodes before analysis, so passes,
fusion and DuckDB segments see one graph. On its own, a pipeline's `pipeline_input` gives an
empty table of its expected columns (the inner pipeline checks, plans and previews alone) and
its `pipeline_output` writes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from runtime.errors import OperatorError
from runtime.io.file_patterns import MAX_PATTERN_LENGTH, is_pattern
from runtime.lazy import pd
from runtime.operators.contract import Operator, OperatorParams, Port, Ports
from runtime.tables.casting import cast_series
from runtime.tables.schema import Column, Schema, TypeName

PortName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=100)]


class ExpectedColumn(OperatorParams):
    """A column the input is expected to have."""

    name: Annotated[str, Field(min_length=1, max_length=200)] = Field(title="Column")
    type: TypeName = Field("string", title="Type")


class PipelineInputParams(OperatorParams):
    name: PortName = Field(
        title="Port name", description="The input port a node using this pipeline shows."
    )
    columns: list[ExpectedColumn] = Field(
        default_factory=list,
        max_length=1000,
        title="Expected columns",
        description="The columns the input should have: the pipeline on its own reads an "
        "empty table of them, so its nodes can be checked and planned.",
    )


class PipelineInput(Operator):
    name = "pipeline_input"
    kind = "input"
    title = "Pipeline input"
    summary = "{name}"
    keywords = ("subflow input", "sub-pipeline", "port", "parameter table")
    description = (
        "Marks an input of this pipeline when it is used as a sub-pipeline: the outer node "
        "feeds it. Run on its own, it is an empty table of the expected columns."
    )
    inputs = ()
    Params = PipelineInputParams

    def cache_identity(self, params, files, connections) -> object:
        return ()  # reads nothing from outside: its empty table depends on its params only

    def output_schema(self, ctx, inputs):
        return {"out": Schema(tuple(Column(c.name, c.type) for c in ctx.params.columns))}

    def run(self, ctx, inputs):
        empty = pd.Series([], dtype=object)
        return {
            "out": pd.DataFrame({c.name: cast_series(empty, c.type) for c in ctx.params.columns})
        }


class PipelineOutputParams(OperatorParams):
    name: PortName = Field(
        title="Port name", description="The output port a node using this pipeline shows."
    )


class PipelineOutput(Operator):
    name = "pipeline_output"
    kind = "output"
    title = "Pipeline output"
    summary = "{name}"
    keywords = ("subflow output", "sub-pipeline", "port")
    description = (
        "Marks an output of this pipeline when it is used as a sub-pipeline: the outer node's "
        "port of this name gives what reaches it. Run on its own, it writes nothing."
    )
    outputs = ()
    Params = PipelineOutputParams

    def output_schema(self, ctx, inputs):
        return {}

    def run(self, ctx, inputs):
        return {}


Revision = Annotated[int, Field(ge=1)] | Literal["latest"]


class SubpipelineParams(OperatorParams):
    pipeline: Annotated[str, Field(min_length=1, max_length=1000)] | Annotated[int, Field(ge=1)] = (
        Field(
            title="Pipeline",
            description="In the editor, the pipeline's id (or name) in this workspace; on the "
            "command line, its file, relative to this pipeline's file.",
        )
    )
    revision: Revision = Field(
        "latest", title="Revision", description="The pipeline's saved revision to use."
    )
    parameters: dict[str, Any] = Field(
        default_factory=dict,
        title="Parameters",
        description="Values of the inner pipeline's parameters (its defaults otherwise).",
    )
    inputs: list[PortName] = Field(
        default_factory=list, max_length=100, title="Input ports",
        description="The inner pipeline's inputs, as the canvas draws them; inlining checks "
        "them against the pipeline.",
    )  # fmt: skip
    outputs: list[PortName] = Field(
        default_factory=list, max_length=100, title="Output ports",
        description="The inner pipeline's outputs, as the canvas draws them.",
    )  # fmt: skip


class Subpipeline(Operator):
    name = "subpipeline"
    kind = "process"
    title = "Sub-pipeline"
    summary = "{pipeline}[ @ {revision}]"
    keywords = ("subflow", "sub-workflow", "call pipeline", "reuse")
    description = (
        "Uses another pipeline as one node: its declared inputs and outputs are the ports, "
        "its parameters are the settings. The plan inlines its nodes."
    )
    inputs = ()
    outputs = ()
    Params = SubpipelineParams

    def ports(self, params: SubpipelineParams | None) -> Ports:
        if params is None:
            return Ports((), ())
        return Ports(
            tuple(Port(name) for name in params.inputs),
            tuple(Port(name) for name in params.outputs),
        )

    def output_schema(self, ctx, inputs):
        raise OperatorError(
            "a sub-pipeline's columns are known once it is inlined, as checks and runs of the "
            "pipeline do (runtime.plan.inline)"
        )

    def run(self, ctx, inputs):
        raise OperatorError("a sub-pipeline node runs inlined, never on its own")


MAX_ITERATIONS = 1000
"""The largest bound a `for_each` may declare: each iteration is a copy of the inner nodes."""


class ForEachParams(SubpipelineParams):
    pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_LENGTH)] = Field(
        title="Files",
        description="A pattern of files in the workspace folder (data root), e.g. "
        "sales/2026-*.csv: the sub-pipeline runs once per file.",
    )
    parameter: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        title="File parameter",
        description="The inner pipeline's parameter that receives each file's path.",
    )
    max_iterations: Annotated[int, Field(ge=1, le=MAX_ITERATIONS)] = Field(
        title="Most iterations",
        description="More matching files than this is refused, never cut short.",
    )
    key_column: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None,
        title="File column",
        description="A column added to each iteration's rows holding its file's path.",
    )
    columns: list[ExpectedColumn] = Field(
        default_factory=list, max_length=1000, title="Columns when no file matches",
        description="The result's columns when the pattern matches no file (an empty table); "
        "without them, no file is a problem.",
    )  # fmt: skip

    @field_validator("pattern")
    @classmethod
    def _a_pattern(cls, value: str) -> str:
        if not is_pattern(value):
            raise ValueError("must hold a wildcard (*, ? or [...]), e.g. orders/*.csv")
        return value


class ForEach(Subpipeline):
    """Inlined once per file (`runtime.plan.for_each`); left in the document only when no file
    matched and `columns` says what the empty result holds."""

    name = "for_each"
    title = "For each file"
    summary = "{pipeline} for each {pattern}"
    keywords = ("loop", "for each", "iterate", "files", "map")
    description = (
        "Runs a pipeline once per file a pattern matches, the file's path as one of its "
        "parameters, and stacks the results. The plan inlines one copy per file."
    )
    Params = ForEachParams

    def output_schema(self, ctx, inputs):
        schema = empty_result(ctx.params)
        return {port.name: schema for port in self.ports(ctx.params).outputs}

    def run(self, ctx, inputs):
        schema = empty_result(ctx.params)
        empty = pd.Series([], dtype=object)
        frame = {column.name: cast_series(empty, column.type) for column in schema.columns}
        return {port.name: pd.DataFrame(frame) for port in self.ports(ctx.params).outputs}


def empty_result(params: ForEachParams) -> Schema:
    """What a loop over no file gives: its declared columns, and its file column."""
    columns = [Column(c.name, c.type) for c in params.columns]
    if params.key_column and params.key_column not in {c.name for c in columns}:
        columns.append(Column(params.key_column, "string"))
    return Schema(tuple(columns))
