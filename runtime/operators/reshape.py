"""`pivot` and `unpivot`: a column's values turned into columns, and columns turned into rows.

`pivot` declares the values that become columns (`values`), so that its output schema is known
before anything runs, as every other operator's is; rows whose value is not declared are left
out. Each new column is a conditional aggregation (the summary of `value` over the rows of a
group whose `column` equals one declared value), with `aggregate`'s functions, result types and
meaning over no values; groups are sorted as `aggregate` sorts them, null keys last. `unpivot`
gives, for each input row in order, one row per listed column, in the listed order; nulls are
kept. Both are vectorised pandas (one masked column per declared value and one `groupby`; one
`take` and one `concat`), and both lower (`runtime.relational.Pivot`, `Unpivot`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

from pydantic import Field

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.lazy import np, pd
from runtime.operators.aggregate import FIXED_DTYPES, FIXED_TYPES, reduced, sum_dtype
from runtime.operators.column_params import (
    NUMBERS,
    ColumnName,
    ColumnNames,
    InputColumn,
    Scalar,
    cast_value,
    column_names,
    column_of,
    frame_schema,
    require_type,
    written,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.schema import Column, Schema, a_type, is_decimal_dtype, type_name_of

PivotFunction = Literal["sum", "count", "mean", "min", "max", "first", "last"]
_NEED_NUMBERS = ("sum", "mean")
_NEVER_NULL = ("count", "sum")
"""Over no values a count and a sum are 0, as in `aggregate`; the other functions give null."""
_BOUND_TYPES = ("integer", "float", "string", "boolean", "date")
"""The types of the pivoted column whose declared values a backend binds as they are."""
_WRITTEN_AS = {"integer": (int,), "float": (int, float), "boolean": (bool,)}
"""The JSON types a declared value of a column of each type may be written as (any other
type, a date for example, is written as text); a bool is never taken for a number. A text
column takes any value, as its text (1 is "1", which the editor gives for a typed 1)."""


MAX_PIVOT_VALUES = 1000
"""The most columns a pivot makes: each declared value is checked on every schema check."""


class PivotParams(OperatorParams):
    index: ColumnNames = Field(
        [],
        title="Index",
        description="Columns kept: one output row per distinct combination of them, sorted, "
        "nulls last; one row for the whole table when empty.",
    )
    column: InputColumn = Field(
        title="Column", description="The column whose values become the new columns."
    )
    values: list[Scalar] = Field(
        title="Values",
        description="The values of the column to make columns of, in order, written in the "
        "column's type; rows holding any other value (or null) are left out.",
        min_length=1,
        max_length=MAX_PIVOT_VALUES,
    )
    value: InputColumn = Field(
        title="Value", description="The column summarised in each new column."
    )
    function: PivotFunction = Field(
        "sum",
        title="Function",
        description="sum, mean (numbers); count: non-null values; min, max; first, last: the "
        "first or last non-null value in row order.",
    )
    names: ColumnName = Field(
        "{value}",
        title="Column names",
        description="The name of each new column: {value} stands for the value as written, "
        "e.g. {value}_total.",
    )


@dataclass(frozen=True)
class PivotPlan:
    """What a pivot's params mean over one input schema: each declared value in the column's
    type, the name of its column, and the output's columns."""

    values: tuple[object, ...]
    names: tuple[str, ...]
    columns: tuple[Column, ...]


def pivot_plan(params: PivotParams, schema: Schema) -> PivotPlan:
    """The plan, after checking every param against `schema` (a `ParamsError` names the field)."""
    keys = [column_of("index", name, schema) for name in params.index]
    pivoted = column_of("column", params.column, schema)
    summarised = column_of("value", params.value, schema)
    for field, name in (("column", params.column), ("value", params.value)):
        if name in params.index:
            raise ParamsError(field, f"'{name}' is an index column; take it out of the index")
    if params.function in _NEED_NUMBERS:
        needs = f"{params.function} needs numbers"
        require_type("value", summarised, (*NUMBERS, "decimal"), needs)
    values = [_declared(f"values[{i}]", v, pivoted) for i, v in enumerate(params.values)]
    names = [params.names.replace("{value}", _text(value)) for value in params.values]
    taken = {key.name: "an index column" for key in keys}
    seen: dict[object, int] = {}
    for index, (value, name) in enumerate(zip(values, names, strict=True)):
        earlier = seen.setdefault(value, index)
        if earlier != index:
            raise ParamsError(
                f"values[{index}]",
                f"{written(params.values[index])} is the same {pivoted.type} as values[{earlier}]"
                f" ({written(params.values[earlier])}); list each value once",
            )
        if not name:
            raise ParamsError(f"values[{index}]", "its column would have no name; change `names`")
        if name in taken:
            raise ParamsError(
                f"values[{index}]",
                f"its column would be named '{name}', as {taken[name]} is; change `names` "
                "or the value",
            )
        taken[name] = f"the column of values[{index}]"
    kind = FIXED_TYPES.get(params.function, summarised.type)
    nullable = params.function not in _NEVER_NULL
    cells = tuple(Column(name, kind, nullable) for name in names)
    return PivotPlan(tuple(values), tuple(names), (*keys, *cells))


