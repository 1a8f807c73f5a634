"""Emitter of `aggregate`: one named `groupby().agg()` call, or one row for the whole table
through the operator's own reducers, then the engine's dtypes for each summary."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators import aggregate as operator


def _dtype(node: NodeCode, aggregation) -> str:
    fixed = operator.FIXED_TYPES.get(aggregation.function)
    if fixed is None:
        return f"{node.inputs['in']}[{aggregation.column!r}].dtype"
    return repr(operator.FIXED_DTYPES[fixed])


@emits("aggregate")
def aggregate(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    operator.aggregate_columns(params, node.schemas["in"])
    if params.group_by:
        named = ", ".join(
            f"{a.output_name!r}: ({(a.column or params.group_by[0])!r}, {a.function!r})"
            for a in params.aggregations
        )
        node.line(
            f"{out} = {frame}.groupby({literal(params.group_by)}, sort=True, dropna=False, "
            f"observed=True).agg(**{{{named}}}).reset_index()"
        )
    else:
        node.carry(operator.reduced)
        node.line(f"{out} = pd.DataFrame({{")
        for a in params.aggregations:
            source = frame if a.column is None else f"{frame}[{a.column!r}]"
            node.line(
                f"    {a.output_name!r}: pd.Series([reduced({source}, {a.function!r})], "
                f"dtype={_dtype(node, a)}),"
            )
        node.line("})")
    dtypes = ", ".join(f"{a.output_name!r}: {_dtype(node, a)}" for a in params.aggregations)
    node.line(f"{out} = {out}.astype({{{dtypes}}})")
