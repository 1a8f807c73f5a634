"""`aggregate`: one row per group of rows (or one row for the whole table), with summaries.

An aggregation summarises a column or an expression, over every row of its group or only over
the rows where its `where` condition is true (SQL's `FILTER (WHERE ...)`: a group whose rows
all fail it is still a group, and its count or sum is 0). Expressions are evaluated on every
row first, and a `where` nulls the values of the other rows, which every function skips.

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

from pydantic import Field, model_validator

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.expressions import ExpressionError, condition_array, evaluate, infer_type
from runtime.expressions.parser import referenced_columns
from runtime.expressions.to_sql import to_sql, to_sql_condition
from runtime.lazy import np, pa, pd
from runtime.operators.column_params import (
    NUMBERS,
    ColumnName,
    ColumnNames,
    InputColumn,
    InputExpression,
    column_of,
    conventional,
    first_repeated,
    frame_schema,
    require_type,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.frames import MAX_DECIMAL_DIGITS
from runtime.tables.schema import Column, Schema, is_decimal_dtype

Function = Literal[
    "count",
    "size",
    "sum",
    "mean",
    "median",
    "std",
    "min",
    "max",
    "nunique",
    "count_distinct",
    "first",
    "last",
]

FIXED_TYPES = {
    "count": "integer",
    "size": "integer",
    "nunique": "integer",
    "count_distinct": "integer",
    "mean": "float",
    "median": "float",
    "std": "float",
}
"""Functions whose result has one type whatever the column's; the others keep its type."""
FIXED_DTYPES = {"integer": "Int64", "float": "float64"}
"""The engine's dtype for each of those fixed types."""
_NEED_NUMBERS = ("sum", "mean", "median", "std")
IN_FLOATS = ("median", "std")
"""Functions computed in floats, also of decimals (a decimal's mean: `exact_means`)."""
_IN_ROW_ORDER = ("first", "last")
"""Functions that pick a value by its place in the input, which a columnar backend does not
keep through a parallel aggregate."""
_NEVER_NULL = ("count", "size", "nunique", "count_distinct", "sum")
"""A sum of no values is 0; the other functions that can be null give null for no values."""


_PANDAS_NAMES = {"count_distinct": "nunique"}
"""Functions pandas knows by another name."""


class Aggregation(OperatorParams):
    """One summary column."""

    column: InputColumn | None = Field(
        None,
        title="Column",
        description="The column to summarise (none for size, or to summarise an expression).",
    )
    expression: InputExpression | None = Field(
        None,
        title="Expression",
        description="Summarise this expression instead of a column, e.g. "
        "price * (1 - discount); the output column then needs a name.",
    )
    function: Function = Field(
        title="Function",
        description="count: non-null values; size: rows; sum, mean, median, std (numbers); "
        "min, max; nunique or count_distinct: distinct non-null values; first, last: first or "
        "last non-null value.",
    )
    where: InputExpression | None = Field(
        None,
        title="Only rows where",
        description="A condition: only the rows where it is true count (null counts as "
        "false), e.g. priority in ('1-URGENT', '2-HIGH'); every row when empty.",
    )
    name: ColumnName | None = Field(
        None,
        title="Output column",
        description="The name of the result column; <column>_<function> when empty.",
    )

    @model_validator(mode="after")
    def _one_thing_summarised(self):
        if self.column is not None and self.expression is not None:
            raise ValueError("set column or expression, not both")
        if self.function == "size":
            if self.expression is not None:
                raise ValueError("size counts rows and takes no expression; use count")
            return self
        if self.column is None and self.expression is None:
            raise ValueError(
                f"{self.function} needs a column or an expression; only size works without one"
            )
        if self.expression is not None and not self.name:
            raise ValueError("name the output column of an expression")
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
        "Summarise groups of rows (count, sum, mean ...) of columns or expressions, over all "
        "rows or those where a condition holds: one row per group, sorted by the group "
        "columns, or one row for the whole table."
    )
    keywords = ("group by", "summarize", "summarise", "count distinct", "total")
    Params = AggregateParams

    def input_columns(self, params, output_columns):
        columns = set(params.group_by)
        for aggregation in params.aggregations:
            if aggregation.column is not None:
                columns.add(aggregation.column)
            for text in (aggregation.expression, aggregation.where):
                if text is not None:
                    columns |= referenced_columns(text)
        return {"in": columns}

    def output_schema(self, ctx, inputs):
        return {"out": Schema(aggregate_columns(ctx.params, inputs["in"]))}

    def run(self, ctx, inputs):
        params: AggregateParams = ctx.params
        frame = inputs["in"]
        aggregate_columns(params, frame_schema(frame))
        frame, reads = computed_reads(frame, _sources(params, frame))
        names = [a.output_name for a in params.aggregations]
        dtypes = {
            name: result_dtype(a.function, dtype)
            for name, a, (_, _, dtype) in zip(names, params.aggregations, reads, strict=True)
        }
        frame, columns = float_reads(frame, [(column, function) for column, function, _ in reads])
        summaries = [
            (column, function, name)
            for column, (_, function, _), name in zip(columns, reads, names, strict=True)
        ]
        summaries, means = exact_means(frame, params.group_by, summaries)
        result = divided(summarised(frame, params.group_by, summaries, dtypes), means)
        changed = {name: dtype for name, dtype in dtypes.items() if result[name].dtype != dtype}
        return {"out": result.assign(**{n: result[n].astype(d) for n, d in changed.items()})}

    def lower(self, params, inputs, schemas):
        unordered = [a.function for a in params.aggregations if a.function in _IN_ROW_ORDER]
        if unordered:
            raise NotLowerable(f"{unordered[0]} depends on the input's row order")
        schema = schemas["in"]
        calls = []
        for index, a in enumerate(params.aggregations):
            if a.expression is not None:
                to_sql(a.expression, schema)  # NotLowerable if DuckDB differs
            if a.where is not None:
                to_sql_condition(a.where, schema)
            field = f"aggregations[{index}]"
            calls.append(
                relational.AggregateCall(
                    a.function, a.column, a.output_name, a.expression, a.where, field
                )
            )
        return {"out": relational.Aggregate(inputs["in"], tuple(params.group_by), tuple(calls))}


