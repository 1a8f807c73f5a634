"""`window`: a column per window function (running totals, ranks, lag/lead, moving averages),
computed over each row's partition and frame, every input row kept in input order.

The params and their checks live here; the pandas computation is `window_frames.py`, which
a compiled script carries as it is. Which field is wrong is said at that field: a function
that takes no column, a frame on a ranking, an offset on a sum (pydantic, per item), and what
needs the input's columns (a column missing or of the wrong type, a default that is not of
the column's type, an output name taken) at `functions[i].<field>` before anything runs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.operators.column_names import needed_with
from runtime.operators.column_params import (
    NUMBERS,
    ColumnName,
    ColumnNames,
    InputColumn,
    Scalar,
    cast_value,
    column_of,
    first_repeated,
    frame_schema,
    require_type,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.operators.rows import SortKey
from runtime.operators.window_frames import OFFSETS, RANKINGS, windowed
from runtime.tables.schema import Column, Schema

WindowFunction = Literal[
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "lag",
    "lead",
    "first",
    "last",
    "sum",
    "mean",
    "min",
    "max",
    "count",
]
FRAMED = ("first", "last", "sum", "mean", "min", "max", "count")
"""The functions computed over a frame of rows; the rankings and lag/lead are not."""
_NEED_NUMBERS = ("sum", "mean")
_FIXED_TYPES = {
    "row_number": "integer",
    "rank": "integer",
    "dense_rank": "integer",
    "count": "integer",
    "percent_rank": "float",
    "mean": "float",
}
"""Functions whose result has one type whatever the column's; the others keep its type."""
_NEVER_NULL = (*RANKINGS, "count", "sum")


MAX_ROWS_AWAY = 1_000_000_000
"""The farthest a frame or an offset reaches, in rows: beyond any partition a run can hold,
and within what both engines compute without overflow."""


class WindowFrame(OperatorParams):
    """The rows around the current one that a function sees (in the order's rows)."""

    preceding: Annotated[int, Field(ge=0, le=MAX_ROWS_AWAY)] | None = Field(
        None,
        title="Rows before",
        description="How many rows before the current one; empty: from the partition's start.",
    )
    following: Annotated[int, Field(ge=0, le=MAX_ROWS_AWAY)] | None = Field(
        0,
        title="Rows after",
        description="How many rows after the current one; empty: to the partition's end.",
    )


class WindowCall(OperatorParams):
    """One window function and the column it gives."""

    function: WindowFunction = Field(
        title="Function",
        description="row_number, rank, dense_rank, percent_rank (by the order); lag, lead (the "
        "value offset rows before/after); first, last (first/last non-null value of the "
        "frame); sum, mean, min, max, count over the frame.",
    )
    column: InputColumn | None = Field(
        None,
        title="Column",
        description="The column the function reads (none for the rankings; count without one "
        "counts rows).",
        validate_default=True,
    )
    name: ColumnName | None = Field(
        None,
        title="Output column",
        description="The name of the result column; <column>_<function> when empty.",
    )
    offset: Annotated[int, Field(ge=0, le=MAX_ROWS_AWAY)] | None = Field(
        None, title="Offset", description="lag and lead: how many rows away (1 when empty)."
    )
    default: Scalar | None = Field(
        None,
        title="Default",
        description="lag and lead: the value where there is no row that far away (null when "
        "empty).",
    )
    frame: WindowFrame | None = Field(
        None,
        title="Frame",
        description="The rows each result is over; empty: from the partition's start to the "
        "current row and the rows tied with it (the whole partition without an order).",
    )

    @field_validator("column")
    @classmethod
    def _column_as_the_function_needs(cls, column, info: ValidationInfo):
        function = info.data.get("function")
        if function in RANKINGS and column is not None:
            raise ValueError(f"{function} reads no column; leave it empty")
        if function not in (*RANKINGS, "count", None) and column is None:
            raise ValueError(f"{function} needs a column")
        return column

    @field_validator("offset", "default")
    @classmethod
    def _only_for_lag_and_lead(cls, value, info: ValidationInfo):
        function = info.data.get("function")
        if value is not None and function is not None and function not in OFFSETS:
            raise ValueError(f"only lag and lead take {info.field_name}, not {function}")
        return value

    @field_validator("frame")
    @classmethod
    def _frame_for_aggregates(cls, frame, info: ValidationInfo):
        function = info.data.get("function")
        if frame is not None and function is not None and function not in FRAMED:
            raise ValueError(f"{function} takes no frame: it is over the whole partition")
        return frame

    @property
    def output_name(self) -> str:
        if self.name:
            return self.name
        return self.function if self.column is None else f"{self.column}_{self.function}"


class WindowParams(OperatorParams):
    partition_by: ColumnNames = Field(
        [],
        title="Partition by",
        description="Functions see only the rows that agree with the current one on these "
        "columns (nulls equal); all rows when empty.",
    )
    order_by: list[SortKey] = Field(
        [],
        title="Order by",
        description="The order of rows within a partition, as sort's; ties keep input order.",
    )
    nulls_last: bool = Field(
        True,
        title="Nulls last",
        description="Rows with an empty order value come last (first when off), as in sort.",
    )
    functions: list[WindowCall] = Field(
        title="Functions",
        description="The columns to add, in order after the input's columns.",
        min_length=1,
    )