def _declared(field: str, value: object, column: Column) -> object:
    """A declared value in the column's type; one written as another type is refused (a text
    "1" for an integer column, a number for a date column), as it would match nothing."""
    if column.type == "string":
        return _text(value)
    allowed = _WRITTEN_AS.get(column.type, (str,))
    if isinstance(value, bool) != (bool in allowed) or not isinstance(value, allowed):
        raise ParamsError(
            field,
            f"{written(value)} is not a value of '{column.name}', which is {column.type}",
        )
    return plain(cast_value(field, value, column.type, column.name))


def plain(value: object) -> object:
    """A converted value as plain Python (a numpy number's item, a Timestamp's datetime), which
    a query binds and a script writes as it is."""
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value.item() if isinstance(value, np.generic) else value


def _text(value: object) -> str:
    """A declared value as written, for a column's name: text as it is, true/false, numbers."""
    return value if isinstance(value, str) else written(value)


class Pivot(Operator):
    name = "pivot"
    summary = "{function} of {value} by {column}[ per {index}]"
    kind = "process"
    breaks_pipeline = True
    title = "Pivot"
    description = (
        "Turn the values of a column into columns: one row per index combination, one column "
        "per declared value, summarising another column (sum, count, mean ...)."
    )
    keywords = ("crosstab", "cross tab", "pivot table", "spread", "long to wide", "dcast")
    Params = PivotParams

    def input_columns(self, params, output_columns):
        return {"in": {*params.index, params.column, params.value}}

    def output_schema(self, ctx, inputs):
        return {"out": Schema(pivot_plan(ctx.params, inputs["in"]).columns)}

    def run(self, ctx, inputs):
        params: PivotParams = ctx.params
        frame = inputs["in"]
        plan = pivot_plan(params, frame_schema(frame))
        out = pivoted(
            frame,
            list(params.index),
            params.column,
            list(plan.values),
            params.value,
            params.function,
            list(plan.names),
        )
        return {"out": out}

    def lower(self, params, inputs, schemas):
        plan = pivot_plan(params, schemas["in"])
        kind = schemas["in"].get(params.column).type
        if kind not in _BOUND_TYPES:
            raise NotLowerable(f"pivoting on {a_type(kind)} column runs on pandas")
        pivot = relational.Pivot(
            inputs["in"],
            tuple(params.index),
            params.column,
            plan.values,
            params.value,
            params.function,
            plan.names,
        )
        return {"out": pivot}


def pivoted(
    frame: pd.DataFrame,
    index: list[str],
    column: str,
    values: list,
    value: str,
    function: str,
    names: list[str],
) -> pd.DataFrame:
    """The pivot of `frame`: the rows whose `column` is one of `values` (already in its type),
    grouped by `index` (sorted, nulls last) or whole, with one column `names[i]`: `function`
    of `value` over the rows holding `values[i]`. Dtypes follow `aggregate`'s convention."""
    kept = frame[frame[column].isin(values)]
    source = kept[value]
    dtype = source.dtype
    exact_mean = function == "mean" and is_decimal_dtype(dtype)  # as aggregate's: `_means`
    fixed = FIXED_TYPES.get(function)
    if fixed is not None:
        dtype = FIXED_DTYPES[fixed]
    elif function == "sum":
        dtype = sum_dtype(dtype)
    cells = {
        name: source.where((kept[column] == each).to_numpy(dtype=bool))
        for each, name in zip(values, names, strict=True)
    }
    if not index:
        summary = _mean if exact_mean else partial(reduced, function=function)
        row = {name: pd.Series([summary(cell)], dtype=dtype) for name, cell in cells.items()}
        return pd.DataFrame(row)
    grouped = pd.DataFrame({**{key: kept[key] for key in index}, **cells}).groupby(
        index, sort=True, dropna=False, observed=True
    )
    if exact_mean:
        return _means(grouped, names).reset_index()
    out = grouped.agg(dict.fromkeys(names, function)).reset_index()
    return out.astype(dict.fromkeys(names, dtype))


def _mean(cell: pd.Series) -> float | None:
    """The mean of decimals as `_means` takes it, over all of `cell`; None for no values."""
    count = cell.count()
    return float(cell.sum()) / count if count else None


