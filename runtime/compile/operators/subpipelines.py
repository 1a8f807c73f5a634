"""Emitters of `pipeline_input` (an empty table of its expected columns, as a run of the
pipeline on its own reads) and `pipeline_output` (nothing). A `subpipeline` node is inlined
before compiling (`python -m runtime compile` does it), so reaching one here is refused; a
`for_each` is too, unless it matched no file: then it is its declared empty result; one over
groups or chunks is refused."""

from __future__ import annotations

from runtime.compile.errors import CompileRefused
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.lazy import pd
from runtime.operators.subpipelines import empty_result, runs_per_iteration
from runtime.tables.casting import cast_series


@emits("pipeline_input")
def pipeline_input(node: NodeCode) -> None:
    node.line(f"{node.outputs['out']} = {_empty_frame(node.params.columns)}")


@emits("for_each")
def for_each(node: NodeCode) -> None:
    """Left after inlining only when it matched no file (its declared empty result), or when it
    loops over groups or chunks: refused, its iterations are known only when it runs."""
    if runs_per_iteration(node.params):
        raise CompileRefused(
            f"a loop over {node.params.over} runs its body once per iteration when the pipeline "
            "runs; a script has no such step yet",
            node.id,
        )
    frame = _empty_frame(empty_result(node.params).columns)
    for variable in node.outputs.values():
        node.line(f"{variable} = {frame}")


def _empty_frame(columns) -> str:
    empty = pd.Series([], dtype=object)
    typed = ", ".join(
        f"{column.name!r}: pd.Series([], dtype={str(cast_series(empty, column.type).dtype)!r})"
        for column in columns
    )
    return f"pd.DataFrame({{{typed}}})"


@emits("pipeline_output")
def pipeline_output(node: NodeCode) -> None:
    node.line(f"# {node.id}: the pipeline's output '{node.params.name}' (written by its user)")


@emits("subpipeline")
def subpipeline(node: NodeCode) -> None:
    raise CompileRefused(f"{node.id}: a sub-pipeline is compiled inlined; inline it first")