def _sources(params: AggregateParams, frame: pd.DataFrame) -> list[tuple]:
    """Each aggregation's column, function, values of its expression and mask of its `where`
    (None when it has none), as `computed_reads` takes them."""
    found = []
    for index, aggregation in enumerate(params.aggregations):
        values = mask = None
        try:
            if aggregation.expression is not None:
                field = f"aggregations[{index}].expression"
                values = conventional(evaluate(aggregation.expression, frame))
            if aggregation.where is not None:
                field = f"aggregations[{index}].where"
                mask = condition_array(aggregation.where, frame)
        except ExpressionError as error:
            raise ParamsError(field, str(error), error.position) from error
        found.append((aggregation.column, aggregation.function, values, mask))
    return found


def pandas_function(function: str, where: bool) -> str:
    """What pandas computes for `function`: a size over some rows is a sum of their marks."""
    if function == "size" and where:
        return "sum"
    return _PANDAS_NAMES.get(function, function)


def computed_reads(frame: pd.DataFrame, sources: list[tuple]) -> tuple[pd.DataFrame, list[tuple]]:
    """`frame` with a column for each aggregation that summarises an expression or only the
    rows where a condition holds, and what each aggregation then reads: (column, pandas'
    function, the dtype of the values summarised). `sources` holds each aggregation's column,
    function, expression values and condition mask (None when it has none). A condition nulls
    the values of the other rows (every function skips nulls); a size under a condition sums
    its marks. The new columns' names start with a prefix no column of the frame starts with."""
    prefix = "__values "
    while any(str(name).startswith(prefix) for name in frame.columns):
        prefix = "_" + prefix
    added, reads = {}, []
    for index, (column, function, values, mask) in enumerate(sources):
        if values is not None:
            source = values.set_axis(frame.index)
        else:
            source = None if column is None else frame[column]
        dtype = None if source is None else source.dtype
        if mask is not None:
            if function == "size":
                source = pd.Series(mask, index=frame.index).astype("Int64")
            else:
                source = conventional(source).where(mask)
        if values is not None or mask is not None:
            column = f"{prefix}{index}"
            added[column] = source
        reads.append((column, pandas_function(function, mask is not None), dtype))
    return (frame.assign(**added) if added else frame), reads


