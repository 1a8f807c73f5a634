"""Column operators: `transform`, `select`, `cast` and `fill_nulls`.

Each one changes columns and keeps every row in its place, so all four are row-wise maps
(`row_limit_safe`): a preview of them needs only the head of their input.
"""

from __future__ import annotations

import dataclasses

from pydantic import Field

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.expressions import ExpressionError, evaluate, infer_type, referenced_columns
from runtime.expressions.to_sql import to_sql
from runtime.lazy import pd
from runtime.operators.column_names import needed_with, require_columns
from runtime.operators.column_params import (
    ColumnName,
    ColumnNames,
    InputColumn,
    InputExpression,
    Scalar,
    cast_value,
    chosen_columns,
    column_of,
    conventional,
    first_repeated,
    frame_schema,
    with_nullable,
)
from runtime.operators.contract import Operator, OperatorParams
from runtime.tables.casting import cast_series
from runtime.tables.schema import Column, Schema, TypeName


class Mapping(OperatorParams):
    """One computed column."""

    target: ColumnName = Field(
        title="Column", description="The column to write: a new one, or one to replace."
    )
    expression: InputExpression = Field(
        title="Expression",
        description="Its value on each row, e.g. quantity * unit_price or upper(name).",
    )
    type: TypeName | None = Field(
        None,
        title="Type",
        description="Convert the result to this type (values that do not convert become null).",
    )


class TransformParams(OperatorParams):
    mappings: list[Mapping] = Field(
        title="Mappings",
        description="Columns to compute, in order: a mapping may use the columns computed "
        "before it.",
        min_length=1,
    )
    keep_other_columns: bool = Field(
        True,
        title="Keep other columns",
        description="Keep the input's columns; when off, the output has only the computed ones.",
    )


class Transform(Operator):
    name = "transform"
    summary = "{mappings.target}"
    kind = "process"
    title = "Compute columns"
    description = (
        "Add or replace columns computed from expressions; a replaced column keeps its place, "
        "new ones go at the end."
    )
    Params = TransformParams
    keywords = (
        "map",
        "formula",
        "calculate",
        "calculated column",
        "derive",
        "mutate",
        "expression",
        "upper",
        "lower",
        "concatenate",
        "replace",
    )
    partitionable = True
    row_limit_safe = True

    def input_columns(self, params, output_columns):
        wanted = output_columns["out"]
        if wanted is None and params.keep_other_columns:
            return {"in": None}
        needed = set(_targets(params) if wanted is None else wanted)
        for _, mapping in reversed(live_mappings(params, wanted)):
            needed.discard(mapping.target)
            needed |= referenced_columns(mapping.expression)
        return {"in": needed}

    def output_schema(self, ctx, inputs):
        params: TransformParams = ctx.params
        schema = inputs["in"]
        for index, mapping in enumerate(params.mappings):
            schema = with_column(schema, mapped_column(index, mapping, schema))
        return {"out": _kept(schema, params)}

    def run(self, ctx, inputs):
        params: TransformParams = ctx.params
        frame = inputs["in"]
        live = live_mappings(params, ctx.columns)
        for index, mapping in live:
            frame = frame.assign(**{mapping.target: _mapped_values(index, mapping, frame)})
        if not params.keep_other_columns:
            frame = frame[list(dict.fromkeys(mapping.target for _, mapping in live))]
        return {"out": frame}

    def pruned(self, params, wanted):
        live = [mapping for _, mapping in live_mappings(params, wanted)]
        return (
            params
            if len(live) == len(params.mappings)
            else params.model_copy(update={"mappings": live})
        )

    def lower(self, params, inputs, schemas):
        schema = schemas["in"]
        for index, mapping in enumerate(params.mappings):
            lowered = to_sql(mapping.expression, schema)  # NotLowerable if DuckDB differs
            if mapping.type is not None:
                relational.require_exact_cast(mapping.target, lowered.type, mapping.type)
            schema = with_column(schema, mapped_column(index, mapping, schema))
        mappings = tuple(
            relational.Mapping(mapping.target, mapping.expression, mapping.type, _field(index))
            for index, mapping in enumerate(params.mappings)
        )
        return {"out": relational.Derive(inputs["in"], mappings, params.keep_other_columns)}


