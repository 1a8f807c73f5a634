"""SQL for the calls of a `Window` relation, meaning what runtime/operators/window_frames.py
computes on pandas.

Each call gets its own OVER clause with an explicit frame. The input's order (its hidden
columns) breaks ties after the order keys wherever the result depends on which of two tied
rows comes first: row_number, lag/lead, explicit ROWS frames, and first/last (through the
function's own ORDER BY, so that a default RANGE frame still ends at the current row's last
peer). The rankings and the default frame order by the keys alone: tied rows are peers.
"""

from __future__ import annotations

from runtime import relational as rel
from runtime.errors import NotLowerable
from runtime.expressions.sql_parts import SQL_TYPES
from runtime.expressions.sql_parts import identifier as quoted
from runtime.tables.schema import Column, Schema, a_type

RANKINGS = {"row_number": "ROW_NUMBER", "rank": "RANK", "dense_rank": "DENSE_RANK"}
FIXED = {"row_number": "integer", "rank": "integer", "dense_rank": "integer", "count": "integer"}
FIXED |= {"percent_rank": "float", "mean": "float"}
NEVER_NULL = ("row_number", "rank", "dense_rank", "percent_rank", "count", "sum")


def window_calls(
    relation: rel.Window, schema: Schema, tie: str
) -> tuple[list[str], list[object], list[Column]]:
    """Each call's `SELECT` item, the parameters they bind (in text order) and the columns
    they give; `tie` is the input's order (`"h1" ASC NULLS LAST, ...`)."""
    last = "LAST" if relation.nulls_last else "FIRST"
    keys = [
        f"{quoted(column)} {'DESC' if descending else 'ASC'} NULLS {last}"
        for column, descending in relation.order_by
    ]
    partition = ""
    if relation.partition_by:
        partition = "PARTITION BY " + ", ".join(quoted(name) for name in relation.partition_by)
    full = ", ".join([*keys, tie])
    selected, params, columns = [], [], []
    for call in relation.calls:
        sql, bound = _call_sql(call, schema, partition, ", ".join(keys), full)
        selected.append(f"{sql} AS {quoted(call.name)}")
        params += bound
        columns.append(_column(call, schema))
    return selected, params, columns


def _over(partition: str, order: str, frame: str = "") -> str:
    parts = [partition, f"ORDER BY {order}" if order else "", frame]
    return f"OVER ({' '.join(part for part in parts if part)})"


def _call_sql(call: rel.WindowCall, schema: Schema, partition: str, keys: str, full: str):
    function = call.function
    value = None if call.column is None else quoted(call.column)
    if function in RANKINGS:
        order = full if function == "row_number" else keys
        return f"{RANKINGS[function]}() {_over(partition, order)}", []
    if function == "percent_rank":
        return f"PERCENT_RANK() {_over(partition, keys)}", []
    if function in ("lag", "lead"):
        if call.default is None:
            return f"{function.upper()}({value}, ?) {_over(partition, full)}", [call.offset]
        kind = schema.get(call.column).type
        if kind not in SQL_TYPES:
            raise NotLowerable(f"{a_type(kind)} default of {function} runs on pandas")
        sql = f"{function.upper()}({value}, ?, CAST(? AS {SQL_TYPES[kind]}))"
        return f"{sql} {_over(partition, full)}", [call.offset, call.default]
    params: list[object] = []
    if call.frame is not None:
        preceding, following = call.frame
        start = "UNBOUNDED PRECEDING" if preceding is None else "? PRECEDING"
        end = "UNBOUNDED FOLLOWING" if following is None else "? FOLLOWING"
        params = [bound for bound in call.frame if bound is not None]
        over = _over(partition, full, f"ROWS BETWEEN {start} AND {end}")
    elif keys:
        over = _over(partition, keys, "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
    else:
        over = _over(partition, "")
    if function in ("first", "last"):
        sql = f"{function.upper()}_VALUE({value} ORDER BY {full} IGNORE NULLS) {over}"
        return sql, params
    if function == "count":
        return f"COUNT({value or '*'}) {over}", params
    if function in ("min", "max"):
        return f"{function.upper()}({value}) {over}", params
    kind = schema.get(call.column).type
    if function == "sum":
        if kind == "integer":
            return f"CAST(COALESCE(SUM({value}) {over}, 0) AS BIGINT)", params
        if kind == "decimal":  # exact: DECIMAL(38, the scale)
            return f"COALESCE(SUM({value}) {over}, 0)", params
        return f"COALESCE(FSUM({value}) {over}, 0.0)", params
    # mean: the sum (exact for integers and decimals, in floats otherwise) over the count
    total = f"CAST(SUM({value}) {over} AS DOUBLE)"
    if kind not in ("integer", "decimal"):
        total = f"FSUM(CAST({value} AS DOUBLE)) {over}"
    return f"{total} / NULLIF(COUNT({value}) {over}, 0)", params + params


def _column(call: rel.WindowCall, schema: Schema) -> Column:
    source = None if call.column is None else schema.get(call.column)
    kind = FIXED.get(call.function) or source.type
    if call.function in NEVER_NULL:
        nullable = False
    elif call.function in ("lag", "lead"):
        nullable = source.nullable or call.default is None
    else:
        nullable = source.nullable
    return Column(call.name, kind, nullable)