def _means(grouped, names: list[str]) -> pd.DataFrame:
    """Each group's mean of the decimal columns `names`: the exact sum (38 digits) over the
    count, in floats (NaN, the engine's null, where a cell has no values)."""
    sums = grouped.agg(dict.fromkeys(names, "sum")).astype("float64")
    return sums / grouped.agg(dict.fromkeys(names, "count")).astype("float64")


class UnpivotParams(OperatorParams):
    index: ColumnNames = Field(
        [], title="Index", description="Columns kept, repeated on each row an input row gives."
    )
    columns: column_names("in") = Field(
        title="Columns",
        description="The columns turned into rows, in this order; they must share a type "
        "(integers with floats give floats).",
        min_length=1,
    )
    name: ColumnName = Field(
        "name", title="Name column", description="The output column holding each column's name."
    )
    value: ColumnName = Field(
        "value", title="Value column", description="The output column holding its value."
    )


def unpivot_columns(params: UnpivotParams, schema: Schema) -> tuple[Column, ...]:
    """The index columns, then the name and value columns, after checking the params."""
    keys = [column_of("index", name, schema) for name in params.index]
    turned = [column_of("columns", name, schema) for name in params.columns]
    for column in turned:
        if column.name in params.index:
            raise ParamsError(
                "columns", f"'{column.name}' is an index column; take it out of one list"
            )
    kind = unpivot_type(turned)
    if params.name == params.value:
        raise ParamsError("value", f"'{params.value}' is the name column's name too")
    for field in ("name", "value"):
        if getattr(params, field) in params.index:
            raise ParamsError(
                field, f"'{getattr(params, field)}' is an index column; choose another name"
            )
    nullable = any(column.nullable for column in turned)
    return (*keys, Column(params.name, "string", False), Column(params.value, kind, nullable))


def unpivot_type(columns: list[Column]) -> str:
    """The type the columns share (integers with floats: float), or a `ParamsError`."""
    kinds = {column.type for column in columns}
    if kinds <= set(NUMBERS) and len(kinds) == 2:
        return "float"
    first = columns[0]
    for column in columns[1:]:
        if column.type != first.type:
            raise ParamsError(
                "columns",
                f"'{column.name}' is {column.type} but '{first.name}' is {first.type}; the "
                "columns must share a type (integers with floats give floats): cast them first",
            )
    return first.type


class Unpivot(Operator):
    name = "unpivot"
    summary = "{columns} → {name}, {value}"
    kind = "process"
    partitionable = True  # not row_limit_safe: n rows out need fewer rows in, so no limit
    # may move before it
    title = "Unpivot"
    description = (
        "Turn columns into rows: for each row, one row per listed column, holding the kept "
        "columns, the column's name and its value."
    )
    keywords = ("melt", "gather", "wide to long", "columns to rows", "unstack")
    Params = UnpivotParams

    def input_columns(self, params, output_columns):
        return {"in": {*params.index, *params.columns}}

    def output_schema(self, ctx, inputs):
        return {"out": Schema(unpivot_columns(ctx.params, inputs["in"]))}

    def run(self, ctx, inputs):
        params: UnpivotParams = ctx.params
        frame = inputs["in"]
        unpivot_columns(params, frame_schema(frame))
        dtypes = {frame[column].dtype for column in params.columns}
        if len(dtypes) > 1 and all(is_decimal_dtype(dtype) for dtype in dtypes):
            raise ParamsError(
                "columns", "the columns are decimals of different scales; cast them alike first"
            )
        out = unpivoted(frame, list(params.index), list(params.columns), params.name, params.value)
        return {"out": out}

    def lower(self, params, inputs, schemas):
        unpivot_columns(params, schemas["in"])
        unpivot = relational.Unpivot(
            inputs["in"], tuple(params.index), tuple(params.columns), params.name, params.value
        )
        return {"out": unpivot}


def unpivoted(
    frame: pd.DataFrame, index: list[str], columns: list[str], name: str, value: str
) -> pd.DataFrame:
    """For each row of `frame` in order, one row per column of `columns` in order: the `index`
    columns, the column's name (`name`) and its value (`value`; integers with floats: floats)."""
    rows, width = len(frame), len(columns)
    parts = [frame[column] for column in columns]
    if len({type_name_of(part.dtype) for part in parts}) > 1:  # integers with floats
        parts = [part.astype("float64") for part in parts]
    stacked = pd.concat(parts, ignore_index=True)  # column after column
    order = (np.arange(rows)[:, None] + np.arange(width)[None, :] * rows).ravel()
    out = frame[index].take(np.repeat(np.arange(rows), width)).reset_index(drop=True)
    out[name] = pd.Series(np.tile(np.array(columns, dtype=object), rows), dtype="str")
    out[value] = stacked.take(order).reset_index(drop=True)
    return out
