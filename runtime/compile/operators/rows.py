"""Emitters of the row operators: sort, deduplicate, limit, sample and drop_nulls."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import rows
from runtime.operators.column_params import chosen_columns


@emits("sort")
def sort(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    by = rows.sort_columns(node.params, node.schemas["in"])
    ascending = [not key.descending for key in node.params.by]
    position = "last" if node.params.nulls_last else "first"
    node.line(
        f"{out} = {frame}.sort_values({literal(by)}, ascending={ascending!r}, "
        f'na_position="{position}", kind="stable", ignore_index=True)'
    )


@emits("deduplicate")
def deduplicate(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    columns = node.params.columns
    chosen_columns("columns", columns, node.schemas["in"])
    subset = literal(columns) if columns else "None"
    node.line(f"{out} = {frame}.drop_duplicates({subset}, keep={node.params.keep!r})")


@emits("limit")
def limit(node: NodeCode) -> None:
    node.line(f"{node.outputs['out']} = {node.inputs['in']}.head({node.value('n')})")


@emits("sample")
def sample(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    params = node.params
    node.imports.add("import numpy as np")
    if params.n is not None:
        node.line(f"size = {node.value('n')}")
    else:
        node.line(f"size = round({node.value('fraction')} * len({frame}))")
    node.line(
        f"positions = np.random.default_rng({node.value('seed')}).choice("
        f"len({frame}), size=min(size, len({frame})), replace=False)"
    )
    node.line("positions.sort()")
    node.line(f"{out} = {frame}.take(positions)")


@emits("drop_nulls")
def drop_nulls(node: NodeCode) -> None:
    frame, out = node.inputs["in"], node.outputs["out"]
    columns = node.params.columns
    chosen_columns("columns", columns, node.schemas["in"])
    subset = literal(columns) if columns else "None"
    node.line(f"{out} = {frame}.dropna(subset={subset})")
