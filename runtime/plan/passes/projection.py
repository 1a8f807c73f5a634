"""Column pruning: which columns each node must produce, and so which each input reads.

Walking the plan from its outputs back to its inputs, every operator says which of its input
columns the columns wanted from it depend on (`Operator.input_columns`). An input operator
then reads only what can reach an output, and a transform skips mappings nobody reads: in
the seed's ETL the aggregate needs four of the users file's seven columns, so the other
three are never parsed, copied or filtered. An operator that does not declare its needs
takes every column, so pruning is always safe.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.plan import Plan

Columns = set[str] | None
"""A set of column names, or None for all of them."""


def merge(first: Columns, second: Columns) -> Columns:
    """Columns needed by either of two consumers."""
    if first is None or second is None:
        return None
    return first | second


def needed_columns(plan: Plan, keep_all: Iterable[str] = ()) -> dict[str, Columns]:
    """For every node, the columns of its `out` port that anything downstream reads (None:
    all); `keep_all` nodes keep their whole output (a preview shows every column)."""
    keep_all = set(keep_all) | plan.whole
    wanted: dict[tuple[str, str], Columns] = {}
    needed: dict[str, Columns] = {}
    for node_id in reversed(plan.order):
        node = plan.nodes[node_id]
        outputs = {
            port.name: None if node_id in keep_all else wanted.get((node_id, port.name), set())
            for port in node.ports.outputs
        }
        needed[node_id] = outputs.get("out")
        needs = node.operator.input_columns(node.params, outputs)
        for port, sources in node.inputs.items():
            for source in sources:
                wanted[source] = merge(wanted.get(source, set()), needs.get(port))
    return needed
