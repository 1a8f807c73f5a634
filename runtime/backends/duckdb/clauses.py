"""SQL for the parts of single relations where pandas' meaning takes care to match:
aggregations as pandas' groupby computes them, joined columns and pandas' merge row order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime import relational as rel
from runtime.errors import NotLowerable
from runtime.expressions.sql_parts import identifier as quoted
from runtime.tables.schema import Column, Schema

if TYPE_CHECKING:
    from runtime.backends.duckdb.rendered import Rendered

LEFT, RIGHT = '"l"', '"r"'
JOINS = {
    "inner": "INNER",
    "left": "LEFT",
    "right": "RIGHT",
    "outer": "FULL OUTER",
    "semi": "SEMI",
    "anti": "ANTI",
}


def summary(
    call: rel.AggregateCall, schema: Schema, where: str | None = None
) -> tuple[str, Column]:
    """One aggregation as pandas' groupby computes it, and its column; `where` names a
    boolean column of `schema`: only the rows where it is true count (`FILTER`)."""
    column = None if call.column is None else schema.get(call.column)
    value = None if column is None else quoted(column.name)
    only = "" if where is None else f" FILTER (WHERE {quoted(where)})"
    function = call.function
    if function == "size":
        sql, kind = f"COUNT(*){only}", "integer"
    elif function == "count":
        sql, kind = f"COUNT({value}){only}", "integer"
    elif function in ("nunique", "count_distinct"):
        sql, kind = f"COUNT(DISTINCT {value}){only}", "integer"
    elif function == "sum" and column.type == "integer":
        sql, kind = f"CAST(COALESCE(SUM({value}){only}, 0) AS BIGINT)", "integer"
    elif function == "sum" and column.type == "decimal":  # exact: DECIMAL(38, the scale)
        sql, kind = f"COALESCE(SUM({value}){only}, 0)", "decimal"
    elif function == "sum":
        sql, kind = f"COALESCE(FSUM({value}){only}, 0.0)", "float"
    elif function == "mean" and column.type == "integer":
        sql, kind = f"AVG({value}){only}", "float"
    elif function == "mean" and column.type == "decimal":  # exact sum: cheaper than FSUM
        sql = f"CAST(SUM({value}){only} AS DOUBLE) / NULLIF(COUNT({value}){only}, 0)"
        kind = "float"
    elif function == "mean":  # in floats as pandas averages them
        sql = f"FSUM(CAST({value} AS DOUBLE)){only} / NULLIF(COUNT({value}){only}, 0)"
        kind = "float"
    elif function == "median":
        sql, kind = f"MEDIAN(CAST({value} AS DOUBLE)){only}", "float"
    elif function == "std":
        sql, kind = f"STDDEV_SAMP(CAST({value} AS DOUBLE)){only}", "float"
    elif function in ("min", "max"):
        sql, kind = f"{function.upper()}({value}){only}", column.type
    else:
        raise NotLowerable(f"{function} runs on pandas")
    return f"{sql} AS {quoted(call.name)}", Column(call.name, kind)


def join_value(how: str, column: rel.JoinColumn) -> str:
    """The SQL of one joined column; a shared key comes from the side whose rows all stay."""
    name = quoted(column.source)
    if column.side != "key":
        value = f"{LEFT if column.side == 'left' else RIGHT}.{name}"
    elif how == "outer":
        value = f"COALESCE({LEFT}.{name}, {RIGHT}.{name})"
    else:
        value = f"{RIGHT if how == 'right' else LEFT}.{name}"
    return f"CAST({value} AS DOUBLE)" if column.as_float else value


def join_condition(key: Column, other: Column) -> str:
    """One key pair of a join, null matching null (pandas' merge) only where both keys may
    be null: where one never is, `=` means the same and DuckDB joins it better."""
    left, right = f"{LEFT}.{quoted(key.name)}", f"{RIGHT}.{quoted(other.name)}"
    if key.nullable and other.nullable:
        return f"{left} IS NOT DISTINCT FROM {right}"
    return f"{left} = {right}"


def joined_nullable(relation: rel.Join, column: rel.JoinColumn, left: Rendered, right: Rendered):
    """Whether a joined column may be null: a side's own column when that side's rows all
    stay matched (inner, or the kept side), a shared key as the side(s) it comes from."""
    how = relation.how
    if column.side == "key":
        mine, theirs = left.schema.get(column.source), right.schema.get(column.source)
        if how == "inner":
            return mine.nullable and theirs.nullable
        if how == "outer":
            return mine.nullable or theirs.nullable
        return (theirs if how == "right" else mine).nullable
    source = (right if column.side == "right" else left).schema.get(column.source)
    unmatched = {"left": ("right", "outer"), "right": ("left", "outer")}[column.side]
    return source.nullable or how in unmatched


def join_order(relation: rel.Join, left: Rendered, right: Rendered) -> list[tuple[str, bool, bool]]:
    """pandas' merge order: the left rows' order then the right's (right joins: the other way
    round; semi and anti joins: the left rows' alone); an outer join first sorts by the keys,
    nulls last."""
    sides = [(LEFT, left), (RIGHT, right)]
    if relation.how in ("semi", "anti"):
        sides = sides[:1]
    if relation.how == "right":
        sides.reverse()
    carried = [
        (f"{alias}.{quoted(name)}", desc, last)
        for alias, side in sides
        for name, desc, last in side.order
    ]
    if relation.how != "outer":
        return carried
    keys = [
        (f"COALESCE({LEFT}.{quoted(key)}, {RIGHT}.{quoted(other)})", False, True)
        for key, other in relation.keys
    ]
    return keys + carried
