"""Emitters of `pipeline_input` (an empty table of its expected columns, as a run of the
pipeline on its own reads) and `pipeline_output` (nothing). A `subpipeline` node is inlined
before compiling (`python -m runtime compile` does it), so reaching one here is refused."""

from __future__ import annotations

from runtime.compile.errors import CompileRefused
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.lazy import pd
from runtime.tables.casting import cast_series


@emits("pipeline_input")
def pipeline_input(node: NodeCode) -> None:
    empty = pd.Series([], dtype=object)
    columns = ", ".join(
        f"{column.name!r}: pd.Series([], dtype={str(cast_series(empty, column.type).dtype)!r})"
        for column in node.params.columns
    )
    node.line(f"{node.outputs['out']} = pd.DataFrame({{{columns}}})")


@emits("pipeline_output")
def pipeline_output(node: NodeCode) -> None:
    node.line(f"# {node.id}: the pipeline's output '{node.params.name}' (written by its user)")


@emits("subpipeline")
def subpipeline(node: NodeCode) -> None:
    raise CompileRefused(f"{node.id}: a sub-pipeline is compiled inlined; inline it first")
