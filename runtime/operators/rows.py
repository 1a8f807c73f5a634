"""Row operators: `sort`, `deduplicate`, `limit`, `sample` and `drop_nulls`.

Each one keeps the input's columns and chooses or orders its rows. Only `limit` is a
row-wise map: the others need the whole input to decide which rows come first or stay.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from runtime import relational
from runtime.lazy import np
from runtime.operators.column_names import needed_with
from runtime.operators.column_params import (
    ColumnNames,
    InputColumn,
    chosen_columns,
    column_of,
    exactly_one,
    frame_schema,
    with_nullable,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.schema import Schema


class SortKey(OperatorParams):
    """One column to sort by."""

    column: InputColumn = Field(title="Column", description="The column to sort by.")
    descending: bool = Field(
        False, title="Descending", description="Largest, latest or last alphabetically first."
    )


class SortParams(OperatorParams):
    by: list[SortKey] = Field(
        title="Sort by",
        description="The columns to sort by; later ones break ties in earlier ones.",
        min_length=1,
    )
    nulls_last: bool = Field(
        True,
        title="Nulls last",
        description="Put rows with an empty sort value last (first when off), whatever the order.",
    )


class Sort(Operator):
    name = "sort"
    summary = "by {by.column}"
    kind = "process"
    breaks_pipeline = True
    title = "Sort rows"
    description = "Order rows by one or more columns; rows that tie keep their input order."
    Params = SortParams

    def input_columns(self, params, output_columns):
        return {"in": needed_with(output_columns["out"], (key.column for key in params.by))}

    def output_schema(self, ctx, inputs):
        sort_columns(ctx.params, inputs["in"])
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        params: SortParams = ctx.params
        frame = inputs["in"]
        ordered = frame.sort_values(
            sort_columns(params, frame_schema(frame)),
            ascending=[not key.descending for key in params.by],
            na_position="last" if params.nulls_last else "first",
            kind="stable",
            ignore_index=True,
        )
        return {"out": ordered}

    def lower(self, params, inputs, schemas):
        keys = tuple((key.column, key.descending) for key in params.by)
        return {"out": relational.Sort(inputs["in"], keys, params.nulls_last)}


def sort_columns(params: SortParams, schema: Schema) -> list[str]:
    """The sort keys' column names, after checking each is in `schema`."""
    return [
        column_of(f"by[{i}].column", key.column, schema).name for i, key in enumerate(params.by)
    ]


class DeduplicateParams(OperatorParams):
    columns: ColumnNames = Field(
        [],
        title="Columns",
        description="Rows are duplicates when they agree on these columns (all when empty).",
    )
    keep: Literal["first", "last"] = Field(
        "first", title="Keep", description="Which of the duplicate rows to keep."
    )


class Deduplicate(Operator):
    name = "deduplicate"
    summary = "[on {columns} · ]keep {keep}"
    kind = "process"
    breaks_pipeline = True
    title = "Remove duplicates"
    description = (
        "Keep one row of each group of rows that agree on some columns (nulls count as equal); "
        "kept rows stay in input order."
    )
    Params = DeduplicateParams

    def output_schema(self, ctx, inputs):
        chosen_columns("columns", ctx.params.columns, inputs["in"])
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        params: DeduplicateParams = ctx.params
        frame = inputs["in"]
        chosen_columns("columns", params.columns, frame_schema(frame))
        return {"out": frame.drop_duplicates(params.columns or None, keep=params.keep)}

    def lower(self, params, inputs, schemas):
        return {"out": relational.Distinct(inputs["in"], tuple(params.columns), params.keep)}


class LimitParams(OperatorParams):
    n: Annotated[int, Field(ge=0)] = Field(title="Rows", description="How many rows to keep.")


class Limit(Operator):
    name = "limit"
    summary = "first {n} rows"
    kind = "process"
    title = "First rows"
    description = "Keep the first n rows."
    Params = LimitParams
    row_limit_safe = True

    def input_columns(self, params, output_columns):
        return {"in": output_columns["out"]}

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        return {"out": inputs["in"].head(ctx.params.n)}

    def lower(self, params, inputs, schemas):
        return {"out": relational.Limit(inputs["in"], params.n)}


class SampleParams(OperatorParams):
    n: Annotated[int, Field(ge=0)] | None = Field(
        None, title="Rows", description="How many rows to draw (all of them if there are fewer)."
    )
    fraction: Annotated[float, Field(ge=0, le=1)] | None = Field(
        None, title="Fraction", description="The share of rows to draw, from 0 to 1."
    )
    seed: Annotated[int, Field(ge=0)] | None = Field(
        None,
        title="Seed",
        description="The same seed draws the same rows from the same input; empty draws "
        "different rows on every run.",
    )

    @model_validator(mode="after")
    def _n_or_fraction(self):
        exactly_one(("n", self.n), ("fraction", self.fraction))
        return self


class Sample(Operator):
    name = "sample"
    summary = "[{n} rows][{fraction} of the rows]"
    kind = "process"
    title = "Random rows"
    description = "Keep a random sample of the rows, in their input order."
    Params = SampleParams
    deterministic = False  # without a seed every run draws other rows
    never_reused_because = "it draws other rows on every run (give it a seed to reuse them)"

    def reuse_for_s(self, params):
        return math.inf if params.seed is not None else None

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        params: SampleParams = ctx.params
        frame = inputs["in"]
        size = params.n if params.n is not None else round(params.fraction * len(frame))
        positions = np.random.default_rng(params.seed).choice(
            len(frame), size=min(size, len(frame)), replace=False
        )
        positions.sort()
        return {"out": frame.take(positions)}


class DropNullsParams(OperatorParams):
    columns: ColumnNames = Field(
        [],
        title="Columns",
        description="Drop a row when one of these columns is empty (any column when empty).",
    )


class DropNulls(Operator):
    name = "drop_nulls"
    summary = "[in {columns}]"
    kind = "process"
    title = "Drop empty rows"
    description = "Drop the rows that have a null in some columns."
    Params = DropNullsParams
    partitionable = True

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        checked = chosen_columns("columns", ctx.params.columns, schema)
        return {"out": with_nullable(schema, checked, False)}

    def run(self, ctx, inputs):
        params: DropNullsParams = ctx.params
        frame = inputs["in"]
        chosen_columns("columns", params.columns, frame_schema(frame))
        return {"out": frame.dropna(subset=params.columns or None)}

    def lower(self, params, inputs, schemas):
        columns = tuple(params.columns or schemas["in"].names)
        return {"out": relational.DropNulls(inputs["in"], columns)}
