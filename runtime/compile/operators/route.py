"""The emitter of `route`: each condition's mask over a positional view, as `Route.run` takes
rows (the first condition met, or every one), and `otherwise` for the rows that met none."""

from __future__ import annotations

from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.expressions.compiler import positional_view
from runtime.expressions.values import is_true
from runtime.operators.route import OTHERWISE


@emits("route")
def route(node: NodeCode) -> None:
    frame, params = node.inputs["in"], node.params
    node.carry(positional_view, is_true)
    node.imports.add("import numpy as np")
    node.line(f"view = positional_view({frame})")
    node.line(f"taken = np.zeros(len({frame}), dtype=bool)")
    for index, condition in enumerate(params.conditions):
        raw = node.raw["conditions"][index]["condition"]
        code = node.expression(f"conditions[{index}].condition", raw, node.schemas["in"])
        node.line(f"meets = is_true({code.code})")
        chosen = "meets & ~taken" if params.mode == "first" else "meets"
        node.line(f"{node.outputs[condition.name]} = {frame}.take(np.flatnonzero({chosen}))")
        node.line("taken |= meets")
    node.line(f"{node.outputs[OTHERWISE]} = {frame}.take(np.flatnonzero(~taken))")