class Window(Operator):
    name = "window"
    summary = "{functions.function}[ per {partition_by}][ by {order_by.column}]"
    kind = "process"
    breaks_pipeline = True
    title = "Window functions"
    description = (
        "Add running totals, ranks, previous/next values or moving averages, computed over "
        "each row's partition in an order; every row stays, in input order."
    )
    keywords = (
        "over",
        "row number",
        "row_number",
        "dense rank",
        "lag",
        "lead",
        "previous row",
        "running total",
        "cumulative sum",
        "moving average",
        "rolling",
        "analytic",
    )
    Params = WindowParams

    def input_columns(self, params, output_columns):
        wanted = output_columns["out"]
        made = {call.output_name for call in params.functions}
        read = [
            *params.partition_by,
            *(key.column for key in params.order_by),
            *(call.column for call in params.functions if call.column is not None),
        ]
        return {"in": needed_with(None if wanted is None else wanted - made, read)}

    def pruned(self, params, wanted):
        if wanted is None:
            return params
        live = [call for call in params.functions if call.output_name in wanted]
        if len(live) == len(params.functions):
            return params
        return params.model_copy(update={"functions": live})

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        added = tuple(column for column, _ in window_columns(ctx.params, schema))
        return {"out": Schema((*schema.columns, *added))}

    def run(self, ctx, inputs):
        params: WindowParams = ctx.params
        frame = inputs["in"]
        if not params.functions:  # every result pruned
            return {"out": frame}
        calls = plain_calls(params, window_columns(params, frame_schema(frame)))
        order_by = [[key.column, key.descending] for key in params.order_by]
        return {"out": windowed(frame, params.partition_by, order_by, params.nulls_last, calls)}

    def lower(self, params, inputs, schemas):
        calls = plain_calls(params, window_columns(params, schemas["in"]))
        if not calls:  # every result pruned
            return {"out": inputs["in"]}
        for call in calls:
            if call["default"] is not None and schemas["in"].get(call["column"]).type == "datetime":
                raise NotLowerable(f"a datetime default of {call['function']} keeps pandas' unit")
        return {
            "out": relational.Window(
                inputs["in"],
                tuple(params.partition_by),
                tuple((key.column, key.descending) for key in params.order_by),
                tuple(
                    relational.WindowCall(
                        call["function"],
                        call["column"],
                        call["name"],
                        call["offset"],
                        _plain(call["default"]),
                        None if call["frame"] is None else tuple(call["frame"]),
                    )
                    for call in calls
                ),
                params.nulls_last,
            )
        }


def _plain(value: object) -> object:
    """A numpy scalar as the Python value a backend binds."""
    return value.item() if hasattr(value, "item") else value


def plain_calls(params: WindowParams, checked: list[tuple[Column, object]]) -> list[dict]:
    """The calls as plain data for `windowed` (defaults converted to the column's type)."""
    return [
        {
            "function": call.function,
            "column": call.column,
            "name": call.output_name,
            "offset": 1 if call.offset is None else call.offset,
            "default": default,
            "frame": None if call.frame is None else [call.frame.preceding, call.frame.following],
        }
        for call, (_, default) in zip(params.functions, checked, strict=True)
    ]


def window_columns(params: WindowParams, schema: Schema) -> list[tuple[Column, object]]:
    """The added columns, each with its call's default in the column's type, after checking
    every column named, the types and the output names against `schema`."""
    for index, name in enumerate(params.partition_by):
        column_of(f"partition_by[{index}]", name, schema)
    for index, key in enumerate(params.order_by):
        column_of(f"order_by[{index}].column", key.column, schema)
    added = [_added_column(index, call, schema) for index, call in enumerate(params.functions)]
    names = [*schema.names, *(column.name for column, _ in added)]
    repeated = first_repeated(names)
    if repeated is not None:
        index = max(i for i, (c, _) in enumerate(added) if c.name == repeated)
        raise ParamsError(
            f"functions[{index}].name",
            f"the output already has a column named '{repeated}'; give this one another name",
        )
    return added


def _added_column(index: int, call: WindowCall, schema: Schema) -> tuple[Column, object]:
    function, name = call.function, call.output_name
    if call.column is None:  # a ranking, or count of rows
        return Column(name, _FIXED_TYPES[function], False), None
    field = f"functions[{index}].column"
    column = column_of(field, call.column, schema)
    if function in _NEED_NUMBERS:
        require_type(field, column, (*NUMBERS, "decimal"), f"{function} needs numbers")
    default = None
    if call.default is not None:
        default = cast_value(f"functions[{index}].default", call.default, column.type, column.name)
    kind = _FIXED_TYPES.get(function, column.type)
    if function in _NEVER_NULL:
        nullable = False
    elif function in OFFSETS:  # rows that far away may not exist
        nullable = column.nullable or default is None
    else:  # a frame holds the current row
        nullable = column.nullable
    return Column(name, kind, nullable), default
