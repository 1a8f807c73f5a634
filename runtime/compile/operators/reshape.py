"""Emitters of `pivot` and `unpivot`: the operators' own vectorised functions, carried into
the script, called with the declared values converted and the column names worked out once,
while compiling."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import reshape


@emits("pivot")
def pivot(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    plan = reshape.pivot_plan(params, node.schemas["in"])
    node.carry(reshape.pivoted)
    node.line(
        f"{out} = pivoted({frame}, {literal(params.index)}, {params.column!r}, "
        f"{literal(plan.values)}, {params.value!r}, {params.function!r}, {literal(plan.names)})"
    )


@emits("unpivot")
def unpivot(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    reshape.unpivot_columns(params, node.schemas["in"])
    node.carry(reshape.unpivoted)
    node.line(
        f"{out} = unpivoted({frame}, {literal(params.index)}, {literal(params.columns)}, "
        f"{params.name!r}, {params.value!r})"
    )
