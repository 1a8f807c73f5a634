"""Emitters of `join` and `union`, with the column plans the operators compute from their
input schemas (`join_plan`, `union_columns`) worked out once, while compiling."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import combine


@emits("join")
def join(node: NodeCode) -> None:
    params, out = node.params, node.outputs["out"]
    left, right = node.inputs["left"], node.inputs["right"]
    plan = combine.join_plan(params, node.schemas["left"], node.schemas["right"])
    node.line(
        f"{out} = {left}.merge({right}, how={params.how!r}, left_on={literal(params.left_on)}, "
        f"right_on={literal(params.right_on)}, suffixes={tuple(params.suffixes)!r})"
    )
    if plan.widened_keys:
        widened = ", ".join(
            f"{key!r}: {out}[{key!r}].astype('float64')" for key in plan.widened_keys
        )
        node.line(f"{out} = {out}.assign(**{{{widened}}})")
    names = [column.name for column in plan.columns]
    node.line(f"{out} = {out}[{literal(names)}]")


@emits("union")
def union(node: NodeCode) -> None:
    frames, out = node.inputs["in"], node.outputs["out"]
    if len(frames) == 1:
        node.line(f"{out} = {frames[0]}")
        return
    schemas = node.schemas["in"]
    floats = {c.name for c in combine.union_columns(schemas) if c.type == "float"}
    parts = []
    for frame, schema in zip(frames, schemas, strict=True):
        names = [c.name for c in schema.columns if c.name in floats and c.type == "integer"]
        if names:
            widened = ", ".join(f"{name!r}: {frame}[{name!r}].astype('float64')" for name in names)
            parts.append(f"{frame}.assign(**{{{widened}}})")
        else:
            parts.append(frame)
    node.line(f"{out} = pd.concat([{', '.join(parts)}], ignore_index=True, sort=False)")
