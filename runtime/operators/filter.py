"""`filter`: keep the rows where a condition is true."""

from __future__ import annotations

from pydantic import Field

from runtime import relational
from runtime.errors import ParamsError
from runtime.expressions import (
    ExpressionError,
    condition_array,
    infer_type,
    referenced_columns,
)
from runtime.expressions.to_sql import to_sql_condition
from runtime.lazy import np
from runtime.operators.column_names import needed_with
from runtime.operators.column_params import InputExpression
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.schema import a_type


class FilterParams(OperatorParams):
    condition: InputExpression = Field(
        title="Condition",
        description="Rows where this is true are kept, e.g. age > 18 and country in ('FR', 'DE').",
    )


class Filter(Operator):
    name = "filter"
    summary = "{condition}"
    kind = "process"
    title = "Filter rows"
    description = "Keep the rows where a condition is true; a comparison with null is false."
    Params = FilterParams
    partitionable = True

    def input_columns(self, params, output_columns):
        return {"in": needed_with(output_columns["out"], referenced_columns(params.condition))}

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        try:
            result_type, _ = infer_type(ctx.params.condition, schema)
        except ExpressionError as error:
            raise ParamsError("condition", str(error), error.position) from error
        if result_type != "boolean":
            raise ParamsError(
                "condition", f"must be true or false, but it gives {a_type(result_type)}"
            )
        return {"out": schema}

    def run(self, ctx, inputs):
        frame = inputs["in"]
        try:
            keep = condition_array(ctx.params.condition, frame)
        except ExpressionError as error:
            raise ParamsError("condition", str(error), error.position) from error
        if keep.all():
            return {"out": frame}  # nothing to drop: the same frame, no copy
        return {"out": frame.take(np.flatnonzero(keep))}  # cheaper than boolean indexing

    def lower(self, params, inputs, schemas):
        to_sql_condition(params.condition, schemas["in"])  # NotLowerable if DuckDB differs
        fields = ((params.condition, "condition"),)
        return {"out": relational.Filter(inputs["in"], params.condition, fields=fields)}