def live_mappings(params: TransformParams, wanted: set[str] | None) -> list[tuple[int, Mapping]]:
    """The mappings whose result can reach a wanted column (all of them when all are wanted).

    Column pruning tells a node which of its columns anything downstream reads; a mapping
    computing a column nobody reads (not even a later mapping) is not computed at all.
    """
    if wanted is None:
        return list(enumerate(params.mappings))
    needed, live = set(wanted), []
    for index, mapping in reversed(list(enumerate(params.mappings))):
        if mapping.target in needed:
            live.append((index, mapping))
            needed.discard(mapping.target)
            needed |= referenced_columns(mapping.expression)
    return live[::-1]


def _expression_error(index: int, error: ExpressionError) -> ParamsError:
    return ParamsError(_field(index), str(error), error.position)


def _field(index: int) -> str:
    return f"mappings[{index}].expression"


def mapped_column(index: int, mapping: Mapping, schema: Schema) -> Column:
    """The column mapping number `index` gives over `schema`: its target, type and nullability."""
    try:
        result_type, nullable = infer_type(mapping.expression, schema)
    except ExpressionError as error:
        raise _expression_error(index, error) from error
    if mapping.type is None or mapping.type == result_type:
        return Column(mapping.target, result_type, nullable)
    return Column(mapping.target, mapping.type, True)  # a conversion may give nulls


def _mapped_values(index: int, mapping: Mapping, frame: pd.DataFrame) -> pd.Series:
    try:
        values = evaluate(mapping.expression, frame)
    except ExpressionError as error:
        raise _expression_error(index, error) from error
    return conventional(values if mapping.type is None else cast_series(values, mapping.type))


def with_column(schema: Schema, column: Column) -> Schema:
    """`schema` with `column` replacing the one of the same name, or added at the end."""
    if column.name not in schema:
        return Schema((*schema.columns, column))
    return Schema(tuple(column if c.name == column.name else c for c in schema.columns))


def _targets(params: TransformParams) -> list[str]:
    """The computed columns, in mapping order (a column computed twice is listed once)."""
    return list(dict.fromkeys(mapping.target for mapping in params.mappings))


def _kept(schema: Schema, params: TransformParams) -> Schema:
    if params.keep_other_columns:
        return schema
    return Schema(tuple(schema.get(name) for name in _targets(params)))


class SelectParams(OperatorParams):
    columns: ColumnNames = Field(
        [],
        title="Columns",
        description="The columns to keep, in this order; all of them (in input order) when empty.",
    )
    rename: dict[InputColumn, ColumnName] = Field(
        {},
        title="Rename",
        description="New names for some of the kept columns: old name → new name.",
    )


class Select(Operator):
    name = "select"
    summary = "[{columns}][ · rename {rename}]"
    kind = "process"
    title = "Select columns"
    description = "Choose, order and rename columns."
    Params = SelectParams
    partitionable = True
    row_limit_safe = True

    def input_columns(self, params, output_columns):
        if params.columns:
            return {"in": set(params.columns) | set(params.rename)}
        wanted = output_columns["out"]
        original = {new: old for old, new in params.rename.items()}
        renamed_back = None if wanted is None else {original.get(name, name) for name in wanted}
        return {"in": needed_with(renamed_back, params.rename)}

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        rename = ctx.params.rename
        columns = (schema.get(name) for name in selected_names(ctx.params, schema))
        return {
            "out": Schema(
                tuple(dataclasses.replace(c, name=rename.get(c.name, c.name)) for c in columns)
            )
        }

    def run(self, ctx, inputs):
        params: SelectParams = ctx.params
        frame = inputs["in"]
        names = selected_names(params, frame_schema(frame))
        if params.columns:
            frame = frame[names]
        return {"out": frame.rename(columns=params.rename) if params.rename else frame}

    def lower(self, params, inputs, schemas):
        renames = tuple(params.rename.items())
        return {"out": relational.Project(inputs["in"], tuple(params.columns), renames)}


