"""Emitter of `window`: one call of the operator's own pandas computation (`windowed`,
carried into the script as it is), with the params checked and written as plain values."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import window as operator
from runtime.operators.window_frames import windowed


@emits("window")
def window(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    calls = operator.plain_calls(params, operator.window_columns(params, node.schemas["in"]))
    order_by = [[key.column, key.descending] for key in params.order_by]
    node.carry(windowed)
    node.line(
        f"{out} = windowed({frame}, {literal(params.partition_by)}, {literal(order_by)}, "
        f"{literal(params.nulls_last)}, {literal(calls)})"
    )
