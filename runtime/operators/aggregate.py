"""`aggregate`: one row per group of rows (or one row for the whole table), with summaries.

Grouped tables go through one `groupby(...).agg(...)` call with named aggregations, sorted by
the group keys (groups whose key is null are kept, last). Without group keys the whole table is
summarised into one row, with the same meaning for every function, also for an empty table.
Result dtypes follow runtime/tables/frames.py: counts are Int64, means float64, and the functions
that pick values (min, max, first, last) keep the input's dtype. Decimals follow DuckDB's
DECIMAL: a sum is exact, of 38 digits at the column's scale; a mean, median or std is a float.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import methodcaller
from typing import Literal

import numpy as np
import pyarrow as pa
from pydantic import Field, model_validator

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.lazy import pd
from runtime.operators.column_params import (
    NUMBERS,
    ColumnName,
    ColumnNames,
    InputColumn,
    column_of,
    first_repeated,
    frame_schema,
    require_type,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.frames import MAX_DECIMAL_DIGITS
from runtime.tables.schema import Column, Schema, is_decimal_dtype

Function = Literal[
    "count", "size", "sum", "mean", "median", "std", "min", "max", "nunique", "first", "last"
]

FIXED_TYPES = {
    "count": "integer",
    "size": "integer",
    "nunique": "integer",
    "mean": "float",
    "median": "float",
    "std": "float",
}
"""Functions whose result has one type whatever the column's; the others keep its type."""
FIXED_DTYPES = {"integer": "Int64", "float": "float64"}
"""The engine's dtype for each of those fixed types."""
_NEED_NUMBERS = ("sum", "mean", "median", "std")
IN_FLOATS = ("mean", "median", "std")
"""Functions computed in floats, also of decimals."""
_IN_ROW_ORDER = ("first", "last")
"""Functions that pick a value by its place in the input, which a columnar backend does not
keep through a parallel aggregate."""
_NEVER_NULL = ("count", "size", "nunique", "sum")
"""A sum of no values is 0; the other functions that can be null give null for no values."""


class Aggregation(OperatorParams):
    """One summary column."""

    column: InputColumn | None = Field(
        None, title="Column", description="The column to summarise (optional for size)."
    )
    function: Function = Field(
        title="Function",
        description="count: non-null values; size: rows; sum, mean, median, std (numbers); "
        "min, max; nunique: distinct non-null values; first, last: first or last non-null value.",
    )
    name: ColumnName | None = Field(
        None,
        title="Output column",
        description="The name of the result column; <column>_<function> when empty.",
    )

    @model_validator(mode="after")
    def _column_unless_size(self):
        if self.column is None and self.function != "size":
            raise ValueError(f"{self.function} needs a column; only size works without one")
        return self

    @property
    def output_name(self) -> str:
        """The result column's name."""
        if self.name:
            return self.name
        return self.function if self.column is None else f"{self.column}_{self.function}"


class AggregateParams(OperatorParams):
    group_by: ColumnNames = Field(
        [],
        title="Group by",
        description="One output row per distinct combination of these columns; one row for "
        "the whole table when empty.",
    )
    aggregations: list[Aggregation] = Field(
        title="Aggregations",
        description="The summary columns, in output order after the group columns.",
        min_length=1,
    )


class Aggregate(Operator):
    name = "aggregate"
    summary = "[by {group_by}: ]{aggregations.function}"
    kind = "process"
    breaks_pipeline = True
    title = "Aggregate"
    description = (
        "Summarise groups of rows (count, sum, mean ...): one row per group, sorted by the "
        "group columns, or one row for the whole table."
    )
    keywords = ("group by", "summarize", "summarise", "count distinct", "total")
    Params = AggregateParams

    def input_columns(self, params, output_columns):
        columns = {a.column for a in params.aggregations if a.column is not None}
        return {"in": set(params.group_by) | columns}

    def output_schema(self, ctx, inputs):
        return {"out": Schema(aggregate_columns(ctx.params, inputs["in"]))}

    def run(self, ctx, inputs):
        params: AggregateParams = ctx.params
        frame = inputs["in"]
        aggregate_columns(params, frame_schema(frame))
        dtypes = {a.output_name: _result_dtype(a, frame) for a in params.aggregations}
        frame, params = _reading_floats(frame, params)
        result = _grouped(frame, params) if params.group_by else _whole_table(frame, params)
        changed = {name: dtype for name, dtype in dtypes.items() if result[name].dtype != dtype}
        return {"out": result.assign(**{n: result[n].astype(d) for n, d in changed.items()})}

    def lower(self, params, inputs, schemas):
        unordered = [a.function for a in params.aggregations if a.function in _IN_ROW_ORDER]
        if unordered:
            raise NotLowerable(f"{unordered[0]} depends on the input's row order")
        calls = tuple(
            relational.AggregateCall(a.function, a.column, a.output_name)
            for a in params.aggregations
        )
        return {"out": relational.Aggregate(inputs["in"], tuple(params.group_by), calls)}


