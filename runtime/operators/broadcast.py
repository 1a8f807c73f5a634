"""`broadcast`: a one-row result (a total, a maximum, an average) beside every row of a table.

A query such as TPC-H's Q11 (`having sum(...) > total * 0.0001`), Q15 (the suppliers of the
largest revenue) or Q22 (balances above the average) compares rows with one value computed
from a whole table. That value is an `aggregate` without group columns in a branch of its own;
`broadcast` appends its columns to every row of the other input, where a `filter` or a
`transform` can then use them like any other column. A value that gives no row adds nulls; one
that gives several is an error, since which of them was meant is not known.
"""

from __future__ import annotations

from pydantic import Field

from runtime import relational
from runtime.errors import OperatorError, ParamsError
from runtime.lazy import np, pd
from runtime.operators.column_params import (
    chosen_columns,
    column_names,
    conventional,
    frame_schema,
)
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.relational import BROADCAST_NEEDS
from runtime.tables.schema import Column, Schema


class BroadcastParams(OperatorParams):
    columns: column_names("value") = Field(
        [],
        title="Columns",
        description="The columns of value to add to every row; all of them when empty.",
    )


class Broadcast(Operator):
    name = "broadcast"
    summary = "[{columns}]"
    kind = "process"
    title = "Broadcast a value"
    description = (
        "Add the columns of a table of at most one row (a total, a maximum) to every row of "
        "another table, e.g. to compare each row with a whole table's sum."
    )
    inputs = (
        Port("in", description="The rows."),
        Port(
            "value",
            description="A table of at most one row, e.g. an aggregate without group columns "
            "(no row: nulls).",
        ),
    )
    keywords = (
        "scalar",
        "scalar subquery",
        "grand total",
        "percent of total",
        "share of total",
        "cross join",
    )
    Params = BroadcastParams

    def input_columns(self, params, output_columns):
        wanted = output_columns["out"]
        return {"in": wanted, "value": set(params.columns) if params.columns else wanted}

    def output_schema(self, ctx, inputs):
        return {"out": Schema(broadcast_columns(ctx.params, inputs["in"], inputs["value"]))}

    def run(self, ctx, inputs):
        frame, value = inputs["in"], inputs["value"]
        columns = broadcast_columns(ctx.params, frame_schema(frame), frame_schema(value))
        added = [column.name for column in columns[len(frame.columns) :]]
        return {"out": broadcast_values(frame, value, added)}

    def lower(self, params, inputs, schemas):
        columns = broadcast_columns(params, schemas["in"], schemas["value"])
        added = tuple(column.name for column in columns[len(schemas["in"].columns) :])
        return {"out": relational.Broadcast(inputs["in"], inputs["value"], added)}


def broadcast_columns(params: BroadcastParams, rows: Schema, value: Schema) -> tuple[Column, ...]:
    """The columns of `in`, then the chosen columns of `value` (nullable: it may give no row),
    after checking that no name is taken twice."""
    names = chosen_columns("columns", params.columns, value)
    for name in names:
        if name in rows:
            raise ParamsError(
                "columns",
                f"both inputs have a column named '{name}'; rename one (select) or leave it "
                "out of columns",
            )
    added = (Column(name, value.get(name).type, True) for name in names)
    return (*rows.columns, *added)


def broadcast_values(frame: pd.DataFrame, value: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """`frame` with `value`'s `columns` on every row: its one row's values, or nulls when it
    has none; an error when it has more than one."""
    if len(value) > 1:
        error = OperatorError(f"value gives {len(value)} rows; {BROADCAST_NEEDS}")
        error.retryable = False
        raise error
    chosen = value[columns]
    if not len(value):  # one row of nulls, each column in its engine dtype
        chosen = pd.DataFrame({name: conventional(chosen[name]) for name in columns})
        chosen = chosen.reindex(pd.RangeIndex(1))
    repeated = chosen.take(np.zeros(len(frame), dtype=np.intp))
    return frame.assign(**{name: repeated[name].array for name in columns})
