"""Emitter of `broadcast`: the operator's own `broadcast_values`, after checking the columns
it adds while compiling (all of value's: those the script's pruned value frame holds)."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import broadcast as operator


@emits("broadcast")
def broadcast(node: NodeCode) -> None:
    operator.broadcast_columns(node.params, node.schemas["in"], node.schemas["value"])
    frame, value, out = node.inputs["in"], node.inputs["value"], node.outputs["out"]
    added = literal(node.params.columns) if node.params.columns else f"list({value}.columns)"
    node.carry(operator.broadcast_values)
    node.line(f"{out} = broadcast_values({frame}, {value}, {added})")