def float_reads(
    frame: pd.DataFrame, reads: list[tuple[str | None, str]]
) -> tuple[pd.DataFrame, list[str | None]]:
    """`frame` with a float copy of each decimal column a median or std reads (`reads`: each
    aggregation's column and function), and the column each aggregation then reads: pandas
    would compute them in decimals rounded to the column's scale, DuckDB in floats. The
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


def result_dtype(function: str, dtype):
    """The dtype of a summary by `function` of values of `dtype`, by the engine's convention."""
    fixed = FIXED_TYPES.get(function)
    if fixed is not None:
        return FIXED_DTYPES[fixed]
    return sum_dtype(dtype) if function == "sum" else dtype


def exact_means(
    frame: pd.DataFrame, group_by: list[str], summaries: list[tuple]
) -> tuple[list[tuple], list[tuple[str, str]]]:
    """The (column, function, name) summaries with each mean of a decimal column as the
    column's sum (exact, in 38 digits) and a count of its values named with a prefix no other
    column has, and the (mean, count) names `divided` takes. pandas would average decimals
    rounded to the column's scale, and floats lose the digits past the 15th; DuckDB divides
    the exact sum as well (and that is cheaper there than a compensated sum of floats)."""
    taken = [*group_by, *(name for _, _, name in summaries)]
    prefix = "__count "
    while any(str(name).startswith(prefix) for name in taken):
        prefix = "_" + prefix
    found, means = [], []
    for column, function, name in summaries:
        if function == "mean" and is_decimal_dtype(frame[column].dtype):
            found.append((column, "sum", name))
            found.append((column, "count", prefix + name))
            means.append((name, prefix + name))
        else:
            found.append((column, function, name))
    return found, means


def divided(result: pd.DataFrame, means: list[tuple[str, str]]) -> pd.DataFrame:
    """Each exact mean (`exact_means`): its sum over its count, in floats (NaN, the engine's
    null, where there are no values), without the counts."""
    if not means:
        return result
    quotients = {
        mean: result[mean].astype("float64") / result[count].astype("float64")
        for mean, count in means
    }
    return result.assign(**quotients).drop(columns=[count for _, count in means])


def summarised(
    frame: pd.DataFrame, group_by: list[str], summaries: list[tuple], dtypes: dict
) -> pd.DataFrame:
    """The (column, function, name) summaries of each group, or of the whole table in one row
    (a name missing from `dtypes`, a count's, is an integer)."""
    if group_by:
        return _grouped(frame, group_by, summaries)
    typed = {name: dtypes.get(name, "Int64") for _, _, name in summaries}
    return _whole_table(frame, summaries, typed)


def _grouped(frame: pd.DataFrame, group_by: list[str], summaries: list[tuple]) -> pd.DataFrame:
    """One `groupby().agg()` call over (column, function, name) summaries; `size` without a
    column counts the rows of a group column."""
    named = {name: (column or group_by[0], function) for column, function, name in summaries}
    grouped = frame.groupby(group_by, sort=True, dropna=False, observed=True)
    return grouped.agg(**named).reset_index()


def _whole_table(frame: pd.DataFrame, summaries: list[tuple], dtypes: dict) -> pd.DataFrame:
    """One row summarising every row, with the meanings groupby gives each function."""
    return pd.DataFrame(
        {
            name: pd.Series(
                [reduced(frame if column is None else frame[column], function)],
                dtype=dtypes[name],
            )
            for column, function, name in summaries
        }
    )


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
    type_name = "integer"  # size's
    if aggregation.expression is not None:
        field = f"aggregations[{index}].expression"
        type_name = _expression_type(field, aggregation.expression, schema)
        if function in _NEED_NUMBERS and type_name not in (*NUMBERS, "decimal"):
            raise ParamsError(field, f"{function} needs numbers, but this gives {type_name} values")
    elif aggregation.column is not None:
        field = f"aggregations[{index}].column"
        column = column_of(field, aggregation.column, schema)
        if function in _NEED_NUMBERS:
            require_type(field, column, (*NUMBERS, "decimal"), f"{function} needs numbers")
        type_name = column.type
    if aggregation.where is not None:
        field = f"aggregations[{index}].where"
        found = _expression_type(field, aggregation.where, schema)
        if found != "boolean":
            raise ParamsError(field, f"must be true or false, but it gives {found} values")
    type_name = FIXED_TYPES.get(function, type_name)
    return Column(aggregation.output_name, type_name, function not in _NEVER_NULL)


def _expression_type(field: str, text: str, schema: Schema) -> str:
    """The type of the expression at `field`, or its error as a `ParamsError` there."""
    try:
        found, _ = infer_type(text, schema)
    except ExpressionError as error:
        raise ParamsError(field, str(error), error.position) from error
    return found
