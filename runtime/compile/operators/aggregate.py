"""Emitter of `aggregate`: one named `groupby().agg()` call, or one row for the whole table
through the operator's own reducers, then the engine's dtypes for each summary. Expressions
summarised and `where` conditions are written out as code, then handed to the operator's own
`computed_reads`, as a run does."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.expressions.compiler import positional_view
from runtime.expressions.values import is_true
from runtime.operators import aggregate as operator
from runtime.operators.column_params import conventional


def _dtype(node: NodeCode, aggregation) -> str:
    fixed = operator.FIXED_TYPES.get(aggregation.function)
    if fixed is None:
        dtype = f"{node.inputs['in']}[{aggregation.column!r}].dtype"
        if aggregation.function == "sum" and _decimal(node, aggregation.column):
            node.carry(operator.sum_dtype)
            return f"sum_dtype({dtype})"
        return dtype
    return repr(operator.FIXED_DTYPES[fixed])


def _pandas(aggregation) -> str:
    """The function pandas computes for an aggregation of every row (nunique for
    count_distinct)."""
    return operator.pandas_function(aggregation.function, where=False)


def _decimal(node: NodeCode, column: str | None) -> bool:
    found = None if column is None else node.schemas["in"].get(column)
    return found is not None and found.type == "decimal"


@emits("aggregate")
def aggregate(node: NodeCode) -> None:
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    operator.aggregate_columns(params, node.schemas["in"])
    computed = any(a.expression is not None or a.where is not None for a in params.aggregations)
    if computed or any(
        a.function == "mean" and _decimal(node, a.column) for a in params.aggregations
    ):
        _computed(node)
        return
    reads = [(a.column, a.function) for a in params.aggregations]
    if any(f in operator.IN_FLOATS and _decimal(node, c) for c, f in reads):
        node.carry(operator.float_reads)  # medians of decimals in floats, as the operator's
        node.line(f"{out}, reads = float_reads({frame}, {literal(reads)})")
        columns = [f"reads[{index}]" for index in range(len(reads))]
        frame = out
    else:
        columns = [repr(column) for column, _ in reads]
    if params.group_by:
        named = ", ".join(
            f"{a.output_name!r}: ({column if a.column else repr(params.group_by[0])}, "
            f"{_pandas(a)!r})"
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
                f"    {a.output_name!r}: pd.Series([reduced({source}, {_pandas(a)!r})], "
                f"dtype={_dtype(node, a)}),"
            )
        node.line("})")
    dtypes = ", ".join(f"{a.output_name!r}: {_dtype(node, a)}" for a in params.aggregations)
    node.line(f"{out} = {out}.astype({{{dtypes}}})")


def _computed(node: NodeCode) -> None:
    """The aggregate when some aggregation summarises an expression, counts only some rows or
    averages decimals: their values and masks as code, then the operator's own steps over
    them."""
    params, frame, out = node.params, node.inputs["in"], node.outputs["out"]
    node.carry(positional_view, is_true, conventional, operator.computed_reads)
    node.carry(operator.result_dtype, operator.float_reads, operator.reduced)
    node.carry(operator.exact_means, operator.divided, operator.summarised)
    node.line(f"view = positional_view({frame})")
    sources = []
    for index, a in enumerate(params.aggregations):
        values = mask = "None"
        raw = node.raw["aggregations"][index]
        if a.expression is not None:
            field = f"aggregations[{index}].expression"
            code = node.expression(field, raw["expression"], node.schemas["in"])
            values = f"values{index}"
            node.line(f"{values} = conventional({code.code})")
        if a.where is not None:
            code = node.expression(f"aggregations[{index}].where", raw["where"], node.schemas["in"])
            mask = f"mask{index}"
            node.line(f"{mask} = is_true({code.code})")
        sources.append(f"({a.column!r}, {a.function!r}, {values}, {mask})")
    names = [a.output_name for a in params.aggregations]
    functions = [a.function for a in params.aggregations]
    group_by = literal(params.group_by)
    node.line(f"{out}, reads = computed_reads({frame}, [{', '.join(sources)}])")
    node.line(
        f"dtypes = {{name: result_dtype(function, read[2]) for name, function, read in "
        f"zip({literal(names)}, {literal(functions)}, reads)}}"
    )
    node.line(f"{out}, columns = float_reads({out}, [read[:2] for read in reads])")
    node.line(
        f"summaries = [(column, read[1], name) for column, read, name in "
        f"zip(columns, reads, {literal(names)})]"
    )
    node.line(f"summaries, means = exact_means({out}, {group_by}, summaries)")
    node.line(f"{out} = divided(summarised({out}, {group_by}, summaries, dtypes), means)")
    node.line(f"{out} = {out}.astype(dtypes)")
