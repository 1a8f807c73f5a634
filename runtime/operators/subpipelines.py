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
from pydantic.json_schema import SkipJsonSchema

from runtime.document.fields import VERBATIM
from runtime.errors import OperatorError
from runtime.io.file_patterns import MAX_PATTERN_LENGTH, is_pattern
from runtime.lazy import pd
from runtime.operators.column_params import ColumnOf
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
"""The largest bound a `for_each` may declare: each iteration is a copy of the inner nodes (over
files) or a run of them (over groups or chunks)."""

MAX_CHUNK_ROWS = 100_000_000

Over = Literal["files", "groups", "chunks"]


class ForEachParams(SubpipelineParams):
    over: Over = Field(
        "files",
        title="Over",
        description="What the sub-pipeline runs once for: each file a pattern matches, each "
        "group of the input's rows (by the group columns), or each chunk of its rows.",
    )
    pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_LENGTH)] | None = Field(
        None,
        title="Files",
        description="Over files: a pattern of files in the workspace folder (data root), e.g. "
        "sales/2026-*.csv: the sub-pipeline runs once per file.",
    )
    group_by: Annotated[list[Annotated[str, Field(min_length=1)]], ColumnOf("*")] = Field(
        default_factory=list,
        max_length=20,
        title="Group by",
        description="Over groups: the input's columns whose distinct values make the groups; the "
        "sub-pipeline runs once per group, in key order.",
    )
    chunk_rows: Annotated[int, Field(ge=1, le=MAX_CHUNK_ROWS)] | None = Field(
        None,
        title="Rows per chunk",
        description="Over chunks: how many of the input's rows each iteration receives.",
    )
    parameter: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None,
        title="Key parameter",
        description="The inner pipeline's parameter that receives each iteration's key: the "
        "file's path, the group's value, the chunk's number (from 0). Over groups it may be "
        "left out: each group column's value goes to the inner parameter of its name.",
    )
    max_iterations: Annotated[int, Field(ge=1, le=MAX_ITERATIONS)] = Field(
        title="Most iterations",
        description="More files, groups or chunks than this is refused, never cut short.",
    )
    key_column: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None,
        title="Key column",
        description="A column added to each iteration's rows holding its key (file path, "
        "group value, chunk number).",
    )
    columns: list[ExpectedColumn] = Field(
        default_factory=list, max_length=1000, title="Columns when no file matches",
        description="Over files: the result's columns when the pattern matches no file (an "
        "empty table); without them, no file is a problem.",
    )  # fmt: skip
    body: Annotated[dict[str, Any] | None, VERBATIM, SkipJsonSchema()] = None
    """Over groups or chunks: the inner pipeline, its sub-pipelines inlined, as the plan found
    it (`runtime.plan.for_each`); the executor runs it once per iteration. Set by the plan."""

    @field_validator("pattern")
    @classmethod
    def _a_pattern(cls, value: str | None) -> str | None:
        if value is not None and not is_pattern(value):
            raise ValueError("must hold a wildcard (*, ? or [...]), e.g. orders/*.csv")
        return value


def runs_per_iteration(params: ForEachParams) -> bool:
    """Whether a loop runs its body once per iteration at run time (over groups or chunks),
    rather than being unrolled into copies when it is planned (over files)."""
    return params.over != "files"


class ForEach(Subpipeline):
    """Over files: inlined once per file (`runtime.plan.for_each`); left in the document only
    when no file matched and `columns` says what the empty result holds. Over groups or chunks:
    left in the document with its `body`, which the executor runs once per iteration
    (`runtime.execution.loops`) and the checks follow (`runtime.checks.loops`)."""

    name = "for_each"
    title = "For each"
    summary = "for each of {over}[ by {group_by}][, {chunk_rows} rows each]"
    keywords = ("loop", "for each", "iterate", "files", "groups", "chunks", "map", "batch")
    description = (
        "Runs a pipeline once per file a pattern matches, per group of the input's rows or per "
        "chunk of them, the key as one of its parameters, and stacks the results."
    )
    Params = ForEachParams

    def cache_identity(self, params, files, connections) -> object:
        """Over groups or chunks: reused when its body only processes its rows (what else it
        reads or writes, the loop's key cannot say); over files, the copies are the nodes."""
        if not runs_per_iteration(params) or not params.body:
            return super().cache_identity(params, files, connections)
        from runtime.operators.registry import default_registry  # which imports this module

        registry = default_registry()
        kinds = {
            getattr(registry.get(node.get("operator")), "kind", None)
            for node in params.body.get("nodes", [])
            if node.get("operator") not in ("pipeline_input", "pipeline_output")
        }
        return () if kinds <= {"process"} else None

    def output_schema(self, ctx, inputs):
        if runs_per_iteration(ctx.params):
            raise NotImplementedError("a loop's columns are its body's (runtime.checks.loops)")
        schema = empty_result(ctx.params)
        return {port.name: schema for port in self.ports(ctx.params).outputs}

    def run(self, ctx, inputs):
        if runs_per_iteration(ctx.params):
            raise OperatorError("a loop over groups or chunks runs in the executor")
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
