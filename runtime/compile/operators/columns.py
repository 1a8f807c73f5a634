"""Emitters of the column operators and of `filter`: expressions become pandas code
(`runtime/compile/expressions.py`) evaluated over a positional view of the frame, as the
runtime evaluates them."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.expressions.compiler import positional_view
from runtime.expressions.values import is_true
from runtime.operators import column_ops
from runtime.operators.column_params import conventional
from runtime.tables.casting import cast_series


@emits("filter")
def filter_rows(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    condition = node.expression("condition", node.raw["condition"], node.schemas["in"])
    node.carry(positional_view, is_true)
    node.imports.add("import numpy as np")
    node.line(f"view = positional_view({frame})")
    node.line(f"keep = is_true({condition.code})")
    node.line(f"{out} = {frame} if keep.all() else {frame}.take(np.flatnonzero(keep))")


@emits("transform")
def transform(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    schema = node.schemas["in"]
    node.carry(positional_view, conventional)
    node.line(f"{out} = {frame}")
    live = column_ops.live_mappings(node.params, node.columns)  # what anything reads
    skipped = set(range(len(node.params.mappings))) - {index for index, _ in live}
    node.handled |= {f"mappings[{index}].expression" for index in skipped}
    for index, mapping in live:
        raw = node.raw["mappings"][index]["expression"]
        code = node.expression(f"mappings[{index}].expression", raw, schema)
        node.line(f"view = positional_view({out})")
        node.line(f"values = {code.code}.set_axis({out}.index).rename(None)")
        values = "values"
        if mapping.type is not None:
            node.carry(cast_series)
            values = f"cast_series(values, {mapping.type!r})"
        node.line(f"{out} = {out}.assign(**{{{mapping.target!r}: conventional({values})}})")
        schema = column_ops.with_column(schema, column_ops.mapped_column(index, mapping, schema))
    if not node.params.keep_other_columns:
        targets = list(dict.fromkeys(mapping.target for _, mapping in live))
        node.line(f"{out} = {out}[{literal(targets)}]")


@emits("select")
def select(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    names = column_ops.selected_names(node.params, node.schemas["in"])
    code = f"{frame}[{literal(names)}]" if node.params.columns else frame
    if node.params.rename:
        code += f".rename(columns={literal(node.params.rename)})"
    node.line(f"{out} = {code}")


@emits("cast")
def cast(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    types = column_ops.cast_types(node.params, node.schemas["in"])
    node.carry(cast_series)
    converted = ", ".join(
        f"{name!r}: cast_series({frame}[{name!r}], {kind!r})" for name, kind in types.items()
    )
    node.line(f"{out} = {frame}.assign(**{{{converted}}})")


@emits("fill_nulls")
def fill_nulls(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    values = column_ops.fill_values(node.params, node.schemas["in"])
    node.line(f"{out} = {frame}.fillna({literal(values)})")