def float_reads(
    frame: pd.DataFrame, reads: list[tuple[str | None, str]]
) -> tuple[pd.DataFrame, list[str | None]]:
    """`frame` with a float copy of each decimal column a mean, median or std reads (`reads`:
    each aggregation's column and function), and the column each aggregation then reads:
    pandas would average in decimals rounded to the column's scale, DuckDB in floats. The
    copies' names start with a prefix no column of the frame starts with."""
    prefix = "__float "
    while any(str(name).startswith(prefix) for name in frame.columns):
        prefix = "_" + prefix
    copies, columns = {}, []
    for column, function in reads:
        if function in IN_FLOATS and is_decimal_dtype(frame[column].dtype):
            copies.setdefault(prefix + column, frame[column].astype("float64"))
            column = prefix + column
        columns.append(column)
    return (frame.assign(**copies) if copies else frame), columns


def sum_dtype(dtype):
    """The dtype of a sum of `dtype` values: a decimal's is DuckDB's, of 38 digits."""
    if is_decimal_dtype(dtype):
        return pd.ArrowDtype(pa.decimal128(MAX_DECIMAL_DIGITS, dtype.pyarrow_dtype.scale))
    return dtype


def _reading_floats(frame: pd.DataFrame, params: AggregateParams):
    """`float_reads` applied to the frame and the params' aggregations."""
    frame, columns = float_reads(frame, [(a.column, a.function) for a in params.aggregations])
    aggregations = [
        a if a.column == column else a.model_copy(update={"column": column, "name": a.output_name})
        for a, column in zip(params.aggregations, columns, strict=True)
    ]
    return frame, params.model_copy(update={"aggregations": aggregations})


def _grouped(frame: pd.DataFrame, params: AggregateParams) -> pd.DataFrame:
    """One `groupby().agg()` call; `size` without a column counts the rows of a group column."""
    named = {
        aggregation.output_name: (aggregation.column or params.group_by[0], aggregation.function)
        for aggregation in params.aggregations
    }
    grouped = frame.groupby(params.group_by, sort=True, dropna=False, observed=True)
    return grouped.agg(**named).reset_index()


def _whole_table(frame: pd.DataFrame, params: AggregateParams) -> pd.DataFrame:
    """One row summarising every row, with the meanings groupby gives each function."""
    return pd.DataFrame(
        {
            aggregation.output_name: pd.Series(
                [_reduced(frame, aggregation)],
                dtype=_result_dtype(aggregation, frame),
            )
            for aggregation in params.aggregations
        }
    )


def _reduced(frame: pd.DataFrame, aggregation: Aggregation) -> object:
    """One aggregation over the whole table (None for null, which fits every dtype)."""
    source = frame if aggregation.column is None else frame[aggregation.column]
    return reduced(source, aggregation.function)


def reduced(source: pd.DataFrame | pd.Series, function: str) -> object:
    """`function` over all of `source` (a column, or the table for size); None for null."""
    value = _REDUCERS[function](source)
    return None if pd.isna(value) else value


def _nth_valid(position: int) -> Callable[[pd.Series], object]:
    """A reducer picking the non-null value at `position` (0: the first, -1: the last)."""

    def pick(series: pd.Series) -> object:
        positions = np.flatnonzero(series.notna().to_numpy())
        return series.iloc[positions[position]] if len(positions) else None

    return pick


_REDUCERS: dict[str, Callable[[pd.Series], object]] = {
    **{
        name: methodcaller(name)  # Series.count and so on
        for name in ("count", "sum", "mean", "median", "std", "min", "max", "nunique")
    },
    "size": len,
    "first": _nth_valid(0),
    "last": _nth_valid(-1),
}


def _result_dtype(aggregation: Aggregation, frame: pd.DataFrame):
    """The dtype of a summary column, following the engine's convention."""
    fixed = FIXED_TYPES.get(aggregation.function)
    if fixed is not None:
        return FIXED_DTYPES[fixed]
    dtype = frame[aggregation.column].dtype
    return sum_dtype(dtype) if aggregation.function == "sum" else dtype


def aggregate_columns(params: AggregateParams, schema: Schema) -> tuple[Column, ...]:
    """The group columns then one column per aggregation, after checking names and types."""
    keys = [column_of("group_by", name, schema) for name in params.group_by]
    summaries = [
        _summary_column(index, aggregation, schema)
        for index, aggregation in enumerate(params.aggregations)
    ]
    repeated = first_repeated(column.name for column in (*keys, *summaries))
    if repeated is not None:
        index = max(i for i, c in enumerate(summaries) if c.name == repeated)
        raise ParamsError(
            f"aggregations[{index}].name",
            f"the output already has a column named '{repeated}'; give this one another name",
        )
    return (*keys, *summaries)


def _summary_column(index: int, aggregation: Aggregation, schema: Schema) -> Column:
    function = aggregation.function
    if aggregation.column is None:  # size
        return Column(aggregation.output_name, "integer", False)
    field = f"aggregations[{index}].column"
    column = column_of(field, aggregation.column, schema)
    if function in _NEED_NUMBERS:
        require_type(field, column, (*NUMBERS, "decimal"), f"{function} needs numbers")
    type_name = FIXED_TYPES.get(function, column.type)
    return Column(aggregation.output_name, type_name, function not in _NEVER_NULL)
