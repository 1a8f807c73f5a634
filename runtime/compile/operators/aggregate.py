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
        dtype = f"{node.inputs['in']}[{aggregation.column!r}].dtype"
        if aggregation.function == "sum" and _decimal(node, aggregation.column):
            node.carry(operator.sum_dtype)
            return f"sum_dtype({dtype})"
        return dtype
    return repr(operator.FIXED_DTYPES[fixed])


def _decimal(node: NodeCode, column: str | None) -> bool:
    found = None if column is None else node.schemas["in"].get(column)
    return found is not None and found.type == "decimal"


@emits("aggregate")
def aggregate(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    operator.aggregate_columns(params, node.schemas["in"])
    reads = [(a.column, a.function) for a in params.aggregations]
    if any(f in operator.IN_FLOATS and _decimal(node, c) for c, f in reads):
        node.carry(operator.float_reads)  # means of decimals in floats, as the operator's
        node.line(f"{out}, reads = float_reads({frame}, {literal(reads)})")
        columns = [f"reads[{index}]" for index in range(len(reads))]
        frame = out
    else:
        columns = [repr(column) for column, _ in reads]
    if params.group_by:
        named = ", ".join(
            f"{a.output_name!r}: ({column if a.column else repr(params.group_by[0])}, "
            f"{a.function!r})"
            for a, column in zip(params.aggregations, columns, strict=True)
        )
        node.line(
            f"{out} = {frame}.groupby({literal(params.group_by)}, sort=True, dropna=False, "
            f"observed=True).agg(**{{{named}}}).reset_index()"
        )
    else:
        node.carry(operator.reduced)
        node.line(f"{out} = pd.DataFrame({{")
        for a, column in zip(params.aggregations, columns, strict=True):
            source = frame if a.column is None else f"{frame}[{column}]"
            node.line(
                f"    {a.output_name!r}: pd.Series([reduced({source}, {a.function!r})], "
                f"dtype={_dtype(node, a)}),"
            )
        node.line("})")
    dtypes = ", ".join(f"{a.output_name!r}: {_dtype(node, a)}" for a in params.aggregations)
    node.line(f"{out} = {out}.astype({{{dtypes}}})")
