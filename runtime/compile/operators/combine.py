"""Emitters of `join` and `union`, with the column plans the operators compute from their
input schemas (`join_plan`, `union_columns`) worked out once, while compiling. A semi or anti
join, and a join's condition, call the runtime's own pieces (runtime/operators/join_condition.py),
carried into the script, around the condition written out as pandas code."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.expressions.compiler import positional_view
from runtime.expressions.values import is_true
from runtime.operators import combine, join_condition
from runtime.tables.schema import Schema


@emits("join")
def join(node: NodeCode) -> None:
    params, out = node.params, node.outputs["out"]
    left, right = node.inputs["left"], node.inputs["right"]
    left_schema, right_schema = node.schemas["left"], node.schemas["right"]
    plan = combine.join_plan(params, left_schema, right_schema)
    condition = None
    if params.condition is not None:
        joined = Schema(tuple(column for _, _, column in plan.sources))
        condition = node.expression("condition", node.raw["condition"], joined)
        node.carry(positional_view, is_true)
    if params.how in join_condition.FILTERING:
        _filtering(node, plan, condition)
        return
    position = other = None
    if condition is not None and params.how == "left":
        position, other = join_condition.join_rows(
            params, plan, left_schema.names, right_schema.names
        )
        left = f"{left}.assign(**{{{position!r}: np.arange(len({left}))}})"
        right = f"{right}.assign(**{{{other!r}: np.arange(len({right}))}})"
        node.imports.add("import numpy as np")
    node.line(
        f"{out} = {left}.merge({right}, how={params.how!r}, left_on={literal(params.left_on)}, "
        f"right_on={literal(params.right_on)}, suffixes={tuple(params.suffixes)!r})"
    )
    if plan.widened_keys:
        widened = ", ".join(
            f"{key!r}: {out}[{key!r}].astype('float64')" for key in plan.widened_keys
        )
        node.line(f"{out} = {out}.assign(**{{{widened}}})")
    if condition is not None:
        node.line(f"view = positional_view({out})")
        node.line(f"kept = is_true({condition.code})")
    if condition is not None and params.how == "inner":
        node.imports.add("import numpy as np")
        node.line(f"{out} = {out}.take(np.flatnonzero(kept)).reset_index(drop=True)")
    elif condition is not None:
        node.carry(join_condition.kept_left_rows)
        right_names = [column.name for side, _, column in plan.sources if side == "right"]
        node.line(
            f"{out} = kept_left_rows({out}, kept, {position!r}, {other!r}, "
            f"len({node.inputs['left']}), {literal(right_names)})"
        )
    names = [column.name for column in plan.columns]
    node.line(f"{out} = {out}[{literal(names)}]")


def _filtering(node: NodeCode, plan, condition) -> None:
    """A semi or anti join: the left rows whose row numbers are (or are not) among the pairs'."""
    params, out = node.params, node.outputs["out"]
    left, right = node.inputs["left"], node.inputs["right"]
    layout = join_condition.pair_layout(
        params, plan, node.schemas["left"].names, node.schemas["right"].names
    )
    node.carry(join_condition.key_pairs, join_condition.rows_with)
    arguments = ", ".join(f"{name}={literal(value)}" for name, value in layout.items())
    node.line(f"pairs = key_pairs({left}, {right}, {arguments})")
    node.line(f"positions = pairs[{layout['position']!r}].to_numpy()")
    if condition is not None:
        node.line("view = positional_view(pairs)")
        node.line(f"positions = positions[is_true({condition.code})]")
    matched = params.how == "semi"
    node.line(f"{out} = {left}.take(rows_with(len({left}), positions, {matched!r}))")


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