def selected_names(params: SelectParams, schema: Schema) -> list[str]:
    """The kept columns, checking that renames name kept columns and give distinct names."""
    names = chosen_columns("columns", params.columns, schema)
    require_columns("rename", params.rename, names)
    clash = first_repeated(params.rename.get(name, name) for name in names)
    if clash is not None:
        raise ParamsError(
            "rename", f"two columns would be named '{clash}'; choose a name no other column has"
        )
    return names


class CastParams(OperatorParams):
    types: dict[InputColumn, TypeName] = Field(
        title="Types",
        description="The type to convert each column to: string, integer, float, boolean, "
        "date or datetime. Values that do not convert become null.",
        min_length=1,
    )


class Cast(Operator):
    name = "cast"
    summary = "{types}"
    kind = "process"
    title = "Convert types"
    description = "Convert columns to other types; values that do not convert become null."
    Params = CastParams
    partitionable = True
    row_limit_safe = True

    def input_columns(self, params, output_columns):
        return {"in": needed_with(output_columns["out"], params.types)}

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        types = cast_types(ctx.params, schema)
        return {"out": Schema(tuple(_cast_column(c, types.get(c.name)) for c in schema.columns))}

    def run(self, ctx, inputs):
        frame = inputs["in"]
        types = cast_types(ctx.params, frame_schema(frame))
        return {
            "out": frame.assign(**{name: cast_series(frame[name], t) for name, t in types.items()})
        }

    def lower(self, params, inputs, schemas):
        schema = schemas["in"]
        for name, type_name in cast_types(params, schema).items():
            relational.require_exact_cast(name, schema.get(name).type, type_name)
        return {"out": relational.Cast(inputs["in"], tuple(params.types.items()))}


def cast_types(params: CastParams, schema: Schema) -> dict[str, TypeName]:
    """The type each column is converted to, after checking every column is in `schema`."""
    require_columns("types", params.types, schema.names)
    return params.types


def _cast_column(column: Column, type_name: TypeName | None) -> Column:
    if type_name is None or type_name == column.type:
        return column
    return Column(column.name, type_name, True)  # values that do not convert become null


class FillNullsParams(OperatorParams):
    values: dict[InputColumn, Scalar] = Field(
        title="Values",
        description="The value to put in each column's empty cells; it is converted to the "
        "column's type.",
        min_length=1,
    )


class FillNulls(Operator):
    name = "fill_nulls"
    summary = "{values}"
    kind = "process"
    title = "Fill empty cells"
    description = "Replace nulls in some columns with a fixed value."
    Params = FillNullsParams
    partitionable = True
    row_limit_safe = True

    def input_columns(self, params, output_columns):
        return {"in": needed_with(output_columns["out"], params.values)}

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        fill_values(ctx.params, schema)
        return {"out": with_nullable(schema, ctx.params.values, False)}

    def run(self, ctx, inputs):
        frame = inputs["in"]
        return {"out": frame.fillna(fill_values(ctx.params, frame_schema(frame)))}

    def lower(self, params, inputs, schemas):
        schema = schemas["in"]
        values = fill_values(params, schema)
        timed = [name for name in values if schema.get(name).type == "datetime"]
        if timed:
            raise NotLowerable(f"filling datetime column '{timed[0]}' keeps pandas' time unit")
        plain = tuple((name, _plain(value)) for name, value in values.items())
        return {"out": relational.FillNulls(inputs["in"], plain)}


def _plain(value: object) -> object:
    """A numpy or pandas scalar as the Python value a backend binds."""
    return value.item() if hasattr(value, "item") else value


def fill_values(params: FillNullsParams, schema: Schema) -> dict[str, object]:
    """Each value converted to its column's type (`ParamsError` when it does not fit)."""
    return {
        name: cast_value("values", value, column_of("values", name, schema).type, name)
        for name, value in params.values.items()
    }
