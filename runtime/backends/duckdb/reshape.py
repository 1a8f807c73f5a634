"""SQL for `Pivot` and `Unpivot` (runtime/relational.py), as their operators compute them.

A pivot is a conditional aggregation, `agg(v) FILTER (WHERE c = ?)` per declared value, over
the rows holding a declared value: portable, and its columns are the declared ones whatever
the data holds. Each function means what `aggregate`'s does (clauses.py's `summary`); first
and last read the input's row order, carried in its hidden columns. An unpivot unnests a list
of the names and one of the values side by side: DuckDB's UNNEST gives each input row's rows
in turn, so the input's stream order stays (as a row-wise node keeps it), then the listed
columns' order.
"""

from __future__ import annotations

from runtime import relational as rel
from runtime.errors import NotLowerable
from runtime.expressions.sql_parts import SQL_TYPES
from runtime.expressions.sql_parts import identifier as quoted
from runtime.tables.schema import Column, a_type


def equals_value(column: Column) -> str:
    """`column = ?`, the bound value cast to the column's type."""
    if column.type not in SQL_TYPES:
        raise NotLowerable(f"pivoting on {a_type(column.type)} column runs on pandas")
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
    if function == "mean" and value.type == "decimal":  # the exact sum over the count
        return f"CAST(SUM({name}){where} AS DOUBLE) / NULLIF(COUNT({name}){where}, 0)", 2, "float"
    if function == "mean":
        floats = f"CAST({name} AS DOUBLE)"
        return f"FSUM({floats}){where} / NULLIF(COUNT({name}){where}, 0)", 2, "float"
    if function in ("min", "max"):
        return f"{function.upper()}({name}){where}", 1, value.type
    assert function in ("first", "last") and order_by, function
    present = f" FILTER (WHERE {equals_value(column)} AND {name} IS NOT NULL)"
    return f"{function.upper()}({name} ORDER BY {order_by}){present}", 1, value.type


def unpivot_selected(relation: rel.Unpivot, types: dict[str, str], kind: str) -> list[str]:
    """The name and value of each output row: lists unnested side by side, each input row's
    in turn (which keeps the input's stream order), the values as `kind` (integers as floats).
    The names are bound."""
    values = []
    for name in relation.columns:
        value = quoted(name)
        values.append(value if types[name] == kind else f"CAST({value} AS {SQL_TYPES[kind]})")
    names = ", ".join("CAST(? AS VARCHAR)" for _ in relation.columns)
    return [
        f"UNNEST([{names}]) AS {quoted(relation.name)}",
        f"UNNEST([{', '.join(values)}]) AS {quoted(relation.value)}",
    ]


def unpivot_position(relation: rel.Unpivot, position: str) -> str:
    """Each output row's column position, unnested beside its name and value."""
    positions = ", ".join(str(index) for index in range(len(relation.columns)))
    return f"UNNEST([{positions}]) AS {quoted(position)}"
