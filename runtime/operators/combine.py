"""Operators that combine tables: `join` (two tables side by side) and `union` (one under another).

`join` follows pandas' `merge`, whose column naming `output_schema` predicts: a key that has
the same name on both sides appears once, keys with different names both stay, and other
columns found on both sides get the suffixes. Semi and anti joins keep the left rows that have
(or lack) a match, as SQL's EXISTS and NOT EXISTS do; an optional `condition` over the joined
row decides which key-matched pairs count (runtime/operators/join_condition.py). `union`
aligns columns by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, field_validator

from runtime import relational
from runtime.document.fields import Expression
from runtime.errors import NotLowerable, OperatorError, ParamsError
from runtime.lazy import pa, pd
from runtime.operators import join_condition
from runtime.operators.column_params import (
    NUMBERS,
    ExpressionOver,
    column_of,
    first_repeated,
    frame_schema,
    one_or_more_columns,
)
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.operators.join_condition import FILTERING
from runtime.tables.frames import MAX_DECIMAL_DIGITS
from runtime.tables.schema import Column, Schema

JoinHow = Literal["inner", "left", "right", "outer", "semi", "anti"]


class JoinParams(OperatorParams):
    how: JoinHow = Field(
        "inner",
        title="Kind of join",
        description="inner: matching rows only; left / right: every row of that side; "
        "outer: every row of both sides; semi: the left rows that have a match (left columns "
        "only, each row once); anti: the left rows that have none.",
    )
    left_on: one_or_more_columns("left") = Field(
        title="Left keys", description="The key column(s) of the left table."
    )
    right_on: one_or_more_columns("right") = Field(
        title="Right keys",
        description="The key column(s) of the right table, matched in order with the left keys.",
    )
    suffixes: Annotated[list[str], Field(min_length=2, max_length=2)] = Field(
        ["_left", "_right"],
        title="Suffixes",
        description="Added to the names of other columns that both tables have: left, right.",
    )
    condition: Annotated[Expression, ExpressionOver("joined")] | None = Field(
        None,
        title="Condition",
        description="Optional: of the rows whose keys match, only the pairs where this is true "
        "match, e.g. l_suppkey_right <> l_suppkey_left. It reads the joined row, named as the "
        "inner join names it (the suffixes on clashing columns). For inner, left, semi and anti "
        "joins; a left row none of whose pairs match keeps one row, nulls on the right.",
    )

    @field_validator("right_on")
    @classmethod
    def _as_many_keys_as_left(cls, right_on: list[str], info):
        left_on = info.data.get("left_on")
        if left_on is not None and len(left_on) != len(right_on):
            raise ValueError(
                f"name as many right keys as left keys ({len(left_on)}), "
                f"but there are {len(right_on)}"
            )
        return right_on

    @field_validator("condition")
    @classmethod
    def _condition_for_kept_left_rows(cls, condition: str | None, info):
        how = info.data.get("how")
        if condition is not None and how in ("right", "outer"):
            raise ValueError(
                f"a condition works with inner, left, semi and anti joins, not {how}: "
                "swap the tables and use a left join, or filter after the join"
            )
        return condition


class Join(Operator):
    name = "join"
    summary = "{how}: {left_on} = {right_on}[ where {condition}]"
    kind = "process"
    breaks_pipeline = True
    title = "Join"
    description = (
        "Match the rows of two tables on key columns (as pandas' merge does: null keys match "
        "each other), or keep the left rows that have a match (semi) or none (anti)."
    )
    inputs = (
        Port("left", description="The left table."),
        Port("right", description="The right table."),
    )
    keywords = (
        "merge",
        "lookup",
        "vlookup",
        "semi join",
        "anti join",
        "exists",
        "not exists",
        "not in",
    )
    Params = JoinParams

    def input_columns(self, params, output_columns):
        return join_condition.input_columns(params, output_columns["out"])

    def views(self, params, inputs):
        left, right = inputs.get("left"), inputs.get("right")
        if left is None or right is None:
            return {}
        inner = params.model_copy(update={"how": "inner", "condition": None})
        try:
            return {"joined": Schema(join_plan(inner, left, right).columns)}
        except OperatorError:
            return {}

    def output_schema(self, ctx, inputs):
        plan = join_plan(ctx.params, inputs["left"], inputs["right"])
        return {"out": Schema(plan.columns)}

    def run(self, ctx, inputs):
        params: JoinParams = ctx.params
        left, right = inputs["left"], inputs["right"]
        plan = join_plan(params, frame_schema(left), frame_schema(right))
        if params.how in FILTERING:
            return {"out": left.take(join_condition.matched_left_rows(params, plan, left, right))}
        if params.condition is not None:
            return {"out": join_condition.conditional_join(params, plan, left, right)}
        joined = left.merge(
            right,
            how=params.how,
            left_on=params.left_on,
            right_on=params.right_on,
            suffixes=tuple(params.suffixes),
        )
        if plan.widened_keys:
            joined = joined.assign(
                **{key: joined[key].astype("float64") for key in plan.widened_keys}
            )
        names = [column.name for column in plan.columns]
        return {"out": joined if list(joined.columns) == names else joined[names]}

    def lower(self, params, inputs, schemas):
        left, right = schemas["left"], schemas["right"]
        plan = join_plan(params, left, right)
        shared = shared_keys(params)
        decimal = next((key for key in sorted(shared) if left.get(key).type == "decimal"), None)
        if decimal is not None and params.how in ("right", "outer"):
            raise NotLowerable(
                f"the decimal key '{decimal}' of the {params.how} join keeps the left side's "
                "precision and scale on pandas, not on DuckDB"
            )
        keys = tuple(zip(params.left_on, params.right_on, strict=True))
        if params.condition is not None:
            return {"out": join_condition.lowered(params, plan, inputs, keys)}
        if params.how in FILTERING:
            columns = tuple(relational.JoinColumn("left", c.name, c.name) for c in left.columns)
        else:
            columns = tuple(
                relational.JoinColumn(side, source, out.name, source in plan.widened_keys)
                for side, source, out in plan.sources
            )
        join = relational.Join(inputs["left"], inputs["right"], params.how, keys, columns)
        return {"out": join}


def shared_keys(params: JoinParams) -> set[str]:
    """The keys named alike on both sides, which the joined table holds once."""
    return {key for key, other in zip(params.left_on, params.right_on, strict=True) if key == other}


@dataclass(frozen=True, slots=True)
class JoinPlan:
    """The columns a join gives, in order, and the keys it widens to float; with them, the
    joined row a condition reads (the inner join's columns, whatever the join)."""

    columns: tuple[Column, ...]
    widened_keys: tuple[str, ...]
    """Keys named alike on both sides, integer on one and float on the other: output as float."""
    sources: tuple[tuple[str, str, Column], ...] = ()
    """Each column of the joined row: its side (`left`, `right`, or `key`: a key named alike on
    both sides, held once), its name on that side, and the column (the inner join's)."""


def join_plan(params: JoinParams, left: Schema, right: Schema) -> JoinPlan:
    """The joined columns as pandas names and orders them, after checking keys, suffixes and
    the condition (a `ParamsError` naming the field at fault)."""
    pairs = [
        (column_of("left_on", left_key, left), column_of("right_on", right_key, right))
        for left_key, right_key in zip(params.left_on, params.right_on, strict=True)
    ]
    for left_key, right_key in pairs:
        _check_key_types(left_key, right_key)
    shared = {
        left_key.name: right_key for left_key, right_key in pairs if left_key.name == right_key.name
    }
    right_columns = [column for column in right.columns if column.name not in shared]
    overlap = set(left.names) & {column.name for column in right_columns}
    left_suffix, right_suffix = params.suffixes
    if overlap and not (left_suffix or right_suffix):
        raise ParamsError(
            "suffixes",
            f"both tables have a column named '{sorted(overlap)[0]}'; give at least one suffix",
        )
    if params.how in FILTERING and params.condition is None:
        return JoinPlan(left.columns, ())  # no joined row: clashing names do not matter
    left_nullable = params.how in ("right", "outer")
    right_nullable = params.how in ("left", "outer")
    sources = [
        ("key", column.name, _shared_key(column, shared[column.name]))
        if column.name in shared
        else ("left", column.name, _suffixed(column, left_suffix, overlap, left_nullable))
        for column in left.columns
    ] + [
        ("right", column.name, _suffixed(column, right_suffix, overlap, right_nullable))
        for column in right_columns
    ]
    columns = [column for _, _, column in sources]
    repeated = first_repeated(column.name for column in columns)
    if repeated is not None:
        raise ParamsError(
            "suffixes",
            f"the joined table would have two columns named '{repeated}'; change the suffixes "
            "or rename a column before the join",
        )
    widened = tuple(
        name for name, right_key in shared.items() if left.get(name).type != right_key.type
    )
    if params.condition is not None:
        join_condition.check(params.condition, Schema(tuple(columns)))
    if params.how in FILTERING:
        return JoinPlan(left.columns, widened, tuple(sources))
    return JoinPlan(tuple(columns), widened, tuple(sources))


def _check_key_types(left_key: Column, right_key: Column) -> None:
    if left_key.type == right_key.type or {left_key.type, right_key.type} <= set(NUMBERS):
        return
    raise ParamsError(
        "right_on",
        f"join keys have different types: left '{left_key.name}' is {left_key.type} "
        f"but right '{right_key.name}' is {right_key.type}; convert one side with cast first "
        f"(right '{right_key.name}' to {left_key.type}, or left '{left_key.name}' to "
        f"{right_key.type})",
    )


def _shared_key(left_key: Column, right_key: Column) -> Column:
    """The one column holding a key named alike on both sides (integer with float: float)."""
    type_name = left_key.type if left_key.type == right_key.type else "float"
    return Column(left_key.name, type_name, left_key.nullable or right_key.nullable)


def _suffixed(column: Column, suffix: str, overlap: set[str], nullable: bool) -> Column:
    """A column of one side, suffixed when the other side has one of that name."""
    name = column.name + suffix if column.name in overlap else column.name
    return Column(name, column.type, column.nullable or nullable)


class Union(Operator):
    name = "union"
    summary = "stacked by column name"
    kind = "process"
    title = "Union"
    description = (
        "Stack tables one under another, matching columns by name; a column missing from a "
        "table is null there, and integer with float gives float."
    )
    inputs = (Port("in", many=True, description="The tables to stack, in edge order."),)

    def output_schema(self, ctx, inputs):
        return {"out": Schema(union_columns(inputs["in"]))}

    def run(self, ctx, inputs):
        frames = inputs["in"]
        if len(frames) == 1:
            return {"out": frames[0]}
        schemas = [frame_schema(frame) for frame in frames]
        columns = union_columns(schemas)
        floats = {column.name for column in columns if column.type == "float"}
        frames = [
            _as_floats(frame, schema, floats) for frame, schema in zip(frames, schemas, strict=True)
        ]
        decimals = _common_decimals(frames, [c.name for c in columns if c.type == "decimal"])
        if decimals:  # else pandas would stack Decimal objects of differing precision
            frames = [_with_decimals(frame, decimals) for frame in frames]
        stacked = pd.concat(frames, ignore_index=True, sort=False)
        return {"out": stacked[[column.name for column in columns]] if decimals else stacked}

    def lower(self, params, inputs, schemas):
        relations = inputs["in"]
        if len(relations) == 1:
            return {"out": relations[0]}
        names = tuple(column.name for column in union_columns(schemas["in"]))
        return {"out": relational.Union(tuple(relations), names)}


def union_columns(schemas: list[Schema]) -> tuple[Column, ...]:
    """The union's columns: first-seen order, widened types; nullable unless in every input."""
    merged: dict[str, Column] = {}
    for position, schema in enumerate(schemas, start=1):
        for column in schema.columns:
            seen = merged.get(column.name)
            merged[column.name] = column if seen is None else _widened(seen, column, position)
    return tuple(
        column
        if all(column.name in schema for schema in schemas)
        else Column(column.name, column.type, True)
        for column in merged.values()
    )


def _widened(seen: Column, column: Column, position: int) -> Column:
    nullable = seen.nullable or column.nullable
    if seen.type == column.type:
        return Column(column.name, column.type, nullable)
    if {seen.type, column.type} <= set(NUMBERS):
        return Column(column.name, "float", nullable)
    raise OperatorError(
        f"column '{column.name}' is {seen.type} in an earlier input but {column.type} in input "
        f"{position}; convert it with a cast so that the types match"
    )


def _common_decimals(frames: list[pd.DataFrame], names: list[str]) -> dict[str, object]:
    """The dtype each decimal column takes in the union, as DuckDB's UNION types it: the most
    digits before the point and the largest scale among the inputs (38 digits at most)."""
    common = {}
    for name in names:
        kinds = [frame[name].dtype.pyarrow_dtype for frame in frames if name in frame.columns]
        scale = max(kind.scale for kind in kinds)
        whole = max(kind.precision - kind.scale for kind in kinds)
        common[name] = pd.ArrowDtype(pa.decimal128(min(whole + scale, MAX_DECIMAL_DIGITS), scale))
    return common


def _with_decimals(frame: pd.DataFrame, decimals: dict[str, object]) -> pd.DataFrame:
    """`frame` with each column of `decimals` in its dtype, null where the frame lacks it."""
    return frame.assign(
        **{
            name: frame[name].astype(dtype)
            if name in frame.columns
            else pd.Series(None, index=frame.index, dtype=dtype)
            for name, dtype in decimals.items()
        }
    )


def _as_floats(frame: pd.DataFrame, schema: Schema, floats: set[str]) -> pd.DataFrame:
    """`frame` with its integer columns among `floats` converted to float."""
    names = [
        column.name
        for column in schema.columns
        if column.name in floats and column.type == "integer"
    ]
    return (
        frame.assign(**{name: frame[name].astype("float64") for name in names}) if names else frame
    )
