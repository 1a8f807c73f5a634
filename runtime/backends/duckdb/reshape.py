"""SQL for `Pivot` and `Unpivot` (runtime/relational.py), as their operators compute them.

A pivot is a conditional aggregation, `agg(v) FILTER (WHERE c = ?)` per declared value, over
the rows holding a declared value: portable, and its columns are the declared ones whatever
the data holds. Each function means what `aggregate`'s does (clauses.py's `summary`); first
and last read the input's row order, carried in its hidden columns. An unpivot is the input
crossed with a small table of (position, column name), the value picked by position: its
rows follow each input row's, then the listed columns' order.
"""

from __future__ import annotations

from runtime import relational as rel
from runtime.errors import NotLowerable
from runtime.expressions.sql_parts import SQL_TYPES
from runtime.expressions.sql_parts import identifier as quoted
from runtime.tables.schema import Column

SOURCE, POSITIONS = '"s"', '"u"'
"""The aliases of an unpivot's input and of its table of columns."""


def equals_value(column: Column) -> str:
    """`column = ?`, the bound value cast to the column's type."""
    if column.type not in SQL_TYPES:
        raise NotLowerable(f"pivoting on a {column.type} column runs on pandas")
    return f"{quoted(column.name)} = CAST(? AS {SQL_TYPES[column.type]})"


def pivot_cell(
    function: str, value: Column, column: Column, order_by: str | None
) -> tuple[str, int, str]:
    """One declared value's summary: its SQL, how many times it binds the value, its type."""
    name = quoted(value.name)
    where = f" FILTER (WHERE {equals_value(column)})"
    if function == "count":
        return f"COUNT({name}){where}", 1, "integer"
    if function == "sum" and value.type == "integer":
        return f"CAST(COALESCE(SUM({name}){where}, 0) AS BIGINT)", 1, "integer"
    if function == "sum" and value.type == "decimal":  # exact: DECIMAL(38, the scale)
        return f"COALESCE(SUM({name}){where}, 0)", 1, "decimal"
    if function == "sum":
        return f"COALESCE(FSUM({name}){where}, 0.0)", 1, "float"
    if function == "mean" and value.type == "integer":
        return f"AVG({name}){where}", 1, "float"
    if function == "mean":  # a decimal too, in floats as pandas averages it
        floats = f"CAST({name} AS DOUBLE)"
        return f"FSUM({floats}){where} / NULLIF(COUNT({name}){where}, 0)", 2, "float"
    if function in ("min", "max"):
        return f"{function.upper()}({name}){where}", 1, value.type
    assert function in ("first", "last") and order_by, function
    present = f" FILTER (WHERE {equals_value(column)} AND {name} IS NOT NULL)"
    return f"{function.upper()}({name} ORDER BY {order_by}){present}", 1, value.type


def unpivot_positions(columns: tuple[str, ...], position: str, label: str) -> str:
    """The table of (position, column name) an unpivot crosses its input with (names bound)."""
    rows = ", ".join(f"({index}, CAST(? AS VARCHAR))" for index in range(len(columns)))
    return f"(VALUES {rows}) AS {POSITIONS}({quoted(position)}, {quoted(label)})"


def unpivot_value(relation: rel.Unpivot, types: dict[str, str], kind: str, position: str) -> str:
    """The value of a row: its column's, picked by position, as `kind` (integers as floats)."""
    picks = []
    for index, name in enumerate(relation.columns):
        value = f"{SOURCE}.{quoted(name)}"
        if types[name] != kind:
            value = f"CAST({value} AS {SQL_TYPES[kind]})"
        picks.append(f"WHEN {index} THEN {value}")
    return f"CASE {POSITIONS}.{quoted(position)} {' '.join(picks)} END"
