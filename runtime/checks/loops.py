"""The columns of a loop over groups or chunks: its body's, given the rows it receives.

Such a loop's body (`ForEachParams.body`, set when the plan inlines it) runs once per iteration
when the pipeline runs; before that, the checks follow it once, with the loop's input columns as
its input's and the key's parameter at its default, so that a problem inside it (a column it
names that is not there) is found before running, named at the loop node. The group columns
must be the input's. Belongs here: what a body gives and what is wrong in it; not how it runs
(runtime/execution/loops.py).
"""

from __future__ import annotations

from runtime.document.spec import Pipeline
from runtime.errors import OperatorError
from runtime.operators.column_names import require_columns
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator
from runtime.operators.registry import Registry
from runtime.operators.subpipelines import ForEachParams, runs_per_iteration
from runtime.tables.schema import Column, Schema

MOST_PROBLEMS_SHOWN = 3


def output_schemas_of(
    operator: Operator, ctx: NodeContext, inputs: dict, registry: Registry | None = None
) -> dict[str, Schema]:
    """`operator.output_schema(ctx, inputs)`, a loop over groups or chunks' worked out from its
    body: what schema inference and the planner ask of every node."""
    params = ctx.params
    if not isinstance(params, ForEachParams) or not runs_per_iteration(params) or not params.body:
        return operator.output_schema(ctx, inputs)
    return loop_schemas(ctx, params, inputs, registry)


def loop_schemas(
    ctx: NodeContext, params: ForEachParams, inputs: dict, registry: Registry | None
) -> dict[str, Schema]:
    """Each output port's columns: the body's output with the key column; raises `ParamsError`
    for a group column the input lacks and `OperatorError` for what is wrong in the body."""
    from runtime.checks.inference import infer_schemas  # which asks this module of each loop

    body = Pipeline.model_validate(params.body)
    rows = inputs.get(params.inputs[0]) if params.inputs else None
    if rows is None:
        raise OperatorError("the loop's input is not connected")
    if params.over == "groups":
        require_columns("group_by", params.group_by, rows.names)
    inferred = infer_schemas(
        fed(body, rows), registry=registry, data_root=ctx.files, connections=ctx.connections
    )
    if inferred.problems:
        shown = "; ".join(str(problem) for problem in inferred.problems[:MOST_PROBLEMS_SHOWN])
        raise OperatorError(f"in '{body.name}' (run once per {params.over[:-1]}): {shown}")
    found = {}
    for port in params.outputs:
        source = output_source(body, port)
        schema = inferred.nodes[source[0]].outputs.get(source[1]) if source else None
        if schema is None:
            raise OperatorError(f"the columns of '{body.name}''s output '{port}' are unknown")
        found[port] = with_key_column(schema, params, rows)
    return found


def fed(body: Pipeline, rows: Schema) -> Pipeline:
    """`body` with its input expecting `rows`' columns (an exact number for a decimal)."""
    columns = [
        {"name": column.name, "type": "float" if column.type == "decimal" else column.type}
        for column in rows.columns
    ]
    nodes = [
        node.model_copy(update={"params": {**node.params, "columns": columns}})
        if node.operator == "pipeline_input"
        else node
        for node in body.nodes
    ]
    return body.model_copy(update={"nodes": nodes})


def output_source(body: Pipeline, port: str) -> tuple[str, str] | None:
    """The (node, port) whose rows reach `body`'s output `port`."""
    outputs = {
        node.id for node in body.nodes
        if node.operator == "pipeline_output" and node.params.get("name") == port
    }  # fmt: skip
    return next(((e.source, e.source_port) for e in body.edges if e.target in outputs), None)


def with_key_column(schema: Schema, params: ForEachParams, rows: Schema) -> Schema:
    """`schema` with the loop's key column last (replacing one of that name), when it adds one."""
    if not params.key_column:
        return schema
    key_type = "integer"
    if params.over == "groups":
        column = rows.get(params.group_by[0]) if len(params.group_by) == 1 else None
        key_type = column.type if column is not None else "string"
    kept = tuple(column for column in schema.columns if column.name != params.key_column)
    return Schema((*kept, Column(params.key_column, key_type)))
